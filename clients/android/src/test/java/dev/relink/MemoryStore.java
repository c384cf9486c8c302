package dev.relink;

import java.util.concurrent.ConcurrentHashMap;

/** The tests' storage: what a fresh install's SharedPreferences holds, nothing. */
final class MemoryStore implements KeyValueStore {
    final ConcurrentHashMap<String, String> values = new ConcurrentHashMap<>();

    @Override public String get(String key) { return values.get(key); }
    @Override public void put(String key, String value) { values.put(key, value); }
}
