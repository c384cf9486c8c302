package dev.relink;

import java.util.Locale;
import java.util.TimeZone;

/**
 * What the app knows about its device, for matching its first launch to the click before the install. Every field
 * may be null; an absent field is not sent. Build one with {@link Builder}.
 */
public final class DeviceInfo {
    private final String osVersion;
    private final String deviceModelName;
    private final Integer screenWidth;
    private final Integer screenHeight;
    private final String languageCode;
    private final String timeZone;
    private final Long installedAtEpochSeconds;

    private DeviceInfo(Builder builder) {
        this.osVersion = builder.osVersion;
        this.deviceModelName = builder.deviceModelName;
        this.screenWidth = builder.screenWidth;
        this.screenHeight = builder.screenHeight;
        this.languageCode = builder.languageCode;
        this.timeZone = builder.timeZone;
        this.installedAtEpochSeconds = builder.installedAtEpochSeconds;
    }

    /** @return the OS release, such as {@code 14} ({@code Build.VERSION.RELEASE}). */
    public String getOsVersion() { return osVersion; }
    /** @return the device model, such as {@code Pixel 7} ({@code Build.MODEL}). */
    public String getDeviceModelName() { return deviceModelName; }
    /** @return the screen width in density-independent pixels, as web pages see it. */
    public Integer getScreenWidth() { return screenWidth; }
    /** @return the screen height in density-independent pixels. */
    public Integer getScreenHeight() { return screenHeight; }
    /** @return a BCP 47 language tag, such as {@code en-US}. */
    public String getLanguageCode() { return languageCode; }
    /** @return an IANA time zone, such as {@code Europe/Berlin}. */
    public String getTimeZone() { return timeZone; }
    /** @return when the app was installed, in epoch seconds. */
    public Long getInstalledAtEpochSeconds() { return installedAtEpochSeconds; }

    /**
     * Builds a {@link DeviceInfo}. The language and time zone start as the JVM's defaults
     * ({@code Locale.getDefault()}, {@code TimeZone.getDefault()}), the rest empty.
     */
    public static final class Builder {
        private String osVersion;
        private String deviceModelName;
        private Integer screenWidth;
        private Integer screenHeight;
        private String languageCode = Locale.getDefault().toLanguageTag();
        private String timeZone = TimeZone.getDefault().getID();
        private Long installedAtEpochSeconds;

        /**
         * @param value the OS release ({@code Build.VERSION.RELEASE}); null to leave it out.
         * @return this builder.
         */
        public Builder osVersion(String value) { osVersion = value; return this; }
        /**
         * @param value the device model ({@code Build.MODEL}); null to leave it out.
         * @return this builder.
         */
        public Builder deviceModelName(String value) { deviceModelName = value; return this; }
        /**
         * @param width the width in density-independent pixels ({@code widthPixels / density}); null to leave it out.
         * @param height the height in density-independent pixels; null to leave it out.
         * @return this builder.
         */
        public Builder screen(Integer width, Integer height) { screenWidth = width; screenHeight = height; return this; }
        /**
         * @param value a BCP 47 language tag; null to leave it out.
         * @return this builder.
         */
        public Builder languageCode(String value) { languageCode = value; return this; }
        /**
         * @param value an IANA time zone id; null to leave it out.
         * @return this builder.
         */
        public Builder timeZone(String value) { timeZone = value; return this; }
        /**
         * The real install time ({@code PackageInfo.firstInstallTime / 1000}), not the launch time: the delay from the
         * click to the install is evidence for the match, and a wrong one is worse than none.
         *
         * @param value epoch seconds; null to leave it out.
         * @return this builder.
         */
        public Builder installedAtEpochSeconds(Long value) { installedAtEpochSeconds = value; return this; }

        /** @return the device info. */
        public DeviceInfo build() { return new DeviceInfo(this); }
    }
}
