import HTTPTypes

/// A click marked by `relink verify --url` (`Authorization: Bearer` with a key of the link's project): answered like
/// any click but neither counted nor kept for deferred linking, and said so in a response header the probe reads.
public enum MarkedClick {
    /// The response header of a marked click the deployment did not count, and its value.
    public static let responseHeader = "Relink-Click"
    public static let uncounted = "uncounted"
    static let responseHeaderName = HTTPField.Name(responseHeader)!
}
