/// How a short link's code is chosen (FDL's `suffix.option`, plus Relink's `CUSTOM`).
public enum SuffixOption: String, Sendable, Codable, CaseIterable {
    /// 17 characters from 96 random bits: the default, so links cannot be enumerated.
    case unguessable = "UNGUESSABLE"
    /// At least 4 characters, growing as the space fills; easy to type, easy to guess.
    case short = "SHORT"
    /// The caller's `customSuffix`, `[A-Za-z0-9_-]{1,64}`.
    case custom = "CUSTOM"
}
