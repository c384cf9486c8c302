// What the scenarios do not reach: Retry-After parsing, the retry budget, the claim-link and server-URL checks,
// the wire format, storage failures, and that no input makes a call throw. The server is a fetch passed in.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { describe, test } from "node:test";
import * as library from "../relink.mjs";
import { Relink, SDK_VERSION, newInstallId, parseRetryAfter } from "../relink.mjs";
import { AsyncMemoryStorage, MemoryStorage, jsRoot } from "./harness.mjs";

const ORGANIC = { matchMessage: "No pre-install link matched for this device.", invitationId: "", isStrongMatchExecutable: false };
const RESOLVED = { deepLink: "https://shop.example/p/1", resolvedLink: "https://go.example.com/?link=https%3A%2F%2Fshop.example%2Fp%2F1" };

function json(status, body, headers = {}) {
    return new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

// A fetch answering from a list (a value or a function of (url, init)), recording each call.
function fakeFetch(...answers) {
    const calls = [];
    const fetch = async (url, init) => {
        calls.push({ url, init, body: JSON.parse(init.body) });
        if (answers.length === 0) throw new Error("fakeFetch: no answer left");
        const next = answers.shift();
        return typeof next === "function" ? next(url, init) : next;
    };
    fetch.calls = calls;
    return fetch;
}

function client(options = {}) {
    return new Relink({ server: "https://go.example.com", platform: "ANDROID", appId: "com.example.app", storage: new MemoryStorage(), ...options });
}

async function timed(promise) {
    const start = Date.now();
    const result = await promise;
    return { result, ms: Date.now() - start };
}

describe("Retry-After", () => {
    test("reads delay-seconds and HTTP dates, and nothing else", () => {
        assert.equal(parseRetryAfter("1"), 1);
        assert.equal(parseRetryAfter(" 30 "), 30);
        assert.equal(parseRetryAfter("0"), 0);
        const now = Date.parse("2026-11-27T05:00:00Z");
        assert.equal(parseRetryAfter("Fri, 27 Nov 2026 05:00:20 GMT", now), 20);
        assert.equal(parseRetryAfter("Fri, 27 Nov 2026 04:59:00 GMT", now), 0, "a date past is no wait");
        for (const unreadable of [null, undefined, "", "soon", "-1", "1.5", "5 minutes", "2026-11-27T05:00:20Z", "Fri, 99 Nov 2026 05:00:20 GMT"]) {
            assert.equal(parseRetryAfter(unreadable, now), undefined, `${unreadable} is unreadable`);
        }
    });

    test("an absent or unreadable Retry-After waits 1 s, then the retry answers", async () => {
        for (const headers of [{}, { "Retry-After": "soon" }]) {
            const fetch = fakeFetch(json(503, { error: { code: 503, message: "down", status: "UNAVAILABLE" } }, headers), json(200, RESOLVED));
            const { result, ms } = await timed(client({ fetch }).resolve("https://go.example.com/x"));
            assert.equal(result.result, "resolved");
            assert.equal(fetch.calls.length, 2);
            assert.ok(ms >= 950 && ms < 3000, `waited ${ms} ms`);
        }
    });

    test("at most three attempts", async () => {
        const busy = () => json(429, { error: { code: 429, message: "slow down", status: "RESOURCE_EXHAUSTED" } }, { "Retry-After": "0" });
        const fetch = fakeFetch(busy, busy, busy, json(200, ORGANIC));
        const result = await client({ fetch }).claimDeferredLink({});
        assert.deepEqual(result, {
            result: "failed",
            error: { kind: "rateLimited", status: 429, apiStatus: "RESOURCE_EXHAUSTED", message: "slow down", retryAfterSeconds: 0 },
        });
        assert.equal(fetch.calls.length, 3);
    });

    test("the waits together stay within the budget", async () => {
        const busy = () => json(503, "", { "Retry-After": "1" });
        const fetch = fakeFetch(busy, busy, json(200, RESOLVED));
        const { result, ms } = await timed(client({ fetch, retryBudgetMs: 1500 }).resolve("https://go.example.com/x"));
        assert.equal(result.result, "failed");
        assert.equal(result.error.kind, "unavailable");
        assert.equal(result.error.retryAfterSeconds, 1);
        assert.equal(fetch.calls.length, 2, "one wait of 1 s fits in 1.5 s, a second does not");
        assert.ok(ms >= 950 && ms < 1500, `waited ${ms} ms`);
    });

    test("other statuses are not retried, and carry FDL's error body", async () => {
        const fetch = fakeFetch(json(404, { error: { code: 404, message: "No link at https://go.example.com/x.", status: "NOT_FOUND" } }));
        const result = await client({ fetch }).resolve("https://go.example.com/x");
        assert.deepEqual(result.error, { kind: "http", status: 404, apiStatus: "NOT_FOUND", message: "No link at https://go.example.com/x." });
        const plain = fakeFetch(new Response("oops", { status: 500 }));
        assert.deepEqual((await client({ fetch: plain }).resolve("https://go.example.com/x")).error, { kind: "http", status: 500, message: "HTTP 500" });
        assert.equal(fetch.calls.length + plain.calls.length, 2);
    });
});

describe("hostile answers (the same results as the Swift and Android clients)", () => {
    const nested = (depth) => "[".repeat(depth) + "]".repeat(depth);

    test("an answer nested deeper than 64 levels is malformed; an error body so deep gives only its status", async () => {
        const deep = fakeFetch(json(200, nested(3000)), json(200, `{"deepLink": ${nested(65)}, "resolvedLink": "r"}`));
        const relink = client({ fetch: deep });
        assert.equal((await relink.claimDeferredLink({})).error.kind, "malformed");
        assert.equal((await relink.resolve("https://go.example.com/x")).error.kind, "malformed");
        const shallow = fakeFetch(json(200, `{"deepLink": "d", "resolvedLink": "r", "x": ${nested(62)}}`));
        assert.equal((await client({ fetch: shallow }).resolve("https://go.example.com/x")).result, "resolved", "64 levels in all pass");
        const refused = fakeFetch(json(404, `{"error": {"status": "NOT_FOUND", "x": ${nested(3000)}}}`));
        assert.deepEqual((await client({ fetch: refused }).resolve("https://go.example.com/x")).error, { kind: "http", status: 404, message: "HTTP 404" });
    });

    test("a key twice in one object is malformed, written with an escape or not", async () => {
        const twice = '{"matchMessage": "m", "deepLink": "https://first.example/", "attributionConfidence": "UNIQUE", "deepLink": "https://second.example/"}';
        const escaped = '{"deepLink": "a", "resolvedLink": "r", "\\u0064eepLink": "b"}';
        const inRoute = '{"deepLink": "a", "resolvedLink": "r", "routeParameters": {"id": "1", "id": "2"}}';
        const fetch = fakeFetch(json(200, twice), json(200, escaped), json(200, inRoute));
        const relink = client({ fetch });
        assert.equal((await relink.claimDeferredLink({})).error.kind, "malformed");
        assert.equal((await relink.resolve("https://go.example.com/x")).error.kind, "malformed");
        assert.equal((await relink.resolve("https://go.example.com/x")).error.kind, "malformed");
        const apart = fakeFetch(json(200, '{"deepLink": "deepLink", "resolvedLink": "r", "routeParameters": {"deepLink": "x", "__proto__": "p"}}'));
        const resolved = await client({ fetch: apart }).resolve("https://go.example.com/x");
        assert.equal(resolved.result, "resolved", "one key in two objects, or as a value, is not twice");
        assert.deepEqual(Object.keys(resolved.link.routeParameters), ["deepLink", "__proto__"]);
        assert.equal(resolved.link.routeParameters.__proto__, "p", "a parameter named __proto__ is kept as a parameter");
    });

    test("a comma with no value on one side is malformed, and says so", async () => {
        const answers = ['{"matchMessage": "m", "deepLink": "x", "attributionConfidence": "WEAK",}', '{"matchMessage": "m", "deepLink": "x", "u": [1,,2]}',
            '{"matchMessage": "m", "deepLink": "x", "u": [1, 2 ,\n]}', '{, "deepLink": "x"}'];
        const relink = client({ fetch: fakeFetch(...answers.map((answer) => json(200, answer))) });
        for (const answer of answers) {
            const claimed = await relink.claimDeferredLink({});
            assert.equal(claimed.error.kind, "malformed", answer);
            assert.match(claimed.error.message, /a comma/, answer);
        }
        const fine = '{"matchMessage": "m", "deepLink": ",]", "x": [[], {}, "", -1, 2e3], "attributionConfidence": "WEAK"}';
        assert.equal((await client({ fetch: fakeFetch(json(200, fine)) }).claimDeferredLink({})).result, "matched", "commas in strings are text");
    });

    test("Retry-After: IMF-fixdates of real days only, and at most 2147483647", () => {
        const now = Date.parse("2026-09-21T14:13:20Z");
        assert.equal(parseRetryAfter("Mon, 21 Sep 2026 14:14:00 GMT", now), 40);
        assert.equal(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now), 0);
        assert.equal(parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now), 2147483647);
        assert.equal(parseRetryAfter("9999999999", now), 2147483647);
        assert.equal(parseRetryAfter("Thu, 29 Feb 2024 00:00:00 GMT", Date.parse("2024-02-28T23:59:00Z")), 60);
        for (const unreadable of ["Mon, 30 Feb 2026 14:14:00 GMT", "Mon, 21 Sep 2026 14:14:00 UTC", "Mon, 21 Sep 2026 24:00:00 GMT",
            "Monday, 21-Sep-26 14:14:00 GMT", "Mon Sep 21 14:14:00 2026", "mon, 21 sep 2026 14:14:00 GMT", "1, 2"]) {
            assert.equal(parseRetryAfter(unreadable, now), undefined, unreadable);
        }
    });

    test("a number past a double's range is malformed, in any member; an error body with one gives only its status", async () => {
        const huge = '{"matchMessage": "m", "x": 1e999999, "deepLink": "x", "attributionConfidence": "WEAK"}';
        const digits = `{"deepLink": "x", "resolvedLink": "r", "n": [-1${"0".repeat(400)}]}`;
        const fetch = fakeFetch(json(200, huge), json(200, digits));
        const relink = client({ fetch });
        const claimed = await relink.claimDeferredLink({});
        assert.equal(claimed.error.kind, "malformed");
        assert.match(claimed.error.message, /past a double/);
        assert.equal((await relink.resolve("https://go.example.com/x")).error.kind, "malformed");
        const refused = fakeFetch(json(404, '{"error": {"status": "NOT_FOUND", "message": "gone", "code": 1E400}}'));
        assert.deepEqual((await client({ fetch: refused }).resolve("https://go.example.com/x")).error, { kind: "http", status: 404, message: "HTTP 404" });
        const fine = '{"matchMessage": "m", "x": [1e308, -1.7976931348623157e308, 1e-999999, 123456789012345678901234567890], "y": "1e999999",'
            + ' "deepLink": "x", "attributionConfidence": "WEAK"}';
        assert.equal((await client({ fetch: fakeFetch(json(200, fine)) }).claimDeferredLink({})).result, "matched", "numbers in range, and text");
    });

    test("an interim 100 Continue and then nothing is a timeout at the timeout, as in the other clients", async () => {
        const sockets = new Set();
        const server = net.createServer((socket) => {
            sockets.add(socket);
            socket.once("data", () => socket.write("HTTP/1.1 100 Continue\r\n\r\n"));
            socket.on("error", () => {});
        });
        await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
        try {
            const relink = client({ server: `http://127.0.0.1:${server.address().port}`, fetch: globalThis.fetch, timeoutMs: 1000 });
            const { result, ms } = await timed(relink.resolve("https://go.example.com/x"));
            assert.equal(result.error.kind, "timeout", JSON.stringify(result));
            assert.ok(ms >= 900 && ms < 3000, `${ms} ms`);
        } finally {
            for (const socket of sockets) socket.destroy();
            await new Promise((resolve) => server.close(resolve));
        }
    });

    test("a status past 599 is an http error with its status", async () => {
        const fetch = fakeFetch({ status: 600, headers: new Headers(), text: async () => "{}" });
        assert.deepEqual((await client({ fetch }).resolve("https://go.example.com/x")).error, { kind: "http", status: 600, message: "HTTP 600" });
    });
});

