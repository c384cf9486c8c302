import Foundation

/// A CSV file read strictly as RFC 4180 writes it, byte by byte, a row at a time. Lenient readers guess at a field
/// with text after its closing quote (`"a"b`) or a quote inside an unquoted field (`a"b`) and carry on with the row
/// garbled; here such a row is `malformed`, with its line and what is wrong, and the next row is read from the next
/// line. Bytes that are not UTF-8 stop the file (`Failure`): read as another encoding it would be garbled throughout.
///
/// Rows end at LF, CRLF or a lone CR; a quoted field may span lines. A UTF-8 byte order mark at the start is skipped.
/// An empty line is a row of one empty field.
public final class CSVRowReader {
    /// One row of the file.
    public enum Row: Equatable, Sendable {
        case fields([String])
        /// A row that is not valid CSV: the line it starts on and why.
        case malformed(line: Int, reason: String)
    }

    /// Why the file cannot be read on.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The line reading stopped at.
        public var line: Int
        public var reason: String

        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }

        public var description: String { "line \(line): \(reason)" }
    }

    /// The longest row taken, in bytes: a quote left open would otherwise gather the rest of the file into one row.
    public static let maximumRowBytes = 1 << 20

    /// The line the last row returned began on (1-based).
    public private(set) var rowLine = 0

    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var index = 0
    private var ended = false
    private var line = 1
    private var started = false

    private static let comma = UInt8(ascii: ",")
    private static let quote = UInt8(ascii: "\"")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let chunkSize = 64 * 1024

    /// Opens `path` for reading.
    /// - Throws: `Failure` when the file cannot be opened.
    public init(path: String) throws(Failure) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(line: 0, reason: "the file cannot be opened") }
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// The next row, nil at the end of the file.
    /// - Throws: `Failure` for bytes that are not UTF-8, a row longer than `maximumRowBytes`, or a read error.
    public func next() throws(Failure) -> Row? {
        if !started {
            started = true
            if try peek() == 0xEF, try bytes(startWith: [0xEF, 0xBB, 0xBF]) { index += 3 }
        }
        guard try peek() != nil else { return nil }
        rowLine = line
        var fields: [String] = []
        var field: [UInt8] = []
        var rowBytes = 0
        var quoted = false
        func finish() throws(Failure) {
            guard let text = String(validating: field, as: UTF8.self) else {
                throw Failure(line: line, reason: "field \(fields.count + 1) is not UTF-8 text (save the file as UTF-8)")
            }
            fields.append(text)
            field.removeAll(keepingCapacity: true)
            quoted = false
        }
        func malformed(_ reason: String) throws(Failure) -> Row {
            try skipLine()
            return .malformed(line: rowLine, reason: reason)
        }
        while true {
            guard let byte = try take() else {
                if quoted {
                    return .malformed(line: rowLine, reason: "field \(fields.count + 1)'s opening quote is never closed")
                }
                try finish()
                return .fields(fields)
            }
            rowBytes += 1
            guard rowBytes <= Self.maximumRowBytes else {
                throw Failure(
                    line: rowLine,
                    reason: "the row is longer than \(Self.maximumRowBytes / 1024) KB\(quoted ? " (is a quote left open?)" : "")")
            }
            if quoted {
                if byte == Self.quote {
                    switch try peek() {
                    case Self.quote?:
                        index += 1
                        rowBytes += 1
                        field.append(Self.quote)
                    case nil, Self.comma?, Self.lineFeed?, Self.carriageReturn?:
                        quoted = false
                        // The byte after the closing quote ends the field or the row, read below.
                        guard let end = try take() else {
                            try finish()
                            return .fields(fields)
                        }
                        if end == Self.comma {
                            try finish()
                        } else {
                            try finish()
                            endLine(end)
                            return .fields(fields)
                        }
                    case let other?:
                        return try malformed(
                            "field \(fields.count + 1)'s closing quote is followed by \(Self.shown(other)); "
                                + "a quote inside a quoted field is written twice (\"\")")
                    }
                } else {
                    if byte == Self.lineFeed {
                        line += 1
                    } else if byte == Self.carriageReturn, try peek() != Self.lineFeed {
                        line += 1
                    }
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case Self.comma: try finish()
            case Self.lineFeed, Self.carriageReturn:
                try finish()
                endLine(byte)
                return .fields(fields)
            case Self.quote:
                guard field.isEmpty else {
                    return try malformed(
                        "field \(fields.count + 1) has a quote but does not start with one; quote the whole field and write the quote twice (\"\")")
                }
                quoted = true
            default: field.append(byte)
            }
        }
    }

    /// After a row's LF or CR: the LF of a CRLF is part of the same line end.
    private func endLine(_ byte: UInt8) {
        if byte == Self.carriageReturn, (try? peek()) == Self.lineFeed { index += 1 }
        line += 1
    }

    /// Past the rest of a malformed row's line, quotes and all: the next row starts on the next line.
    private func skipLine() throws(Failure) {
        while let byte = try take() {
            if byte == Self.lineFeed || byte == Self.carriageReturn {
                endLine(byte)
                return
            }
        }
    }

    /// A byte as a message shows it: printable ASCII quoted, anything else in hex.
    static func shown(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "the byte 0x%02X", byte)
    }

    private func take() throws(Failure) -> UInt8? {
        guard let byte = try peek() else { return nil }
        index += 1
        return byte
    }

    private func peek() throws(Failure) -> UInt8? {
        if index < buffer.count { return buffer[index] }
        guard try fill() else { return nil }
        return buffer[index]
    }

    /// Whether the unread bytes start with `prefix` (reading more as needed).
    private func bytes(startWith prefix: [UInt8]) throws(Failure) -> Bool {
        while buffer.count - index < prefix.count {
            guard try fill(keeping: true) else { return false }
        }
        return Array(buffer[index..<(index + prefix.count)]) == prefix
    }

    /// Reads the next chunk; false at the end of the file. Unread bytes are kept when `keeping`.
    private func fill(keeping: Bool = false) throws(Failure) -> Bool {
        guard !ended else { return false }
        let data: Data?
        do {
            data = try handle.read(upToCount: Self.chunkSize)
        } catch {
            throw Failure(line: line, reason: "the file could not be read (\(error.localizedDescription))")
        }
        guard let data, !data.isEmpty else {
            ended = true
            return false
        }
        if keeping {
            buffer.removeFirst(index)
            buffer.append(contentsOf: data)
        } else {
            buffer = Array(data)
        }
        index = 0
        return true
    }
}
