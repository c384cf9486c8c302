// clients/conformance/start-server.sh leaves nothing running when it is killed, or when whoever started it is:
// a test runner killed on a timeout (SIGKILL, no trap runs) must not leave `relink serve` and the stand-in email
// service holding their ports and database for the rest of the machine's life.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { conformanceDir, relinkBinary } from "./harness.mjs";

/** Starts start-server.sh under a parent shell that waits for it; resolves the parent, the script's pid and its line. */
function startUnderParent() {
    const script = path.join(conformanceDir, "start-server.sh");
    // The parent prints the script's pid, then waits (not `exec`: the script must have a parent that can die first).
    const parent = spawn("bash", ["-c", 'bash "$0" "$1" & echo "script $!"; wait', script, relinkBinary()], {
        stdio: ["ignore", "pipe", "inherit"],
    });
    return new Promise((resolve, reject) => {
        let stdout = "";
        const timer = setTimeout(() => reject(new Error(`start-server.sh printed nothing in 90 s: ${stdout}`)), 90000);
        parent.stdout.on("data", (chunk) => {
            stdout += chunk;
            const lines = stdout.split("\n");
            const scriptLine = lines.find((line) => line.startsWith("script "));
            const serverLine = lines.find((line) => line.startsWith("http://"));
            if (!scriptLine || !serverLine) return;
            clearTimeout(timer);
            const [base, serverPid, emailService] = serverLine.split(" ");
            resolve({ parent, scriptPid: Number(scriptLine.split(" ")[1]), base, serverPid: Number(serverPid), emailService });
        });
        parent.once("exit", (code) => reject(new Error(`the parent shell exited (${code}): ${stdout}`)));
    });
}

function isRunning(pid) {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

async function answers(url) {
    try {
        await fetch(url, { signal: AbortSignal.timeout(2000) });
        return true;
    } catch {
        return false;
    }
}

/** Waits up to 15 s for `stopped()` to hold. */
async function eventually(stopped) {
    for (let i = 0; i < 75 && !(await stopped()); i++) await new Promise((resolve) => setTimeout(resolve, 200));
    return stopped();
}

for (const victim of ["script", "parent"]) {
    test(`start-server.sh leaves no server or email service behind when the ${victim} is killed with SIGKILL`, { skip: !existsSync(relinkBinary()) }, async () => {
        const started = await startUnderParent();
        try {
            assert.ok(await answers(`${started.emailService}/clicks`));
            process.kill(victim === "script" ? started.scriptPid : started.parent.pid, "SIGKILL");
            assert.ok(await eventually(async () => !isRunning(started.serverPid)), "relink serve still runs");
            assert.ok(await eventually(async () => !(await answers(`${started.emailService}/clicks`))), "the email service still answers");
            assert.ok(await eventually(async () => !isRunning(started.scriptPid)), "start-server.sh still runs");
        } finally {
            for (const pid of [started.scriptPid, started.parent.pid]) if (isRunning(pid)) process.kill(pid, "SIGTERM");
        }
    });
}
