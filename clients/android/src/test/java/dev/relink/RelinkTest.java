package dev.relink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/** What the conformance scenarios do not reach: parsing, checks, the wire format, threads. */
class RelinkTest {
    private static final String MATCHED = "{\"deepLink\": \"https://shop.example/p/1\", \"attributionConfidence\": \"UNIQUE\","
            + " \"matchMessage\": \"Matched by install referrer.\", \"utmSource\": \"mail\", \"utmMedium\": \"email\","
            + " \"utmCampaign\": \"spring\", \"utmContent\": \"hero\", \"utmTerm\": \"shoes\", \"appMinimumVersion\": \"2.1\","
            + " \"requestedLink\": \"https://go.example/spring\", \"resolvedLink\": \"https://go.example/?link=x\","
            + " \"requestIpVersion\": \"IP_V4\", \"isStrongMatchExecutable\": false}";

    private static Relink client(String server, Platform platform, KeyValueStore storage) {
        return new Relink(new Relink.Config(server, platform, "test.relink.shop", storage).timeoutMillis(2000).retryBudgetMillis(5000));
    }

    private static DeviceInfo pixel() {
        return new DeviceInfo.Builder().osVersion("14").deviceModelName("Pixel 7").screen(412, 915).languageCode("en-US")
                .timeZone("Europe/Berlin").installedAtEpochSeconds(1790000000L).build();
    }

    @Test
    void retryAfterIsDeltaSecondsOrAnHttpDate() {
        assertEquals(Integer.valueOf(1), Http.parseRetryAfter("1"));
        assertEquals(Integer.valueOf(30), Http.parseRetryAfter(" 30 "));
        assertEquals(Integer.valueOf(0), Http.parseRetryAfter("0"));
        assertEquals(Integer.valueOf(Integer.MAX_VALUE), Http.parseRetryAfter("99999999999999999999999"));
        assertNull(Http.parseRetryAfter(null));
        assertNull(Http.parseRetryAfter(""));
        assertNull(Http.parseRetryAfter("-1"));
        assertNull(Http.parseRetryAfter("1.5"));
        assertEquals(Integer.valueOf(0), Http.parseRetryAfter("Wed, 21 Oct 1970 07:28:00 GMT"));
    }

    @Test
    void onlyClaimLinksAreClaimLinks() {
        assertTrue(Relink.isClaimLink("https://go.example.com/Ab3x?rc=4f2a9c&_icp=1"));
        assertTrue(Relink.isClaimLink("HTTP://localhost:8080/spring?rc=4f2a9c&_icp=1"));
        assertFalse(Relink.isClaimLink(null));
        assertFalse(Relink.isClaimLink(""));
        assertFalse(Relink.isClaimLink("https://go.example.com/Ab3x?rc=4f2a9c"), "no _icp=1 at the end");
        assertFalse(Relink.isClaimLink("https://go.example.com/Ab3x?rc=4f2a9c&_icp=1&x=2"), "_icp=1 not at the end");
        assertFalse(Relink.isClaimLink("https://go.example.com/Ab3x?_icp=1"), "no rc=");
        assertFalse(Relink.isClaimLink("ftp://go.example.com/Ab3x?rc=4f2a9c&_icp=1"), "not http(s)");
        assertFalse(Relink.isClaimLink("my password rc=1 _icp=1"), "not a URL");
        assertFalse(Relink.isClaimLink("rc=4f2a9c&_icp=1"), "no scheme, no host");
    }

    @Test
    void serverMustBeHttpsExceptOnLoopbackAndTheEmulatorsHost() {
        for (String good : new String[] {"https://go.example.com", "https://go.example.com/", "https://go.example.com:8443/links",
                "http://localhost:8080", "http://127.0.0.1:1", "http://[::1]:9000", "http://10.0.2.2:8080", "HTTPS://GO.EXAMPLE.COM"}) {
            assertNull(Relink.checkServer(good), good);
        }
        for (String bad : new String[] {null, "", "go.example.com", "http://go.example.com", "http://10.0.2.3:8080",
                "http://127.0.0.2", "ftp://go.example.com", "https://", "https://go.example.com/?x=1", "https://user@go.example.com",
                "https://go.example.com/#top", "http://localhost.evil.test"}) {
            assertNotNull(Relink.checkServer(bad), String.valueOf(bad));
        }
    }

