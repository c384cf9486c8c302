package dev.relink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import android.content.SharedPreferences;

import dev.relink.example.DeferredLinkExample;
import dev.relink.example.SharedPreferencesStore;

import org.junit.jupiter.api.Test;

/**
 * docs/integration-android.md: its Java examples are this folder's example classes verbatim, the first-launch example
 * gets a UNIQUE claim from a live server after a click, and its snippets call only the library's real API.
 */
class DocsExampleTest {
    private static final Class<?>[] API = {Relink.class, Relink.Config.class, Relink.Callback.class, ClaimRequest.class,
            ClaimResult.class, DeferredLink.class, DeviceInfo.class, DeviceInfo.Builder.class, LinkResult.class,
            ResolvedLink.class, RelinkError.class, KeyValueStore.class, Platform.class, DeferredLinkExample.class,
            DeferredLinkExample.Navigator.class, SharedPreferencesStore.class};
    /** The Android, Play, Kotlin and JDK calls the doc's snippets make; any other call must be the library's. */
    private static final Set<String> PLATFORM_CALLS = new HashSet<>(Arrays.asList(
            "commit", "edit", "endConnection", "getInstallReferrer", "getMainLooper", "getOrNull", "getPackageInfo",
            "getSharedPreferences", "getString", "i", "launch", "newBuilder", "onCreate", "onNewIntent", "putString", "resume",
            "startConnection", "toInt", "toString"));

    private static String doc() throws Exception {
        return new String(Files.readAllBytes(new File(LiveServer.repo(), "docs/integration-android.md").toPath()), StandardCharsets.UTF_8);
    }

