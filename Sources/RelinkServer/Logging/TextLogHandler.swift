import Foundation
import Logging

/// `--log-format text` (the default): swift-log's `StreamLogHandler` line on standard error
/// (`time level label: key=value … [source] message`), with two differences that matter to a server:
/// - Metadata is formatted when a line is written, not when it is set. Hummingbird sets the request id on every
///   request's logger; `StreamLogHandler` formats all of its metadata then (sorting, interpolating, rendering the id),
///   work every request paid although almost none of them logs anything.
/// - Control characters in messages and metadata are written escaped (`\n`, `\u{1B}`), so text that came from a
///   request cannot start a forged line or drive a terminal.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: @Sendable (String) -> Void

    /// - Parameter output: where each line goes (standard error unless a test says otherwise).
    public init(label: String, output: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = LogEvent.merged(metadata, provider: metadataProvider, event: event)
        var line = Self.timestamp() + " \(event.level)" + (label.isEmpty ? "" : " ") + label + ":"
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " " + Self.escaped(key) + "=" + Self.escaped(value.description)
        }
        line += " [" + Self.escaped(event.source) + "] " + Self.escaped(event.message.description) + "\n"
        output(line)
    }

    /// The text with every control character (C0, DEL, C1, and the line and paragraph separators) written as a
    /// Swift escape, scalar by scalar.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// Local time to the second with its offset, as `StreamLogHandler` writes it.
    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return "<unknown>" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let count = strftime(buffer.baseAddress!, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
    }
}
