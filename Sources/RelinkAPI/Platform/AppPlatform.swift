/// The platforms apps are installed on: what a store-bound click waits for, what a claim or re-open comes from.
/// The raw values are the API's and the stores' (`IOS`, `ANDROID`).
public enum AppPlatform: String, Sendable, Codable, CaseIterable {
    case iOS = "IOS"
    case android = "ANDROID"

    /// The app platform of a click from `platform`.
    /// - Parameter platform: the detected platform of a click.
    /// - Returns: nil for desktop, crawler and other clients, which install no app.
    public init?(_ platform: Platform) {
        switch platform {
        case .iPhone, .iPad: self = .iOS
        case .android: self = .android
        case .desktop, .crawler, .other: return nil
        }
    }

    /// Reads the API's value, in any letter case (`IOS`, `ios`, `Android`).
    /// - Parameter text: the value a request sent.
    /// - Returns: nil for anything else.
    public init?(apiValue text: String) {
        self.init(rawValue: text.uppercased())
    }

    /// The platform an app event (install, first open, re-open) on this platform is counted under.
    public var eventPlatform: Platform {
        switch self {
        case .iOS: .iPhone
        case .android: .android
        }
    }

    /// How people name it in messages.
    public var displayName: String {
        switch self {
        case .iOS: "iOS"
        case .android: "Android"
        }
    }
}
