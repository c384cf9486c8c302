package dev.relink;

/** The link a user clicked before installing, as the server matched it to this install. */
public final class DeferredLink {
    /** How sure the match is. */
    public enum Confidence {
        /** Exact: the install referrer or a clipboard claim link named the click. May show personal content. */
        UNIQUE,
        /** One clear candidate on the device's signals. */
        DEFAULT,
        /** A guess: route generically and show nothing personal. */
        WEAK
    }

    private final String deepLink;
    private final Confidence confidence;
    private final String matchMessage;
    private final String utmSource;
    private final String utmMedium;
    private final String utmCampaign;
    private final String utmContent;
    private final String utmTerm;
    private final String minimumAppVersion;
    private final String requestedLink;
    private final String resolvedLink;

    DeferredLink(String deepLink, Confidence confidence, String matchMessage, String utmSource, String utmMedium,
            String utmCampaign, String utmContent, String utmTerm, String minimumAppVersion, String requestedLink,
            String resolvedLink) {
        this.deepLink = deepLink;
        this.confidence = confidence;
        this.matchMessage = matchMessage;
        this.utmSource = utmSource;
        this.utmMedium = utmMedium;
        this.utmCampaign = utmCampaign;
        this.utmContent = utmContent;
        this.utmTerm = utmTerm;
        this.minimumAppVersion = minimumAppVersion;
        this.requestedLink = requestedLink;
        this.resolvedLink = resolvedLink;
    }

    /** @return the deep link to open in the app. */
    public String getDeepLink() { return deepLink; }
    /** @return how sure the match is. */
    public Confidence getConfidence() { return confidence; }
    /** @return the server's message about the match. */
    public String getMatchMessage() { return matchMessage; }
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
    /** @return the link's minimum app version ({@code imv}), or null. */
    public String getMinimumAppVersion() { return minimumAppVersion; }
    /** @return the link as clicked, or null. */
    public String getRequestedLink() { return requestedLink; }
    /** @return the long form of the link clicked, or null. */
    public String getResolvedLink() { return resolvedLink; }

    @Override
    public String toString() {
        return "DeferredLink(" + deepLink + ", " + confidence + ")";
    }
}
