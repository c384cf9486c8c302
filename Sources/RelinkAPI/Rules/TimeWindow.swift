import Foundation

/// When a rule applies: between two instants, and/or on some days of the week between two times of day, in a time
/// zone.
public struct TimeWindow: Codable, Hashable, Sendable {
    /// RFC 3339, inclusive.
    public var from: String?
    /// RFC 3339, exclusive.
    public var until: String?
    /// `mon` … `sun`.
    public var days: [String]?
    /// `09:00-17:30`: from the first time (inclusive) to the second (exclusive); `22:00-06:00` spans midnight.
    public var hours: String?
    /// An IANA time zone (`Europe/Madrid`); UTC when absent.
    public var timeZone: String?

    public init(from: String? = nil, until: String? = nil, days: [String]? = nil, hours: String? = nil, timeZone: String? = nil) {
        self.from = from
        self.until = until
        self.days = days
        self.hours = hours
        self.timeZone = timeZone
    }

    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// The window parsed once, for the click path.
    public struct Compiled: Hashable, Sendable {
        var from: Date?
        var until: Date?
        /// Bit n: day n (0 Sunday) is in.
        var days: UInt8?
        /// Minutes after midnight.
        var hours: (start: Int, end: Int)?
        var timeZone: TimeZone

        public static func == (a: Compiled, b: Compiled) -> Bool {
            a.from == b.from && a.until == b.until && a.days == b.days && a.hours?.start == b.hours?.start
                && a.hours?.end == b.hours?.end && a.timeZone == b.timeZone
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(from)
            hasher.combine(until)
            hasher.combine(days)
        }

        public func contains(_ now: Date) -> Bool {
            if let from, now < from { return false }
            if let until, now >= until { return false }
            guard days != nil || hours != nil else { return true }
            // Local time by arithmetic: cheaper than a Calendar on every click.
            let local = now.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: now))
            let day = Int((local / 86_400).rounded(.down))
            let weekday = ((day + 4) % 7 + 7) % 7  // 1970-01-01 was a Thursday
            let minute = Int((local - Double(day) * 86_400) / 60)
            if let hours {
                if hours.start <= hours.end {
                    guard minute >= hours.start, minute < hours.end else { return false }
                    return days.map { $0 & (1 << weekday) != 0 } ?? true
                }
                // Past midnight: the part after midnight belongs to the day before.
                if minute >= hours.start { return days.map { $0 & (1 << weekday) != 0 } ?? true }
                guard minute < hours.end else { return false }
                return days.map { $0 & (1 << ((weekday + 6) % 7)) != 0 } ?? true
            }
            return days.map { $0 & (1 << weekday) != 0 } ?? true
        }
    }

    /// The window ready to evaluate, or what is wrong with it.
    public func compiled() -> Result<Compiled, RuleProblem> {
        var result = Compiled(timeZone: TimeZone(identifier: "UTC")!)
        if let from {
            guard let date = APITime.parse(from) else { return .failure("time.from must be an RFC 3339 time, got '\(from.leadingScalars(60))'") }
            result.from = date
        }
        if let until {
            guard let date = APITime.parse(until) else { return .failure("time.until must be an RFC 3339 time, got '\(until.leadingScalars(60))'") }
            result.until = date
        }
        if let from = result.from, let until = result.until, from >= until { return .failure("time.from must be before time.until") }
        if let days {
            var mask: UInt8 = 0
            for day in days {
                guard let index = Self.dayNames.firstIndex(of: day.lowercased()) else {
                    return .failure("time.days takes mon, tue, wed, thu, fri, sat and sun, got '\(day.leadingScalars(20))'")
                }
                mask |= 1 << index
            }
            guard mask != 0 else { return .failure("time.days must name at least one day") }
            result.days = mask
        }
        if let hours {
            let parts = hours.split(separator: "-")
            guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]), start != end else {
                return .failure("time.hours must be HH:MM-HH:MM with two different times, got '\(hours.leadingScalars(20))'")
            }
            result.hours = (start, end)
        }
        if let timeZone {
            guard let zone = TimeZone(identifier: timeZone) else {
                return .failure("time.timeZone must be an IANA time zone such as Europe/Madrid, got '\(timeZone.leadingScalars(60))'")
            }
            result.timeZone = zone
        }
        return .success(result)
    }

    static func minutes(_ text: Substring) -> Int? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigitCharacter) }), let hour = Int(parts[0]),
            let minute = Int(parts[1]), (0...24).contains(hour), (0..<60).contains(minute), hour * 60 + minute <= 24 * 60
        else { return nil }
        return hour * 60 + minute
    }
}

/// What is wrong with a rule or a variant, said in one line.
public struct RuleProblem: Error, Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public var message: String
    public init(stringLiteral value: String) { message = value }
    public init(stringInterpolation: DefaultStringInterpolation) { message = String(stringInterpolation: stringInterpolation) }
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
