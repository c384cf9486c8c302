package dev.relink.example;

import android.content.SharedPreferences;

import dev.relink.KeyValueStore;

/** The client's storage in SharedPreferences: {@code context.getSharedPreferences("relink", Context.MODE_PRIVATE)}. */
public final class SharedPreferencesStore implements KeyValueStore {
    private final SharedPreferences preferences;

    public SharedPreferencesStore(SharedPreferences preferences) {
        this.preferences = preferences;
    }

    @Override
    public String get(String key) {
        return preferences.getString(key, null);
    }

    @Override
    public void put(String key, String value) {
        // commit(), not apply(): this runs on the library's background thread, and the install id must be on
        // disk before the claim's request goes out.
        preferences.edit().putString(key, value).commit();
    }
}
