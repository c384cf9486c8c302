package dev.relink;

/** What a first launch knows: the device, and the Play install referrer or a clipboard claim link when it has one. */
public final class ClaimRequest {
    private final DeviceInfo device;
    private final String installReferrer;
    private final String clipboardLink;

    /**
     * @param device the device's signals; null sends none.
     * @param installReferrer the Play Install Referrer API's {@code getInstallReferrer()}, as given; null when the
     *     API gave none (a sideloaded build, another store).
     * @param clipboardLink the clipboard's text, when the app read it; it is sent only when it is a claim link
     *     ({@link Relink#isClaimLink}), anything else stays on the device.
     */
    public ClaimRequest(DeviceInfo device, String installReferrer, String clipboardLink) {
        this.device = device;
        this.installReferrer = installReferrer;
        this.clipboardLink = clipboardLink;
    }

    /**
     * @param device the device's signals.
     * @param installReferrer the Play install referrer, or null.
     */
    public ClaimRequest(DeviceInfo device, String installReferrer) {
        this(device, installReferrer, null);
    }

    /** @return the device's signals, or null. */
    public DeviceInfo getDevice() { return device; }
    /** @return the install referrer, or null. */
    public String getInstallReferrer() { return installReferrer; }
    /** @return the clipboard's text, or null. */
    public String getClipboardLink() { return clipboardLink; }
}
