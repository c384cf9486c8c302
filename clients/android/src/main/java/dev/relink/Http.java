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
            if (status < 0) return Exchange.failed(RelinkError.of(RelinkError.Kind.MALFORMED, "The answer is not HTTP."));
            if (status >= 200 && status < 300) {
                String body = read(connection.getInputStream(), deadline);
                if (body == null) {
                    return Exchange.failed(new RelinkError(RelinkError.Kind.MALFORMED, status, null,
                            "The answer is larger than " + MAX_BODY_BYTES + " bytes.", null));
                }
                return Exchange.ok(status, body);
            }
            return Exchange.failed(refusal(status, connection.getHeaderField("Retry-After"), errorBody(connection, deadline)));
        } catch (SocketTimeoutException e) {
            return Exchange.failed(new RelinkError(RelinkError.Kind.TIMEOUT, status == 0 ? null : status, null,
                    "No answer within " + timeoutMillis + " ms.", null));
        } catch (IOException e) {
            if (timedOut.get()) {
                return Exchange.failed(new RelinkError(RelinkError.Kind.TIMEOUT, status == 0 ? null : status, null,
                        "No whole answer within " + timeoutMillis + " ms.", null));
            }
            return Exchange.failed(new RelinkError(RelinkError.Kind.OFFLINE, status == 0 ? null : status, null,
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
     * {@code Retry-After} in delta-seconds; an HTTP date or anything else is unreadable (null), and the client
     * then waits 1 s as for an absent one.
     */
    static Integer parseRetryAfter(String header) {
        if (header == null) return null;
        String value = header.trim();
        if (value.isEmpty() || !allDigits(value)) return null;
        // Ten digits or more are past int anyway; they mean "much longer than any budget".
        return value.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(value);
    }

    private static boolean allDigits(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
    }

    private static String errorBody(HttpURLConnection connection, long deadline) {
        InputStream stream = connection.getErrorStream();
        if (stream == null) return null;
        try {
            return read(stream, deadline);
        } catch (IOException e) {
            // The status says enough; the body only adds FDL's status name.
            return null;
        }
    }

    /** The stream as UTF-8, or null when it is larger than {@link #MAX_BODY_BYTES}. */
    private static String read(InputStream stream, long deadline) throws IOException {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int count;
            while ((count = stream.read(buffer)) != -1) {
                if (System.nanoTime() - deadline > 0) throw new SocketTimeoutException("the answer outlasted the timeout");
                bytes.write(buffer, 0, count);
                if (bytes.size() > MAX_BODY_BYTES) return null;
            }
            return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
        } finally {
            stream.close();
        }
    }
}
