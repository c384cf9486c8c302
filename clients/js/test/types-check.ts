// Checked by `tsc --noEmit --strict` in test.sh (never run): relink.d.ts describes the API as apps use it.
import { Relink, parseRetryAfter, newInstallId, SDK_VERSION } from "relink-client";
import type { ClaimResult, LinkResult, RelinkError, RelinkStorage, ResolvedLink, DeferredLink } from "relink-client";

// localStorage (synchronous) and an AsyncStorage-shaped object (promises) both fit.
const web: RelinkStorage = window.localStorage;
const asyncStorage = {
    getItem: async (key: string): Promise<string | null> => null,
    setItem: async (key: string, value: string): Promise<void> => {},
};

const relink = new Relink({ server: "https://go.example.com", platform: "ANDROID", appId: "com.example.app", storage: asyncStorage });
new Relink({ server: "https://go.example.com", platform: "IOS", appId: "a", storage: web, timeoutMs: 5000, retryBudgetMs: 0, fetch: window.fetch, installIdFactory: () => "id" });

async function firstLaunch(): Promise<string | undefined> {
    const answer: ClaimResult = await relink.claimDeferredLink({
        device: { osVersion: "14", screenWidth: 412, screenHeight: 915, languageCode: "en-US", timeZone: "Europe/Berlin", installedAt: new Date() },
        installReferrer: "relink_click=abc",
        clipboardLink: null,
    });
    switch (answer.result) {
        case "matched": {
            const link: DeferredLink = answer.link;
            const sure: boolean = link.confidence !== "WEAK";
            return sure ? link.deepLink : link.matchMessage;
        }
        case "organic":
            return answer.matchMessage;
        case "alreadyClaimed":
            return undefined;
        case "failed": {
            const error: RelinkError = answer.error;
            const wait: number | undefined = error.retryAfterSeconds;
            return error.kind === "rateLimited" ? `${error.status} ${error.apiStatus} ${wait}` : error.message;
        }
    }
}

async function opened(url: string): Promise<Record<string, string> | null> {
    const answer: LinkResult = await relink.reopen(url);
    if (answer.result === "resolved") {
        const link: ResolvedLink = answer.link;
        return link.routeParameters;
    }
    return null;
}

// The discriminant narrows: `link` exists only on matched and resolved results.
async function negative(): Promise<void> {
    const answer = await relink.resolve("https://go.example.com/spring");
    // @ts-expect-error a failed result has no link
    answer.link;
    const claim = await relink.claimDeferredLink();
    if (claim.result === "organic") {
        // @ts-expect-error organic has no deep link
        claim.link.deepLink;
    }
    // @ts-expect-error the platform is IOS or ANDROID, upper case
    new Relink({ server: "https://go.example.com", platform: "android", appId: "a", storage: web });
    // @ts-expect-error storage is required
    new Relink({ server: "https://go.example.com", platform: "IOS", appId: "a" });
    // @ts-expect-error screen sizes are numbers
    relink.claimDeferredLink({ device: { screenWidth: "412" } });
    // @ts-expect-error no such error kind
    const kind: RelinkError["kind"] = "storage";
}

const seconds: number | undefined = parseRetryAfter("5");
const id: string = newInstallId();
const fromWebCrypto: string = newInstallId(window.crypto);
const version: "relink-js-1" = SDK_VERSION;
const isLink: boolean = Relink.isClaimLink("https://go.example.com/x?rc=1&_icp=1");
export { firstLaunch, opened, negative, seconds, id, fromWebCrypto, version, isLink };
