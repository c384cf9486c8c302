package dev.relink;

/** The app's platform, as the server matches it: Android apps send {@link #ANDROID}. */
public enum Platform {
    ANDROID,
    IOS
}
