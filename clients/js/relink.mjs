// Relink's client for JavaScript apps: React Native (Hermes), Capacitor/Cordova and web pages.
//
// No dependencies, and only what Hermes, browsers and Node 20 all have: fetch, AbortController, setTimeout,
// Promise, WeakMap and `crypto` when present. No `URL` (React Native's is incomplete: `hostname` and `protocol`
// throw), no private `#fields`, no `AbortSignal.timeout`.
//
// Every call answers a plain object and never throws or rejects: `{result: "failed", error}` carries what went
// wrong, with the same error kinds as the Swift and Android clients (clients/conformance/README.md).

/** The `sdkVersion` this client sends. */
export const SDK_VERSION = "relink-js-1";

const INSTALL_ID_KEY = "relink.installId";
const CLAIMED_KEY = "relink.claimed";
const MAX_ATTEMPTS = 3;
// setTimeout fires at once past 2^31 - 1 ms; longer timeouts and budgets are refused rather than cut short.
const MAX_TIMER_MS = 2147483647;
// A larger answer is not a Relink answer (as in the Swift client): refused as it arrives, not buffered whole.
const MAX_ANSWER_BYTES = 1 << 20;
// Relink's answers nest two levels; deeper is not Relink's (the Swift and Android clients bound their parsers' stacks
// with the same check, so all three refuse the same answers).
const MAX_DEPTH = 64;
// The largest Retry-After kept, as the Android client's int holds it: "much longer than any budget".
const MAX_RETRY_AFTER_SECONDS = 2147483647;
const CONFIDENCES = ["UNIQUE", "DEFAULT", "WEAK"];
const UTM_FIELDS = ["utmSource", "utmMedium", "utmCampaign", "utmContent", "utmTerm"];
// Plain http only where it cannot cross a network: this device, and the Android emulator's host.
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]", "10.0.2.2"];

// Claims in flight, per storage object: an app that builds two clients over one storage still sends one claim,
// and the second caller gets the first one's promise.
const claimsInFlight = new WeakMap();

/**
 * A client of one Relink server for one app.
 *
 * `new Relink(options)` never throws: a bad option (a server URL that is not https, a missing storage) makes
 * every call answer `{result: "failed", error: {kind: "invalidInput"}}`.
 */
export class Relink {
    /**
     * @param {object} options
     * @param {string} options.server the Relink server, `https://go.example.com`; plain `http` only for
     *   `localhost`, `127.0.0.1`, `[::1]` and `10.0.2.2` (the Android emulator's host).
     * @param {"IOS"|"ANDROID"} options.platform the platform the app runs on.
     * @param {string} options.appId the app's bundle ID (iOS) or package name (Android).
     * @param {{getItem(key: string): any, setItem(key: string, value: string): any}} options.storage where the
     *   install id and the claimed flag live: AsyncStorage or localStorage as they are (sync or async).
     * @param {number} [options.timeoutMs=10000] each request's timeout.
     * @param {number} [options.retryBudgetMs=10000] how long the waits before retries (429, 503) may add up to.
     * @param {Function} [options.fetch=globalThis.fetch] the fetch to send requests with.
     * @param {() => string | Promise<string>} [options.installIdFactory] makes the install id when the platform
     *   has neither `crypto.randomUUID` nor `crypto.getRandomValues` (Hermes without a polyfill).
     */
    constructor(options) {
        const o = options !== null && typeof options === "object" ? options : {};
        this._configError = null;
        this._base = "";
        try {
            this._base = checkServer(o.server);
            this._platform = o.platform;
            this._appId = o.appId;
            this._storage = o.storage;
            this._timeoutMs = o.timeoutMs === undefined ? 10000 : o.timeoutMs;
            this._retryBudgetMs = o.retryBudgetMs === undefined ? 10000 : o.retryBudgetMs;
            this._fetch = o.fetch === undefined ? globalThis.fetch : o.fetch;
            this._installIdFactory = o.installIdFactory === undefined ? newInstallId : o.installIdFactory;
            if (o.platform !== "IOS" && o.platform !== "ANDROID") throw invalid(`platform must be "IOS" or "ANDROID", not ${describe(o.platform)}`);
            if (typeof o.appId !== "string" || o.appId === "") throw invalid("appId must be the app's bundle ID or package name");
            if (o.storage === null || typeof o.storage !== "object" && typeof o.storage !== "function"
                || typeof o.storage.getItem !== "function" || typeof o.storage.setItem !== "function") {
                throw invalid("storage must have getItem(key) and setItem(key, value) (AsyncStorage, localStorage or an adapter)");
            }
            if (!isDuration(this._timeoutMs)) throw invalid(`timeoutMs must be a positive number of milliseconds, not ${describe(this._timeoutMs)}`);
            if (!isDuration(this._retryBudgetMs) && this._retryBudgetMs !== 0) {
                throw invalid(`retryBudgetMs must be a number of milliseconds, not ${describe(this._retryBudgetMs)}`);
            }
            if (typeof this._fetch !== "function") throw invalid("no fetch: pass options.fetch");
            if (typeof this._installIdFactory !== "function") throw invalid("installIdFactory must be a function");
        } catch (error) {
            this._configError = asRelinkError(error);
        }
    }

