import Foundation

/// `Retry-After` as RFC 9110 §10.2.3 has it, read as the Android and JavaScript clients read it: delay-seconds, or
/// an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) counted from now. Read by hand: `DateFormatter` depends on the
/// device's locale data and takes more forms than this one.
enum RetryAfter {
    /// The largest value kept, as the Android client's `int` holds it: "much longer than any budget".
    static let maxSeconds = Int(Int32.max)

    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Whole seconds to wait (0 for a date past, at most `maxSeconds`), or nil when the value is neither form.
    static func seconds(_ value: String, now: Date) -> Int? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return text.utf8.count > 9 ? maxSeconds : Int(text)
        }
        guard let date = epochSeconds(imfFixdate: text) else { return nil }
        // ceil(date - now): the date is whole seconds.
        let wait = date - Int(floor(now.timeIntervalSince1970))
        return min(maxSeconds, max(0, wait))
    }

    /// Seconds since 1970 of an IMF-fixdate of a real day, or nil.
    static func epochSeconds(imfFixdate text: String) -> Int? {
        let bytes = Array(text.utf8)
        // 29 bytes, every separator in its place.
        guard bytes.count == 29 else { return nil }
        let separators: [(Int, Character)] = [(3, ","), (4, " "), (7, " "), (11, " "), (16, " "), (19, ":"), (22, ":"), (25, " ")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }), text.hasSuffix("GMT") else { return nil }
        func field(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        func number(_ range: Range<Int>) -> Int? {
            bytes[range].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) ? Int(field(range)) : nil
        }
        guard days.contains(field(0..<3)), let monthIndex = months.firstIndex(of: field(8..<11)),
            let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19), let minute = number(20..<22),
            let second = number(23..<25), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        let month = monthIndex + 1
        guard day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        return daysSince1970(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        if month == 2 { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28 }
        return [4, 6, 9, 11].contains(month) ? 30 : 31
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }
}
