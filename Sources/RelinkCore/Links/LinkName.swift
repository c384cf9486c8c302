/// A short link's name, as the console lists it and search finds it: the one rule that minting through the API and
/// the Firebase import both hold names to, so an imported name is never one the API would refuse.
public enum LinkName {
    /// The longest name, in Unicode scalars (what JSON Schema's `maxLength` counts).
    public static let maximumLength = 200

    /// What is wrong with `name` as a link's name, or nil when it may be stored.
    public static func problem(_ name: String) -> String? {
        let length = name.unicodeScalars.count
        guard length <= maximumLength else { return "name must be at most \(maximumLength) characters; got \(length)." }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return "name must not hold line breaks or other control characters."
        }
        return nil
    }

    /// `name` with each control character (a line break in a quoted CSV field, a tab) as a space: how the importer
    /// keeps a name that minting would refuse only for them, rather than the link.
    public static func oneLine(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }
}
