/// What kind of client a click comes from, as far as routing it is concerned.
public enum Platform: String, Sendable, CaseIterable, Codable {
    /// iPhone, iPod touch, and iOS apps (which iOS identifies as CFNetwork/Darwin).
    case iPhone
    /// iPad; uses `ipbi`/`ipfl` when the link sets them. iPadOS Safari's default desktop User-Agent is `desktop`.
    case iPad
    case android
    case desktop
    /// Link-preview fetchers, search crawlers, monitors and HTTP libraries: never counted as a click.
    case crawler
    /// Everything else: feature phones, TVs, consoles, watches, unknown.
    case other

    /// iPhone or iPad.
    public var isIOS: Bool { self == .iPhone || self == .iPad }
}
