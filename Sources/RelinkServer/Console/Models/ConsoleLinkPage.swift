/// One link: its state, destination and parameters, what is wrong with it, its actions and its QR code.
struct ConsoleLinkPage: ConsolePageModel {
    static let page = ConsoleRenderer.Page.link

    struct Parameter: Sendable {
        var name: String
        var value: String
    }

    let assets = ConsoleAssets()
    var title: String
    var user: ConsolePageUser?
    var csrf: String
    var notices: [String] = []
    var code: String
    var shortLink: String
    /// Its name (from Firebase, or given when it was created).
    var name: String?
    /// `active`, `archived`, `disabled` or `expired`.
    var state: String
    /// What the state leaves out: that the link was archived in Firebase.
    var stateNote: String?
    var destination: String
    var clicks: String
    var created: String
    var updated: String
    var parameters: [Parameter]
    var warnings: [ConsoleLinkFormPage.Warning]
    /// Stored, not computed: swift-mustache reads stored properties only.
    var hasWarnings: Bool
    var editHref: String
    var statsHref: String
    var debugHref: String
    var toggleHref: String
    var toggleLabel: String
    var qrPreviewHref: String
    var qrSVGAction: String
    var qrPNGAction: String
    /// The domain, for the QR form, when the project has several.
    var domainField: String?
    /// How to install libqrencode, when it is missing.
    var qrMissing: String?
}
