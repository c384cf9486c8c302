import Foundation
import NIOConcurrencyHelpers

/// The `Date` header's text (RFC 9110, IMF-fixdate), made once a second rather than for every answer.
final class HTTPDateCache: Sendable {
    private let current = NIOLockedValueBox<(second: Int, text: String)>((-1, ""))

    var now: String {
        let second = Int(Date().timeIntervalSince1970)
        return current.withLockedValue { current in
            if current.second != second { current = (second, Self.format(second)) }
            return current.text
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