    @Test
    void aRefusedServerFailsEveryCallAsInvalidInputWithoutARequest() throws Exception {
        MemoryStore storage = new MemoryStore();
        Relink relink = client("http://go.example.com", Platform.ANDROID, storage);
        ClaimResult claim = relink.claimDeferredLinkBlocking(new ClaimRequest(pixel(), null));
        assertEquals(ClaimResult.Kind.FAILED, claim.getKind());
        assertEquals(RelinkError.Kind.INVALID_INPUT, claim.getError().getKind());
        assertTrue(storage.values.isEmpty(), "nothing stored for a client that cannot send");
        assertEquals(RelinkError.Kind.INVALID_INPUT, relink.resolveBlocking("https://go.example.com/x").getError().getKind());
        try (StubServer stub = new StubServer()) {
            LinkResult empty = client(stub.base(), Platform.ANDROID, storage).reopenBlocking(" ");
            assertEquals(RelinkError.Kind.INVALID_INPUT, empty.getError().getKind());
            assertEquals(0, stub.count());
        }
    }

    @Test
    void aMatchedAnswerMapsEveryField() {
        ClaimResult result = Answers.claim(200, MATCHED);
        assertEquals(ClaimResult.Kind.MATCHED, result.getKind());
        DeferredLink link = result.getLink();
        assertEquals("https://shop.example/p/1", link.getDeepLink());
        assertEquals(DeferredLink.Confidence.UNIQUE, link.getConfidence());
        assertEquals("Matched by install referrer.", link.getMatchMessage());
        assertEquals("Matched by install referrer.", result.getMatchMessage());
        assertEquals("mail", link.getUtmSource());
        assertEquals("email", link.getUtmMedium());
        assertEquals("spring", link.getUtmCampaign());
        assertEquals("hero", link.getUtmContent());
        assertEquals("shoes", link.getUtmTerm());
        assertEquals("2.1", link.getMinimumAppVersion());
        assertEquals("https://go.example/spring", link.getRequestedLink());
        assertEquals("https://go.example/?link=x", link.getResolvedLink());
        assertNull(result.getError());
    }

    @Test
    void answersOfAnotherShapeAreMalformed() {
        assertEquals(ClaimResult.Kind.ORGANIC, Answers.claim(200, "{\"matchMessage\": \"none\", \"utmSource\": null}").getKind());
        for (String body : new String[] {"", "[]", "null", "<html></html>", "{}", "{\"matchMessage\": 1}",
                "{\"matchMessage\": \"m\", \"deepLink\": \"https://a.example\"}",
                "{\"matchMessage\": \"m\", \"attributionConfidence\": \"UNIQUE\"}",
                "{\"matchMessage\": \"m\", \"deepLink\": \"https://a.example\", \"attributionConfidence\": \"STRONG\"}",
                "{\"matchMessage\": \"m\", \"utmSource\": 5}", "{\"matchMessage\": \"m\"} trailing"}) {
            ClaimResult result = Answers.claim(200, body);
            assertEquals(ClaimResult.Kind.FAILED, result.getKind(), body);
            assertEquals(RelinkError.Kind.MALFORMED, result.getError().getKind(), body);
            assertEquals(Integer.valueOf(200), result.getError().getStatus(), body);
        }
        LinkResult resolved = Answers.link(200, "{\"deepLink\": \"d\", \"resolvedLink\": \"r\", \"routeParameters\": {\"id\": \"a b\"}}");
        assertEquals(Collections.singletonMap("id", "a b"), resolved.getLink().getRouteParameters());
        assertEquals(Collections.emptyMap(), Answers.link(200, "{\"deepLink\": \"d\", \"resolvedLink\": \"r\"}").getLink().getRouteParameters());
        for (String body : new String[] {"{\"deepLink\": \"d\"}", "{\"deepLink\": 42, \"resolvedLink\": \"r\"}",
                "{\"deepLink\": \"d\", \"resolvedLink\": \"r\", \"routeParameters\": {\"id\": 1}}",
                "{\"deepLink\": \"d\", \"resolvedLink\": \"r\", \"routeParameters\": \"id\"}"}) {
            assertEquals(RelinkError.Kind.MALFORMED, Answers.link(200, body).getError().getKind(), body);
        }
    }

