// What the suites share: the Relink server (through clients/conformance/start-server.sh), the fault proxy, the
// canary listener, a browser's click, and in-memory storages. Not a test file (test.sh names *.test.mjs only).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const jsRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const repoRoot = path.resolve(jsRoot, "../..");
export const conformanceDir = path.join(repoRoot, "clients/conformance");

/** The relink binary the suites run: env RELINK_BINARY, else the checkout's debug build. */
export function relinkBinary() {
    return process.env.RELINK_BINARY || path.join(repoRoot, ".build/debug/relink");
}

/**
 * Starts `relink serve` through start-server.sh and resolves `{base, emailService, apiKey, stop()}` once it
 * printed its line (`emailService`: the stand-in email service behind the click-tracking host).
 * Rejects with the script's stderr when it stops first (no binary, a port clash, a bad config).
 */
export function startServer() {
    const binary = relinkBinary();
    if (!existsSync(binary)) {
        return Promise.reject(new Error(`no relink binary at ${binary}: build it (swift build --product relink) or set RELINK_BINARY`));
    }
    const script = spawn("bash", [path.join(conformanceDir, "start-server.sh"), binary], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const exited = new Promise((resolve) => script.once("exit", resolve));
    const stop = async () => {
        if (script.exitCode === null && script.signalCode === null) script.kill("SIGTERM");
        await exited;
    };
    // A test process that dies early must not leave the server behind.
    const onExit = () => script.kill("SIGTERM");
    process.once("exit", onExit);
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            stop();
            reject(new Error(`start-server.sh printed nothing in 90 s: ${stderr}`));
        }, 90000);
        script.stderr.on("data", (chunk) => { stderr += chunk; });
        script.stdout.on("data", (chunk) => {
            stdout += chunk;
            const line = stdout.split("\n");
            if (line.length < 2) return;
            clearTimeout(timer);
            const [base, , emailService, apiKey] = line[0].split(" ");
            if (!emailService || !apiKey) {
                stop();
                reject(new Error(`start-server.sh printed no email service and key: ${line[0]}`));
                return;
            }
            resolve({
                base,
                emailService,
                apiKey,
                stop: async () => {
                    process.removeListener("exit", onExit);
                    await stop();
                },
            });
        });
        script.once("exit", (code) => {
            clearTimeout(timer);
            reject(new Error(`start-server.sh exited (${code}) before the server answered: ${stderr}`));
        });
    });
}

function listen(server) {
    return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}`)));
}

async function close(server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
}

function readBody(request) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        request.on("data", (chunk) => chunks.push(chunk));
        request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        request.on("error", reject);
    });
}

// One request to `base`, not followed: `{status, headers, body}`.
export function request(base, { method = "GET", path: target, headers = {}, body }) {
    return new Promise((resolve, reject) => {
        const url = new URL(target, base);
        const outgoing = http.request(url, { method, headers }, (response) => {
            readBody(response).then((text) => resolve({ status: response.statusCode, headers: response.headers, body: text }), reject);
        });
        outgoing.on("error", reject);
        outgoing.end(body);
    });
}

/** The clicks the stand-in email service has counted so far. */
export async function emailServiceClicks(server) {
    const answer = await request(server.emailService, { path: "/clicks" });
    if (answer.status !== 200) throw new Error(`the email service's /clicks answered ${answer.status}`);
    return JSON.parse(answer.body).clicks;
}

/** The `APP_RE_OPEN` events of a short link, all platforms, from its link stats. */
export async function reopens(server, shortLink) {
    const target = `/v1/${encodeURIComponent(shortLink)}/linkStats?durationDays=1&key=${encodeURIComponent(server.apiKey)}`;
    const answer = await request(server.base, { path: target });
    if (answer.status !== 200) throw new Error(`linkStats of ${shortLink} answered ${answer.status}: ${answer.body}`);
    return JSON.parse(answer.body).linkEventStats
        .filter((stat) => stat.event === "APP_RE_OPEN")
        .reduce((sum, stat) => sum + Number(stat.count), 0);
}

/**
 * The fault proxy of clients/conformance/README.md: answers armed faults in order, else forwards to the server
 * with `Forwarded: for=<address>`; records each request's method, path and JSON body.
 */