    /** An example file from its first import on: the package line is the app's own. */
    private static String example(String name) throws Exception {
        File file = new File(LiveServer.repo(), "clients/android/src/test/java/dev/relink/example/" + name);
        String text = new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8);
        return text.substring(text.indexOf("\nimport ") + 1).trim();
    }

    @Test
    void theDocShowsTheExamplesVerbatim() throws Exception {
        String doc = doc();
        assertTrue(doc.contains("```java\n" + example("DeferredLinkExample.java") + "\n```"), "DeferredLinkExample.java in the doc");
        assertTrue(doc.contains("```java\n" + example("SharedPreferencesStore.java") + "\n```"), "SharedPreferencesStore.java in the doc");
    }

    @Test
    void theFirstLaunchExampleGetsAUniqueClaimAfterAClick() throws Exception {
        LiveServer server = LiveServer.shared();
        HttpResponse<String> click = LiveServer.click(server.base, "/p/docs-example",
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
                "198.18.40.1", "en-US");
        assertEquals(302, click.statusCode());
        String referrer = LiveServer.referrer(click.headers().firstValue("Location").orElse(""));
        assertNotNull(referrer, "the Play Store URL's referrer");

        final ExecutorService mainThread = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "main"));
        try {
            MemoryStore storage = new MemoryStore();
            DeferredLinkExample example = new DeferredLinkExample(server.base, "test.relink.shop", storage, mainThread);
            final AtomicReference<String> opened = new AtomicReference<>();
            final AtomicBoolean exact = new AtomicBoolean();
            final AtomicReference<String> thread = new AtomicReference<>();
            final CountDownLatch done = new CountDownLatch(1);
            DeviceInfo device = new DeviceInfo.Builder().osVersion("14").deviceModelName("Pixel 8").build();
            example.onStart(referrer, device, (deepLink, isExact) -> {
                opened.set(deepLink);
                exact.set(isExact);
                thread.set(Thread.currentThread().getName());
                done.countDown();
            });
            assertTrue(done.await(20, TimeUnit.SECONDS), "the example opened a link");
            assertEquals("https://shop.relink.test/product/docs-example", opened.get());
            assertTrue(exact.get(), "UNIQUE, by the install referrer");
            assertEquals("main", thread.get(), "delivered on the callback executor");
            assertEquals("1", storage.get(Relink.KEY_CLAIMED));
        } finally {
            mainThread.shutdownNow();
        }
    }

    @Test
    void theSharedPreferencesAdapterKeepsTheKeys() throws Exception {
        final Map<String, String> saved = new HashMap<>();
        final int[] commits = {0};
        SharedPreferences preferences = new SharedPreferences() {
            @Override public String getString(String key, String defValue) {
                synchronized (saved) { return saved.containsKey(key) ? saved.get(key) : defValue; }
            }
            @Override public Editor edit() {
                final Map<String, String> pending = new HashMap<>();
                return new Editor() {
                    @Override public Editor putString(String key, String value) { pending.put(key, value); return this; }
                    @Override public boolean commit() {
                        synchronized (saved) { saved.putAll(pending); commits[0]++; }
                        return true;
                    }
                    @Override public void apply() { throw new AssertionError("commit(), not apply()"); }
                };
            }
        };
        try (StubServer stub = new StubServer()) {
            Relink relink = new Relink(new Relink.Config(stub.base(), Platform.ANDROID, "test.relink.shop",
                    new SharedPreferencesStore(preferences)));
            assertEquals(ClaimResult.Kind.ORGANIC, relink.claimDeferredLinkBlocking(new ClaimRequest(null, null)).getKind());
            assertEquals(36, saved.get(Relink.KEY_INSTALL_ID).length(), "a UUID");
            assertEquals("1", saved.get(Relink.KEY_CLAIMED));
            assertEquals(2, commits[0]);
        }
    }

    @Test
    void theDocsSnippetsCallTheLibrarysApi() throws Exception {
        Set<String> members = new HashSet<>();
        for (Class<?> type : API) {
            members.add(type.getSimpleName());
            for (Method method : type.getMethods()) members.add(method.getName());
        }
        List<String> problems = new ArrayList<>();
        Matcher blocks = Pattern.compile("```(java|kotlin)\n(.*?)```", Pattern.DOTALL).matcher(doc());
        int count = 0;
        while (blocks.find()) {
            count++;
            for (String line : blocks.group(2).split("\n")) {
                String code = line.trim();
                if (code.startsWith("import ") || code.startsWith("package ") || code.startsWith("//")) continue;
                Matcher calls = Pattern.compile("\\.([A-Za-z_]\\w*)\\s*[({]").matcher(code);
                while (calls.find()) {
                    String name = calls.group(1);
                    if (!members.contains(name) && !PLATFORM_CALLS.contains(name)) problems.add("call ." + name + " in: " + code);
                }
                // Kotlin properties of the results: result.kind is getKind(), result.isResolved is isResolved().
                Matcher properties = Pattern.compile("\\b(result|link|error)\\.(\\w+)\\b(?!\\s*[({])").matcher(code);
                // Found from each name on, so result.error.kind checks error.kind too.
                for (int from = 0; properties.find(from); from = properties.start(2)) {
                    String name = properties.group(2);
                    String getter = "get" + Character.toUpperCase(name.charAt(0)) + name.substring(1);
                    if (!members.contains(getter) && !(name.startsWith("is") && members.contains(name))) {
                        problems.add("property ." + name + " in: " + code);
                    }
                }
                Matcher qualified = Pattern.compile("\\b(Relink|ClaimResult|DeferredLink|RelinkError|LinkResult|Platform|DeviceInfo)"
                        + "((?:\\.[A-Za-z_]\\w*)+)").matcher(code);
                while (qualified.find()) {
                    if (!resolves(qualified.group(1), qualified.group(2).substring(1).split("\\."))) {
                        problems.add("reference " + qualified.group() + " in: " + code);
                    }
                }
            }
        }
        assertTrue(count >= 8, "the doc's code blocks were found: " + count);
        assertEquals(new ArrayList<String>(), problems);
    }

    /** Whether {@code Type.A.B} names a nested class, a constant or a method of the library. */
    private static boolean resolves(String typeName, String[] path) throws ClassNotFoundException {
        Class<?> type = Class.forName("dev.relink." + typeName);
        for (String part : path) {
            Class<?> nested = null;
            for (Class<?> candidate : type.getClasses()) if (candidate.getSimpleName().equals(part)) nested = candidate;
            if (nested != null) {
                type = nested;
                continue;
            }
            for (Field field : type.getFields()) if (field.getName().equals(part)) return true;
            for (Method method : type.getMethods()) if (method.getName().equals(part)) return true;
            return false;
        }
        return true;
    }
}
