package dev.relink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * Answers a hostile or broken server can send, and the result each must become, the same as in the Swift and
 * JavaScript clients (clients/conformance/README.md, "Hostile answers").
 */
class HostileAnswerTest {
    private static String nested(int depth) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < depth; i++) text.append('[');
        for (int i = 0; i < depth; i++) text.append(']');
        return text.toString();
    }

    private static Relink client(String server, long budgetMillis) {
        return new Relink(new Relink.Config(server, Platform.ANDROID, "test.relink.shop", new MemoryStore()).timeoutMillis(1500)
                .retryBudgetMillis(budgetMillis));
    }

    private static ClaimRequest request() {
        return new ClaimRequest(new DeviceInfo.Builder().osVersion("14").build(), null, null);
    }

    @Test
    void deeplyNestedAnswersAreMalformedNotAStackOverflow() {
        String deep = nested(3000);
        assertEquals(RelinkError.Kind.MALFORMED, Answers.claim(200, deep).getError().getKind());
        assertEquals(RelinkError.Kind.MALFORMED, Answers.link(200, "{\"deepLink\": " + deep + "}").getError().getKind());
        RelinkError refused = Http.refusal(400, null, "{\"error\": " + deep + "}");
        assertEquals(RelinkError.Kind.HTTP, refused.getKind());
        assertNull(refused.getApiStatus());
        // The bound is the depth, not the size: strings holding brackets do not count.
        assertNull(JsonShape.problem(nested(JsonShape.MAX_DEPTH)));
        assertTrue(JsonShape.problem(nested(JsonShape.MAX_DEPTH + 1)) != null);
        assertNull(JsonShape.problem("{\"a\": \"" + nested(500) + "\", \"b\": \"\\\"[[\"}"));
    }

    /** Every callback is called once, and nothing escapes onto the client's threads (on Android that kills the app). */
    @Test
    void deeplyNestedAnswersAnswerEveryCallbackOnce() throws Exception {
        final List<Throwable> escaped = Collections.synchronizedList(new ArrayList<Throwable>());
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "relink-test");
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((t, error) -> escaped.add(error));
            return thread;
        });
        String head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
        try (RawServer server = new RawServer(head, nested(100000), 0)) {
            Relink relink = new Relink(new Relink.Config(server.base(), Platform.ANDROID, "test.relink.shop", new MemoryStore())
                    .executor(executor));
            final List<Object> results = Collections.synchronizedList(new ArrayList<Object>());
            final CountDownLatch done = new CountDownLatch(3);
            Relink.Callback<Object> record = result -> {
                results.add(result);
                done.countDown();
            };
            relink.claimDeferredLink(request(), result -> record.onResult(result));
            relink.reopen("https://go.example/x", result -> record.onResult(result));
            relink.resolve("https://go.example/x", result -> record.onResult(result));
            assertTrue(done.await(20, TimeUnit.SECONDS), "callbacks called: " + results);
            Thread.sleep(200);
            assertEquals(3, results.size(), "each callback once: " + results);
            assertEquals(Collections.emptyList(), escaped);
            for (Object result : results) {
                RelinkError error = result instanceof ClaimResult ? ((ClaimResult) result).getError() : ((LinkResult) result).getError();
                assertEquals(RelinkError.Kind.MALFORMED, error.getKind(), String.valueOf(result));
            }
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aKeyTwiceInAnObjectIsMalformed() {
        String twice = "{\"matchMessage\": \"m\", \"deepLink\": \"https://first.example/\", \"attributionConfidence\": \"UNIQUE\","
                + " \"deepLink\": \"https://second.example/\"}";
        assertEquals(RelinkError.Kind.MALFORMED, Answers.claim(200, twice).getError().getKind());
        // The same key written with an escape is the same key.
        String escaped = "{\"deepLink\": \"a\", \"resolvedLink\": \"r\", \"\\u0064eepLink\": \"b\"}";
        assertEquals(RelinkError.Kind.MALFORMED, Answers.link(200, escaped).getError().getKind());
        String inRoute = "{\"deepLink\": \"a\", \"resolvedLink\": \"r\", \"routeParameters\": {\"id\": \"1\", \"id\": \"2\"}}";
        assertEquals(RelinkError.Kind.MALFORMED, Answers.link(200, inRoute).getError().getKind());
        // One key in two objects, and a key's text as a value, are not twice.
        String apart = "{\"deepLink\": \"deepLink\", \"resolvedLink\": \"r\", \"routeParameters\": {\"deepLink\": \"x\"}}";
        assertEquals(LinkResult.Kind.RESOLVED, Answers.link(200, apart).getKind());
        RelinkError refused = Http.refusal(404, null, "{\"error\": {\"status\": \"NOT_FOUND\", \"status\": \"OK\"}}");
        assertNull(refused.getApiStatus());
    }

    @Test
    void retryAfterReadsSecondsAndHttpDates() {
        long now = 1_790_000_000_000L; // 2026-09-21T14:13:20Z
        assertEquals(Integer.valueOf(40), Http.parseRetryAfter("Mon, 21 Sep 2026 14:14:00 GMT", now));
        assertEquals(Integer.valueOf(1), Http.parseRetryAfter("Mon, 21 Sep 2026 14:13:20 GMT", now - 1));
        assertEquals(Integer.valueOf(0), Http.parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now));
        assertEquals(Integer.valueOf(Integer.MAX_VALUE), Http.parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now));
        assertEquals(Integer.valueOf(Integer.MAX_VALUE), Http.parseRetryAfter("9999999999", now));
        for (String unreadable : new String[] {"Mon, 30 Feb 2026 14:14:00 GMT", "Mon, 21 Sep 2026 14:14:00 UTC", "Mon, 21 Sep 2026 24:00:00 GMT",
                "Monday, 21-Sep-26 14:14:00 GMT", "Mon Sep 21 14:14:00 2026", "mon, 21 sep 2026 14:14:00 GMT", "1, 2", "-1", "1.5"}) {
            assertNull(Http.parseRetryAfter(unreadable, now), unreadable);
        }
        assertEquals(0L, HttpDate.daysSince1970(1970, 1, 1));
        assertEquals(11017L, HttpDate.daysSince1970(2000, 3, 1));
    }

    /** A 429 whose Retry-After is an HTTP date longer than the budget fails at once, with the date's seconds. */
    @Test
    void aRetryAfterDatePastTheBudgetFailsAtOnce() throws Exception {
        String head = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: Fri, 31 Dec 9999 23:59:59 GMT\r\nContent-Length: 2\r\n\r\n";
        try (RawServer server = new RawServer(head, "{}", 0)) {
            RelinkError error = client(server.base(), 5000).resolveBlocking("https://go.example/x").getError();
            assertEquals(RelinkError.Kind.RATE_LIMITED, error.getKind());
            assertEquals(Integer.valueOf(Integer.MAX_VALUE), error.getRetryAfterSeconds());
            assertEquals(1, server.requests());
        }
        // Two Retry-After fields are unreadable: 1 s, so a 500 ms budget allows no retry and the error has none.
        String two = "HTTP/1.1 503 Unavailable\r\nRetry-After: 0\r\nRetry-After: 0\r\nContent-Length: 2\r\n\r\n";
        try (RawServer server = new RawServer(two, "{}", 0)) {
            RelinkError error = client(server.base(), 500).resolveBlocking("https://go.example/x").getError();
            assertEquals(RelinkError.Kind.UNAVAILABLE, error.getKind());
            assertNull(error.getRetryAfterSeconds());
            assertEquals(1, server.requests());
        }
    }

    private static RelinkError errorFrom(String head, String body, long trickleMillis) throws Exception {
        try (RawServer server = new RawServer(head, body, trickleMillis)) {
            return client(server.base(), 5000).claimDeferredLinkBlocking(request()).getError();
        }
    }

    @Test
    void brokenAnswersGetTheSharedKinds() throws Exception {
        String organic = "{\"matchMessage\": \"none\"}";
        RelinkError notHttp = errorFrom("SSH-2.0-OpenSSH_9.6\r\n", "", 0);
        assertEquals(RelinkError.Kind.OFFLINE, notHttp.getKind(), notHttp.toString());
        RelinkError cutOff = errorFrom("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n", organic, 0);
        assertEquals(RelinkError.Kind.OFFLINE, cutOff.getKind(), cutOff.toString());
        assertEquals(Integer.valueOf(200), cutOff.getStatus());
        RelinkError status600 = errorFrom("HTTP/1.1 600 Odd\r\nContent-Length: 2\r\n\r\n", "{}", 0);
        assertEquals(RelinkError.Kind.HTTP, status600.getKind(), status600.toString());
        assertEquals(Integer.valueOf(600), status600.getStatus());
        StringBuilder big = new StringBuilder();
        for (int i = 0; i < 200 * 1024; i++) big.append('a');
        RelinkError hugeHeader = errorFrom("HTTP/1.1 200 OK\r\nX-Big: " + big + "\r\nContent-Length: " + organic.length() + "\r\n\r\n", organic, 0);
        assertEquals(RelinkError.Kind.OFFLINE, hugeHeader.getKind(), hugeHeader.toString());
        RelinkError negative = errorFrom("HTTP/1.1 200 OK\r\nContent-Length: -5\r\nConnection: close\r\n\r\n", organic, 0);
        assertEquals(RelinkError.Kind.OFFLINE, negative.getKind(), negative.toString());
    }

    /** An error body still arriving at the timeout is a timeout, and a 503 so is not retried as if it had answered. */
    @Test
    void aTricklingErrorBodyIsATimeout() throws Exception {
        String head = "HTTP/1.1 503 Unavailable\r\nRetry-After: 0\r\nContent-Length: 100\r\n\r\n";
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 100; i++) body.append(' ');
        try (RawServer server = new RawServer(head, body.toString(), 100)) {
            RelinkError error = client(server.base(), 5000).resolveBlocking("https://go.example/x").getError();
            assertEquals(RelinkError.Kind.TIMEOUT, error.getKind(), error.toString());
            assertEquals(Integer.valueOf(503), error.getStatus());
            assertEquals(1, server.requests());
        }
    }

    /**
     * A number past a double's range, even in a member no client reads: malformed (a 2xx), or only the status (an
     * error), as in the other clients; numbers in range, however long or small, are read.
     */
    @Test
    void aNumberPastADoubleIsMalformed() {
        String huge = "{\"matchMessage\": \"m\", \"x\": 1e999999, \"deepLink\": \"x\", \"attributionConfidence\": \"WEAK\"}";
        RelinkError error = Answers.claim(200, huge).getError();
        assertEquals(RelinkError.Kind.MALFORMED, error.getKind());
        assertTrue(error.getMessage().contains("past a double"), error.getMessage());
        StringBuilder digits = new StringBuilder("{\"deepLink\": \"x\", \"resolvedLink\": \"r\", \"n\": [-1");
        for (int i = 0; i < 400; i++) digits.append('0');
        assertEquals(RelinkError.Kind.MALFORMED, Answers.link(200, digits + "]}").getError().getKind());
        RelinkError refused = Http.refusal(404, null, "{\"error\": {\"status\": \"NOT_FOUND\", \"message\": \"gone\", \"code\": 1E400}}");
        assertEquals(RelinkError.Kind.HTTP, refused.getKind());
        assertNull(refused.getApiStatus());
        String fine = "{\"matchMessage\": \"m\", \"x\": [1e308, -1.7976931348623157e308, 1e-999999, 123456789012345678901234567890],"
                + " \"deepLink\": \"x\", \"attributionConfidence\": \"WEAK\"}";
        assertEquals(ClaimResult.Kind.MATCHED, Answers.claim(200, fine).getKind());
        assertNull(JsonShape.problem("{\"a\": \"1e999999\"}"), "a number in a string is text");
    }

    /** org.json reads {@code [1,]} as {@code [1,null]}, where Swift's parser skips the comma and JavaScript's refuses it. */
    @Test
    void aCommaWithNoValueOnOneSideIsMalformed() {
        for (String text : new String[] {"{\"a\": 1,}", "[1, 2 ,\n]", "{\"a\": [1,], \"b\": 2}", "[1,,2]", "[,1]", "{, \"a\": 1}", ","}) {
            assertTrue(JsonShape.problem(text) != null, text);
        }
        for (String text : new String[] {"{\"a\": 1, \"b\": [1, 2]}", "{\"a\": \",}\", \"b\": \"[,\"}", "[[], {}, \"\"]", "[]", "{}", "[-1, 2e3]"}) {
            assertNull(JsonShape.problem(text), text);
        }
        String answer = "{\"matchMessage\": \"m\", \"deepLink\": \"x\", \"attributionConfidence\": \"WEAK\", \"utm\": [1,]}";
        assertEquals(ClaimResult.Kind.FAILED, Answers.claim(200, answer).getKind());
        assertEquals(RelinkError.Kind.MALFORMED, Answers.claim(200, answer).getError().getKind());
    }

    /** An interim 100 Continue and then nothing is no answer: a timeout, not retried; a final answer after it is read. */
    @Test
    void aContinueAndThenSilenceTimesOut() throws Exception {
        try (RawServer server = new RawServer("HTTP/1.1 100 Continue\r\n\r\n", "", 0, 5000)) {
            long started = System.nanoTime();
            RelinkError error = client(server.base(), 5000).resolveBlocking("https://go.example/x").getError();
            long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(RelinkError.Kind.TIMEOUT, error.getKind(), error.toString());
            assertTrue(elapsedMillis >= 1400 && elapsedMillis < 4000, elapsedMillis + " ms");
            assertEquals(1, server.requests());
        }
        String body = "{\"deepLink\": \"x\", \"resolvedLink\": \"r\"}";
        String head = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n";
        try (RawServer server = new RawServer(head, body, 0)) {
            LinkResult result = client(server.base(), 5000).resolveBlocking("https://go.example/x");
            assertEquals(LinkResult.Kind.RESOLVED, result.getKind(), String.valueOf(result));
        }
    }

    @Test
    void aNegativeRetryBudgetIsRefused() {
        Relink relink = new Relink(new Relink.Config("https://go.example", Platform.ANDROID, "test.relink.shop", new MemoryStore())
                .retryBudgetMillis(-1));
        assertEquals(RelinkError.Kind.INVALID_INPUT, relink.resolveBlocking("https://go.example/x").getError().getKind());
    }
}
