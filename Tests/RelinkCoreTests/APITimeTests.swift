import Foundation
import PropertyBased
import Testing

@testable import RelinkAPI

/// RFC 3339 read strictly: every valid time to the second it names, every invalid one refused.
@Suite("API times")
struct APITimeTests {
    /// The parts of a time, and its text with the case of `T` and `Z` and the fraction's length varied.
    struct Parts: CustomStringConvertible {
        var year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0
        /// Signed, in minutes; nil for `Z`.
        var offset: Int?
        var fraction = ""
        var lowerCase = false

        var text: String {
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let year = String(repeating: "0", count: 4 - String(year).count) + String(year)
            var text = "\(year)-\(two(month))-\(two(day))\(lowerCase ? "t" : "T")\(two(hour)):\(two(minute)):\(two(second))"
            if !fraction.isEmpty { text += "." + fraction }
            if let offset {
                text += "\(offset < 0 ? "-" : "+")\(two(abs(offset) / 60)):\(two(abs(offset) % 60))"
            } else {
                text += lowerCase ? "z" : "Z"
            }
            return text
        }

        var description: String { text }
    }

    static let validParts = Generator<Parts, Shrink.None<Parts>> { rng in
        var parts = Parts()
        parts.year = Int.random(in: 1...9999, using: &rng)
        parts.month = Int.random(in: 1...12, using: &rng)
        parts.day = Int.random(in: 1...APITime.daysIn(month: parts.month, year: parts.year), using: &rng)
        parts.hour = Int.random(in: 0...23, using: &rng)
        parts.minute = Int.random(in: 0...59, using: &rng)
        parts.second = Int.random(in: 0...59, using: &rng)
        if Bool.random(using: &rng) { parts.offset = Int.random(in: -(23 * 60 + 59)...(23 * 60 + 59), using: &rng) }
        if Bool.random(using: &rng) {
            parts.fraction = String((0..<Int.random(in: 1...12, using: &rng)).map { _ in "0123456789".randomElement(using: &rng)! })
        }
        parts.lowerCase = Bool.random(using: &rng)
        return parts
    }

