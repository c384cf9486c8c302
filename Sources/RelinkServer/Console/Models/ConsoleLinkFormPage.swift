/// Creating or editing a link: the FDL parameters by platform, checked as they are typed.
struct ConsoleLinkFormPage: ConsolePageModel {
    static let page = ConsoleRenderer.Page.linkForm

    struct Option: Sendable {
        var value: String
        var label: String
        var selected: Bool
    }

    struct Field: Sendable {
        var name: String
        var label: String
        var help: String
        var value: String
        var required: Bool
    }

    struct Group: Sendable {
        var legend: String
        var fields: [Field]
    }

    struct Warning: Sendable {
        var code: String
        var message: String
    }

    let assets = ConsoleAssets()
    var title: String
    var heading: String
    var user: ConsolePageUser?
    var csrf: String
    var notices: [String] = []
    var isNew: Bool
    var action: String
    var button: String
    var domain: String
    var shortLink: String
    var domains: [Option]
    var suffixes: [Option]
    var customSuffix: String
    var groups: [Group]
    var errors: [String]
    /// Stored, not computed: swift-mustache reads stored properties only.
    var hasErrors: Bool
    var warnings: [Warning]
}
