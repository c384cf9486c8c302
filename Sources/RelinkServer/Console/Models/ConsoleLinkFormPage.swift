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
        /// The checks about this field, shown beside it.
        var warnings: [Warning]
    }

    /// One of the project's apps, offered to fill a group's app fields.
    struct App: Sendable {
        var label: String
        /// `ibi`, `isi` or `apn`, each with its value (empty clears the field).
        var fills: [Fill]
    }

    struct Fill: Sendable {
        var parameter: String
        var value: String
    }

    /// A list of the project's apps that fills the group's fields (shown by the script; without it, type them).
    struct Picker: Sendable {
        var id: String
        var label: String
        var apps: [App]
    }

    struct Group: Sendable {
        var id: String
        var legend: String
        var fields: [Field]
        /// In a `<details>`: the advanced parameters.
        var folded: Bool
        /// Unfolded: a folded group with a value or a check in it.
        var open: Bool
        var picker: Picker?
    }

    struct Warning: Sendable {
        var code: String
        var message: String
        /// The query key it is about (`isi`), when it is about one.
        var parameter: String?

        init(code: String, message: String, parameter: String? = nil) {
            self.code = code
            self.message = message
            self.parameter = parameter
        }
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
    /// The link's name: a field on a new link, shown on an existing one.
    var name: String
    var groups: [Group]
    var errors: [String]
    /// Stored, not computed: swift-mustache reads stored properties only.
    var hasErrors: Bool
    /// The checks about no one field: a summary at the top, by the button.
    var warnings: [Warning]
}
