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

    static let groups: [(legend: String, fields: [Field])] = [
        (
            "Destination",
            [Field(parameter: .link, label: "Deep link", help: "Where the link leads: the page on the web, and the app's deep link.")]
        ),
        (
            "iOS",
            [
                Field(parameter: .ibi, label: "Bundle ID", help: "The iOS app that opens the link."),
                Field(parameter: .isi, label: "App Store ID", help: "Numeric; where users without the app go."),
                Field(parameter: .ifl, label: "Fallback link", help: "Where iOS users without the app go instead of the App Store."),
                Field(parameter: .ipbi, label: "iPad bundle ID", help: "The iPad app, when it is another one."),
                Field(parameter: .ipfl, label: "iPad fallback link", help: "Where iPad users without the app go."),
                Field(parameter: .ius, label: "Custom URL scheme", help: "The app's own scheme, when it is not the bundle ID."),
                Field(parameter: .imv, label: "Minimum version", help: "The oldest app version that handles the link."),
            ]
        ),
        (
            "Android",
            [
                Field(parameter: .apn, label: "Package name", help: "The Android app that opens the link."),
                Field(parameter: .afl, label: "Fallback link", help: "Where Android users without the app go instead of Google Play."),
                Field(parameter: .amv, label: "Minimum version code", help: "The oldest version code that handles the link."),
                Field(parameter: .al, label: "App link", help: "The link the Android app is given, when it is not the deep link."),
            ]
        ),
        (
            "Other platforms",
            [
                Field(parameter: .ofl, label: "Desktop and other link", help: "Where everyone else goes instead of the deep link."),
                Field(parameter: .efr, label: "Skip the preview page", help: "1 sends iOS users straight on, without the app preview page."),
            ]
        ),
        (
            "Social preview",
            [
                Field(parameter: .st, label: "Title", help: "The card's title when the link is shared."),
                Field(parameter: .sd, label: "Description", help: "The card's text."),
                Field(parameter: .si, label: "Image URL", help: "The card's image (https)."),
            ]
        ),
        (
            "Campaign",
            [
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

    /// The form's groups filled with `parameters`.
    static func page(_ parameters: LinkParameters) -> [ConsoleLinkFormPage.Group] {
        groups.map { group in
            ConsoleLinkFormPage.Group(
                legend: group.legend,
                fields: group.fields.map { field in
                    ConsoleLinkFormPage.Field(
                        name: field.parameter.name, label: field.label, help: field.help, value: parameters[field.parameter] ?? "",
                        required: field.parameter == .link)
                })
        }
    }
}
