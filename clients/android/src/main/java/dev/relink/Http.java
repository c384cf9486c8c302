package dev.relink;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.json.JSONObject;

/** One POST to the server, its answer sorted into a 2xx body or a {@link RelinkError}. */
final class Http {
    /** An answer larger than this is not Relink's (its answers are a few hundred bytes). */
    static final int MAX_BODY_BYTES = 1 << 20;
    /** Headers larger than this together are refused as Node's fetch and libcurl refuse theirs (Relink sends under 1 KiB). */
    static final int MAX_HEADER_BYTES = 64 << 10;

    private Http() {}

    /** A 2xx answer's status and body, or the error the exchange ended in. */
    static final class Exchange {
        final int status;
        final String body;
        final RelinkError error;

        private Exchange(int status, String body, RelinkError error) {
            this.status = status;
            this.body = body;
            this.error = error;
        }

        static Exchange ok(int status, String body) { return new Exchange(status, body, null); }
        static Exchange failed(RelinkError error) { return new Exchange(0, null, error); }
    }

    /**
     * Ends requests that outlive their timeout as a whole: HttpURLConnection's timeouts bound each read, so a server
     * trickling a byte now and then would hold a call for as long as it liked.
     */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(new ThreadFactory() {
        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "relink-timeouts");
            thread.setDaemon(true);
            return thread;
        }
    });

    static Exchange post(URL url, String json, int timeoutMillis) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        HttpURLConnection connection = null;
        ScheduledFuture<?> watchdog = null;
        // The body's reads check it too: disconnecting from the watchdog's thread does not always end a read in progress.
        final long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        final AtomicBoolean timedOut = new AtomicBoolean();
        int status = 0;
        try {
            connection = (HttpURLConnection) url.openConnection();
            final HttpURLConnection watched = connection;
            watchdog = WATCHDOG.schedule(new Runnable() {
                @Override
                public void run() {
                    timedOut.set(true);
                    watched.disconnect();
                }
            }, timeoutMillis, TimeUnit.MILLISECONDS);
            // The body goes to the configured server only: a 3xx is an answer, never a new destination.
            connection.setInstanceFollowRedirects(false);
            connection.setConnectTimeout(timeoutMillis);
            connection.setReadTimeout(timeoutMillis);
            connection.setUseCaches(false);
            connection.setRequestMethod("POST");
            connection.setDoOutput(true);
            connection.setRequestProperty("Content-Type", "application/json");
            connection.setRequestProperty("Accept", "application/json");
            // Streaming mode also stops the JDK from silently re-sending a POST whose answer did not come.
            connection.setFixedLengthStreamingMode(bytes.length);
            OutputStream out = connection.getOutputStream();
            try {
                out.write(bytes);
            } finally {
                out.close();
            }
            status = connection.getResponseCode();
            // Kinds as the other clients': an answer their HTTP stacks refuse (not HTTP, headers past a limit, a
            // Content-Length that is no length) is a failed connection to them, so it is one here too.
            if (status < 0) throw new IOException("the answer is not HTTP");
            // A 204 or 304 has no body whatever its Content-Length says.
            long declaredLength = status == 204 || status == 304 ? -1 : contentLength(connection);
            if (headerBytes(connection) > MAX_HEADER_BYTES) throw new IOException("the answer's headers pass " + MAX_HEADER_BYTES + " bytes");
            if (status >= 200 && status < 300) {
                String body = read(connection.getInputStream(), deadline, declaredLength);
                if (body == null) {
                    return Exchange.failed(new RelinkError(RelinkError.Kind.MALFORMED, status, null,
                            "The answer is larger than " + MAX_BODY_BYTES + " bytes.", null));
                }
                return Exchange.ok(status, body);
            }
            return Exchange.failed(refusal(status, retryAfter(connection), errorBody(connection, deadline, declaredLength)));
        } catch (SocketTimeoutException e) {
            return Exchange.failed(new RelinkError(RelinkError.Kind.TIMEOUT, status <= 0 ? null : status, null,
                    "No answer within " + timeoutMillis + " ms.", null));
        } catch (IOException e) {
            if (timedOut.get()) {
                return Exchange.failed(new RelinkError(RelinkError.Kind.TIMEOUT, status <= 0 ? null : status, null,
                        "No whole answer within " + timeoutMillis + " ms.", null));
            }
            return Exchange.failed(new RelinkError(RelinkError.Kind.OFFLINE, status <= 0 ? null : status, null,
                    "No connection to the server: " + e.getClass().getSimpleName()
                            + (e.getMessage() == null ? "" : ": " + e.getMessage()), null));
        } finally {
            if (watchdog != null) watchdog.cancel(false);
            // A connection that timed out must not be reused for the retry.
            if (connection != null) connection.disconnect();
        }
    }

    /** The error for an answer outside 2xx, with FDL's {@code {"error": {"code", "message", "status"}}} when given. */
    static RelinkError refusal(int status, String retryAfterHeader, String body) {
        String apiStatus = null;
        String message = null;
        if (body != null) {
            JSONObject json = Answers.parseObject(body);
            JSONObject error = json == null ? null : json.optJSONObject("error");
            if (error != null) {
                Object statusName = error.opt("status");
                Object text = error.opt("message");
                if (statusName instanceof String) apiStatus = (String) statusName;
                if (text instanceof String) message = (String) text;
            }
        }
        if (message == null) message = "The server answered HTTP " + status + ".";
        RelinkError.Kind kind;
        if (status == 429) kind = RelinkError.Kind.RATE_LIMITED;
        else if (status == 503) kind = RelinkError.Kind.UNAVAILABLE;
        else kind = RelinkError.Kind.HTTP;
        return new RelinkError(kind, status, apiStatus, message, parseRetryAfter(retryAfterHeader));
    }

    /**
     * {@code Retry-After} in seconds (RFC 9110 section 10.2.3): delay-seconds, or an IMF-fixdate counted from now
     * (0 when past). Anything else is unreadable (null), and the client then waits 1 s as for an absent one. Values
     * past {@link Integer#MAX_VALUE} are that: "much longer than any budget".
     */
    static Integer parseRetryAfter(String header) {
        return parseRetryAfter(header, System.currentTimeMillis());
    }

    /** {@link #parseRetryAfter(String)} with an HTTP date counted from {@code nowMillis}. */
    static Integer parseRetryAfter(String header, long nowMillis) {
        if (header == null) return null;
        String value = header.trim();
        if (value.isEmpty()) return null;
        if (allDigits(value)) return value.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(value);
        Long at = HttpDate.epochSeconds(value);
        if (at == null) return null;
        long seconds = at - nowMillis / 1000L; // ceil(at - now): at is whole seconds
        return (int) Math.max(0L, Math.min(Integer.MAX_VALUE, seconds));
    }

    /** Every {@code Retry-After} field of the answer, joined as one: two of them are unreadable, as in the other clients. */
    private static String retryAfter(HttpURLConnection connection) {
        String joined = null;
        for (int i = 0; ; i++) {
            String value = connection.getHeaderField(i);
            String name = connection.getHeaderFieldKey(i);
            if (value == null && name == null && i > 0) return joined;
            if (name != null && name.equalsIgnoreCase("Retry-After")) joined = joined == null ? value : joined + ", " + value;
        }
    }

    /** The answer's Content-Length, -1 without one; an IOException for one that is not a length, as Node and libcurl refuse. */
    private static long contentLength(HttpURLConnection connection) throws IOException {
        String value = connection.getHeaderField("Content-Length");
        if (value == null) return -1;
        String text = value.trim();
        if (text.isEmpty() || text.length() > 18 || !allDigits(text)) throw new IOException("the answer's Content-Length is not a length");
        return Long.parseLong(text);
    }

    private static long headerBytes(HttpURLConnection connection) {
        long total = 0;
        for (int i = 0; ; i++) {
            String value = connection.getHeaderField(i);
            String name = connection.getHeaderFieldKey(i);
            if (value == null && name == null && i > 0) return total;
            total += (name == null ? 0 : name.length()) + (value == null ? 0 : value.length()) + 4;
        }
    }

    private static boolean allDigits(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
    }

    /**
     * The body of an answer outside 2xx, or null without one. Its read fails the exchange as any other read does: a
     * body still trickling at the timeout is a timeout (a 503 so is not retried), one cut off is offline.
     */
    private static String errorBody(HttpURLConnection connection, long deadline, long declaredLength) throws IOException {
        InputStream stream = connection.getErrorStream();
        if (stream == null) return null;
        return read(stream, deadline, declaredLength);
    }

    /**
     * The stream as UTF-8, or null when it is larger than {@link #MAX_BODY_BYTES}; an IOException when it ends before
     * its {@code declaredLength} (HttpURLConnection answers such a body's end as the end).
     */
    private static String read(InputStream stream, long deadline, long declaredLength) throws IOException {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int count;
            while ((count = stream.read(buffer)) != -1) {
                if (System.nanoTime() - deadline > 0) throw new SocketTimeoutException("the answer outlasted the timeout");
                bytes.write(buffer, 0, count);
                if (bytes.size() > MAX_BODY_BYTES) return null;
            }
            if (declaredLength >= 0 && bytes.size() < declaredLength) throw new IOException("the answer broke off before its end");
            return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
        } finally {
            stream.close();
        }
    }
}
