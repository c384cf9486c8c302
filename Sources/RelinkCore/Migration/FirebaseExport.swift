import Foundation

/// Firebase Dynamic Links' export (Google Takeout, one CSV per link domain; its columns are listed in
/// docs/migrate-from-firebase.md, "Export"), read row by row: which column holds what, and each row as a short link
/// with its parameters. Pure: the CSV itself is read by a CSV library, the links are checked against the project
/// and stored elsewhere.
///
/// The documented column order is: short link, the 25 link parameters from `link` to `pt` (in `LinkParameter`'s
/// order, without `al` and `d`), archived, link name, creation timestamp. The header row's spelling is not
/// documented, so names are matched loosely (`short_link`, `Short link`, `shortLink` alike), columns that are
/// named but not understood are reported, and a file without a header row, or with a header this reader cannot
/// map, is read by position.
public enum FirebaseExport {
    /// What a column holds.
    public enum Column: Hashable, Sendable {
        case shortLink
        case parameter(LinkParameter)
        case archived
        case name
        case creationTimestamp

        /// The documented order.
        public static let documented: [Column] =
            [.shortLink] + LinkParameter.allCases.filter { $0 != .al && $0 != .d }.map(Column.parameter) + [.archived, .name, .creationTimestamp]

        /// The header names read as this column, lowercased with everything but letters and digits removed.
        var names: [String] {
            switch self {
            case .shortLink: ["shortlink", "shortdynamiclink", "dynamiclink", "shorturl", "url"]
            case .parameter(let parameter):
                [Self.normalized(parameter.name)] + (parameter == .link ? ["deeplink", "longlink"] : [])
            case .archived: ["archived", "isarchived"]
            case .name: ["name", "linkname", "title"]
            case .creationTimestamp: ["creationtimestamp", "creationtime", "createdat", "created", "createtime", "timestamp"]
            }
        }

