extension StringProtocol {
    /// The first `count` Unicode scalars: a cut for messages that quote input. `prefix(_:)` counts grapheme clusters,
    /// and one of them can be a letter with any number of combining marks.
    public func leadingScalars(_ count: Int) -> String {
        String(String.UnicodeScalarView(unicodeScalars.prefix(count)))
    }
}
