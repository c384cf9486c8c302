package dev.relink;

import java.net.MalformedURLException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.json.JSONException;
import org.json.JSONObject;

/**
 * Relink's client for Android apps: the deferred deep link on first launch ({@link #claimDeferredLink}), and the deep
 * link of a Relink link that opened the app ({@link #reopen}, {@link #resolve}).
 *
 * <p>Every call answers with a value, never an exception: {@link ClaimResult} or {@link LinkResult}, with a
 * {@link RelinkError} when it failed. The callback variants never block the calling thread (call them from the main
 * thread); the {@code ...Blocking} variants are for code already on a background thread, such as Kotlin's
 * {@code withContext(Dispatchers.IO)}.
 *
 * <p>Requests go to the configured server only, never following a redirect; the install referrer and the device's
 * signals are sent there and nowhere else, and never logged.
 */
public final class Relink {
    /** The {@code sdkVersion} this library sends. */
    public static final String SDK_VERSION = "relink-android-1";
    /** The storage key of the install id. */
    public static final String KEY_INSTALL_ID = "relink.installId";
    /** The storage key set to {@code "1"} once the server answered a claim (matched or organic). */
    public static final String KEY_CLAIMED = "relink.claimed";

    static final int MAX_ATTEMPTS = 3;
    static final String INSTALL_ATTRIBUTION = "/v1/installAttribution";
    static final String REOPEN_ATTRIBUTION = "/v1/reopenAttribution";

    /** Claims in flight in this process, by server and app: a second caller waits for the first one's answer. */
    private static final Map<String, PendingClaim> CLAIMS_IN_FLIGHT = new HashMap<String, PendingClaim>();

    /**
     * Receives a call's result.
     *
     * @param <T> {@link ClaimResult} or {@link LinkResult}.
     */
    public interface Callback<T> {
        /** @param result the call's result, never null. */
        void onResult(T result);
    }

    /**
     * The client's settings: the server, the platform, the app's package name and the storage, then optional
     * timeouts and executors, set with the chained methods.
     */
    public static final class Config {
        private final String server;
        private final Platform platform;
        private final String appId;
        private final KeyValueStore storage;
        private int timeoutMillis = 10000;
        private long retryBudgetMillis = 10000;
        private Executor executor;
        private Executor callbackExecutor;

        /**
         * @param server the Relink server, {@code https://go.example.com}; plain {@code http} only for
         *     {@code localhost}, {@code 127.0.0.1}, {@code [::1]} and the emulator's host {@code 10.0.2.2}.
         * @param platform {@link Platform#ANDROID} for an Android app.
         * @param appId the app's package name (its {@code applicationId}).
         * @param storage where the install id and the claim's state are kept.
         */
        public Config(String server, Platform platform, String appId, KeyValueStore storage) {
            this.server = server;
            this.platform = platform;
            this.appId = appId;
            this.storage = storage;
        }

        /**
         * @param value the connect and the read timeout of each request (default 10,000 ms).
         * @return this config.
         */
        public Config timeoutMillis(int value) { timeoutMillis = value; return this; }

        /**
         * @param value how long the waits before retrying a 429 or 503 may take together (default 10,000 ms; negative
         *     is refused as {@link RelinkError.Kind#INVALID_INPUT} at every call).
         * @return this config.
         */
        public Config retryBudgetMillis(long value) { retryBudgetMillis = value; return this; }

        /**
         * @param value where the requests run; default: the client's own single background thread.
         * @return this config.
         */
        public Config executor(Executor value) { executor = value; return this; }

        /**
         * @param value where callbacks run; default: the background thread that made the request. For the main
         *     thread pass {@code new Handler(Looper.getMainLooper())::post} (or an {@code Executor} wrapping it).
         * @return this config.
         */
        public Config callbackExecutor(Executor value) { callbackExecutor = value; return this; }

        /** @return the server. */
        public String getServer() { return server; }
        /** @return the platform. */
        public Platform getPlatform() { return platform; }
        /** @return the app's package name or bundle ID. */
        public String getAppId() { return appId; }
        /** @return the storage. */
        public KeyValueStore getStorage() { return storage; }
        /** @return the timeout of each request. */
        public int getTimeoutMillis() { return timeoutMillis; }
        /** @return the retry budget. */
        public long getRetryBudgetMillis() { return retryBudgetMillis; }
    }

