package dev.relink;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The Relink server of the tests, started once per test run through clients/conformance/start-server.sh with the
 * binary of env RELINK_BINARY (default: the checkout's .build/debug/relink), and stopped when the JVM exits.
 */
final class LiveServer {
    private static LiveServer shared;

    final String base;
    /** The stand-in email service behind the click-tracking host (clients/conformance/email-service.py). */
    final String emailService;
    /** An API key of the conformance project, for link stats. */
    final String apiKey;
    private final Process script;

    private LiveServer(String base, String emailService, String apiKey, Process script) {
        this.base = base;
        this.emailService = emailService;
        this.apiKey = apiKey;
        this.script = script;
    }

    /** The repository's root: the first folder up from here that holds clients/conformance. */
    static File repo() {
        String configured = System.getProperty("relink.repo");
        File folder = new File(configured != null ? configured : System.getProperty("user.dir")).getAbsoluteFile();
        for (File candidate = folder; candidate != null; candidate = candidate.getParentFile()) {
            if (new File(candidate, "clients/conformance/start-server.sh").isFile()) return candidate;
        }
        throw new IllegalStateException("No clients/conformance above " + folder);
    }

    static File conformance() {
        return new File(repo(), "clients/conformance");
    }

    static synchronized LiveServer shared() throws IOException {
        if (shared != null) return shared;
        String binary = System.getenv("RELINK_BINARY");
        if (binary == null || binary.isEmpty()) binary = new File(repo(), ".build/debug/relink").getPath();
        ProcessBuilder builder = new ProcessBuilder("bash", new File(conformance(), "start-server.sh").getPath(), binary);
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        final Process process = builder.start();
        BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = lines.readLine();
        if (line == null || !line.startsWith("http://")) {
            process.destroy();
            throw new IOException("start-server.sh printed no server (binary " + binary + "): " + line);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // SIGTERM to the script, whose trap stops the server and removes its database.
            process.destroy();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }));
        String[] fields = line.split(" ");
        if (fields.length < 4) {
            process.destroy();
            throw new IOException("start-server.sh printed no email service and key: " + line);
        }
        shared = new LiveServer(fields[0], fields[2], fields[3], process);
        return shared;
    }

    /** A browser's click, straight to the server, not followed. */
    static HttpResponse<String> click(String base, String path, String userAgent, String address, String acceptLanguage)
            throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).GET().timeout(Duration.ofSeconds(10))
                .header("Forwarded", "for=" + address + ";host=go.relink.test;proto=https");
        if (userAgent != null) request.header("User-Agent", userAgent);
        if (acceptLanguage != null) request.header("Accept-Language", acceptLanguage);
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The clicks the stand-in email service has counted so far. */
    int emailServiceClicks() throws IOException, InterruptedException, JSONException {
        return new JSONObject(get(emailService + "/clicks")).getInt("clicks");
    }

    /** The {@code APP_RE_OPEN} events of a short link, all platforms, from its link stats. */
    int reopens(String shortLink) throws IOException, InterruptedException, JSONException {
        String path = "/v1/" + URLEncoder.encode(shortLink, StandardCharsets.UTF_8) + "/linkStats?durationDays=1&key="
                + URLEncoder.encode(apiKey, StandardCharsets.UTF_8);
        JSONArray stats = new JSONObject(get(base + path)).getJSONArray("linkEventStats");
        int count = 0;
        for (int i = 0; i < stats.length(); i++) {
            JSONObject stat = stats.getJSONObject(i);
            if (stat.getString("event").equals("APP_RE_OPEN")) count += Integer.parseInt(stat.getString("count"));
        }
        return count;
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> answer = client.send(
                HttpRequest.newBuilder(URI.create(url)).GET().timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) throw new IOException(url + " answered " + answer.statusCode() + ": " + answer.body());
        return answer.body();
    }

    /** The {@code referrer} query parameter of a Play Store URL, percent-decoded, as the Play Store hands it over. */
    static String referrer(String location) {
        int query = location.indexOf('?');
        if (query < 0) return null;
        for (String pair : location.substring(query + 1).split("&")) {
            if (pair.startsWith("referrer=")) return URLDecoder.decode(pair.substring("referrer=".length()), StandardCharsets.UTF_8);
        }
        return null;
    }
}
