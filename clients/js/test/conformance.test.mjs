// The conformance runner of clients/conformance/README.md: every scenarios/*.json against a live server, through
// this runner's fault proxy, one test per file.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Relink } from "../relink.mjs";
import {
    MemoryStorage, click, conformanceDir, deadBase, emailServiceClicks, referrerOf, reopens, startCanary, startProxy, startServer,
} from "./harness.mjs";

const scenarioDir = path.join(conformanceDir, "scenarios");
const scenarioFiles = readdirSync(scenarioDir).filter((name) => name.endsWith(".json")).sort();
const EXPECTED_LINK_FIELDS = ["deepLink", "confidence", "utmSource", "utmMedium", "utmCampaign", "utmContent", "utmTerm"];

describe("conformance", () => {
    let server;
    let proxy;
    let canary;
    let nowhere;

    before(async () => {
        server = await startServer();
        proxy = await startProxy(server.base);
        canary = await startCanary();
        nowhere = await deadBase();
    });

    after(async () => {
        if (proxy) await proxy.stop();
        if (canary) await canary.stop();
        if (server) await server.stop();
    });

    test("the scenario folder is read", () => {
        assert.ok(scenarioFiles.length >= 12, `only ${scenarioFiles.length} scenarios in ${scenarioDir}`);
    });

    for (const file of scenarioFiles) {
        test(file, async () => {
            const scenario = JSON.parse(readFileSync(path.join(scenarioDir, file), "utf8"));
            await runScenario(scenario, { server, proxy, canary, nowhere });
        });
    }
});

// The keys clients/conformance/README.md defines: any other is a typo that would check nothing.
const SCENARIO_KEYS = ["description", "platform", "client", "serverDown", "steps"];
const STEP_KEYS = ["click", "relaunch", "client", "faults", "claim", "reopen", "resolve", "expect", "saveReferrerAs"];
const EXPECT_KEYS = ["status", "locationStartsWith", "result", "deepLink", "confidence", "utmSource", "utmMedium", "utmCampaign",
    "utmContent", "utmTerm", "routeParameters", "error", "requests", "sameInstallId", "canaryRequests", "emailServiceClicks", "reopens"];

function unknownKeys(scenario) {
    const unknown = Object.keys(scenario).filter((key) => !SCENARIO_KEYS.includes(key));
    for (const [index, step] of (scenario.steps || []).entries()) {
        unknown.push(...Object.keys(step).filter((key) => !STEP_KEYS.includes(key)).map((key) => `step ${index + 1}: ${key}`));
        const expect = step.expect || {};
        unknown.push(...Object.keys(expect).filter((key) => !EXPECT_KEYS.includes(key)).map((key) => `step ${index + 1}: expect.${key}`));
    }
    return unknown;
}