    private final Platform platform;
    private final String appId;
    private final KeyValueStore storage;
    private final int timeoutMillis;
    private final long retryBudgetMillis;
    private final Executor executor;
    private final Executor callbackExecutor;
    /** The server without a trailing slash, or null when the config is refused. */
    private final String base;
    /** Why the config is refused: every call answers with it rather than the constructor throwing. */
    private final RelinkError configError;

    /**
     * A client. A config it refuses (a server that is not https, an empty app id) does not throw: every call then
     * fails with {@link RelinkError.Kind#INVALID_INPUT}.
     *
     * @param config the settings.
     */
    public Relink(Config config) {
        this.platform = config.platform;
        this.appId = config.appId;
        this.storage = config.storage;
        this.timeoutMillis = config.timeoutMillis;
        this.retryBudgetMillis = config.retryBudgetMillis;
        this.executor = config.executor != null ? config.executor : defaultExecutor();
        this.callbackExecutor = config.callbackExecutor;
        String problem = checkServer(config.server);
        if (problem == null && config.platform == null) problem = "The platform is missing.";
        if (problem == null && (config.appId == null || config.appId.isEmpty())) problem = "The app id is empty.";
        if (problem == null && config.storage == null) problem = "The storage is missing.";
        if (problem == null && config.timeoutMillis <= 0) problem = "The timeout must be positive.";
        // Refused as the Swift and JavaScript clients refuse it, not quietly read as 0.
        if (problem == null && config.retryBudgetMillis < 0) problem = "The retry budget must not be negative.";
        this.configError = problem == null ? null : RelinkError.of(RelinkError.Kind.INVALID_INPUT, problem);
        this.base = problem == null ? stripTrailingSlashes(config.server) : null;
    }

