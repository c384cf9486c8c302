import Foundation

/// RFC 3339 timestamps as the API writes and reads them (`2026-12-01T00:00:00Z`; offsets and fractions accepted).
///
/// Read strictly, by byte: Foundation's ISO 8601 reader rolls February 30th over into March and `:60` into the next
/// minute, takes five-digit years, and refuses offsets RFC 3339 allows, so an expiry could land on another day than
/// the one asked for.
public enum APITime {
    /// The longest text read: room for a fraction finer than anyone sends, while bounding what a request can make
    /// the reader walk.
    public static let maximumLength = 64

    /// Writes the whole second a time falls in, as the API has always answered times: the proleptic Gregorian date
    /// (RFC 3339's; Foundation's ISO 8601 style wrote the Julian one before October 1582), in UTC, without a
    /// fraction, which `parse` reads back as that second. The second is the one the time falls in, never the next, so
    /// the last second of 9999 stays in 9999. A time outside the years 0001–9999, which `parse` never returns, is
    /// written as the nearest second inside them.
    /// - Parameter date: a time.
    /// - Returns: its second in UTC, `2026-12-01T00:00:00Z`.
    public static func format(_ date: Date) -> String {
        let whole = wholeSeconds(date)
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
        text += pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        return text + "Z"
    }

    /// The whole seconds since 1970 of the second `date` falls in (the nearest in range for one outside it).
    private static func wholeSeconds(_ date: Date) -> Int {
        let sinceReference = date.timeIntervalSinceReferenceDate
        guard sinceReference.isFinite, sinceReference >= Double(firstSecond - referenceSecond) else { return firstSecond }
        guard sinceReference < Double(lastSecond - referenceSecond + 1) else { return lastSecond }
        // Floored from the reference date, where a Date keeps its value: adding 1970's offset as a Double first could
        // round a time just before a second up into it.
        return Int(sinceReference.rounded(.down)) + referenceSecond
    }

    /// The time `nanoseconds` past the whole second `seconds` (since 1970), kept within that second: at the top of
    /// the range a Date cannot tell 23:59:59.99999 from the next second, and rounding up would leave 9999.
    private static func instant(seconds: Int, nanoseconds: Int) -> Date {
        let whole = Double(seconds - referenceSecond)
        let value = whole + Double(nanoseconds) / 1_000_000_000
        return Date(timeIntervalSinceReferenceDate: value < whole + 1 ? value : (whole + 1).nextDown)
    }

    /// `value` in decimal with at least `width` digits, zeros first.
    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Reads RFC 3339's `date-time`: `YYYY-MM-DDTHH:MM:SS`, an optional fraction (`.` and digits; those past the
    /// ninth are read but left out), then `Z` or an offset from `-23:59` to `+23:59`. `T` and `Z` may be lower case (RFC 3339, section 5.6).
    /// The time stays within the second it names: where a `Date` is too coarse to hold the fraction (a few
    /// microseconds short of the next second, in far years), it is the latest time it holds in that second.
    ///
    /// Refused: years outside 0001–9999, and times that fall outside them once moved to UTC (so that what
    /// `format` writes reads back); a day the month does not have (February 29th outside leap years); hours past 23,
    /// minutes or seconds past 59 (a leap second too: a `Date` has none, and rolling it over would change the
    /// minute); a space for `T`; anything before or after the time.
    /// - Parameter text: an RFC 3339 timestamp.
    /// - Returns: the time, or nil when the text is not one.
    public static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= maximumLength else { return nil }
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(digits: Int, in range: ClosedRange<Int>) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
                index += 1
            }
            return range.contains(value) ? value : nil
        }
        /// Steps over `byte`, or its lower case (`T`, `Z`), when it comes next.
        func skip(_ byte: UInt8, anyCase: Bool = false) -> Bool {
            guard index < bytes.count, bytes[index] == byte || (anyCase && bytes[index] == byte | 0x20) else { return false }
            index += 1
            return true
        }

        guard let year = number(digits: 4, in: 1...9999), skip(UInt8(ascii: "-")),
            let month = number(digits: 2, in: 1...12), skip(UInt8(ascii: "-")),
            let day = number(digits: 2, in: 1...daysIn(month: month, year: year)), skip(UInt8(ascii: "T"), anyCase: true),
            let hour = number(digits: 2, in: 0...23), skip(UInt8(ascii: ":")),
            let minute = number(digits: 2, in: 0...59), skip(UInt8(ascii: ":")),
            let second = number(digits: 2, in: 0...59)
        else { return nil }

        var nanoseconds = 0
        if skip(UInt8(ascii: ".")) {
            var digits = 0
            while index < bytes.count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
                if digits < 9 { nanoseconds = nanoseconds * 10 + Int(digit) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 9)..<9 { nanoseconds *= 10 }
        }

        var offsetSeconds = 0
        if !skip(UInt8(ascii: "Z"), anyCase: true) {
            let sign: Int
            if skip(UInt8(ascii: "+")) {
                sign = 1
            } else if skip(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let offsetHour = number(digits: 2, in: 0...23), skip(UInt8(ascii: ":")),
                let offsetMinute = number(digits: 2, in: 0...59)
            else { return nil }
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
        }
        guard index == bytes.count else { return nil }

        let local = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        let utc = local - offsetSeconds
        guard (firstSecond...lastSecond).contains(utc) else { return nil }
        return instant(seconds: utc, nanoseconds: nanoseconds)
    }

    /// The first and last whole seconds, since 1970 in UTC, of the years 0001–9999.
    private static let firstSecond = daysSinceEpoch(year: 1, month: 1, day: 1) * 86_400
    private static let lastSecond = daysSinceEpoch(year: 9999, month: 12, day: 31) * 86_400 + 86_399
    /// Foundation's reference date, 2001-01-01T00:00:00Z, in seconds since 1970.
    private static let referenceSecond = 978_307_200

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date in the proleptic Gregorian calendar (RFC 3339's), for years from 1; by
    /// Howard Hinnant's `days_from_civil`, which counts years from March so that February's length comes last.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = marchYear / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 in the proleptic Gregorian calendar: `daysSinceEpoch`'s inverse, by Howard
    /// Hinnant's `civil_from_days`.
    static func civilDate(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