    /**
     * Whether a clipboard text is a Relink claim link (`https://…?rc=<click id>&_icp=1`): only such a text is
     * sent with a claim. An app can check with it before it reads the clipboard for real.
     * @param {unknown} text the clipboard's text.
     * @returns {boolean}
     */
    static isClaimLink(text) {
        return typeof text === "string" && /^https?:\/\/[^\s/?#]+[^\s]*$/i.test(text) && text.indexOf("rc=") >= 0
            && text.slice(-6) === "_icp=1";
    }

    /**
     * The link the user clicked before installing the app, once per install (`POST /v1/installAttribution`).
     *
     * Stores an install id before the first request, so a retry after a timeout, a crash or a relaunch gets the
     * server's first answer; once the server answered (matched or organic), later calls answer `alreadyClaimed`
     * without a request. While one claim is in flight, another call gets the same promise.
     * @param {object} [request]
     * @param {object} [request.device] `{osVersion, deviceModelName, screenWidth, screenHeight, languageCode,
     *   timeZone, installedAt}`; `installedAt` in epoch seconds or a Date: when the app was installed, not now.
     * @param {string} [request.installReferrer] the Play install referrer (Android), as the API gave it.
     * @param {string} [request.clipboardLink] the clipboard's text, when the app chose to read it (iOS); sent only
     *   when it is a claim link.
     * @returns {Promise<object>} `matched` (with `link`), `organic`, `alreadyClaimed` or `failed` (with `error`).
     */
    claimDeferredLink(request) {
        try {
            if (this._configError) return Promise.resolve(failed(this._configError));
            const storage = this._storage;
            const running = claimsInFlight.get(storage);
            if (running) return running;
            const claim = settle(this._claim(request)).then((result) => {
                if (claimsInFlight.get(storage) === claim) claimsInFlight.delete(storage);
                return result;
            });
            claimsInFlight.set(storage, claim);
            return claim;
        } catch (error) {
            return Promise.resolve(failed(asRelinkError(error)));
        }
    }

    /**
     * The deep link of a Relink link that opened the installed app (a universal link or App Link), counted as a
     * re-open in the link's statistics (`POST /v1/reopenAttribution`).
     * @param {string} url the URL that opened the app.
     * @returns {Promise<object>} `resolved` (with `link`) or `failed` (with `error`).
     */
    reopen(url) {
        return settle(this._link(url, true));
    }

    /**
     * The deep link of a Relink link without counting a re-open: for a link the app found itself (a QR code, a
     * push payload).
     * @param {string} url a short link, a long link or a route on the server's domains.
     * @returns {Promise<object>} `resolved` (with `link`) or `failed` (with `error`).
     */
    resolve(url) {
        return settle(this._link(url, false));
    }

    async _claim(request) {
        const r = request === undefined || request === null ? {} : request;
        if (typeof r !== "object") throw invalid("the claim request must be an object {device, installReferrer, clipboardLink}");
        const fields = claimFields(r, this._platform);
        const storage = this._storage;

        if (await storageCall(() => storage.getItem(CLAIMED_KEY), "read") === "1") return { result: "alreadyClaimed" };
        let installId = await storageCall(() => storage.getItem(INSTALL_ID_KEY), "read");
        // A kept id the server refuses (another SDK's, a damaged one) is replaced: sent, every claim would be refused.
        if (!isValidInstallId(installId)) {
            installId = await makeInstallId(this._installIdFactory);
            // Stored before the request: a claim that times out after the server took the click is retried with
            // this id, and the server answers it with its first answer.
            await storageCall(() => storage.setItem(INSTALL_ID_KEY, installId), "write");
        }

        const body = { platform: this._platform, bundleId: this._appId, installId, sdkVersion: SDK_VERSION };
        Object.assign(body, fields);
        const answer = await this._post("/v1/installAttribution", body);
        if (answer.error) return failed(answer.error);
        const result = claimResult(answer.json, answer.status);
        if (result.result === "failed") return result;
        try {
            await storage.setItem(CLAIMED_KEY, "1");
        } catch (_) {
            // The answer stands: the next launch claims again with the same install id and gets the same answer.
        }
        return result;
    }

    async _link(url, countAsReopen) {
        if (this._configError) return failed(this._configError);
        if (typeof url !== "string" || url.trim() === "") throw invalid("the link must be a non-empty string");
        const body = { requestedLink: url, bundleId: this._appId, sdkVersion: SDK_VERSION };
        let installId = null;
        try {
            installId = await this._storage.getItem(INSTALL_ID_KEY);
        } catch (_) {
            // The install id only spares the link's re-open count a duplicate; the link itself still resolves.
        }
        if (isValidInstallId(installId)) body.installId = installId;
        if (!countAsReopen) body.countAsReopen = false;
        const answer = await this._post("/v1/reopenAttribution", body);
        if (answer.error) return failed(answer.error);
        return linkResult(answer.json, answer.status);
    }

    // One call's requests: retries 429 and 503 while the waits fit in the budget, at most MAX_ATTEMPTS.
    async _post(path, body) {
        const text = JSON.stringify(body);
        let waitedMs = 0;
        for (let attempt = 1; ; attempt++) {
            const answer = await this._send(path, text);
            if (answer.error) return answer;
            const status = answer.status;
            if (status >= 200 && status < 300) {
                const problem = shapeProblem(answer.text);
                if (problem) return { error: malformed(status, problem) };
                const json = parseJSON(answer.text);
                if (json === undefined) return { error: malformed(status, "the answer is not JSON") };
                return { status, json };
            }
            const error = httpError(status, answer.text, answer.retryAfter);
            if (status !== 429 && status !== 503) return { error };
            const waitMs = (answer.retryAfter === undefined ? 1 : answer.retryAfter) * 1000;
            if (attempt >= MAX_ATTEMPTS || waitedMs + waitMs > this._retryBudgetMs) return { error };
            await sleep(waitMs);
            waitedMs += waitMs;
        }
    }

    // One request, within the timeout; never rejects.
    async _send(path, text) {
        const fetchFunction = this._fetch; // called unbound: browsers refuse fetch with another `this`
        const url = this._base + path;
        const timeoutMs = this._timeoutMs;
        let controller = null;
        try {
            controller = typeof AbortController === "function" ? new AbortController() : null;
        } catch (_) {
            controller = null;
        }
        let timer = null;
        // The race answers at the timeout even when a fetch (a polyfill, a test double) ignores the signal.
        const timedOut = new Promise((resolve) => {
            timer = setTimeout(() => {
                if (controller) controller.abort();
                resolve(TIMED_OUT);
            }, timeoutMs);
        });
        try {
            const request = (async () => {
                let response;
                try {
                    response = await fetchFunction(url, {
                        method: "POST",
                        headers: { "Content-Type": "application/json", Accept: "application/json" },
                        body: text,
                        redirect: "manual",
                        credentials: "omit",
                        signal: controller ? controller.signal : undefined,
                    });
                } catch (error) {
                    // No answer yet: browsers, React Native's fetch and the other clients read past an interim
                    // 100 Continue and wait for the final answer; Node's fetch drops the connection at it. Waiting
                    // out the timeout makes it the same result (a final answer after the 100 is lost in Node).
                    if (isInterimContinue(error)) return new Promise(() => {});
                    return { error: { kind: "offline", message: `could not reach the server: ${messageOf(error)}` } };
                }
                const status = response && typeof response.status === "number" ? response.status : NaN;
                // A browser hides a redirect behind an opaque answer of status 0; React Native's fetch follows
                // redirects whatever `redirect` says, which shows afterwards as `redirected` or another `url`.
                if (response && (response.type === "opaqueredirect" || response.redirected === true
                    || typeof response.url === "string" && response.url !== "" && !sameURL(response.url, url))) {
                    const error = { kind: "http", message: "the server answered with a redirect, which is not followed" };
                    if (status >= 300 && status < 400) error.status = status;
                    return { error };
                }
                if (status >= 300 && status < 400) {
                    return { error: { kind: "http", status, message: `the server answered with a redirect (HTTP ${status}), which is not followed` } };
                }
                // Any three-digit status is an answer (600 is "http" in all three clients); anything else is none.
                if (!(status >= 100 && status < 1000)) return { error: malformed(undefined, "the answer has no HTTP status") };
                let body;
                try {
                    body = await readAnswer(response);
                } catch (error) {
                    return { error: { kind: "offline", status, message: `the answer broke off: ${messageOf(error)}` } };
                }
                if (body === TOO_LARGE) return { error: malformed(status, `the answer is larger than ${MAX_ANSWER_BYTES} bytes`) };
                let retryAfter;
                try {
                    retryAfter = parseRetryAfter(response.headers ? response.headers.get("Retry-After") : null);
                } catch (_) {
                    retryAfter = undefined;
                }
                return { status, text: typeof body === "string" ? body : String(body), retryAfter };
            })().catch((error) => ({ error: { kind: "offline", message: `could not reach the server: ${messageOf(error)}` } }));
            const outcome = await Promise.race([request, timedOut]);
            if (outcome === TIMED_OUT) {
                return { error: { kind: "timeout", message: `no answer within ${timeoutMs} ms` } };
            }
            return outcome;
        } catch (error) {
            return { error: { kind: "offline", message: `could not reach the server: ${messageOf(error)}` } };
        } finally {
            clearTimeout(timer);
        }
    }
}

// Node's fetch (undici) refusing an interim 100 Continue: its only "bad response" socket error.
function isInterimContinue(error) {
    const cause = error && typeof error === "object" ? error.cause : null;
    return !!cause && typeof cause === "object" && cause.code === "UND_ERR_SOCKET" && cause.message === "bad response";
}

/**
 * The seconds a `Retry-After` header asks for (RFC 9110 §10.2.3): delay-seconds, or an IMF-fixdate
 * (`Sun, 06 Nov 1994 08:49:37 GMT`) counted from now, 0 when past; at most 2147483647, as in the other clients.
 * @param {string|null|undefined} value the header's value.
 * @param {number} [nowMs=Date.now()] the time an HTTP date is counted from.
 * @returns {number|undefined} whole seconds, or undefined when absent or unreadable (the caller waits 1 s then).
 */
export function parseRetryAfter(value, nowMs) {
    if (typeof value !== "string") return undefined;
    const text = value.trim();
    if (/^\d+$/.test(text)) return text.length > 9 ? MAX_RETRY_AFTER_SECONDS : parseInt(text, 10);
    const at = imfFixdateMs(text);
    if (at === undefined) return undefined;
    const now = nowMs === undefined ? Date.now() : nowMs;
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil((at - now) / 1000)));
}