    /// The same instant by Foundation's Gregorian calendar, in UTC. (Its calendar switches to Julian dates before
    /// October 1582, RFC 3339's stays Gregorian: the comparison is from 1600 on.)
    static func reference(_ parts: Parts) throws -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(
            year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second)
        let date = try #require(calendar.date(from: components))
        return date.timeIntervalSince1970 - Double((parts.offset ?? 0) * 60)
    }

    @Test func everyValidTimeReadsAsTheSecondItNames() async {
        await propertyCheck(count: 2000, input: Self.validParts) { parts in
            let seconds =
                APITime.daysSinceEpoch(year: parts.year, month: parts.month, day: parts.day) * 86_400
                + parts.hour * 3600 + parts.minute * 60 + parts.second - (parts.offset ?? 0) * 60
            // Only times that stay within the years 0001-9999 once in UTC are read (what `format` writes reads back).
            let inRange = seconds >= -62_135_596_800 && seconds <= 253_402_300_799
            guard let date = APITime.parse(parts.text) else {
                #expect(!inRange, "\(parts) refused")
                return
            }
            #expect(inRange, "\(parts) read")
            let fraction = parts.fraction.isEmpty ? 0 : Double("0." + parts.fraction.prefix(9))!
            #expect(abs(date.timeIntervalSince1970 - (Double(seconds) + fraction)) < 0.001, "\(parts)")
            if parts.year >= 1600, let reference = try? Self.reference(parts) {
                #expect(date.timeIntervalSince1970.rounded(.down) == reference, "\(parts)")
            }
        }
    }

    @Test func everyOutOfRangePartIsRefused() async {
        let broken = Generator<(Parts, String), Shrink.None<(Parts, String)>> { rng in
            var parts = Self.validParts.run(using: &rng)
            // Years past 9999 and minus signs cannot be written with four digits: the table below has them.
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: parts.year = 0
            case 1: parts.month = Bool.random(using: &rng) ? 0 : Int.random(in: 13...99, using: &rng)
            case 2:
                parts.day = Bool.random(using: &rng) ? 0 : Int.random(in: APITime.daysIn(month: parts.month, year: parts.year) + 1...99, using: &rng)
            case 3: parts.hour = Int.random(in: 24...99, using: &rng)
            case 4: parts.minute = Int.random(in: 60...99, using: &rng)
            case 5: parts.second = Int.random(in: 60...99, using: &rng)
            default:
                let (hours, minutes) =
                    Bool.random(using: &rng) ? (Int.random(in: 24...99, using: &rng), 0) : (0, Int.random(in: 60...99, using: &rng))
                return (parts, String(parts.text.prefix(19)) + String(format: "+%02d:%02d", hours, minutes))
            }
            return (parts, parts.text)
        }
        await propertyCheck(count: 2000, input: broken) { (_, text) in
            #expect(APITime.parse(text) == nil, "\(text)")
        }
    }

    /// Consecutive days are a day apart: leap days, month and year ends in the right places.
    @Test func consecutiveDaysAreADayApart() throws {
        for year in [1, 4, 99, 100, 399, 400, 1582, 1900, 1969, 1970, 2000, 2024, 2026, 2100, 2400, 9998, 9999] {
            var previous: Date?
            if year > 1 { previous = APITime.parse("\(String(format: "%04d", year - 1))-12-31T00:00:00Z") }
            for month in 1...12 {
                for day in 1...31 {
                    let text = String(format: "%04d-%02d-%02dT00:00:00Z", year, month, day)
                    guard let date = APITime.parse(text) else {
                        #expect(day > APITime.daysIn(month: month, year: year), "\(text) refused")
                        continue
                    }
                    #expect(day <= APITime.daysIn(month: month, year: year), "\(text) read")
                    if let previous { #expect(date.timeIntervalSince(previous) == 86_400, "\(text)") }
                    previous = date
                }
            }
        }
    }

    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0),
        ("0001-01-01T00:00:00Z", -62_135_596_800),
        ("9999-12-31T23:59:59Z", 253_402_300_799),
        ("9999-12-31T23:59:59.999999999Z", 253_402_300_799.999_999_999),
        ("2024-02-29T12:00:00Z", 1_709_208_000),
        ("2000-02-29T00:00:00Z", 951_782_400),
        // The offset Foundation's reader refused: the local day began 23 h 59 min before midnight in UTC.
        ("2026-11-30T00:00:00+23:59", 1_795_910_460),
        ("2026-11-30T00:00:00-23:59", 1_796_083_140),
        ("2026-11-30T00:00:00-00:00", 1_795_996_800),
        ("2026-11-30t00:00:00z", 1_795_996_800),
        ("2026-11-30T05:30:00+05:30", 1_795_996_800),
        ("2026-11-30T00:00:00.5Z", 1_795_996_800.5),
        ("2026-11-30T00:00:00.000000000001Z", 1_795_996_800),
    ])
    func readsValidTimes(text: String, seconds: Double) throws {
        let date = try #require(APITime.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_1)
    }

    @Test(arguments: [
        // What Foundation's reader rolled over or took.
        "2026-02-30T00:00:00Z", "2026-11-30T00:00:60Z", "10000-01-01T00:00:00Z",
        // Days the month lacks; February 29th outside leap years (the century rule too).
        "2026-04-31T00:00:00Z", "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
        "0000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "+2026-01-01T00:00:00Z",
        "2026-00-10T00:00:00Z", "2026-13-10T00:00:00Z", "2026-11-00T00:00:00Z",
        "2026-11-30T24:00:00Z", "2026-11-30T23:60:00Z", "2026-11-30T23:59:99Z",
        "2026-11-30T00:00:00+24:00", "2026-11-30T00:00:00+23:60", "2026-11-30T00:00:00+0530", "2026-11-30T00:00:00+05",
        "2026-11-30T00:00:00", "2026-11-30", "2026-11-30 00:00:00Z", "2026-11-30T00:00Z", "2026-1-30T00:00:00Z",
        "2026-11-30T00:00:00.Z", "2026-11-30T00:00:00,5Z", "2026-11-30T00:00:00Z ", " 2026-11-30T00:00:00Z",
        "2026-11-30T00:00:00ZZ", "2026-11-30T00:00:00UTC", "2026-11-30X00:00:00Z", "2026/11/30T00:00:00Z",
        // Digits that are not ASCII's.
        "２０２６-11-30T00:00:00Z", "٢٠٢٦-11-30T00:00:00Z",
        // Outside the years 0001-9999 once in UTC.
        "0001-01-01T00:00:00+00:01", "9999-12-31T23:59:59-00:01",
        "", "Z", "2026-11-30T00:00:00." + String(repeating: "0", count: 64) + "Z",
    ])
    func refusesInvalidTimes(text: String) {
        #expect(APITime.parse(text) == nil)
    }

    /// Every time `parse` reads, `format` writes as its second, which `parse` reads back, over the whole range (before
    /// October 1582 too, where Foundation's writer switched to Julian dates, and in 9999's last second).
    @Test func whatFormatWritesReadsBackAsItsSecond() async {
        await propertyCheck(count: 3000, input: Self.validParts) { parts in
            guard let date = APITime.parse(parts.text) else { return }
            Self.expectWrittenAsItsSecond(date, "\(parts)")
        }
    }

    /// `date` is written as its second: what is written reads back as that second, and is written again the same.
    static func expectWrittenAsItsSecond(_ date: Date, _ what: String) {
        let text = APITime.format(date)
        guard let read = APITime.parse(text) else {
            Issue.record("\(what) → \(text) refused")
            return
        }
        #expect(read <= date && date.timeIntervalSince(read) < 1, "\(what) → \(text)")
        #expect(APITime.format(read) == text, "\(what) → \(text)")
    }

    /// A whole second is written as the date and time it names in UTC, without a fraction.
    @Test func wholeSecondsAreWrittenAsTheirUTCParts() async {
        await propertyCheck(count: 2000, input: Self.validParts) { parts in
            var parts = parts
            parts.offset = nil
            parts.fraction = ""
            parts.lowerCase = false
            guard let date = APITime.parse(parts.text) else { return }
            #expect(APITime.format(date) == parts.text)
        }
    }

    /// Any time in range, not only one read from text, is written as its second; and what is written once is written
    /// again the same.
    @Test func anyTimeIsWrittenAsItsSecond() async {
        let times = Generator<Double, Shrink.None<Double>> { rng in
            Double.random(in: -62_135_596_800..<253_402_300_800, using: &rng)
        }
        await propertyCheck(count: 2000, input: times) { seconds in
            Self.expectWrittenAsItsSecond(Date(timeIntervalSince1970: seconds), "\(seconds)")
        }
    }

    @Test(arguments: [
        // Julian dates were written before October 1582, ten days early in 1500 and two days late in year 1.
        ("1500-03-01T00:00:00Z", "1500-03-01T00:00:00Z"),
        ("1582-10-04T23:59:59Z", "1582-10-04T23:59:59Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
        ("0004-02-29T12:00:00+12:00", "0004-02-29T00:00:00Z"),
        // A fraction too fine for a Date this far out was rounded up into year 10000; a fraction is not written.
        ("9999-12-31T23:59:59.99999Z", "9999-12-31T23:59:59Z"),
        ("9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59Z"),
        ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"),
        ("2026-11-30T00:00:00.5Z", "2026-11-30T00:00:00Z"),
        ("2026-11-30T00:00:00.123456Z", "2026-11-30T00:00:00Z"),
        ("2026-11-30T05:30:00.25+05:30", "2026-11-30T00:00:00Z"),
        ("1969-12-31T23:59:59.75Z", "1969-12-31T23:59:59Z"),
    ])
    func writesTimes(text: String, written: String) throws {
        let date = try #require(APITime.parse(text))
        #expect(APITime.format(date) == written)
        let second = try #require(APITime.parse(written))
        #expect(second <= date && date.timeIntervalSince(second) < 1)
    }

    /// `civilDate` undoes `daysSinceEpoch` on every day of the range.
    @Test func civilDateUndoesDaysSinceEpoch() {
        let first = APITime.daysSinceEpoch(year: 1, month: 1, day: 1)
        let last = APITime.daysSinceEpoch(year: 9999, month: 12, day: 31)
        var expected = (year: 1, month: 1, day: 1)
        for days in first...last {
            let date = APITime.civilDate(daysSinceEpoch: days)
            if date != expected {
                Issue.record("day \(days): \(date), expected \(expected)")
                return
            }
            expected.day += 1
            if expected.day > APITime.daysIn(month: expected.month, year: expected.year) {
                expected.day = 1
                expected.month += 1
                if expected.month > 12 { (expected.year, expected.month) = (expected.year + 1, 1) }
            }
        }
    }
}
