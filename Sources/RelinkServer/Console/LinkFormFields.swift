import Foundation
import RelinkCore

/// The link form's fields: FDL's parameters by platform, with what each does. The form's values become a long
/// link (`LongLink`), which the API's own validator and minting read.
enum LinkFormFields {
    struct Field {
        var parameter: LinkParameter
        var label: String
        var help: String
    }

    struct Group {
        /// The group's element id, `group-<id>`.
        var id: String
        var legend: String
        /// Folded (`<details>`) unless it holds a value or a check: the advanced parameters.
        var folded: Bool
        var fields: [Field]
    }

    /// The link and the app basics first and open; the rest folded.
    static let groups: [Group] = [
        Group(
            id: "destination", legend: "Destination", folded: false,
            fields: [Field(parameter: .link, label: "Deep link", help: "Where the link leads: the page on the web, and the app's deep link.")]
        ),
        Group(
            id: "ios", legend: "iOS app", folded: false,
            fields: [
                Field(parameter: .ibi, label: "Bundle ID", help: "The iOS app that opens the link."),
                Field(parameter: .isi, label: "App Store ID", help: "Numeric; where users without the app go."),
            ]
        ),
        Group(
            id: "android", legend: "Android app", folded: false,
            fields: [Field(parameter: .apn, label: "Package name", help: "The Android app that opens the link.")]
        ),
        Group(
            id: "ios-more", legend: "More for iOS", folded: true,
            fields: [
                Field(parameter: .ifl, label: "Fallback link", help: "Where iOS users without the app go instead of the App Store."),
                Field(parameter: .ipbi, label: "iPad bundle ID", help: "The iPad app, when it is another one."),
                Field(parameter: .ipfl, label: "iPad fallback link", help: "Where iPad users without the app go."),
                Field(parameter: .ius, label: "Custom URL scheme", help: "The app's own scheme, when it is not the bundle ID."),
                Field(parameter: .imv, label: "Minimum version", help: "The oldest app version that handles the link."),
            ]
        ),
        Group(
            id: "android-more", legend: "More for Android", folded: true,
            fields: [
                Field(parameter: .afl, label: "Fallback link", help: "Where Android users without the app go instead of Google Play."),
                Field(parameter: .amv, label: "Minimum version code", help: "The oldest version code that handles the link."),
                Field(parameter: .al, label: "App link", help: "The link the Android app is given, when it is not the deep link."),
            ]
        ),
        Group(
            id: "other", legend: "Other platforms", folded: true,
            fields: [
                Field(parameter: .ofl, label: "Desktop and other link", help: "Where everyone else goes instead of the deep link."),
                Field(parameter: .efr, label: "Skip the preview page", help: "1 sends iOS users straight on, without the app preview page."),
            ]
        ),
        Group(
            id: "social", legend: "Social preview", folded: true,
            fields: [
                Field(parameter: .st, label: "Title", help: "The card's title when the link is shared."),
                Field(parameter: .sd, label: "Description", help: "The card's text."),
                Field(parameter: .si, label: "Image URL", help: "The card's image (https)."),
            ]
        ),
        Group(
            id: "campaign", legend: "Campaign", folded: true,
            fields: [
                Field(parameter: .utmSource, label: "Source", help: "utm_source"),
                Field(parameter: .utmMedium, label: "Medium", help: "utm_medium"),
                Field(parameter: .utmCampaign, label: "Campaign", help: "utm_campaign"),
                Field(parameter: .utmTerm, label: "Term", help: "utm_term"),
                Field(parameter: .utmContent, label: "Content", help: "utm_content"),
                Field(parameter: .at, label: "Affiliate token", help: "at (App Store analytics)"),
                Field(parameter: .ct, label: "Campaign token", help: "ct (App Store analytics)"),
                Field(parameter: .pt, label: "Provider token", help: "pt (App Store analytics)"),
                Field(parameter: .mt, label: "Media type", help: "mt (App Store analytics)"),
            ]
        ),
    ]

    /// The query keys that have a field: a check about one of them is shown beside it.
    static let fieldNames: Set<String> = Set(groups.flatMap { $0.fields.map(\.parameter.name) })

    /// The parameters a form's values set, as typed (values of other names are ignored; an empty value is absent).
    static func parameters(from values: [String: String]) -> LinkParameters {
        var parameters = LinkParameters()
        for group in groups {
            for field in group.fields {
                if let value = values[field.parameter.name], !value.isEmpty { parameters[field.parameter] = value }
            }
        }
        return parameters
    }

    /// Whether `value` holds what a text field drops (line breaks and other control characters).
    static func holdsUneditable(_ value: String) -> Bool {
        value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// `value` as a text field gives it back: without its control characters.
    static func editable(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.filter { !($0.value < 0x20 || $0.value == 0x7F) }))
    }

    /// The form's groups filled with `parameters`, each check beside its field, and pickers for `project`'s apps.
    static func page(
        _ parameters: LinkParameters, warnings: [ConsoleLinkFormPage.Warning] = [], project: Project? = nil
    ) -> [ConsoleLinkFormPage.Group] {
        groups.map { group in
            let fields = group.fields.map { field in
                ConsoleLinkFormPage.Field(
                    name: field.parameter.name, label: field.label, help: field.help, value: parameters[field.parameter] ?? "",
                    required: field.parameter == .link, warnings: warnings.filter { $0.parameter == field.parameter.name })
            }
            return ConsoleLinkFormPage.Group(
                id: group.id, legend: group.legend, fields: fields, folded: group.folded,
                open: fields.contains { !$0.value.isEmpty || !$0.warnings.isEmpty }, picker: project.flatMap { picker(group.id, project: $0) })
        }
    }

    /// The list of the project's apps a group offers: its iOS apps fill `ibi` and `isi`, its Android apps `apn`.
    static func picker(_ group: String, project: Project) -> ConsoleLinkFormPage.Picker? {
        switch group {
        case "ios" where !project.ios.isEmpty:
            ConsoleLinkFormPage.Picker(
                id: "ios-app", label: "The project's iOS apps",
                apps: project.ios.map { app in
                    ConsoleLinkFormPage.App(
                        label: app.name.map { "\($0) (\(app.bundleId))" } ?? app.bundleId,
                        fills: [.init(parameter: "ibi", value: app.bundleId), .init(parameter: "isi", value: app.appStoreId ?? "")])
                })
        case "android" where !project.android.isEmpty:
            ConsoleLinkFormPage.Picker(
                id: "android-app", label: "The project's Android apps",
                apps: project.android.map { app in
                    ConsoleLinkFormPage.App(
                        label: app.name.map { "\($0) (\(app.packageName))" } ?? app.packageName,
                        fills: [.init(parameter: "apn", value: app.packageName)])
                })
        default: nil
        }
    }
}
