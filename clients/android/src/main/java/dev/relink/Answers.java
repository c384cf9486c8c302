package dev.relink;

import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import org.json.JSONException;
import org.json.JSONObject;
import org.json.JSONTokener;

/** The server's 2xx answers read into results; anything not of the expected shape is {@code MALFORMED}. */
final class Answers {
    private Answers() {}

    /** Thrown inside this class only, for a field of the wrong type. */
    private static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) { super(message); }
    }

    /**
     * The text as one JSON object and nothing after it, or null; null too for text {@link JsonShape} refuses (too
     * deep, a key twice), so no answer can overflow the parser's stack.
     */
    static JSONObject parseObject(String text) {
        if (text == null || JsonShape.problem(text) != null) return null;
        try {
            JSONTokener tokener = new JSONTokener(text);
            Object value = tokener.nextValue();
            if (!(value instanceof JSONObject)) return null;
            return tokener.nextClean() == 0 ? (JSONObject) value : null;
        } catch (JSONException e) {
            return null;
        } catch (RuntimeException e) {
            return null; // org.json's own failures beyond JSONException: the answer is unreadable either way
        } catch (StackOverflowError e) {
            return null; // JsonShape bounds the depth; this stays in case a platform's stack is smaller still
        }
    }

    /** Why {@link #parseObject} found no object in the text, for the error's message. */
    private static String notAnObject(String text) {
        String problem = text == null ? null : JsonShape.problem(text);
        return problem != null ? problem : "The answer is not a JSON object.";
    }

    /** {@code POST /v1/installAttribution}'s answer: matched, organic, or failed as malformed. */
    static ClaimResult claim(int status, String body) {
        JSONObject json = parseObject(body);
        if (json == null) return ClaimResult.failed(malformed(status, notAnObject(body)));
        try {
            String matchMessage = string(json, "matchMessage");
            if (matchMessage == null) throw new Malformed("matchMessage is missing.");
            String deepLink = string(json, "deepLink");
            String confidenceName = string(json, "attributionConfidence");
            // Read before the organic answer returns, so a field of the wrong type is malformed there too.
            DeferredLink.Confidence confidence = null;
            if (confidenceName != null) {
                try {
                    confidence = DeferredLink.Confidence.valueOf(confidenceName);
                } catch (IllegalArgumentException e) {
                    throw new Malformed("attributionConfidence " + confidenceName + " is none of UNIQUE, DEFAULT, WEAK.");
                }
            }
            DeferredLink link = new DeferredLink(deepLink, confidence, matchMessage,
                    string(json, "utmSource"), string(json, "utmMedium"), string(json, "utmCampaign"),
                    string(json, "utmContent"), string(json, "utmTerm"), string(json, "appMinimumVersion"),
                    string(json, "requestedLink"), string(json, "resolvedLink"));
            if (deepLink == null && confidence == null) return ClaimResult.organic(matchMessage);
            if (deepLink == null || confidence == null) {
                throw new Malformed("deepLink and attributionConfidence come together or not at all.");
            }
            return ClaimResult.matched(link);
        } catch (Malformed e) {
            return ClaimResult.failed(malformed(status, e.getMessage()));
        }
    }

    /** {@code POST /v1/reopenAttribution}'s answer: resolved, or failed as malformed. */
    static LinkResult link(int status, String body) {
        JSONObject json = parseObject(body);
        if (json == null) return LinkResult.failed(malformed(status, notAnObject(body)));
        try {
            String deepLink = string(json, "deepLink");
            String resolvedLink = string(json, "resolvedLink");
            if (deepLink == null || resolvedLink == null) throw new Malformed("deepLink or resolvedLink is missing.");
            return LinkResult.resolved(new ResolvedLink(deepLink, resolvedLink,
                    string(json, "utmSource"), string(json, "utmMedium"), string(json, "utmCampaign"),
                    string(json, "utmContent"), string(json, "utmTerm"), string(json, "iosMinAppVersion"),
                    routeParameters(json)));
        } catch (Malformed e) {
            return LinkResult.failed(malformed(status, e.getMessage()));
        }
    }

    private static RelinkError malformed(int status, String message) {
        return new RelinkError(RelinkError.Kind.MALFORMED, status, null, message, null);
    }

    /** A string field, null when absent or JSON null; any other type is malformed. */
    private static String string(JSONObject json, String name) throws Malformed {
        Object value = json.opt(name);
        if (value == null || value == JSONObject.NULL) return null;
        if (!(value instanceof String)) throw new Malformed(name + " is not a string.");
        return (String) value;
    }

    private static Map<String, String> routeParameters(JSONObject json) throws Malformed {
        Object value = json.opt("routeParameters");
        if (value == null || value == JSONObject.NULL) return Collections.<String, String>emptyMap();
        if (!(value instanceof JSONObject)) throw new Malformed("routeParameters is not an object.");
        JSONObject object = (JSONObject) value;
        Map<String, String> parameters = new LinkedHashMap<String, String>();
        Iterator<String> keys = object.keys();
        while (keys.hasNext()) {
            String key = keys.next();
            parameters.put(key, string(object, key));
            if (parameters.get(key) == null) throw new Malformed("routeParameters." + key + " is not a string.");
        }
        return Collections.unmodifiableMap(parameters);
    }
}
