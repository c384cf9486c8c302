package dev.relink;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;

/** A loopback server for the unit tests: answers canned responses in order (the last one again) and records requests. */
final class StubServer implements AutoCloseable {
    /** A canned answer. */
    static final class Answer {
        final int status;
        final String body;
        final String retryAfter;
        final long delayMillis;

        Answer(int status, String body, String retryAfter, long delayMillis) {
            this.status = status;
            this.body = body;
            this.retryAfter = retryAfter;
            this.delayMillis = delayMillis;
        }
    }

    /** A request as received. */
    static final class Request {
        final String path;
        final Headers headers;
        final String body;

        Request(String path, Headers headers, String body) {
            this.path = path;
            this.headers = headers;
            this.body = body;
        }
    }

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    private volatile Answer last = new Answer(200, "{\"matchMessage\": \"No pre-install link matched for this device.\"}", null, 0);
    final List<Request> requests = new ArrayList<>();

    StubServer(Answer... canned) throws IOException {
        for (Answer answer : canned) answers.add(answer);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            synchronized (requests) {
                requests.add(new Request(exchange.getRequestURI().getPath(), exchange.getRequestHeaders(), body));
            }
            Answer answer = answers.poll();
            if (answer == null) answer = last; else last = answer;
            try {
                Thread.sleep(answer.delayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] bytes = answer.body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            if (answer.retryAfter != null) exchange.getResponseHeaders().set("Retry-After", answer.retryAfter);
            exchange.sendResponseHeaders(answer.status, bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
            exchange.close();
        });
        server.start();
    }

    static Answer answer(int status, String body) {
        return new Answer(status, body, null, 0);
    }

    String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    int count() {
        synchronized (requests) {
            return requests.size();
        }
    }

    Request request(int index) {
        synchronized (requests) {
            return requests.get(index);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
