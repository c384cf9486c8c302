package dev.relink;

import java.util.Map;

/** A Relink link's deep link, as the server resolved it. */
public final class ResolvedLink {
    private final String deepLink;
    private final String resolvedLink;
    private final String utmSource;
    private final String utmMedium;
    private final String utmCampaign;
    private final String utmContent;
    private final String utmTerm;
    private final String minimumAppVersion;
    private final Map<String, String> routeParameters;

    ResolvedLink(String deepLink, String resolvedLink, String utmSource, String utmMedium, String utmCampaign,
            String utmContent, String utmTerm, String minimumAppVersion, Map<String, String> routeParameters) {
        this.deepLink = deepLink;
        this.resolvedLink = resolvedLink;
        this.utmSource = utmSource;
        this.utmMedium = utmMedium;
        this.utmCampaign = utmCampaign;
        this.utmContent = utmContent;
        this.utmTerm = utmTerm;
        this.minimumAppVersion = minimumAppVersion;
        this.routeParameters = routeParameters;
    }

    /** @return the deep link to open in the app. */
    public String getDeepLink() { return deepLink; }
    /** @return the long form of the link. */
    public String getResolvedLink() { return resolvedLink; }
    /** @return {@code utm_source}, or null. */
    public String getUtmSource() { return utmSource; }
    /** @return {@code utm_medium}, or null. */
    public String getUtmMedium() { return utmMedium; }
    /** @return {@code utm_campaign}, or null. */
    public String getUtmCampaign() { return utmCampaign; }
    /** @return {@code utm_content}, or null. */
    public String getUtmContent() { return utmContent; }
    /** @return {@code utm_term}, or null. */
    public String getUtmTerm() { return utmTerm; }
    /** @return the link's minimum app version (the server's {@code iosMinAppVersion}), or null. */
    public String getMinimumAppVersion() { return minimumAppVersion; }
    /** @return a route's path parameters, decoded ({@code /p/{id}} gives {@code id}); empty, never null. */
    public Map<String, String> getRouteParameters() { return routeParameters; }

    @Override
    public String toString() {
        return "ResolvedLink(" + deepLink + ")";
    }
}