async function runScenario(scenario, { server, proxy, canary, nowhere }) {
    assert.deepEqual(unknownKeys(scenario), [], "keys clients/conformance/README.md does not define");
    proxy.reset();
    canary.state.count = 0;
    const storage = new MemoryStorage();
    const options = {
        server: scenario.serverDown ? nowhere : proxy.url,
        platform: scenario.platform,
        appId: "test.relink.shop",
        storage,
    };
    const client = scenario.client || {};
    if (client.timeoutMs !== undefined) options.timeoutMs = client.timeoutMs;
    if (client.retryBudgetMs !== undefined) options.retryBudgetMs = client.retryBudgetMs;
    let relink = new Relink(options);
    const saved = { canary: canary.url };

    for (const [index, rawStep] of scenario.steps.entries()) {
        const step = substitute(rawStep, saved);
        const where = `step ${index + 1}`;
        if (step.click) {
            const answer = await click(server.base, step.click);
            if (step.expect && step.expect.status !== undefined) assert.equal(answer.status, step.expect.status, `${where}: the click's status`);
            if (step.expect && step.expect.locationStartsWith !== undefined) {
                assert.ok((answer.location || "").startsWith(step.expect.locationStartsWith), `${where}: the click went to ${answer.location}`);
            }
            if (step.saveReferrerAs) saved[step.saveReferrerAs] = referrerOf(answer.location);
            continue;
        }
        if (step.relaunch) {
            if (step.client && step.client.timeoutMs !== undefined) options.timeoutMs = step.client.timeoutMs;
            if (step.client && step.client.retryBudgetMs !== undefined) options.retryBudgetMs = step.client.retryBudgetMs;
            relink = new Relink(options);
            continue;
        }

        const call = ["claim", "reopen", "resolve"].find((name) => step[name] !== undefined);
        assert.ok(call, `${where}: no click, relaunch, claim, reopen or resolve`);
        const input = step[call];
        proxy.state.faults = (step.faults || []).slice();
        proxy.state.address = input.address || "127.0.0.1";
        const requestsBefore = proxy.state.records.length;
        const expect = step.expect || {};
        const clicksBefore = await emailServiceClicks(server);
        const reopensBefore = expect.reopens ? await reopens(server, expect.reopens.link) : 0;

        let result;
        if (call === "claim") {
            result = await relink.claimDeferredLink({
                device: input.device, installReferrer: input.installReferrer, clipboardLink: input.clipboardLink,
            });
        } else {
            result = await relink[call](input.url);
        }
        await proxy.settled();
        const seen = `${where} answered ${JSON.stringify(result)}`;
        assert.equal(proxy.state.faults.length, 0, `${seen}: faults left unused`);
        checkExpect(expect, result, seen);
        if (expect.requests !== undefined) {
            assert.equal(proxy.state.records.length - requestsBefore, expect.requests, `${seen}: requests reaching the proxy`);
        }
        if (expect.sameInstallId) {
            const claims = proxy.state.records.filter((record) => record.path === "/v1/installAttribution");
            assert.ok(claims.length > 0, `${seen}: no claim reached the proxy`);
            const ids = new Set(claims.map((record) => record.body && record.body.installId));
            assert.ok(typeof [...ids][0] === "string" && ids.size === 1, `${seen}: install ids ${JSON.stringify([...ids])}`);
        }
        if (expect.canaryRequests !== undefined) {
            assert.equal(canary.state.count, expect.canaryRequests, `${seen}: requests at the canary`);
        }
        if (expect.emailServiceClicks !== undefined) {
            assert.equal(await emailServiceClicks(server) - clicksBefore, expect.emailServiceClicks, `${seen}: clicks the email service counted`);
        }
        if (expect.reopens) {
            assert.equal(await reopens(server, expect.reopens.link) - reopensBefore, expect.reopens.count, `${seen}: re-opens of ${expect.reopens.link}`);
        }
    }
}

function checkExpect(expect, result, seen) {
    if (expect.result !== undefined) assert.equal(result.result, expect.result, `${seen}: result`);
    const link = result.link || {};
    for (const field of EXPECTED_LINK_FIELDS) {
        if (expect[field] !== undefined) assert.equal(link[field], expect[field], `${seen}: ${field}`);
    }
    if (expect.routeParameters !== undefined) assert.deepEqual(link.routeParameters, expect.routeParameters, `${seen}: routeParameters`);
    if (expect.error !== undefined) {
        assert.ok(result.error, `${seen}: no error`);
        for (const field of ["kind", "status", "apiStatus", "retryAfterSeconds"]) {
            if (expect.error[field] !== undefined) assert.equal(result.error[field], expect.error[field], `${seen}: error.${field}`);
        }
    }
}

// `{{name}}` in every string of a step, from the values saved so far.
function substitute(value, saved) {
    if (typeof value === "string") {
        return value.replace(/\{\{(\w+)\}\}/g, (whole, name) => {
            if (saved[name] === undefined) throw new Error(`{{${name}}} used before it was saved`);
            return saved[name];
        });
    }
    if (Array.isArray(value)) return value.map((item) => substitute(item, saved));
    if (value !== null && typeof value === "object") {
        const copy = {};
        for (const key of Object.keys(value)) copy[key] = substitute(value[key], saved);
        return copy;
    }
    return value;
}
