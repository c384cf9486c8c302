package android.content;

/**
 * The part of Android's {@code SharedPreferences} the docs' adapter uses, with Android's signatures, so that the
 * adapter the docs show compiles here as it does in an app. Not shipped: test sources only.
 */
public interface SharedPreferences {
    String getString(String key, String defValue);

    Editor edit();

    /** The part of Android's {@code SharedPreferences.Editor} the adapter uses. */
    interface Editor {
        Editor putString(String key, String value);

        boolean commit();

        void apply();
    }
}
