/// The tracking paths an email service documents for app links, by the service's name (`"preset"` in a
/// `clickTracking` entry). Only what a service documents is here; docs/email.md names the source of each.
public enum ClickTrackingPreset: String, CaseIterable, Sendable {
    /// SendGrid: links marked `universal="true"` are tracked under `/uni/` (SendGrid's "Universal Links" page).
    case sendgrid
    /// Adobe Journey Optimizer: tracked deep links under `/ee/v1/mclick/` (Adobe's email deep-link page).
    case adobe

    public var paths: [String] {
        switch self {
        case .sendgrid: ["/uni/*"]
        case .adobe: ["/ee/v1/mclick/*"]
        }
    }
}
