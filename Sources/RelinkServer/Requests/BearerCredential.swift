import HTTPTypes

/// The token of `Authorization: Bearer <token>`, read in one place for the API, marked clicks and `/metrics`.
///
/// The scheme is matched in any case and may be followed by spaces or tabs (RFC 9110, section 11.1: schemes are
/// case-insensitive). hummingbird-auth's `HTTPFields.bearer` takes `Bearer ` exactly, and a marked click
/// (`relink verify --url`) written `bearer` must not pass for an ordinary click and be counted.
enum BearerCredential {
    /// The token, without the spaces and tabs around it: empty for the scheme alone; nil when the request has no
    /// `Authorization` field or another scheme (`Basic`, none).
    static func token(in headers: HTTPFields) -> Substring? {
        headers[.authorization].flatMap(token(inField:))
    }

    /// The token of one `Authorization` field's value, as `token(in:)` reads it. Several fields come joined by
    /// commas from `token(in:)`; the API reads each on its own to tell one key sent twice from two keys.
    static func token(inField authorization: String) -> Substring? {
        let utf8 = authorization.utf8
        guard utf8.count >= 6, zip(utf8, "bearer".utf8).allSatisfy({ ($0 | 0x20) == $1 }) else { return nil }
        // By bytes: a space followed by a combining mark is one Character.
        var start = utf8.index(utf8.startIndex, offsetBy: 6)
        guard start == utf8.endIndex || isBlank(utf8[start]) else { return nil }
        var end = utf8.endIndex
        while start < end, isBlank(utf8[start]) { start = utf8.index(after: start) }
        while start < end, isBlank(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        return authorization[start..<end]
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
