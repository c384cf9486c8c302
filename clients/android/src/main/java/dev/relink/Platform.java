package dev.relink;

/** The app's platform, as the server matches it: Android apps send {@link #ANDROID}. */
public enum Platform {
    /** An Android app (package name, Play install referrer). */
    ANDROID,
    /** An iOS app (bundle ID, clipboard claim link), for the shared conformance scenarios. */
    IOS
}
