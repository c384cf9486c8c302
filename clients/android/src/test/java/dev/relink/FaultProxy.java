package dev.relink;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import org.json.JSONObject;

/**
 * The conformance runner's fault proxy (clients/conformance/README.md): forwards the client's requests to the server
 * with the step's device address in {@code Forwarded}, or answers an armed fault instead, and records each request.
 */
final class FaultProxy implements AutoCloseable {
    /** One request as the proxy saw it. */
    static final class Recorded {
        final String method;
        final String path;
        final JSONObject body;

        Recorded(String method, String path, JSONObject body) {
            this.method = method;
            this.path = path;
            this.body = body;
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String upstream;
    private final ConcurrentLinkedQueue<JSONObject> faults = new ConcurrentLinkedQueue<>();
    private final List<Recorded> recorded = new ArrayList<>();
    private volatile String address = "127.0.0.1";
    /** Requests forwarded to the server and not yet answered by it. */
    private final AtomicInteger forwarding = new AtomicInteger();

    FaultProxy(String upstream) throws IOException {
        this.upstream = upstream;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        // Several threads: a delayed answer must not hold up the requests after it.
        server.setExecutor(threads);
        server.start();
    }

    String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    void address(String value) {
        address = value;
    }

    void arm(List<JSONObject> armed) {
        faults.addAll(armed);
    }

    synchronized List<Recorded> recorded() {
        return new ArrayList<>(recorded);
    }

    /** Returns once the server has answered every request forwarded to it (a delayed one included). */
    void awaitForwarded(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (forwarding.get() > 0) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("a forwarded request is still at the server");
            Thread.sleep(20);
        }
    }

    synchronized void reset() {
        recorded.clear();
        faults.clear();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            byte[] body = readAll(exchange.getRequestBody());
            JSONObject json = null;
            try {
                json = new JSONObject(new String(body, StandardCharsets.UTF_8));
            } catch (Exception notJson) {
                // Recorded without a body.
            }
            synchronized (this) {
                recorded.add(new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(), json));
            }
            JSONObject fault = faults.poll();
            if (fault != null && fault.has("status")) {
                answerFault(exchange, fault);
                return;
            }
            HttpResponse<byte[]> answer;
            forwarding.incrementAndGet();
            try {
                answer = forward(exchange, body);
            } finally {
                forwarding.decrementAndGet();
            }
            if (fault != null && fault.optBoolean("forward")) Thread.sleep(fault.optLong("delayMs"));
            for (String name : new String[] {"Content-Type", "Retry-After", "Location"}) {
                Optional<String> value = answer.headers().firstValue(name);
                value.ifPresent(v -> exchange.getResponseHeaders().set(name, v));
            }
            send(exchange, answer.statusCode(), answer.body());
        } catch (Exception e) {
            // The client has gone (it timed out) or the server is down: nothing more to answer.
            System.err.println("FaultProxy: " + exchange.getRequestURI() + " not answered (the client may have timed out): " + e);
            try {
                send(exchange, 599, new byte[0]);
            } catch (IOException ignored) {
                // Gone.
            }
        } finally {
            exchange.close();
        }
    }

    private HttpResponse<byte[]> forward(HttpExchange exchange, byte[] body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(upstream + exchange.getRequestURI().toString()))
                .timeout(Duration.ofSeconds(30))
                .method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Forwarded", "for=" + address);
        for (String name : new String[] {"Content-Type", "Accept"}) {
            String value = exchange.getRequestHeaders().getFirst(name);
            if (value != null) request.header(name, value);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static void answerFault(HttpExchange exchange, JSONObject fault) throws Exception {
        JSONObject headers = fault.optJSONObject("headers");
        if (headers != null) {
            for (String name : headers.keySet()) exchange.getResponseHeaders().set(name, headers.getString(name));
        }
        Object body = fault.opt("body");
        String text = body == null ? "" : body instanceof String ? (String) body : body.toString();
        send(exchange, fault.getInt("status"), text.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static byte[] readAll(InputStream stream) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        stream.transferTo(bytes);
        return bytes.toByteArray();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
