package dev.relink;

/**
 * Where the client keeps its two keys, {@code relink.installId} and {@code relink.claimed}, across launches: on
 * Android a {@code SharedPreferences} adapter (see docs/integration-android.md).
 *
 * <p>Both methods are called on the library's background thread. They should not throw; if one does, the call
 * fails with {@link RelinkError.Kind#INVALID_INPUT} rather than crash.
 */
public interface KeyValueStore {
    /**
     * @param key the key.
     * @return the stored value, or null when there is none.
     */
    String get(String key);

    /**
     * Stores a value. It must be readable by {@link #get} at once and survive the process: the install id written
     * here is what makes a retry after a crash get the first answer. On Android, {@code commit()} rather than
     * {@code apply()}: this runs on the background thread, and the install id should be on disk before the request.
     *
     * @param key the key.
     * @param value the value.
     */
    void put(String key, String value);
}