const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

// An IMF-fixdate's time in ms, or undefined: read field by field as the Swift and Android clients read it, since
// Date.parse takes other forms too and rolls "31 Feb" over into March.
function imfFixdateMs(text) {
    const match = /^([A-Z][a-z]{2}), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(text);
    if (!match || DAYS.indexOf(match[1]) < 0) return undefined;
    const month = MONTHS.indexOf(match[3]);
    const [day, year, hour, minute, second] = [match[2], match[4], match[5], match[6], match[7]].map((digits) => parseInt(digits, 10));
    if (month < 0 || day < 1 || hour > 23 || minute > 59 || second > 60) return undefined;
    const daysInMonth = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month];
    if (day > daysInMonth) return undefined;
    const date = new Date(0);
    date.setUTCFullYear(year, month, day);
    date.setUTCHours(hour, minute, second, 0);
    return date.getTime();
}

function isLeapYear(year) {
    return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * Why an answer's text is not one to read, or null: nesting deeper than MAX_DEPTH, an object with one key twice
 * (JSON.parse keeps the last, Swift's decoder the first: all three clients call it malformed instead), or a number
 * past a double's range (JSON.parse reads 1e999999 as Infinity, Android's parser refuses it), or a comma with no
 * value on one side (JSON.parse refuses `[1,]`, Android's parser reads a null there, Swift's skips it: named here so
 * all three say the same). Text that is not JSON passes; JSON.parse refuses it.
 * @param {string} text
 * @returns {string|null}
 */
function shapeProblem(text) {
    const open = []; // per open bracket: a Set of the object's keys, or null for an array
    const length = text.length;
    // The last character outside a string that is not white space (a string counts as its quote, a number as 0).
    let previous = 0;
    let i = 0;
    while (i < length) {
        const c = text.charCodeAt(i);
        if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
            i++;
            continue;
        }
        if (c === 0x22) {
            let end = i + 1;
            while (end < length && text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
            end = Math.min(end + 1, length);
            const keys = open.length > 0 ? open[open.length - 1] : null;
            if (keys !== null && nextNonSpace(text, end) === ":") {
                const key = parseJSON(text.slice(i, end));
                if (typeof key === "string") {
                    if (keys.has(key)) return `the answer has the key "${printable(key)}" twice in one object`;
                    keys.add(key);
                }
            }
            previous = 0x22;
            i = end;
            continue;
        }
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
            let end = i;
            while (end < length && isNumberChar(text.charCodeAt(end))) end++;
            const number = text.slice(i, end);
            if (Math.abs(Number(number)) === Infinity) {
                return `the answer holds the number ${number.length > 32 ? number.slice(0, 32) + "…" : number}, past a double's range`;
            }
            previous = 0x30;
            i = end;
            continue;
        }
        if (c === 0x7b || c === 0x5b) {
            if (open.length >= MAX_DEPTH) return `the answer nests deeper than ${MAX_DEPTH} levels`;
            open.push(c === 0x7b ? new Set() : null);
        } else if (c === 0x7d || c === 0x5d) {
            if (previous === 0x2c) return "the answer has a comma before a closing bracket";
            if (open.length > 0) open.pop();
        } else if (c === 0x2c && (previous === 0 || previous === 0x2c || previous === 0x5b || previous === 0x7b)) {
            return "the answer has a comma with no value before it";
        }
        previous = c;
        i++;
    }
    return null;
}