    /**
     * Whether the server URL is one this client talks to: https, or http on loopback or the emulator's host.
     *
     * @param server the server URL.
     * @return null when it is, else why not.
     */
    static String checkServer(String server) {
        if (server == null || server.isEmpty()) return "The server URL is empty.";
        URI uri;
        try {
            uri = new URI(server);
        } catch (URISyntaxException e) {
            return "The server URL is not a URL.";
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost() == null ? null : uri.getHost().toLowerCase(Locale.ROOT);
        if (host == null || host.isEmpty()) return "The server URL has no host.";
        if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            return "The server URL has a user, a query or a fragment.";
        }
        if (scheme.equals("https")) return null;
        if (scheme.equals("http")) {
            if (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]") || host.equals("10.0.2.2")) {
                return null;
            }
            return "The server URL must be https (plain http only on loopback or 10.0.2.2).";
        }
        return "The server URL must be https.";
    }

    private static String stripTrailingSlashes(String server) {
        String result = server;
        while (result.endsWith("/")) result = result.substring(0, result.length() - 1);
        return result;
    }

    /**
     * Whether a clipboard text is a Relink claim link, {@code https://…?rc=<click id>&_icp=1}: only such a link is
     * sent, so an app may read the clipboard and pass what it found.
     *
     * @param text the clipboard's text.
     * @return true for an http(s) URL with a host, containing {@code rc=} and ending with {@code _icp=1}.
     */
    public static boolean isClaimLink(String text) {
        if (text == null || !text.endsWith("_icp=1") || !text.contains("rc=")) return false;
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            return (scheme.equals("https") || scheme.equals("http")) && uri.getHost() != null;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    // MARK: first launch

    /**
     * Claims the link the user clicked before installing, once per install, on the background executor; the
     * callback gets the result on the callback executor. Never blocks the calling thread.
     *
     * @param request the device's signals and the install referrer.
     * @param callback receives {@link ClaimResult}.
     */
    public void claimDeferredLink(final ClaimRequest request, final Callback<ClaimResult> callback) {
        if (callback == null) throw new NullPointerException("callback");
        if (configError != null) {
            run(new Runnable() {
                @Override public void run() { deliver(callback, ClaimResult.failed(configError)); }
            }, callback, ClaimResult.class);
            return;
        }
        // Joined here, on the caller's thread, so a second call made before the first one's answer gets that answer
        // even though this client's executor would run it only after the first.
        final String key = claimKey();
        final PendingClaim pending;
        synchronized (CLAIMS_IN_FLIGHT) {
            PendingClaim existing = CLAIMS_IN_FLIGHT.get(key);
            pending = existing != null ? existing : new PendingClaim();
            if (existing == null) CLAIMS_IN_FLIGHT.put(key, pending);
            pending.listen(this, callback);
            if (existing != null) return;
        }
        try {
            executor.execute(new Runnable() {
                @Override public void run() { claim(key, pending, request); }
            });
        } catch (RejectedExecutionException e) {
            finish(key, pending, ClaimResult.failed(RelinkError.of(RelinkError.Kind.INVALID_INPUT, "The executor refused the call.")));
        }
    }

    /**
     * {@link #claimDeferredLink} on the calling thread, for code already on a background thread. Once the server
     * answered (matched or organic), later calls answer {@link ClaimResult.Kind#ALREADY_CLAIMED} without a
     * request; a failed claim may be retried, and carries the same install id, so the server gives its first answer
     * again. A second claim while one is in flight in this process waits for it and gets the same result.
     *
     * @param request the device's signals and the install referrer.
     * @return the result, never null.
     */
    public ClaimResult claimDeferredLinkBlocking(ClaimRequest request) {
        if (configError != null) return ClaimResult.failed(configError);
        String key = claimKey();
        PendingClaim pending;
        boolean first = false;
        synchronized (CLAIMS_IN_FLIGHT) {
            pending = CLAIMS_IN_FLIGHT.get(key);
            if (pending == null) {
                pending = new PendingClaim();
                CLAIMS_IN_FLIGHT.put(key, pending);
                first = true;
            }
        }
        return first ? claim(key, pending, request) : pending.await();
    }

    /** One claim per server and app in this process: they share the install id and the claim's state. */
    private String claimKey() {
        return base + "\n" + appId;
    }

    /** Makes the claim that {@code pending} stands for, and hands its result to everyone waiting. */
    private ClaimResult claim(String key, PendingClaim pending, ClaimRequest request) {
        ClaimResult result = null;
        try {
            result = claimOnce(request == null ? new ClaimRequest(null, null, null) : request);
        } catch (RuntimeException e) {
            // Only the app's storage adapter throws here; a failed claim is retried at the next launch.
            result = ClaimResult.failed(RelinkError.of(RelinkError.Kind.INVALID_INPUT,
                    "The storage adapter failed: " + e.getClass().getName()));
        } catch (StackOverflowError e) {
            // Answers.parseObject bounds the depth; an overflow all the same must not kill the app's thread.
            result = ClaimResult.failed(RelinkError.of(RelinkError.Kind.MALFORMED, "The answer could not be read: it nests too deeply."));
        } finally {
            // An Error thrown past the catch still answers the callers waiting for this claim.
            if (result == null) {
                result = ClaimResult.failed(RelinkError.of(RelinkError.Kind.INVALID_INPUT, "The claim stopped unexpectedly."));
            }
            finish(key, pending, result);
        }
        return result;
    }

    private static void finish(String key, PendingClaim pending, ClaimResult result) {
        synchronized (CLAIMS_IN_FLIGHT) {
            CLAIMS_IN_FLIGHT.remove(key);
        }
        pending.complete(result);
    }

    private ClaimResult claimOnce(ClaimRequest request) {
        if ("1".equals(storage.get(KEY_CLAIMED))) return ClaimResult.alreadyClaimed();
        String installId = storage.get(KEY_INSTALL_ID);
        if (!isValidInstallId(installId)) {
            // Stored before the first request: a retry after a timeout or a crash must carry the same id. A kept id
            // the server would refuse (another SDK's, a damaged one) is replaced, or every claim would fail for good.
            installId = UUID.randomUUID().toString();
            storage.put(KEY_INSTALL_ID, installId);
        }
        Http.Exchange exchange = send(INSTALL_ATTRIBUTION, claimBody(request, installId));
        if (exchange.error != null) return ClaimResult.failed(exchange.error);
        ClaimResult result = Answers.claim(exchange.status, exchange.body);
        if (result.getKind() == ClaimResult.Kind.MATCHED || result.getKind() == ClaimResult.Kind.ORGANIC) {
            try {
                storage.put(KEY_CLAIMED, "1");
            } catch (RuntimeException e) {
                // The answer stands; a later claim carries the same install id and gets it again.
            }
        }
        return result;
    }

    /** Whether the server takes {@code installId}: 1 to 128 of A-Z, a-z, 0-9, '-', '_' and '.'. */
    static boolean isValidInstallId(String installId) {
        if (installId == null || installId.isEmpty() || installId.length() > 128) return false;
        for (int i = 0; i < installId.length(); i++) {
            char c = installId.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                    || c == '.';
            if (!allowed) return false;
        }
        return true;
    }

    String claimBody(ClaimRequest request, String installId) {
        try {
            JSONObject body = new JSONObject();
            body.put("platform", platform.name());
            body.put("bundleId", appId);
            body.put("installId", installId);
            body.put("sdkVersion", SDK_VERSION);
            DeviceInfo device = request.getDevice();
            if (device != null) {
                putIfPresent(body, "osVersion", device.getOsVersion());
                if (platform == Platform.IOS) putIfPresent(body, "iosVersion", device.getOsVersion());
                if (device.getInstalledAtEpochSeconds() != null) {
                    body.put("appInstallationTime", String.valueOf(device.getInstalledAtEpochSeconds()));
                }
            }
            putIfPresent(body, "installReferrer", request.getInstallReferrer());
            if (isClaimLink(request.getClipboardLink())) body.put("uniqueMatchLinkToCheck", request.getClipboardLink());
            if (device != null) {
                JSONObject signals = new JSONObject();
                putIfPresent(signals, "deviceModelName", device.getDeviceModelName());
                putIfPresent(signals, "languageCode", device.getLanguageCode());
                putIfPresent(signals, "languageCodeRaw", device.getLanguageCode());
                putIfPresent(signals, "timezone", device.getTimeZone());
                // Strings, as the Swift client sends them; the server takes numbers too.
                if (device.getScreenWidth() != null) signals.put("screenResolutionWidth", String.valueOf(device.getScreenWidth()));
                if (device.getScreenHeight() != null) signals.put("screenResolutionHeight", String.valueOf(device.getScreenHeight()));
                if (signals.length() > 0) body.put("device", signals);
            }
            return body.toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e); // Only for non-finite numbers, and none are put.
        }
    }

    // MARK: links

    /**
     * The deep link of a Relink link that opened the app (the App Link intent's {@code getData()}), counted as a
     * re-open of the link. Runs on the background executor; never blocks the calling thread.
     *
     * @param url the link that opened the app.
     * @param callback receives {@link LinkResult}.
     */
    public void reopen(final String url, final Callback<LinkResult> callback) {
        run(new Runnable() {
            @Override public void run() { deliver(callback, reopenBlocking(url)); }
        }, callback, LinkResult.class);
    }

    /**
     * {@link #reopen} on the calling thread, for code already on a background thread.
     *
     * @param url the link that opened the app.
     * @return the result, never null.
     */
    public LinkResult reopenBlocking(String url) {
        return link(url, true);
    }

    /**
     * The deep link of a Relink link without counting a re-open (to show where a link leads, say). Runs on the
     * background executor; never blocks the calling thread.
     *
     * @param url a short link, long link or route of the server's domains.
     * @param callback receives {@link LinkResult}.
     */
    public void resolve(final String url, final Callback<LinkResult> callback) {
        run(new Runnable() {
            @Override public void run() { deliver(callback, resolveBlocking(url)); }
        }, callback, LinkResult.class);
    }

    /**
     * {@link #resolve} on the calling thread, for code already on a background thread.
     *
     * @param url a short link, long link or route of the server's domains.
     * @return the result, never null.
     */
    public LinkResult resolveBlocking(String url) {
        return link(url, false);
    }

    /** Never throws: a result for everything, so a callback is always called and no error escapes onto a thread. */
    private LinkResult link(String url, boolean countAsReopen) {
        try {
            return linkOnce(url, countAsReopen);
        } catch (RuntimeException e) {
            return LinkResult.failed(RelinkError.of(RelinkError.Kind.INVALID_INPUT, "The call stopped unexpectedly: " + e.getClass().getName()));
        } catch (StackOverflowError e) {
            return LinkResult.failed(RelinkError.of(RelinkError.Kind.MALFORMED, "The answer could not be read: it nests too deeply."));
        }
    }

    private LinkResult linkOnce(String url, boolean countAsReopen) {
        if (configError != null) return LinkResult.failed(configError);
        if (url == null || url.trim().isEmpty()) {
            return LinkResult.failed(RelinkError.of(RelinkError.Kind.INVALID_INPUT, "The link is empty."));
        }
        String installId;
        try {
            installId = storage.get(KEY_INSTALL_ID);
        } catch (RuntimeException e) {
            installId = null; // The count per install is a nicety; the link resolves without it.
        }
        try {
            JSONObject body = new JSONObject();
            body.put("requestedLink", url);
            body.put("bundleId", appId);
            body.put("sdkVersion", SDK_VERSION);
            if (isValidInstallId(installId)) body.put("installId", installId);
            if (!countAsReopen) body.put("countAsReopen", false);
            Http.Exchange exchange = send(REOPEN_ATTRIBUTION, body.toString());
            if (exchange.error != null) return LinkResult.failed(exchange.error);
            return Answers.link(exchange.status, exchange.body);
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    // MARK: transport

    /** One call's requests: at most {@link #MAX_ATTEMPTS}, retrying 429 and 503 while the waits fit the budget. */
    private Http.Exchange send(String path, String body) {
        URL url;
        try {
            url = new URL(base + path);
        } catch (MalformedURLException e) {
            return Http.Exchange.failed(RelinkError.of(RelinkError.Kind.INVALID_INPUT, "The server URL is not a URL."));
        }
        long budgetLeft = retryBudgetMillis;
        for (int attempt = 1; ; attempt++) {
            Http.Exchange exchange = Http.post(url, body, timeoutMillis);
            RelinkError error = exchange.error;
            if (error == null || attempt >= MAX_ATTEMPTS) return exchange;
            if (error.getKind() != RelinkError.Kind.RATE_LIMITED && error.getKind() != RelinkError.Kind.UNAVAILABLE) {
                return exchange;
            }
            long wait = (error.getRetryAfterSeconds() == null ? 1L : error.getRetryAfterSeconds()) * 1000L;
            // A wait longer than what is left fails now, with the server's Retry-After for the app to see.
            if (wait > budgetLeft) return exchange;
            budgetLeft -= wait;
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return exchange;
            }
        }
    }

    private <T> void run(Runnable work, final Callback<T> callback, Class<T> type) {
        if (callback == null) throw new NullPointerException("callback");
        try {
            executor.execute(work);
        } catch (RejectedExecutionException e) {
            RelinkError error = RelinkError.of(RelinkError.Kind.INVALID_INPUT, "The executor refused the call.");
            Object result = type == ClaimResult.class ? ClaimResult.failed(error) : LinkResult.failed(error);
            deliver(callback, type.cast(result));
        }
    }

    private <T> void deliver(final Callback<T> callback, final T result) {
        if (callbackExecutor == null) {
            callback.onResult(result);
            return;
        }
        callbackExecutor.execute(new Runnable() {
            @Override public void run() { callback.onResult(result); }
        });
    }

    /** One thread, which ends when idle, so a client kept for the app's lifetime costs nothing between calls. */
    private static Executor defaultExecutor() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<Runnable>(),
                new ThreadFactory() {
                    @Override public Thread newThread(Runnable runnable) {
                        Thread thread = new Thread(runnable, "relink");
                        thread.setDaemon(true);
                        return thread;
                    }
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static void putIfPresent(JSONObject object, String name, String value) throws JSONException {
        if (value != null) object.put(name, value);
    }

    /** A claim in flight, for the callers that wait for it and the callbacks it answers. */
    private static final class PendingClaim {
        private ClaimResult result;
        private final List<Relink> clients = new ArrayList<Relink>();
        private final List<Callback<ClaimResult>> callbacks = new ArrayList<Callback<ClaimResult>>();

        /** Called under the lock of the claims in flight, before {@link #complete}: nothing is missed. */
        synchronized void listen(Relink client, Callback<ClaimResult> callback) {
            clients.add(client);
            callbacks.add(callback);
        }

        void complete(ClaimResult value) {
            synchronized (this) {
                result = value;
                notifyAll();
            }
            // Each callback on its own client's callback executor, outside the lock.
            for (int i = 0; i < callbacks.size(); i++) clients.get(i).deliver(callbacks.get(i), value);
        }

        synchronized ClaimResult await() {
            boolean interrupted = false;
            // The first caller's request is bounded by its timeouts and budget, so this wait is too.
            while (result == null) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
            return result;
        }
    }
}
