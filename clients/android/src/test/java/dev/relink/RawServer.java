package dev.relink;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback server that answers every request with the same raw bytes, for answers no HTTP server library sends:
 * not HTTP, cut off, a status past 599, headers of any size. With {@code trickleMillis} it sends the bytes after the
 * head one at a time, that long apart; with {@code holdMillis} it keeps the connection open that long after them,
 * silent (an interim answer and then nothing).
 */
final class RawServer implements AutoCloseable {
    private final ServerSocket listener;
    private final AtomicInteger requests = new AtomicInteger();

    RawServer(String head, String body, long trickleMillis) throws IOException {
        this(head, body, trickleMillis, 0);
    }

    RawServer(final String head, final String body, final long trickleMillis, final long holdMillis) throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        Thread acceptor = new Thread(() -> {
            while (!listener.isClosed()) {
                try {
                    final Socket socket = listener.accept();
                    Thread answer = new Thread(() -> serve(socket, head, body, trickleMillis, holdMillis));
                    answer.setDaemon(true);
                    answer.start();
                } catch (IOException closed) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void serve(Socket socket, String head, String body, long trickleMillis, long holdMillis) {
        try (Socket open = socket) {
            readRequest(open.getInputStream());
            requests.incrementAndGet();
            OutputStream out = open.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            if (trickleMillis <= 0) {
                out.write(bytes);
            } else {
                for (byte b : bytes) {
                    out.write(b);
                    out.flush();
                    Thread.sleep(trickleMillis);
                }
            }
            out.flush();
            if (holdMillis > 0) Thread.sleep(holdMillis);
        } catch (IOException | InterruptedException gone) {
            // The client hung up: what some tests expect.
        }
    }

    /** The request's head and its Content-Length's bytes, so the answer comes after the whole request. */
    private static void readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) return;
            head.write(b);
        }
        int length = 0;
        for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
        }
        for (int i = 0; i < length && in.read() >= 0; i++) {
            // Discarded: the tests look at answers, not requests.
        }
    }

    String base() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    int requests() {
        return requests.get();
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
