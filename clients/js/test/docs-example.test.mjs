// docs/integration-react-native.md shows examples/first-launch.mjs verbatim; this runs that file against a live
// server after an Android click, with an AsyncStorage-shaped storage, and gets the click back as UNIQUE.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Relink } from "relink-client";
import { openDeferredLink, openLink } from "../examples/first-launch.mjs";
import { AsyncMemoryStorage, click, jsRoot, referrerOf, repoRoot, startServer } from "./harness.mjs";

const examplePath = path.join(jsRoot, "examples/first-launch.mjs");
const docPath = path.join(repoRoot, "docs/integration-react-native.md");

test("the doc shows examples/first-launch.mjs verbatim", () => {
    const example = readFileSync(examplePath, "utf8").trimEnd();
    const doc = readFileSync(docPath, "utf8");
    assert.ok(doc.includes("```js\n" + example + "\n```"), `${docPath} does not hold ${examplePath} as it is`);
});

describe("the doc's example against a live server", () => {
    let server;
    before(async () => {
        server = await startServer();
    });
    after(async () => {
        if (server) await server.stop();
    });

    test("a click, then the first launch opens its deep link (UNIQUE by the install referrer), once", async () => {
        const answer = await click(server.base, {
            path: "/p/42",
            userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
            address: "198.18.200.1",
            acceptLanguage: "de-DE,de;q=0.9",
        });
        assert.equal(answer.status, 302);
        const installReferrer = referrerOf(answer.location);
        assert.match(installReferrer, /relink_click=/);

        const relink = new Relink({ server: server.base, platform: "ANDROID", appId: "test.relink.shop", storage: new AsyncMemoryStorage() });
        const opened = [];
        const open = (deepLink, options) => opened.push([deepLink, options]);
        const facts = {
            installReferrer,
            device: { osVersion: "14", deviceModelName: "Pixel 7", screenWidth: 412, screenHeight: 915, languageCode: "de-DE", timeZone: "Europe/Berlin" },
        };

        const first = await openDeferredLink(relink, facts, open);
        assert.equal(first.result, "matched", JSON.stringify(first));
        assert.equal(first.link.confidence, "UNIQUE");
        assert.deepEqual(opened, [["https://shop.relink.test/product/42", { suggestOnly: false }]]);

        const again = await openDeferredLink(relink, facts, open);
        assert.equal(again.result, "alreadyClaimed");
        assert.equal(opened.length, 1);

        const reopened = await openLink(relink, "https://go.relink.test/spring", open);
        assert.equal(reopened.result, "resolved", JSON.stringify(reopened));
        assert.deepEqual(opened[1], ["https://shop.relink.test/spring?ref=mail", { suggestOnly: false }]);
        const unknown = await openLink(relink, "https://go.relink.test/no-such-link", open);
        assert.deepEqual([unknown.result, unknown.error && unknown.error.status], ["failed", 404]);
        assert.equal(opened.length, 2);
    });
});