describe("the claim link", () => {
    test("only an http(s) link with rc= ending in _icp=1", () => {
        for (const yes of ["https://go.example.com/Ab3x?rc=k2Hs9&_icp=1", "http://localhost:8080/?rc=1&_icp=1", "HTTPS://GO.EXAMPLE.COM/?rc=1&_icp=1"]) {
            assert.equal(Relink.isClaimLink(yes), true, yes);
        }
        for (const no of [
            "https://go.example.com/Ab3x?rc=k2Hs9", "https://go.example.com/Ab3x?_icp=1", "ftp://go.example.com/?rc=1&_icp=1",
            "see https://go.example.com/?rc=1&_icp=1", "https://go.example.com/?rc=1&_icp=1\n", "https:///?rc=1&_icp=1",
            "my password rc=1_icp=1", "", null, undefined, 42,
        ]) {
            assert.equal(Relink.isClaimLink(no), false, String(no));
        }
    });

    test("is sent when it is one, and nothing of the clipboard otherwise", async () => {
        const fetch = fakeFetch(json(200, ORGANIC), json(200, ORGANIC));
        await client({ fetch, platform: "IOS" }).claimDeferredLink({ clipboardLink: "https://go.example.com/Ab3x?rc=k2Hs9&_icp=1" });
        await client({ fetch, platform: "IOS" }).claimDeferredLink({ clipboardLink: "my secret note" });
        assert.equal(fetch.calls[0].body.uniqueMatchLinkToCheck, "https://go.example.com/Ab3x?rc=k2Hs9&_icp=1");
        assert.equal("uniqueMatchLinkToCheck" in fetch.calls[1].body, false);
        assert.equal(JSON.stringify(fetch.calls[1].body).includes("secret"), false);
    });
});

