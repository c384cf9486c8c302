import Foundation
import Logging
import NIOConcurrencyHelpers

/// `--log-format json`: one JSON object a line on standard error, for log shippers. Hummingbird's request id
/// (`hb.request.id`, the one sent back as `X-Request-Id`) is written as `request_id`. Relink never puts keys,
/// secrets or whole client addresses into a log's message or metadata, whatever the format.
public struct JSONLogHandler: LogHandler {
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
        var fields: [String: Any] = [
            "time": Self.timestamp(Date()), "level": event.level.rawValue, "label": label, "message": event.message.description,
            "source": event.source,
        ]
        for (key, value) in LogEvent.merged(metadata, provider: metadataProvider, event: event) {
            fields[key == "hb.request.id" ? "request_id" : key] = Self.json(value)
        }
        // JSONSerialization escapes every control character and quote: a message cannot break out of its line.
        guard
            let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]),
            let line = String(data: data, encoding: .utf8)
        else { return }
        output(line + "\n")
    }

    static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let value): value.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func timestamp(_ date: Date) -> String { style.format(date) }

    private static let lock = NIOLock()

    /// Writes a whole line at once, so lines from several threads never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        lock.withLock { FileHandle.standardError.write(Data(line.utf8)) }
    }
}

extension LogEvent {
    /// A handler's metadata, then its provider's, then the event's own (later ones win), and the event's error: what
    /// one line of either format carries.
    static func merged(_ metadata: Logger.Metadata, provider: Logger.MetadataProvider?, event: LogEvent) -> Logger.Metadata {
        var merged = metadata
        if let provided = provider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return merged
    }
}