    @Test
    void errorBodiesGiveTheApiStatusAndMessage() {
        RelinkError error = Http.refusal(400, null, "{\"error\": {\"code\": 400, \"message\": \"Bad link.\", \"status\": \"INVALID_ARGUMENT\"}}");
        assertEquals(RelinkError.Kind.HTTP, error.getKind());
        assertEquals(Integer.valueOf(400), error.getStatus());
        assertEquals("INVALID_ARGUMENT", error.getApiStatus());
        assertEquals("Bad link.", error.getMessage());
        RelinkError html = Http.refusal(503, "x", "<html>");
        assertEquals(RelinkError.Kind.UNAVAILABLE, html.getKind());
        assertNull(html.getApiStatus());
        assertNull(html.getRetryAfterSeconds());
    }

    /** The timeout bounds the whole request: a server trickling its answer a byte at a time does not hold the call. */
    @Test
    void aTricklingAnswerTimesOutAsAWhole() throws Exception {
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            Thread trickler = new Thread(() -> {
                try (java.net.Socket socket = listener.accept()) {
                    socket.getInputStream().read(new byte[8192]);
                    OutputStream out = socket.getOutputStream();
                    out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    for (int i = 0; i < 200; i++) {
                        out.write(' ');
                        out.flush();
                        Thread.sleep(100);
                    }
                } catch (Exception closed) {
                    // The client gave up: that is the point.
                }
            });
            trickler.setDaemon(true);
            trickler.start();
            Relink relink = new Relink(new Relink.Config("http://127.0.0.1:" + listener.getLocalPort(), Platform.ANDROID,
                    "test.relink.shop", new MemoryStore()).timeoutMillis(1000));
            long started = System.nanoTime();
            ClaimResult result = relink.claimDeferredLinkBlocking(new ClaimRequest(pixel(), null, null));
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(ClaimResult.Kind.FAILED, result.getKind());
            assertEquals(RelinkError.Kind.TIMEOUT, result.getError().getKind());
            assertTrue(tookMillis < 10_000, "took " + tookMillis + " ms; the trickle lasts 20 s");
        }
    }

    /** A kept id the server would refuse is replaced at the claim and never sent with a re-open. */
    @Test
    void aKeptInstallIdTheServerRefusesIsReplaced() throws Exception {
        try (StubServer stub = new StubServer(StubServer.answer(200, MATCHED))) {
            MemoryStore storage = new MemoryStore();
            storage.put(Relink.KEY_INSTALL_ID, "not a valid id/");
            Relink relink = client(stub.base(), Platform.ANDROID, storage);
            relink.reopenBlocking("https://go.example.com/x");
            assertFalse(new JSONObject(stub.request(0).body).has("installId"), "the refused id is not sent with a re-open");
            relink.claimDeferredLinkBlocking(new ClaimRequest(pixel(), null, null));
            String sent = new JSONObject(stub.request(1).body).getString("installId");
            assertTrue(Relink.isValidInstallId(sent), sent);
            assertEquals(sent, storage.get(Relink.KEY_INSTALL_ID));
            assertFalse(Relink.isValidInstallId(new String(new char[129]).replace('\0', 'a')));
            assertTrue(Relink.isValidInstallId("A-z_0.9"));
        }
    }

    @Test
    void theClaimSendsTheWireFormat() throws Exception {
        try (StubServer stub = new StubServer(StubServer.answer(200, MATCHED))) {
            MemoryStore storage = new MemoryStore();
            Relink relink = client(stub.base() + "/", Platform.ANDROID, storage);
            ClaimResult result = relink.claimDeferredLinkBlocking(
                    new ClaimRequest(pixel(), "relink_click=abc&utm_source=mail", "https://go.example.com/x?rc=abc&_icp=1"));
            assertEquals(ClaimResult.Kind.MATCHED, result.getKind());
            StubServer.Request request = stub.request(0);
            assertEquals("/v1/installAttribution", request.path);
            assertEquals("application/json", request.headers.getFirst("Content-Type"));
            assertEquals("application/json", request.headers.getFirst("Accept"));
            JSONObject body = new JSONObject(request.body);
            assertEquals("ANDROID", body.getString("platform"));
            assertEquals("test.relink.shop", body.getString("bundleId"));
            assertEquals(storage.get(Relink.KEY_INSTALL_ID), body.getString("installId"));
            assertEquals("relink-android-1", body.getString("sdkVersion"));
            assertEquals("14", body.getString("osVersion"));
            assertFalse(body.has("iosVersion"), "iosVersion on IOS only");
            assertEquals("relink_click=abc&utm_source=mail", body.getString("installReferrer"));
            assertEquals("https://go.example.com/x?rc=abc&_icp=1", body.getString("uniqueMatchLinkToCheck"));
            assertEquals("1790000000", body.get("appInstallationTime"));
            JSONObject device = body.getJSONObject("device");
            assertEquals("Pixel 7", device.getString("deviceModelName"));
            assertEquals("en-US", device.getString("languageCode"));
            assertEquals("en-US", device.getString("languageCodeRaw"));
            assertEquals("Europe/Berlin", device.getString("timezone"));
            assertEquals("412", device.get("screenResolutionWidth"));
            assertEquals("915", device.get("screenResolutionHeight"));
            assertEquals("1", storage.get(Relink.KEY_CLAIMED));

            // The same storage on iOS, claimed already: no request. A fresh one: iosVersion, no clipboard text.
            assertEquals(ClaimResult.Kind.ALREADY_CLAIMED, client(stub.base(), Platform.IOS, storage)
                    .claimDeferredLinkBlocking(new ClaimRequest(pixel(), null)).getKind());
            assertEquals(1, stub.count());
            client(stub.base(), Platform.IOS, new MemoryStore()).claimDeferredLinkBlocking(
                    new ClaimRequest(new DeviceInfo.Builder().osVersion("17.2").languageCode(null).timeZone(null).build(), null,
                            "my bank password"));
            JSONObject ios = new JSONObject(stub.request(1).body);
            assertEquals("IOS", ios.getString("platform"));
            assertEquals("17.2", ios.getString("iosVersion"));
            assertFalse(ios.has("uniqueMatchLinkToCheck"), "only a claim link leaves the device");
            assertFalse(ios.has("installReferrer"));
            assertFalse(ios.has("appInstallationTime"));
            assertFalse(ios.has("device"), "no signals, no device object");
        }
    }

    @Test
    void reopenCountsAndResolveDoesNot() throws Exception {
        String answer = "{\"deepLink\": \"https://shop.example/p/1\", \"resolvedLink\": \"https://go.example/?link=x\"}";
        try (StubServer stub = new StubServer(StubServer.answer(200, answer))) {
            MemoryStore storage = new MemoryStore();
            Relink relink = client(stub.base(), Platform.ANDROID, storage);
            assertTrue(relink.resolveBlocking("https://go.example/spring").isResolved());
            storage.put(Relink.KEY_INSTALL_ID, "install-1");
            LinkResult reopened = relink.reopenBlocking("https://go.example/spring");
            assertEquals("https://shop.example/p/1", reopened.getLink().getDeepLink());
            JSONObject resolve = new JSONObject(stub.request(0).body);
            JSONObject reopen = new JSONObject(stub.request(1).body);
            assertEquals("/v1/reopenAttribution", stub.request(0).path);
            assertEquals("https://go.example/spring", resolve.getString("requestedLink"));
            assertEquals("test.relink.shop", resolve.getString("bundleId"));
            assertEquals("relink-android-1", resolve.getString("sdkVersion"));
            assertFalse(resolve.getBoolean("countAsReopen"));
            assertFalse(resolve.has("installId"), "no install id stored yet");
            assertFalse(reopen.has("countAsReopen"));
            assertEquals("install-1", reopen.getString("installId"));
        }
    }

    @Test
    void retriesFitTheBudget() throws Exception {
        String unavailable = "{\"error\": {\"code\": 503, \"message\": \"The store is unavailable.\", \"status\": \"UNAVAILABLE\"}}";
        try (StubServer stub = new StubServer(StubServer.answer(503, unavailable))) {
            // Waits of 1 s each (no Retry-After): 3 attempts fit 5 s.
            LinkResult result = client(stub.base(), Platform.ANDROID, new MemoryStore()).resolveBlocking("https://go.example/x");
            assertEquals(RelinkError.Kind.UNAVAILABLE, result.getError().getKind());
            assertEquals("UNAVAILABLE", result.getError().getApiStatus());
            assertEquals(3, stub.count(), "at most 3 attempts");
            // A budget of 1.5 s fits the first wait only.
            new Relink(new Relink.Config(stub.base(), Platform.ANDROID, "test.relink.shop", new MemoryStore()).retryBudgetMillis(1500))
                    .resolveBlocking("https://go.example/x");
            assertEquals(5, stub.count(), "the waits together fit the budget");
        }
    }

    @Test
    void theCallbackRunsOffTheCallersThread() throws Exception {
        try (StubServer stub = new StubServer()) {
            final AtomicReference<Thread> thread = new AtomicReference<>();
            final AtomicReference<ClaimResult> result = new AtomicReference<>();
            final CountDownLatch done = new CountDownLatch(1);
            client(stub.base(), Platform.ANDROID, new MemoryStore()).claimDeferredLink(new ClaimRequest(pixel(), null), r -> {
                thread.set(Thread.currentThread());
                result.set(r);
                done.countDown();
            });
            assertTrue(done.await(10, TimeUnit.SECONDS));
            assertNotSame(Thread.currentThread(), thread.get());
            assertEquals(ClaimResult.Kind.ORGANIC, result.get().getKind());

            // A callback executor (the main thread's Handler::post in an app) gets the delivery.
            final AtomicInteger posted = new AtomicInteger();
            final CountDownLatch resolved = new CountDownLatch(1);
            new Relink(new Relink.Config(stub.base(), Platform.ANDROID, "test.relink.shop", new MemoryStore())
                    .callbackExecutor(runnable -> {
                        posted.incrementAndGet();
                        runnable.run();
                    }))
                    .resolve("https://go.example/x", r -> resolved.countDown());
            assertTrue(resolved.await(10, TimeUnit.SECONDS));
            assertEquals(1, posted.get());
        }
    }

    @Test
    void concurrentClaimsMakeOneRequestAndGetOneResult() throws Exception {
        try (StubServer stub = new StubServer(new StubServer.Answer(200, MATCHED, null, 500))) {
            final Relink relink = client(stub.base(), Platform.ANDROID, new MemoryStore());
            final AtomicReference<ClaimResult> other = new AtomicReference<>();
            Thread second = new Thread(() -> other.set(relink.claimDeferredLinkBlocking(new ClaimRequest(pixel(), null))));
            second.start();
            ClaimResult first = relink.claimDeferredLinkBlocking(new ClaimRequest(pixel(), null));
            second.join(10000);
            assertEquals(1, stub.count());
            assertEquals(ClaimResult.Kind.MATCHED, first.getKind());
            assertSame(first, other.get(), "the second caller gets the first one's result, not ALREADY_CLAIMED");
            assertEquals(ClaimResult.Kind.ALREADY_CLAIMED, relink.claimDeferredLinkBlocking(new ClaimRequest(pixel(), null)).getKind());
        }
    }

    @Test
    void aSecondCallbackClaimBeforeTheFirstAnswerGetsTheSameResult() throws Exception {
        try (StubServer stub = new StubServer(new StubServer.Answer(200, MATCHED, null, 500))) {
            Relink relink = client(stub.base(), Platform.ANDROID, new MemoryStore());
            final ClaimResult[] results = new ClaimResult[2];
            final CountDownLatch done = new CountDownLatch(2);
            // The client's one background thread would run the second only after the first: it must join it instead.
            relink.claimDeferredLink(new ClaimRequest(pixel(), null), r -> { results[0] = r; done.countDown(); });
            relink.claimDeferredLink(new ClaimRequest(pixel(), null), r -> { results[1] = r; done.countDown(); });
            assertTrue(done.await(10, TimeUnit.SECONDS));
            assertEquals(1, stub.count());
            assertEquals(ClaimResult.Kind.MATCHED, results[0].getKind());
            assertSame(results[0], results[1]);
            final AtomicReference<ClaimResult> later = new AtomicReference<>();
            final CountDownLatch third = new CountDownLatch(1);
            relink.claimDeferredLink(new ClaimRequest(pixel(), null), r -> { later.set(r); third.countDown(); });
            assertTrue(third.await(10, TimeUnit.SECONDS));
            assertEquals(ClaimResult.Kind.ALREADY_CLAIMED, later.get().getKind(), "after the answer, no second claim");
        }
    }

    @Test
    void aThrowingStorageFailsTheClaimWithoutACrash() {
        KeyValueStore broken = new KeyValueStore() {
            @Override public String get(String key) { throw new IllegalStateException("disk full"); }
            @Override public void put(String key, String value) { throw new IllegalStateException("disk full"); }
        };
        ClaimResult result = client("http://127.0.0.1:9", Platform.ANDROID, broken).claimDeferredLinkBlocking(new ClaimRequest(pixel(), null));
        assertEquals(RelinkError.Kind.INVALID_INPUT, result.getError().getKind());
    }

    @Test
    void resultsAreValuesWithRouteParametersNeverNull() {
        Map<String, String> none = Answers.link(200, "{\"deepLink\": \"d\", \"resolvedLink\": \"r\", \"routeParameters\": null}")
                .getLink().getRouteParameters();
        assertNotNull(none);
        assertTrue(none.isEmpty());
    }
}
