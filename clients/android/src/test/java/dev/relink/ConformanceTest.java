package dev.relink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.sun.net.httpserver.HttpServer;

import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Every scenario of clients/conformance/scenarios against a live server, as clients/conformance/README.md says. */
class ConformanceTest {
    private static final Pattern TEMPLATE = Pattern.compile("\\{\\{([A-Za-z0-9_]+)\\}\\}");
    private static final Set<String> STEP_KEYS = new HashSet<>(Arrays.asList(
            "click", "expect", "saveReferrerAs", "relaunch", "client", "faults", "claim", "reopen", "resolve"));
    private static final Set<String> EXPECT_KEYS = new HashSet<>(Arrays.asList(
            "status", "locationStartsWith", "result", "deepLink", "confidence", "utmSource", "utmMedium", "utmCampaign",
            "utmContent", "utmTerm", "routeParameters", "error", "requests", "sameInstallId", "canaryRequests",
            "emailServiceClicks", "reopens"));

    private static LiveServer server;
    private static FaultProxy proxy;
    private static HttpServer canary;
    private static final AtomicInteger canaryRequests = new AtomicInteger();

    @BeforeAll
    static void start() throws IOException {
        server = LiveServer.shared();
        proxy = new FaultProxy(server.base);
        canary = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        canary.createContext("/", exchange -> {
            canaryRequests.incrementAndGet();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        canary.start();
    }

    @AfterAll
    static void stop() {
        if (proxy != null) proxy.close();
        if (canary != null) canary.stop(0);
    }

    @TestFactory
    Stream<DynamicTest> scenarios() {
        File[] files = new File(LiveServer.conformance(), "scenarios").listFiles((dir, name) -> name.endsWith(".json"));
        assertNotNull(files);
        assertTrue(files.length >= 12, "the scenarios are there");
        Arrays.sort(files);
        return Arrays.stream(files).map(file -> DynamicTest.dynamicTest(file.getName(), () -> run(file)));
    }

    /** One scenario: a fresh client over an empty storage, the steps in order. */
    static void run(File file) throws Exception {
        JSONObject scenario = new JSONObject(new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8));
        proxy.reset();
        canaryRequests.set(0);
        Map<String, String> saved = new HashMap<>();
        saved.put("canary", "http://127.0.0.1:" + canary.getAddress().getPort());
        String clientServer = scenario.optBoolean("serverDown") ? downServer() : proxy.base();
        MemoryStore storage = new MemoryStore();
        Platform platform = Platform.valueOf(scenario.getString("platform"));
        JSONObject options = scenario.optJSONObject("client");
        Relink client = new Relink(config(clientServer, platform, storage, options));

        JSONArray steps = scenario.getJSONArray("steps");
        for (int index = 0; index < steps.length(); index++) {
            JSONObject step = (JSONObject) substitute(steps.getJSONObject(index), saved);
            String where = file.getName() + " step " + (index + 1);
            for (String key : step.keySet()) assertTrue(STEP_KEYS.contains(key), where + ": unknown step field " + key);
            JSONObject expect = step.optJSONObject("expect");
            if (expect != null) {
                for (String key : expect.keySet()) assertTrue(EXPECT_KEYS.contains(key), where + ": unknown expect field " + key);
            }
            if (step.optBoolean("relaunch")) {
                if (step.has("client")) options = step.getJSONObject("client");
                client = new Relink(config(clientServer, platform, storage, options));
                continue;
            }
            if (step.has("click")) {
                click(step, saved, where);
                continue;
            }
            JSONArray faults = step.optJSONArray("faults");
            if (faults != null) {
                List<JSONObject> armed = new ArrayList<>();
                for (int i = 0; i < faults.length(); i++) armed.add(faults.getJSONObject(i));
                proxy.arm(armed);
            }
            int before = proxy.recorded().size();
            int clicksBefore = server.emailServiceClicks();
            JSONObject reopens = expect == null ? null : expect.optJSONObject("reopens");
            int reopensBefore = reopens == null ? 0 : server.reopens(reopens.getString("link"));
            Object result;
            if (step.has("claim")) {
                JSONObject claim = step.getJSONObject("claim");
                proxy.address(claim.getString("address"));
                result = client.claimDeferredLinkBlocking(claimRequest(claim));
            } else if (step.has("reopen")) {
                proxy.address(step.getJSONObject("reopen").getString("address"));
                result = client.reopenBlocking(step.getJSONObject("reopen").getString("url"));
            } else if (step.has("resolve")) {
                proxy.address(step.getJSONObject("resolve").getString("address"));
                result = client.resolveBlocking(step.getJSONObject("resolve").getString("url"));
            } else {
                throw new AssertionError(where + ": a step without click, relaunch, claim, reopen or resolve");
            }
            proxy.awaitForwarded(30000);
            check(where, expect == null ? new JSONObject() : expect, result, proxy.recorded().size() - before);
            if (expect != null && expect.has("emailServiceClicks")) {
                assertEquals(expect.getInt("emailServiceClicks"), server.emailServiceClicks() - clicksBefore,
                        where + ": clicks the email service counted");
            }
            if (reopens != null) {
                assertEquals(reopens.getInt("count"), server.reopens(reopens.getString("link")) - reopensBefore,
                        where + ": re-opens of " + reopens.getString("link"));
            }
        }
    }

    /** A client's configuration: the scenario's (or a relaunch's) timeout and budget when given, else the defaults. */
    private static Relink.Config config(String server, Platform platform, MemoryStore storage, JSONObject options)
            throws org.json.JSONException {
        Relink.Config config = new Relink.Config(server, platform, "test.relink.shop", storage);
        if (options != null && options.has("timeoutMs")) config.timeoutMillis(options.getInt("timeoutMs"));
        if (options != null && options.has("retryBudgetMs")) config.retryBudgetMillis(options.getLong("retryBudgetMs"));
        return config;
    }

    private static void click(JSONObject step, Map<String, String> saved, String where) throws Exception {
        JSONObject click = step.getJSONObject("click");
        HttpResponse<String> answer = LiveServer.click(server.base, click.getString("path"), click.optString("userAgent", null),
                click.getString("address"), click.optString("acceptLanguage", null));
        String location = answer.headers().firstValue("Location").orElse(null);
        JSONObject expect = step.optJSONObject("expect");
        if (expect != null && expect.has("status")) assertEquals(expect.getInt("status"), answer.statusCode(), where + ": status");
        if (expect != null && expect.has("locationStartsWith")) {
            assertNotNull(location, where + ": Location");
            assertTrue(location.startsWith(expect.getString("locationStartsWith")), where + ": Location " + location);
        }
        if (step.has("saveReferrerAs")) {
            String referrer = location == null ? null : LiveServer.referrer(location);
            assertNotNull(referrer, where + ": a referrer in " + location);
            saved.put(step.getString("saveReferrerAs"), referrer);
        }
    }

    static ClaimRequest claimRequest(JSONObject claim) throws Exception {
        JSONObject device = claim.optJSONObject("device");
        DeviceInfo info = null;
        if (device != null) {
            // Exactly the scenario's signals: the JVM's own language and time zone would change the match.
            info = new DeviceInfo.Builder()
                    .osVersion(device.optString("osVersion", null))
                    .deviceModelName(device.optString("deviceModelName", null))
                    .screen(device.has("screenWidth") ? device.getInt("screenWidth") : null,
                            device.has("screenHeight") ? device.getInt("screenHeight") : null)
                    .languageCode(device.optString("languageCode", null))
                    .timeZone(device.optString("timeZone", null))
                    .installedAtEpochSeconds(device.has("installedAt") ? device.getLong("installedAt") : null)
                    .build();
        }
        return new ClaimRequest(info, claim.optString("installReferrer", null), claim.optString("clipboardLink", null));
    }

    private static void check(String where, JSONObject expect, Object result, int requests) throws Exception {
        String kind;
        RelinkError error;
        Map<String, Object> fields = new HashMap<>();
        if (result instanceof ClaimResult) {
            ClaimResult claim = (ClaimResult) result;
            kind = claim.getKind().name();
            error = claim.getError();
            DeferredLink link = claim.getLink();
            if (link != null) {
                fields.put("deepLink", link.getDeepLink());
                fields.put("confidence", link.getConfidence().name());
                fields.put("utmSource", link.getUtmSource());
                fields.put("utmMedium", link.getUtmMedium());
                fields.put("utmCampaign", link.getUtmCampaign());
                fields.put("utmContent", link.getUtmContent());
                fields.put("utmTerm", link.getUtmTerm());
            }
        } else {
            LinkResult linkResult = (LinkResult) result;
            kind = linkResult.getKind().name();
            error = linkResult.getError();
            ResolvedLink link = linkResult.getLink();
            if (link != null) {
                fields.put("deepLink", link.getDeepLink());
                fields.put("utmSource", link.getUtmSource());
                fields.put("utmMedium", link.getUtmMedium());
                fields.put("utmCampaign", link.getUtmCampaign());
                fields.put("utmContent", link.getUtmContent());
                fields.put("utmTerm", link.getUtmTerm());
                fields.put("routeParameters", link.getRouteParameters());
            }
        }
        String context = where + " (" + result + ")";
        if (expect.has("result")) assertEquals(constant(expect.getString("result")), kind, context + ": result");
        for (String name : new String[] {"deepLink", "confidence", "utmSource", "utmMedium", "utmCampaign", "utmContent", "utmTerm"}) {
            if (expect.has(name)) assertEquals(expect.getString(name), fields.get(name), context + ": " + name);
        }
        if (expect.has("routeParameters")) {
            Map<String, Object> wanted = new HashMap<>();
            JSONObject parameters = expect.getJSONObject("routeParameters");
            for (String key : parameters.keySet()) wanted.put(key, parameters.getString(key));
            assertEquals(wanted, fields.get("routeParameters"), context + ": routeParameters");
        }
        if (expect.has("error")) {
            JSONObject wanted = expect.getJSONObject("error");
            assertNotNull(error, context + ": an error");
            if (wanted.has("kind")) assertEquals(constant(wanted.getString("kind")), error.getKind().name(), context + ": error kind");
            if (wanted.has("status")) assertEquals(Integer.valueOf(wanted.getInt("status")), error.getStatus(), context + ": error status");
            if (wanted.has("apiStatus")) assertEquals(wanted.getString("apiStatus"), error.getApiStatus(), context + ": apiStatus");
            if (wanted.has("retryAfterSeconds")) {
                assertEquals(Integer.valueOf(wanted.getInt("retryAfterSeconds")), error.getRetryAfterSeconds(), context + ": retryAfterSeconds");
            }
        }
        if (expect.has("requests")) assertEquals(expect.getInt("requests"), requests, context + ": requests reaching the proxy");
        if (expect.has("sameInstallId")) {
            Set<String> ids = new HashSet<>();
            int claims = 0;
            for (FaultProxy.Recorded request : proxy.recorded()) {
                if (!request.path.equals(Relink.INSTALL_ATTRIBUTION)) continue;
                claims++;
                ids.add(request.body == null ? null : request.body.optString("installId", null));
            }
            assertTrue(claims > 0, context + ": claim requests");
            assertEquals(expect.getBoolean("sameInstallId"), ids.size() == 1 && !ids.contains(null), context + ": install ids " + ids);
        }
        if (expect.has("canaryRequests")) assertEquals(expect.getInt("canaryRequests"), canaryRequests.get(), context + ": canary requests");
    }

    /** {@code alreadyClaimed} to {@code ALREADY_CLAIMED}, as the scenarios name what Java names in enums. */
    static String constant(String camel) {
        return camel.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase();
    }

    /** The step with {@code {{name}}} replaced in every string; an unknown name fails the scenario. */
    private static Object substitute(Object value, Map<String, String> saved) throws Exception {
        if (value instanceof String) {
            Matcher matcher = TEMPLATE.matcher((String) value);
            StringBuilder result = new StringBuilder();
            while (matcher.find()) {
                String replacement = saved.get(matcher.group(1));
                if (replacement == null) fail("no saved value " + matcher.group(1));
                matcher.appendReplacement(result, Matcher.quoteReplacement(replacement));
            }
            matcher.appendTail(result);
            return result.toString();
        }
        if (value instanceof JSONObject) {
            JSONObject object = (JSONObject) value;
            JSONObject copy = new JSONObject();
            for (String key : object.keySet()) copy.put(key, substitute(object.get(key), saved));
            return copy;
        }
        if (value instanceof JSONArray) {
            JSONArray array = (JSONArray) value;
            JSONArray copy = new JSONArray();
            for (int i = 0; i < array.length(); i++) copy.put(substitute(array.get(i), saved));
            return copy;
        }
        return value;
    }

    /** A loopback address where nothing listens. */
    private static String downServer() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }
    }
}