describe("the server URL", () => {
    test("https, or http on loopback and the emulator's host", async () => {
        const accepted = {
            "https://go.example.com": "https://go.example.com/v1/reopenAttribution",
            "https://go.example.com/links/": "https://go.example.com/links/v1/reopenAttribution",
            "http://localhost:8080": "http://localhost:8080/v1/reopenAttribution",
            "http://127.0.0.1:1/": "http://127.0.0.1:1/v1/reopenAttribution",
            "http://[::1]:8080": "http://[::1]:8080/v1/reopenAttribution",
            "http://10.0.2.2:8080": "http://10.0.2.2:8080/v1/reopenAttribution",
            "HTTP://LOCALHOST": "HTTP://LOCALHOST/v1/reopenAttribution",
        };
        for (const [server, url] of Object.entries(accepted)) {
            const fetch = fakeFetch(json(200, RESOLVED));
            const result = await client({ server, fetch }).resolve("https://go.example.com/x");
            assert.equal(result.result, "resolved", `${server}: ${JSON.stringify(result)}`);
            assert.equal(fetch.calls[0].url, url);
        }
    });

    test("refuses anything else without a request", async () => {
        for (const server of [
            "http://go.example.com", "http://192.168.1.20:8080", "http://10.0.2.3", "http://localhost.evil.test",
            "http://127.0.0.1.nip.io", "http://127.0.0.1@evil.test", "https://user@go.example.com", "ftp://go.example.com",
            "go.example.com", "https://go.example.com/?x=1", "https://go.example.com/#x", "https://go.example.com:99999",
            "https://", "", " https://go.example.com", undefined, null, 42,
        ]) {
            const fetch = fakeFetch();
            const relink = client({ server, fetch });
            for (const result of [await relink.resolve("https://go.example.com/x"), await relink.reopen("https://go.example.com/x"), await relink.claimDeferredLink({})]) {
                assert.equal(result.result, "failed", String(server));
                assert.equal(result.error.kind, "invalidInput", String(server));
            }
            assert.equal(fetch.calls.length, 0, String(server));
        }
    });
});

