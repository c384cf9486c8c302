// deepLinks.js: one client for the app's lifetime; the first launch's claim, and the links that open the app.
import { Relink } from "relink-client";

/**
 * Call at every start-up: after the first answer (a link or none) the claim costs no request.
 * @param {Relink} relink the app's client.
 * @param {object} facts `{device, installReferrer, clipboardLink}`: what the app knows (see below).
 * @param {(deepLink: string, options: {suggestOnly: boolean}) => void} open the app's navigation.
 */
export async function openDeferredLink(relink, facts, open) {
    const answer = await relink.claimDeferredLink(facts);
    if (answer.result === "matched") {
        // UNIQUE (install referrer, clipboard) and DEFAULT (one clear fingerprint match): go there.
        // WEAK is the best of several similar clicks: offer it, do not navigate away on it.
        open(answer.link.deepLink, { suggestOnly: answer.link.confidence === "WEAK" });
    } else if (answer.result === "failed" && answer.error.kind === "invalidInput") {
        // The app's own mistake (the server URL, the storage adapter): worth a warning in development.
        console.warn(`relink: ${answer.error.message}`);
    }
    // organic, alreadyClaimed, and the other failures: start as usual. A failed claim is tried again at the
    // next launch, with the same install id, so it gets the server's first answer.
    return answer;
}

/**
 * A Relink link opened the installed app (an App Link or universal link).
 * @param {Relink} relink the app's client.
 * @param {string} url the URL the app was opened with.
 * @param {(deepLink: string, options: {suggestOnly: boolean}) => void} open the app's navigation.
 */
export async function openLink(relink, url, open) {
    const answer = await relink.reopen(url);
    if (answer.result === "resolved") {
        open(answer.link.deepLink, { suggestOnly: false });
    } else if (answer.error.kind === "http" && answer.error.status === 404) {
        // No such link, or one that was disabled: answer.error.message says which. Show the home screen.
    }
    return answer;
}
