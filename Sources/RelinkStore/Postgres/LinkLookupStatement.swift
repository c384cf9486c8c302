import PostgresNIO

/// The links of several domains and codes, as a statement each connection prepares once. A click batch is a handful
/// of keys, so parsing and planning the query each time cost the server more than finding the rows
/// (docs/performance.md#the-lookup-as-a-prepared-statement).
struct LinkLookupStatement: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static let name = "relink_link_lookup"
    static let sql = """
        SELECT \(ShortLinkRecord.columns) FROM links
        WHERE (domain, code) IN (SELECT * FROM unnest($1::text[], $2::text[]))
        """

    var domains: [String]
    var codes: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(domains)
        bindings.append(codes)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