describe("the wire format", () => {
    test("a claim: the body, the headers, no redirects, the install id stored before the request", async () => {
        const storage = new MemoryStorage();
        let storedAtRequest;
        const fetch = fakeFetch((url, init) => {
            storedAtRequest = storage.getItem("relink.installId");
            return json(200, ORGANIC);
        });
        const result = await client({ fetch, storage, platform: "IOS" }).claimDeferredLink({
            device: {
                osVersion: "17.2", deviceModelName: "iPhone15,2", screenWidth: 390, screenHeight: 844, languageCode: "en-US",
                timeZone: "Asia/Tokyo", installedAt: new Date(1790000000500),
            },
        });
        assert.deepEqual(result, { result: "organic", matchMessage: ORGANIC.matchMessage });
        const call = fetch.calls[0];
        assert.equal(call.url, "https://go.example.com/v1/installAttribution");
        assert.equal(call.init.method, "POST");
        assert.equal(call.init.redirect, "manual");
        assert.deepEqual(call.init.headers, { "Content-Type": "application/json", Accept: "application/json" });
        assert.match(storedAtRequest, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        assert.deepEqual(call.body, {
            platform: "IOS", bundleId: "com.example.app", installId: storedAtRequest, sdkVersion: SDK_VERSION,
            osVersion: "17.2", iosVersion: "17.2", appInstallationTime: "1790000000",
            device: {
                deviceModelName: "iPhone15,2", languageCode: "en-US", languageCodeRaw: "en-US", timezone: "Asia/Tokyo",
                screenResolutionWidth: "390", screenResolutionHeight: "844",
            },
        });
        assert.equal(storage.getItem("relink.claimed"), "1");
    });

    test("an Android claim: the referrer as given, no iosVersion, absent fields omitted", async () => {
        const fetch = fakeFetch(json(200, ORGANIC));
        await client({ fetch }).claimDeferredLink({ device: { osVersion: "14", installedAt: 1790000000 }, installReferrer: "relink_click=abc&utm_source=x" });
        assert.deepEqual(Object.keys(fetch.calls[0].body).sort(),
            ["appInstallationTime", "bundleId", "installId", "installReferrer", "osVersion", "platform", "sdkVersion"]);
        assert.equal(fetch.calls[0].body.installReferrer, "relink_click=abc&utm_source=x");
        assert.equal(fetch.calls[0].body.appInstallationTime, "1790000000");
    });

    test("a matched answer, whole", async () => {
        const answer = {
            deepLink: "https://shop.example/p/42", attributionConfidence: "UNIQUE", matchMessage: "Matched by the install referrer.",
            utmSource: "mail", utmMedium: "email", utmCampaign: "spring", utmContent: "top", utmTerm: "shoes",
            appMinimumVersion: "2.1", requestedLink: "https://go.example.com/spring", resolvedLink: "https://go.example.com/?link=x",
            requestIpVersion: "IP_V4", invitationId: "", isStrongMatchExecutable: false, fallbackLink: "https://shop.example",
        };
        const result = await client({ fetch: fakeFetch(json(200, answer)) }).claimDeferredLink({});
        assert.deepEqual(result, {
            result: "matched",
            link: {
                deepLink: "https://shop.example/p/42", confidence: "UNIQUE", utmSource: "mail", utmMedium: "email",
                utmCampaign: "spring", utmContent: "top", utmTerm: "shoes", minimumAppVersion: "2.1",
                requestedLink: "https://go.example.com/spring", resolvedLink: "https://go.example.com/?link=x",
                matchMessage: "Matched by the install referrer.",
            },
        });
    });

    test("reopen counts, resolve does not; both send the stored install id", async () => {
        const storage = new MemoryStorage();
        const fetch = fakeFetch(json(200, RESOLVED), json(200, RESOLVED), json(200, ORGANIC), json(200, { ...RESOLVED, routeParameters: { id: "a b" }, iosMinAppVersion: "3" }));
        const relink = client({ fetch, storage });
        await relink.reopen("https://go.example.com/spring");
        assert.deepEqual(fetch.calls[0].body, { requestedLink: "https://go.example.com/spring", bundleId: "com.example.app", sdkVersion: SDK_VERSION });
        await relink.resolve("https://go.example.com/spring");
        assert.deepEqual(fetch.calls[1].body, { requestedLink: "https://go.example.com/spring", bundleId: "com.example.app", sdkVersion: SDK_VERSION, countAsReopen: false });
        await relink.claimDeferredLink({});
        const result = await relink.resolve("https://go.example.com/p/a%20b");
        assert.equal(fetch.calls[3].body.installId, storage.getItem("relink.installId"));
        assert.equal(fetch.calls[3].url, "https://go.example.com/v1/reopenAttribution");
        assert.deepEqual(result, { result: "resolved", link: { ...RESOLVED, minimumAppVersion: "3", routeParameters: { id: "a b" } } });
    });

    test("answers of the wrong shape are malformed", async () => {
        const claims = [
            "<html>captive portal</html>", "[]", "null", JSON.stringify({ deepLink: "https://x" }),
            JSON.stringify({ matchMessage: "m", deepLink: "https://x" }), JSON.stringify({ matchMessage: "m", attributionConfidence: "UNIQUE" }),
            JSON.stringify({ matchMessage: "m", deepLink: "https://x", attributionConfidence: "SURE" }),
            JSON.stringify({ matchMessage: 7 }), JSON.stringify({ matchMessage: "m", utmSource: 1 }),
        ];
        for (const body of claims) {
            const storage = new MemoryStorage();
            const result = await client({ storage, fetch: fakeFetch(json(200, body)) }).claimDeferredLink({});
            assert.equal(result.result, "failed", body);
            assert.deepEqual([result.error.kind, result.error.status], ["malformed", 200], body);
            assert.equal(storage.getItem("relink.claimed"), null, `${body}: not marked claimed`);
        }
        const links = [
            "", "{}", JSON.stringify({ deepLink: 42, resolvedLink: "x" }), JSON.stringify({ deepLink: "x" }),
            JSON.stringify({ ...RESOLVED, routeParameters: ["a"] }), JSON.stringify({ ...RESOLVED, routeParameters: { id: 9 } }),
            JSON.stringify({ ...RESOLVED, utmCampaign: {} }),
        ];
        for (const body of links) {
            const result = await client({ fetch: fakeFetch(json(200, body)) }).resolve("https://go.example.com/x");
            assert.deepEqual([result.result, result.error && result.error.kind], ["failed", "malformed"], body);
        }
        const nulls = await client({ fetch: fakeFetch(json(200, { ...ORGANIC, deepLink: null, attributionConfidence: null })) }).claimDeferredLink({});
        assert.equal(nulls.result, "organic", "JSON null is absent");
    });

    test("a redirect is not followed, whichever way fetch shows it", async () => {
        const redirects = [
            [{ type: "opaqueredirect", status: 0, url: "", headers: new Headers(), text: async () => "" }, undefined],
            [new Response("", { status: 307, headers: { Location: "https://elsewhere.test/v1/installAttribution" } }), 307],
            [{ status: 200, redirected: true, url: "https://elsewhere.test/", headers: new Headers(), text: async () => JSON.stringify(ORGANIC) }, undefined],
            [{ status: 200, url: "https://elsewhere.test/v1/installAttribution", headers: new Headers(), text: async () => JSON.stringify(ORGANIC) }, undefined],
        ];
        for (const [response, status] of redirects) {
            const storage = new MemoryStorage();
            const result = await client({ storage, fetch: fakeFetch(response) }).claimDeferredLink({});
            assert.equal(result.result, "failed");
            assert.equal(result.error.kind, "http");
            assert.equal(result.error.status, status);
            assert.equal(storage.getItem("relink.claimed"), null);
        }
        const same = { status: 200, url: "HTTPS://GO.EXAMPLE.COM:443/v1/installAttribution", headers: new Headers(), text: async () => JSON.stringify(ORGANIC) };
        assert.equal((await client({ fetch: fakeFetch(same) }).claimDeferredLink({})).result, "organic", "the same URL, spelled otherwise");
    });
});

describe("claims", () => {
    test("at most one in flight: a second caller, or a second client over the same storage, gets the same promise", async () => {
        const storage = new AsyncMemoryStorage();
        let answer;
        const fetch = fakeFetch(() => new Promise((resolve) => { answer = resolve; }));
        const relink = client({ fetch, storage });
        const first = relink.claimDeferredLink({});
        const second = relink.claimDeferredLink({});
        const third = client({ fetch, storage }).claimDeferredLink({});
        assert.equal(first, second);
        assert.equal(first, third);
        while (!answer) await new Promise((resolve) => setTimeout(resolve, 5));
        answer(json(200, ORGANIC));
        assert.equal((await first).result, "organic");
        assert.equal(fetch.calls.length, 1);
        const later = relink.claimDeferredLink({});
        assert.notEqual(later, first);
        assert.deepEqual(await later, { result: "alreadyClaimed" });
        assert.equal(fetch.calls.length, 1, "alreadyClaimed without a request");
    });

    test("a timeout, even when fetch ignores the abort", async () => {
        let signal;
        const hangs = (url, init) => {
            signal = init.signal;
            return new Promise(() => {});
        };
        const { result, ms } = await timed(client({ fetch: fakeFetch(hangs), timeoutMs: 200 }).claimDeferredLink({}));
        assert.equal(result.result, "failed");
        assert.equal(result.error.kind, "timeout");
        assert.ok(ms >= 190 && ms < 1000, `${ms} ms`);
        assert.equal(signal.aborted, true, "the request was aborted");
    });

    test("a failed claim keeps its install id for the next launch", async () => {
        const storage = new MemoryStorage();
        const fetch = fakeFetch(json(500, ""), json(200, ORGANIC));
        assert.equal((await client({ fetch, storage }).claimDeferredLink({})).result, "failed");
        assert.equal(storage.getItem("relink.claimed"), null);
        assert.equal((await client({ fetch, storage }).claimDeferredLink({})).result, "organic");
        assert.equal(fetch.calls[0].body.installId, fetch.calls[1].body.installId);
    });
});

describe("answers", () => {
    // The end of the answer comes after the timeout: only a client that stops at the cap answers malformed.
    test("an answer over 1 MiB is refused as it arrives, not buffered to its end", async () => {
        const server = http.createServer((incoming, outgoing) => {
            incoming.resume();
            outgoing.writeHead(200, { "Content-Type": "application/json" });
            outgoing.write(" ".repeat((1 << 20) + 1));
            const end = setTimeout(() => outgoing.end(JSON.stringify(RESOLVED)), 4000);
            outgoing.on("close", () => clearTimeout(end));
        });
        await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
        try {
            const relink = new Relink({
                server: `http://127.0.0.1:${server.address().port}`, platform: "ANDROID", appId: "com.example.app",
                storage: new MemoryStorage(), timeoutMs: 3000,
            });
            const result = await relink.resolve("https://go.example.com/x");
            assert.equal(result.result, "failed");
            assert.equal(result.error.kind, "malformed");
        } finally {
            server.closeAllConnections();
            await new Promise((resolve) => server.close(resolve));
        }
    });

    test("a Content-Length over 1 MiB is refused before the body is read", async () => {
        const fetch = fakeFetch(() => ({
            status: 200, headers: new Headers({ "Content-Length": String((1 << 20) + 1) }),
            text: () => { throw new Error("read the body"); },
        }));
        const result = await client({ fetch }).resolve("https://go.example.com/x");
        assert.equal(result.error.kind, "malformed");
    });
});

describe("storage", () => {
    const broken = (failing) => ({
        items: new Map(),
        getItem(key) {
            if (failing === "get") throw new Error("disk on fire");
            return this.items.get(key) ?? null;
        },
        async setItem(key, value) {
            if (failing === "set" || (failing === "setClaimed" && key === "relink.claimed")) throw new Error("quota exceeded");
            this.items.set(key, value);
        },
    });

    test("an adapter that cannot read or store the install id fails the claim before any request", async () => {
        for (const failing of ["get", "set"]) {
            const fetch = fakeFetch(json(200, ORGANIC));
            const result = await client({ fetch, storage: broken(failing) }).claimDeferredLink({});
            assert.equal(result.result, "failed", failing);
            assert.equal(result.error.kind, "invalidInput", failing);
            assert.match(result.error.message, /storage/);
            assert.equal(fetch.calls.length, 0, failing);
        }
    });

    test("an adapter that cannot store the claimed flag still gets the answer", async () => {
        const storage = broken("setClaimed");
        const fetch = fakeFetch(json(200, ORGANIC), json(200, ORGANIC));
        assert.equal((await client({ fetch, storage }).claimDeferredLink({})).result, "organic");
        assert.equal((await client({ fetch, storage }).claimDeferredLink({})).result, "organic", "claims again: the flag is not there");
        assert.equal(fetch.calls[0].body.installId, fetch.calls[1].body.installId);
    });

    test("a kept install id the server refuses is replaced at the claim and never sent with a re-open", async () => {
        for (const kept of ["not valid!", "a".repeat(129), "ü"]) {
            const storage = new MemoryStorage();
            storage.setItem("relink.installId", kept);
            const fetch = fakeFetch(json(200, RESOLVED), json(200, ORGANIC));
            const relink = client({ fetch, storage });
            assert.equal((await relink.resolve("https://go.example.com/x")).result, "resolved");
            assert.equal("installId" in fetch.calls[0].body, false, kept);
            assert.equal((await relink.claimDeferredLink({})).result, "organic");
            const made = storage.getItem("relink.installId");
            assert.notEqual(made, kept);
            assert.match(made, /^[A-Za-z0-9._-]{1,128}$/);
            assert.equal(fetch.calls[1].body.installId, made);
        }
    });

    test("a re-open resolves without an install id when the storage fails", async () => {
        const fetch = fakeFetch(json(200, RESOLVED));
        assert.equal((await client({ fetch, storage: broken("get") }).reopen("https://go.example.com/x")).result, "resolved");
        assert.equal("installId" in fetch.calls[0].body, false);
    });
});

describe("never a throw", () => {
    async function expectFailed(promise, kind, what) {
        assert.ok(promise instanceof Promise, `${what}: a promise`);
        const result = await promise;
        assert.equal(result.result, "failed", `${what}: ${JSON.stringify(result)}`);
        assert.equal(result.error.kind, kind, `${what}: ${JSON.stringify(result)}`);
    }

    test("bad options", async () => {
        const base = { server: "https://go.example.com", platform: "ANDROID", appId: "a", storage: new MemoryStorage(), fetch: fakeFetch() };
        const bad = [
            undefined, null, 42, {}, { ...base, platform: "android" }, { ...base, appId: "" }, { ...base, storage: undefined },
            { ...base, storage: { getItem() {} } }, { ...base, timeoutMs: 0 }, { ...base, timeoutMs: "10" }, { ...base, timeoutMs: 2 ** 31 }, { ...base, retryBudgetMs: -1 },
            { ...base, retryBudgetMs: 40 * 86400000 },
            { ...base, fetch: "no" }, { ...base, installIdFactory: 7 },
        ];
        for (const options of bad) {
            const relink = new Relink(options);
            await expectFailed(relink.claimDeferredLink({}), "invalidInput", JSON.stringify(options));
            await expectFailed(relink.resolve("https://go.example.com/x"), "invalidInput", JSON.stringify(options));
        }
        assert.equal(base.fetch.calls.length, 0);
    });

    test("bad arguments", async () => {
        const fetch = fakeFetch();
        const relink = client({ fetch });
        for (const url of ["", "   ", undefined, null, 42, {}]) {
            await expectFailed(relink.resolve(url), "invalidInput", `resolve(${url})`);
            await expectFailed(relink.reopen(url), "invalidInput", `reopen(${url})`);
        }
        const throwingDevice = { get osVersion() { throw new Error("no"); } };
        for (const request of ["x", { device: "x" }, { device: { screenWidth: "412" } }, { device: { installedAt: "yesterday" } },
            { device: { installedAt: new Date(NaN) } }, { installReferrer: 5 }, { clipboardLink: {} }, { device: throwingDevice }]) {
            const label = request && request.device === throwingDevice ? "a throwing getter" : JSON.stringify(request);
            await expectFailed(client({ fetch, storage: new MemoryStorage() }).claimDeferredLink(request), "invalidInput", label);
        }
        assert.equal(fetch.calls.length, 0);
    });

    test("a fetch that throws at once, answers nothing, or breaks off", async () => {
        await expectFailed(client({ fetch: () => { throw new TypeError("sync"); } }).claimDeferredLink({}), "offline", "a sync throw");
        await expectFailed(client({ fetch: async () => { throw new TypeError("Network request failed"); } }).resolve("https://go.example.com/x"), "offline", "a rejection");
        await expectFailed(client({ fetch: async () => null }).resolve("https://go.example.com/x"), "malformed", "null");
        const brokenBody = { status: 200, headers: new Headers(), text: async () => { throw new Error("reset"); } };
        await expectFailed(client({ fetch: async () => brokenBody }).resolve("https://go.example.com/x"), "offline", "a broken body");
        const trap = { get status() { throw new Error("trap"); } };
        await expectFailed(client({ fetch: async () => trap }).resolve("https://go.example.com/x"), "offline", "a throwing getter");
    });

    test("no randomness: a documented error naming installIdFactory; a factory fixes it", async () => {
        assert.match(newInstallId({ randomUUID: () => "r" }), /^r$/);
        assert.match(newInstallId({ getRandomValues: (a) => a.fill(7) }), /^07070707-0707-4707-8707-070707070707$/);
        assert.throws(() => newInstallId(undefined), /installIdFactory/);
        const original = Object.getOwnPropertyDescriptor(globalThis, "crypto");
        Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true, writable: true });
        try {
            const fetch = fakeFetch(json(200, ORGANIC));
            const result = await client({ fetch }).claimDeferredLink({});
            assert.equal(result.result, "failed");
            assert.equal(result.error.kind, "invalidInput");
            assert.match(result.error.message, /installIdFactory/);
            assert.equal(fetch.calls.length, 0);
            const fixed = await client({ fetch, installIdFactory: async () => "install-1" }).claimDeferredLink({});
            assert.equal(fixed.result, "organic");
            assert.equal(fetch.calls[0].body.installId, "install-1");
        } finally {
            Object.defineProperty(globalThis, "crypto", original);
        }
        for (const factory of [() => { throw new Error("x"); }, () => 42, () => "", () => "x".repeat(129), () => "install 1"]) {
            await expectFailed(client({ fetch: fakeFetch(), installIdFactory: factory }).claimDeferredLink({}), "invalidInput", String(factory));
        }
    });
});

test("relink.d.ts declares what relink.mjs exports, and the SDK version it sends", () => {
    const declarations = readFileSync(path.join(jsRoot, "relink.d.ts"), "utf8");
    const declared = [...declarations.matchAll(/^export declare (?:class|function|const) (\w+)/gm)].map((match) => match[1]).sort();
    assert.deepEqual(declared, Object.keys(library).sort());
    assert.match(declarations, new RegExp(`SDK_VERSION: "${SDK_VERSION}"`));
});