        /// `Short link`, `short_link`, `shortLink?` → `shortlink`.
        static func normalized(_ header: String) -> String {
            String(String.UnicodeScalarView(header.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }))
        }
    }

    /// Where each column is, as read from the first row.
    public struct Layout: Sendable, Equatable {
        /// The column of each field index that is understood.
        public var columns: [Int: Column]
        /// Whether the first row was a header (else it is a link, read by position).
        public var hasHeader: Bool
        /// Header names not understood, with their 1-based column numbers: ignored.
        public var unknownColumns: [(column: Int, name: String)]
        /// Whether the header could not be mapped by name and the documented order was assumed.
        public var byPosition: Bool
        /// The first row's number of fields, which every row must have (RFC 4180, section 2.4): a row with another
        /// count, most often a comma left unquoted, would be read with its columns shifted.
        public var fieldCount: Int

        public static func == (lhs: Layout, rhs: Layout) -> Bool {
            lhs.columns == rhs.columns && lhs.hasHeader == rhs.hasHeader && lhs.byPosition == rhs.byPosition && lhs.fieldCount == rhs.fieldCount
                && lhs.unknownColumns.map(\.column) == rhs.unknownColumns.map(\.column)
                && lhs.unknownColumns.map(\.name) == rhs.unknownColumns.map(\.name)
        }
    }

    /// The layout a file's first row implies.
    /// - Parameter first: the first row's fields.
    /// - Returns: by name when the row is a header naming at least the short link and `link`; by position when it
    ///   starts with a URL (no header) or its names cannot be mapped.
    public static func layout(firstRow first: [String]) -> Layout {
        let positional = Dictionary(uniqueKeysWithValues: Column.documented.enumerated().map { ($0.offset, $0.element) })
        if let field = first.first, field.trimmingASCIIWhitespace().lowercased().hasPrefix("http") {
            return Layout(columns: positional, hasHeader: false, unknownColumns: [], byPosition: true, fieldCount: first.count)
        }
        var byName: [String: Column] = [:]
        for column in Column.documented { for name in column.names { byName[name] = column } }
        var columns: [Int: Column] = [:]
        var unknown: [(column: Int, name: String)] = []
        for (index, header) in first.enumerated() {
            let key = Column.normalized(header)
            if let column = byName[key], !columns.values.contains(column) {
                columns[index] = column
            } else if !key.isEmpty {
                unknown.append((index + 1, header))
            }
        }
        let found = Set(columns.values)
        guard found.contains(.shortLink), found.contains(.parameter(.link)) else {
            // A header in another language, say: the documented order, and every name is "not understood".
            return Layout(
                columns: positional, hasHeader: true, unknownColumns: first.enumerated().map { ($0.offset + 1, $0.element) },
                byPosition: true, fieldCount: first.count)
        }
        return Layout(columns: columns, hasHeader: true, unknownColumns: unknown, byPosition: false, fieldCount: first.count)
    }

    /// One exported link.
    public struct Row: Sendable, Equatable {
        /// As exported: `https://go.example.com/Ab3x`, its code case-sensitive.
        public var shortLink: String
        public var parameters: LinkParameters
        /// Archived in FDL's console: FDL kept serving it, and so does Relink.
        public var archived: Bool
        public var name: String?
        public var createdAt: Date?

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(shortLink: String, parameters: LinkParameters, archived: Bool, name: String?, createdAt: Date?) {
            self.shortLink = shortLink
            self.parameters = parameters
            self.archived = archived
            self.name = name
            self.createdAt = createdAt
        }
    }

    /// Why a row cannot be read.
    public struct RowProblem: Error, Sendable, Equatable {
        public var message: String

        public init(_ message: String) { self.message = message }
    }

    /// Reads one data row.
    /// - Parameters:
    ///   - fields: the row's fields.
    ///   - layout: the file's layout.
    /// - Returns: the link.
    /// - Throws: `RowProblem` for a row with more or fewer fields than the first row (or, read by position, than the
    ///   documented columns), without a short link, with an archived flag or timestamp it cannot read, or with a name
    ///   longer than minting takes (`LinkName`; its control characters, line breaks too, become spaces).
    public static func row(_ fields: [String], layout: Layout) throws(RowProblem) -> Row {
        if let problem = fieldCountProblem(fields.count, layout: layout) { throw RowProblem(problem) }
        var shortLink: String?
        var parameters = LinkParameters()
        var archived = false
        var name: String?
        var createdAt: Date?
        for (index, field) in fields.enumerated() {
            guard let column = layout.columns[index] else { continue }
            let value = field.trimmingASCIIWhitespace()
            guard !value.isEmpty else { continue }
            switch column {
            case .shortLink: shortLink = String(value)
            case .parameter(let parameter): parameters[parameter] = String(value)
            case .archived:
                guard let flag = boolean(value) else {
                    throw RowProblem("archived must be true or false, 1 or 0, yes or no; got '\(quoted(value))'")
                }
                archived = flag
            case .name:
                // Held to the API's rule, or a file could store a name that the console and the API never take.
                let oneLine = LinkName.oneLine(String(field))
                if let problem = LinkName.problem(oneLine) { throw RowProblem(problem) }
                name = oneLine
            case .creationTimestamp:
                guard let date = timestamp(value) else {
                    throw RowProblem(
                        "the creation timestamp must be an RFC 3339 time (2021-03-04T05:06:07Z, with a fraction or an offset if need be), "
                            + "a date (2021-03-04) or epoch seconds or milliseconds, from 2001 to 2099; got '\(quoted(value))'")
                }
                createdAt = date
            }
        }
        guard let shortLink else { throw RowProblem("the row has no short link") }
        return Row(shortLink: shortLink, parameters: parameters, archived: archived, name: name, createdAt: createdAt)
    }

    /// Why a row of `count` fields cannot be read by `layout`, nil when it can.
    static func fieldCountProblem(_ count: Int, layout: Layout) -> String? {
        let fields = count == 1 ? "1 field" : "\(count) fields"
        let first = layout.hasHeader ? "the header" : "the first row"
        if count != layout.fieldCount {
            let hint = count > layout.fieldCount ? " (is a field holding a comma not quoted?)" : ""
            return "the row has \(fields) where \(first) has \(layout.fieldCount)\(hint)"
        }
        if layout.byPosition, count != Column.documented.count {
            return "the row has \(fields) where the export has \(Column.documented.count), and \(first) does not name its columns"
        }
        return nil
    }

    /// A value as a message quotes it: its first 40 Unicode scalars, so that the message stays short whatever the value.
    static func quoted(_ value: Substring) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.prefix(40)))
    }

    /// `1`/`0`, `true`/`false`, `yes`/`no`, in any case.
    static func boolean(_ text: Substring) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "y", "t": true
        case "0", "false", "no", "n", "f": false
        default: nil
        }
    }

    /// The first and last creation times taken: from 2001 (before FDL) to the end of 2099.
    static let timestamps = Date(timeIntervalSince1970: 978_307_200)..<Date(timeIntervalSince1970: 4_102_444_800)

    /// The longest epoch number taken: milliseconds until 2100 have 13 digits.
    static let maximumEpochDigits = 13

    /// Read strictly, so that a creation time is never moved to another day: an RFC 3339 time (`APITime.parse`:
    /// `2021-03-04T05:06:07Z`, with a fraction or an offset), a date alone (`2021-03-04`, midnight UTC), or epoch
    /// seconds or milliseconds as ASCII digits; from 2001 (before FDL) and before 2100. Foundation's lenient readers,
    /// used before, rolled February 30th and `99:99:99` over into later days and read a date followed by anything
    /// as that date.
    static func timestamp(_ text: Substring) -> Date? {
        let date: Date?
        if !text.isEmpty, text.utf8.count <= maximumEpochDigits, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let number = Int(text)
        {
            date = Date(timeIntervalSince1970: number > 100_000_000_000 ? Double(number) / 1000 : Double(number))
        } else if text.utf8.count == 10 {
            // `YYYY-MM-DD` is exactly ten bytes; with a time added, the strict reader checks its digits and its day.
            date = APITime.parse(String(text) + "T00:00:00Z")
        } else {
            date = APITime.parse(String(text))
        }
        guard let date, timestamps.contains(date) else { return nil }
        return date
    }
}
