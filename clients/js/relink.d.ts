// Type declarations of relink.mjs, Relink's JavaScript client.

/** The platform the app runs on. */
export type Platform = "IOS" | "ANDROID";

/** The `sdkVersion` this client sends. */
export declare const SDK_VERSION: "relink-js-1";

/**
 * Where the client keeps the install id and the claimed flag (`relink.installId`, `relink.claimed`).
 * AsyncStorage and localStorage fit as they are; either method may answer a value or a promise of one.
 */
export interface RelinkStorage {
    getItem(key: string): string | null | undefined | Promise<string | null | undefined>;
    setItem(key: string, value: string): void | Promise<void>;
}

/** The part of a fetch response the client reads. */
export interface RelinkFetchResponse {
    readonly status: number;
    readonly type?: string;
    readonly redirected?: boolean;
    readonly url?: string;
    readonly headers: { get(name: string): string | null };
    text(): Promise<string>;
}

/** A fetch: the platform's own, or one an app wraps (a proxy, a test double). */
export type RelinkFetch = (url: string, init: any) => Promise<RelinkFetchResponse>;

export interface RelinkOptions {
    /** `https://go.example.com`; plain http only for localhost, 127.0.0.1, [::1] and 10.0.2.2. */
    server: string;
    platform: Platform;
    /** The app's bundle ID (iOS) or package name (Android). */
    appId: string;
    storage: RelinkStorage;
    /** Each request's timeout; default 10,000. */
    timeoutMs?: number;
    /** How long the waits before retries of 429 and 503 may add up to; default 10,000. */
    retryBudgetMs?: number;
    /** Default: `globalThis.fetch`. */
    fetch?: RelinkFetch;
    /** Makes the install id where there is neither `crypto.randomUUID` nor `crypto.getRandomValues`. */
    installIdFactory?: () => string | Promise<string>;
}

/** What the app knows about its device, for a match on the device's signals. */
export interface DeviceInfo {
    /** `17.2` (iOS) or the Android release, `14`. */
    osVersion?: string;
    /** `iPhone15,2`, or Android's `Build.MODEL`. */
    deviceModelName?: string;
    /** In points (iOS) or density-independent pixels (Android), as a web page sees the screen. */
    screenWidth?: number;
    screenHeight?: number;
    /** A BCP 47 tag, `en-US`. */
    languageCode?: string;
    /** An IANA time zone, `Europe/Berlin`. */
    timeZone?: string;
    /** When the app was installed (epoch seconds or a Date), not when it launched. */
    installedAt?: number | Date;
}

export interface ClaimRequest {
    device?: DeviceInfo;
    /** The Play install referrer (Android), as the Install Referrer API gave it. */
    installReferrer?: string | null;
    /** The clipboard's text, when the app chose to read it (iOS); sent only when it is a claim link. */
    clipboardLink?: string | null;
}

export type Confidence = "UNIQUE" | "DEFAULT" | "WEAK";

/** The link a first launch was matched to. */
export interface DeferredLink {
    deepLink: string;
    /** UNIQUE (referrer or clipboard), DEFAULT (one clear fingerprint match), WEAK (a guess: offer, do not force). */
    confidence: Confidence;
    utmSource?: string;
    utmMedium?: string;
    utmCampaign?: string;
    utmContent?: string;
    utmTerm?: string;
    /** The link's minimum app version (`imv` / `amv`). */
    minimumAppVersion?: string;
    /** The link as clicked, and its long form. */
    requestedLink?: string;
    resolvedLink?: string;
    matchMessage: string;
}

/** The deep link of a Relink link that opened the app. */
export interface ResolvedLink {
    deepLink: string;
    /** The link's long form. */
    resolvedLink: string;
    utmSource?: string;
    utmMedium?: string;
    utmCampaign?: string;
    utmContent?: string;
    utmTerm?: string;
    /** The link's minimum iOS app version (`imv`). */
    minimumAppVersion?: string;
    /** A route's path parameters, decoded (`{id: "42"}` for `/p/{id}`); `{}` for other links. */
    routeParameters: Record<string, string>;
}

export type ErrorKind = "offline" | "timeout" | "rateLimited" | "unavailable" | "http" | "malformed" | "invalidInput";

export interface RelinkError {
    /**
     * offline: no connection; timeout: no answer in time; rateLimited (429) and unavailable (503): still refused
     * after the retries the budget allows; http: any other non-2xx answer, a redirect included; malformed: a 2xx
     * answer that is not Relink's; invalidInput: the options, the arguments or the storage adapter.
     */
    kind: ErrorKind;
    message: string;
    /** The HTTP status, when the server answered. */
    status?: number;
    /** FDL's error status, `NOT_FOUND`, `RESOURCE_EXHAUSTED`. */
    apiStatus?: string;
    /** The server's Retry-After, in seconds. */
    retryAfterSeconds?: number;
}

export interface Failed {
    result: "failed";
    error: RelinkError;
}

export type ClaimResult =
    | { result: "matched"; link: DeferredLink }
    | { result: "organic"; matchMessage: string }
    | { result: "alreadyClaimed" }
    | Failed;

export type LinkResult = { result: "resolved"; link: ResolvedLink } | Failed;

/** A client of one Relink server for one app. Its calls never throw or reject: failures are `{result: "failed"}`. */
export declare class Relink {
    /** Never throws: bad options make every call answer `failed` with kind `invalidInput`. */
    constructor(options: RelinkOptions);
    /** Whether a clipboard text is a Relink claim link (`https://…?rc=…&_icp=1`). */
    static isClaimLink(text: unknown): boolean;
    /** The link clicked before the install, once per install; a second call while one runs gets its promise. */
    claimDeferredLink(request?: ClaimRequest): Promise<ClaimResult>;
    /** The deep link of a link that opened the app, counted as a re-open. */
    reopen(url: string): Promise<LinkResult>;
    /** The deep link of a link, not counted as a re-open. */
    resolve(url: string): Promise<LinkResult>;
}

/** Whole seconds a Retry-After value asks for (delay-seconds or an IMF-fixdate, at most 2147483647); undefined when absent or unreadable. */
export declare function parseRetryAfter(value: string | null | undefined, nowMs?: number): number | undefined;

/** A random v4 UUID from `crypto`; throws, naming `installIdFactory`, where there is no randomness. */
export declare function newInstallId(cryptoObject?: { randomUUID?(): string; getRandomValues?<T extends Uint8Array>(array: T): T }): string;