// A digit, sign, point or exponent: what a JSON number is written with.
function isNumberChar(c) {
    return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

function nextNonSpace(text, from) {
    for (let i = from; i < text.length; i++) {
        const c = text[i];
        if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") return c;
    }
    return "";
}

// A key for a message: at most 64 characters, control characters as "?".
function printable(key) {
    return key.slice(0, 64).replace(/[\u0000-\u001f\u007f]/g, "?");
}

/**
 * A random install id (a v4 UUID): `crypto.randomUUID`, else one from `crypto.getRandomValues`.
 * @param {object} [cryptoObject=globalThis.crypto]
 * @returns {string}
 * @throws when neither is there (Hermes without react-native-get-random-values): pass `installIdFactory`.
 */
export function newInstallId(cryptoObject) {
    const c = arguments.length > 0 ? cryptoObject : globalThis.crypto;
    if (c && typeof c.randomUUID === "function") return c.randomUUID();
    if (c && typeof c.getRandomValues === "function") {
        const bytes = c.getRandomValues(new Uint8Array(16));
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let hex = "";
        for (let i = 0; i < 16; i++) hex += (bytes[i] + 0x100).toString(16).slice(1);
        return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
    throw invalid(NO_RANDOMNESS);
}

const NO_RANDOMNESS = "no crypto.randomUUID or crypto.getRandomValues to make the install id with: import "
    + "react-native-get-random-values first, or pass installIdFactory (a function answering a random UUID string)";
const TIMED_OUT = {};
const TOO_LARGE = {};

// The answer's text, or TOO_LARGE past MAX_ANSWER_BYTES: read as a stream where fetch gives one (browsers, Node),
// stopping at the cap; whole where it does not (React Native), bounded there by the timeout alone.
async function readAnswer(response) {
    const length = response.headers && typeof response.headers.get === "function" ? response.headers.get("Content-Length") : null;
    if (typeof length === "string" && /^\d+$/.test(length.trim()) && Number(length) > MAX_ANSWER_BYTES) return TOO_LARGE;
    const stream = response.body;
    if (!stream || typeof stream.getReader !== "function" || typeof TextDecoder !== "function") {
        const text = await response.text();
        return typeof text === "string" && text.length > MAX_ANSWER_BYTES ? TOO_LARGE : text;
    }
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    let size = 0;
    let text = "";
    for (;;) {
        const { done, value } = await reader.read();
        if (done) return text + decoder.decode();
        size += value.byteLength;
        if (size > MAX_ANSWER_BYTES) {
            reader.cancel().catch(() => {});
            return TOO_LARGE;
        }
        text += decoder.decode(value, { stream: true });
    }
}

// The server URL without its trailing slash, or an invalidInput error thrown.
function checkServer(server) {
    if (typeof server !== "string") throw invalid(`server must be a URL string, not ${describe(server)}`);
    const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(\[[0-9A-Fa-f:.]+\]|[^\s/?#@:[\]]+)(?::(\d{1,5}))?(\/[^\s?#]*)?$/.exec(server);
    if (!match) throw invalid(`server must be a URL such as https://go.example.com (no query, fragment or user), not "${server}"`);
    const scheme = match[1].toLowerCase();
    const host = match[2].toLowerCase();
    if (match[3] !== undefined && parseInt(match[3], 10) > 65535) throw invalid(`the server's port is out of range: "${server}"`);
    if (scheme !== "https" && !(scheme === "http" && LOOPBACK_HOSTS.indexOf(host) >= 0)) {
        throw invalid(`the server must be https (plain http only on localhost, 127.0.0.1, [::1] or 10.0.2.2), not "${server}"`);
    }
    return server.replace(/\/+$/, "");
}

// The claim's body fields from the app's request (the caller adds platform, bundleId, installId, sdkVersion).
function claimFields(request, platform) {
    const fields = {};
    const device = request.device === undefined || request.device === null ? {} : request.device;
    if (typeof device !== "object") throw invalid("device must be an object");
    const osVersion = optionalString(device.osVersion, "device.osVersion");
    if (osVersion !== undefined) {
        fields.osVersion = osVersion;
        if (platform === "IOS") fields.iosVersion = osVersion;
    }
    const referrer = optionalString(request.installReferrer, "installReferrer");
    if (referrer !== undefined && referrer !== "") fields.installReferrer = referrer;
    const clipboard = request.clipboardLink;
    if (clipboard !== undefined && clipboard !== null && typeof clipboard !== "string") throw invalid("clipboardLink must be a string");
    if (Relink.isClaimLink(clipboard)) fields.uniqueMatchLinkToCheck = clipboard;
    const installedAt = device.installedAt;
    if (installedAt instanceof Date) {
        if (!isFinite(installedAt.getTime())) throw invalid("device.installedAt is an invalid Date");
        fields.appInstallationTime = String(Math.floor(installedAt.getTime() / 1000));
    } else if (typeof installedAt === "number" && isFinite(installedAt)) {
        fields.appInstallationTime = String(Math.floor(installedAt));
    } else if (installedAt !== undefined && installedAt !== null) {
        throw invalid("device.installedAt must be epoch seconds or a Date");
    }
    const signals = {};
    const model = optionalString(device.deviceModelName, "device.deviceModelName");
    if (model !== undefined) signals.deviceModelName = model;
    const language = optionalString(device.languageCode, "device.languageCode");
    if (language !== undefined) {
        signals.languageCode = language;
        signals.languageCodeRaw = language;
    }
    const timeZone = optionalString(device.timeZone, "device.timeZone");
    if (timeZone !== undefined) signals.timezone = timeZone;
    // Strings, as FDL's SDKs sent them and the Swift client does.
    const width = optionalSize(device.screenWidth, "device.screenWidth");
    if (width !== undefined) signals.screenResolutionWidth = width;
    const height = optionalSize(device.screenHeight, "device.screenHeight");
    if (height !== undefined) signals.screenResolutionHeight = height;
    if (Object.keys(signals).length > 0) fields.device = signals;
    return fields;
}

// A 2xx claim answer as a result: matched, organic, or failed (malformed).
function claimResult(json, status) {
    if (!isObject(json)) return failed(malformed(status, "the answer is not a JSON object"));
    if (typeof json.matchMessage !== "string") return failed(malformed(status, "the answer has no matchMessage"));
    const wrong = wrongTypes(json, ["deepLink", "attributionConfidence", "requestedLink", "resolvedLink", "appMinimumVersion"].concat(UTM_FIELDS));
    if (wrong) return failed(malformed(status, `the answer's ${wrong} is not a string`));
    const deepLink = present(json.deepLink);
    const confidence = present(json.attributionConfidence);
    if (deepLink === undefined && confidence === undefined) return { result: "organic", matchMessage: json.matchMessage };
    if (deepLink === undefined || confidence === undefined) {
        return failed(malformed(status, "the answer has a deepLink without attributionConfidence, or the reverse"));
    }
    if (CONFIDENCES.indexOf(confidence) < 0) return failed(malformed(status, `unknown attributionConfidence "${confidence}"`));
    const link = { deepLink, confidence };
    copyStrings(json, link, UTM_FIELDS);
    if (present(json.appMinimumVersion) !== undefined) link.minimumAppVersion = json.appMinimumVersion;
    copyStrings(json, link, ["requestedLink", "resolvedLink"]);
    link.matchMessage = json.matchMessage;
    return { result: "matched", link };
}

// A 2xx re-open answer as a result: resolved, or failed (malformed).
function linkResult(json, status) {
    if (!isObject(json)) return failed(malformed(status, "the answer is not a JSON object"));
    if (typeof json.deepLink !== "string") return failed(malformed(status, "the answer's deepLink is missing or not a string"));
    if (typeof json.resolvedLink !== "string") return failed(malformed(status, "the answer's resolvedLink is missing or not a string"));
    const wrong = wrongTypes(json, ["iosMinAppVersion"].concat(UTM_FIELDS));
    if (wrong) return failed(malformed(status, `the answer's ${wrong} is not a string`));
    const routeParameters = {};
    const given = present(json.routeParameters);
    if (given !== undefined) {
        if (!isObject(given)) return failed(malformed(status, "the answer's routeParameters is not an object"));
        for (const name of Object.keys(given)) {
            if (typeof given[name] !== "string") return failed(malformed(status, `the answer's routeParameters.${name} is not a string`));
            // Defined, not assigned: a parameter named __proto__ would set the object's prototype instead.
            Object.defineProperty(routeParameters, name, { value: given[name], enumerable: true, writable: true, configurable: true });
        }
    }
    const link = { deepLink: json.deepLink, resolvedLink: json.resolvedLink };
    copyStrings(json, link, UTM_FIELDS);
    if (present(json.iosMinAppVersion) !== undefined) link.minimumAppVersion = json.iosMinAppVersion;
    link.routeParameters = routeParameters;
    return { result: "resolved", link };
}

// A non-2xx answer as an error, with FDL's error body when there is one.
function httpError(status, text, retryAfter) {
    const kind = status === 429 ? "rateLimited" : status === 503 ? "unavailable" : "http";
    const error = { kind, status, message: `HTTP ${status}` };
    // A body too deep or with a key twice gives nothing: the status says what happened.
    const json = shapeProblem(text) ? undefined : parseJSON(text);
    const body = isObject(json) && isObject(json.error) ? json.error : null;
    if (body && typeof body.status === "string") error.apiStatus = body.status;
    if (body && typeof body.message === "string" && body.message !== "") error.message = body.message;
    if (retryAfter !== undefined) error.retryAfterSeconds = retryAfter;
    return error;
}

async function makeInstallId(factory) {
    let id;
    try {
        id = await factory();
    } catch (error) {
        throw error && error.relinkError ? error : invalid(`installIdFactory failed: ${messageOf(error)}`);
    }
    if (!isValidInstallId(id)) throw invalid("the install id must be 1 to 128 characters A-Z, a-z, 0-9, '.', '_' and '-'");
    return id;
}

// Whether the server takes the install id (any other is refused with a 400, claim and re-open alike).
function isValidInstallId(id) {
    return typeof id === "string" && /^[A-Za-z0-9._-]{1,128}$/.test(id);
}

// The storage's answer, or an invalidInput error thrown: the app's adapter failed, not the server.
async function storageCall(operation, verb) {
    try {
        return await operation();
    } catch (error) {
        throw invalid(`the storage failed to ${verb}: ${messageOf(error)}`);
    }
}

// A call's promise that fulfils with a result whatever happens inside.
function settle(promise) {
    return Promise.resolve(promise).then(
        (result) => result,
        (error) => failed(asRelinkError(error)),
    );
}

// Whether a response's url is the one requested, up to the case and a default port. A server URL beyond ASCII
// (an IDN host, which fetch turns into punycode) is not compared rather than taken for a redirect.
function sameURL(a, b) {
    if (/[^\x21-\x7e]/.test(b)) return true;
    const normal = (text) => text.toLowerCase().replace(/^(https:\/\/[^/]+):443(?=\/|$)/, "$1").replace(/^(http:\/\/[^/]+):80(?=\/|$)/, "$1");
    return normal(a) === normal(b);
}

function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
}

function invalid(message) {
    const error = new Error(message);
    error.relinkError = { kind: "invalidInput", message };
    return error;
}

// Errors thrown inside come from what the app handed in (options, arguments, adapters): invalidInput.
function asRelinkError(error) {
    if (error && error.relinkError) return error.relinkError;
    return { kind: "invalidInput", message: `unexpected: ${messageOf(error)}` };
}

function failed(error) {
    return { result: "failed", error };
}

function malformed(status, message) {
    const error = { kind: "malformed", message: `the server's answer is not Relink's: ${message}` };
    if (status !== undefined) error.status = status;
    return error;
}

function parseJSON(text) {
    try {
        return JSON.parse(text);
    } catch (_) {
        return undefined;
    }
}

function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
}

// JSON null counts as absent, as some servers write absent optionals.
function present(value) {
    return value === null ? undefined : value;
}

function wrongTypes(json, names) {
    for (const name of names) {
        const value = present(json[name]);
        if (value !== undefined && typeof value !== "string") return name;
    }
    return null;
}

function copyStrings(from, to, names) {
    for (const name of names) if (typeof from[name] === "string") to[name] = from[name];
}

function optionalString(value, name) {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw invalid(`${name} must be a string`);
    return value;
}

function optionalSize(value, name) {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !isFinite(value) || value < 0) throw invalid(`${name} must be a number`);
    return String(Math.round(value));
}

function isDuration(value) {
    return typeof value === "number" && isFinite(value) && value > 0 && value <= MAX_TIMER_MS;
}

function messageOf(error) {
    if (error && typeof error.message === "string") return error.message;
    try {
        return String(error);
    } catch (_) {
        return "unknown error";
    }
}

function describe(value) {
    return typeof value === "string" ? `"${value}"` : String(value);
}