export async function startProxy(serverBase) {
    const state = { faults: [], records: [], address: "127.0.0.1", forwarding: 0 };
    const server = http.createServer(async (incoming, outgoing) => {
        outgoing.on("error", () => {}); // the client may have timed out and gone
        try {
            const text = await readBody(incoming);
            let json;
            try {
                json = JSON.parse(text);
            } catch (_) {
                json = undefined;
            }
            state.records.push({ method: incoming.method, path: incoming.url, body: json });
            const fault = state.faults.shift();
            if (fault && fault.status !== undefined) {
                const body = typeof fault.body === "string" ? fault.body : JSON.stringify(fault.body === undefined ? null : fault.body);
                const headers = Object.assign(typeof fault.body === "string" ? {} : { "Content-Type": "application/json" }, fault.headers || {});
                outgoing.writeHead(fault.status, headers);
                outgoing.end(body);
                return;
            }
            const headers = { Forwarded: `for=${state.address}` };
            for (const name of ["content-type", "accept"]) if (incoming.headers[name]) headers[name] = incoming.headers[name];
            state.forwarding += 1;
            let answer;
            try {
                answer = await request(serverBase, { method: incoming.method, path: incoming.url, headers, body: text });
            } finally {
                state.forwarding -= 1;
            }
            if (fault && fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
            const passed = {};
            for (const name of ["content-type", "retry-after", "location"]) if (answer.headers[name]) passed[name] = answer.headers[name];
            outgoing.writeHead(answer.status, passed);
            outgoing.end(answer.body);
        } catch (error) {
            if (!outgoing.headersSent) outgoing.writeHead(502, { "Content-Type": "text/plain" });
            outgoing.end(`proxy: ${error.message}`);
        }
    });
    const url = await listen(server);
    return {
        url,
        state,
        reset() {
            state.faults = [];
            state.records = [];
            state.address = "127.0.0.1";
        },
        stop: () => close(server),
        /** Resolves once the server has answered every request forwarded to it (a delayed one included). */
        async settled() {
            for (let waited = 0; state.forwarding > 0; waited += 20) {
                if (waited > 30000) throw new Error("a forwarded request is still at the server after 30 s");
                await new Promise((resolve) => setTimeout(resolve, 20));
            }
        },
    };
}

/** A listener that must never be asked: it counts what it receives. */
export async function startCanary() {
    const state = { count: 0 };
    const server = http.createServer((incoming, outgoing) => {
        state.count += 1;
        incoming.resume();
        outgoing.writeHead(200, { "Content-Type": "application/json" });
        outgoing.end(JSON.stringify({ matchMessage: "canary", deepLink: "https://canary.test/", attributionConfidence: "UNIQUE" }));
    });
    const url = await listen(server);
    return { url, state, stop: () => close(server) };
}

/** A loopback base URL where nothing listens (a port bound, then released). */
export async function deadBase() {
    const server = http.createServer();
    const url = await listen(server);
    await close(server);
    return url;
}

/**
 * A browser's click, straight to the server (not through the proxy, not followed), as the scenarios describe it.
 * @returns {Promise<{status: number, location: string|undefined}>}
 */
export async function click(serverBase, { path: target, userAgent, address, acceptLanguage }) {
    const headers = { "User-Agent": userAgent, Forwarded: `for=${address};host=go.relink.test;proto=https` };
    if (acceptLanguage) headers["Accept-Language"] = acceptLanguage;
    const answer = await request(serverBase, { path: target, headers });
    return { status: answer.status, location: answer.headers.location };
}

/** The `referrer` query parameter of a Play Store URL, percent-decoded, as Play hands it to the app. */
export function referrerOf(location) {
    const match = /[?&]referrer=([^&#]*)/.exec(location || "");
    if (!match) throw new Error(`no referrer in ${location}`);
    return decodeURIComponent(match[1]);
}

/** localStorage's shape: synchronous, null for a missing key. */
export class MemoryStorage {
    constructor() {
        this.items = new Map();
    }
    getItem(key) {
        return this.items.has(key) ? this.items.get(key) : null;
    }
    setItem(key, value) {
        this.items.set(key, String(value));
    }
}

/** AsyncStorage's shape: promises. */
export class AsyncMemoryStorage {
    constructor() {
        this.items = new Map();
    }
    async getItem(key) {
        await Promise.resolve();
        return this.items.has(key) ? this.items.get(key) : null;
    }
    async setItem(key, value) {
        await Promise.resolve();
        this.items.set(key, String(value));
    }
}
