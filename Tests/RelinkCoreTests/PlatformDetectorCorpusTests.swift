import Foundation
import Testing

@testable import RelinkCore

/// Platform detection measured against ua-parser's labelled User-Agents (`Fixtures/user-agents.tsv`, with its source
/// and licence in `Fixtures/README.md`).
@Suite("Platform detection on the labelled corpus")
struct PlatformDetectorCorpusTests {
    struct Row {
        var label: String
        var userAgent: String
    }

    /// The corpus the package's test bundle carries; `RELINK_UA_CORPUS` names another one to measure.
    static var corpusPath: String {
        ProcessInfo.processInfo.environment["RELINK_UA_CORPUS"]
            ?? Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appending(path: "user-agents.tsv").path
    }

    static func loadCorpus() throws -> [Row] {
        let text = try String(contentsOfFile: corpusPath, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            return fields.count == 3 ? Row(label: String(fields[0]), userAgent: String(fields[2])) : nil
        }
    }

    /// The corpus label a detected platform counts as.
    static func label(of platform: Platform) -> String {
        switch platform {
        case .iPhone, .iPad: "ios"
        case .android: "android"
        case .desktop: "desktop"
        case .crawler: "crawler"
        case .other: "other"
        }
    }

    /// The OS version, device model and fingerprint version read out of every string of the corpus, as the
    /// String-based reader before the byte-level one read them (`Fixtures/device-details.tsv`: the corpus row, then
    /// the three fields; rows with none are left out). Matching compares a kept click's fields with an install's, so
    /// a change here would quietly unmatch clicks kept before an upgrade.
    @Test func readsTheDeviceDetailsItAlwaysRead() throws {
        guard ProcessInfo.processInfo.environment["RELINK_UA_CORPUS"] == nil else { return }
        let fixture = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appending(path: "device-details.tsv")
        var expected: [Int: [String]] = [:]
        for line in try String(contentsOf: fixture, encoding: .utf8).split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            expected[Int(fields[0])!] = Array(fields.dropFirst())
        }
        #expect(expected.count > 4000)
        var differences: [String] = []
        for (index, row) in try Self.loadCorpus().enumerated() {
            let client = PlatformDetector.addingDeviceDetails(to: PlatformDetector.detect(userAgent: row.userAgent), userAgent: row.userAgent)
            let read = [client.osVersion ?? "", client.deviceModel ?? "", DeviceFingerprint.majorMinor(client.osVersion) ?? ""]
            if read != (expected[index] ?? ["", "", ""]) { differences.append("\(index): \(read) against \(expected[index] ?? [])") }
        }
        #expect(differences.isEmpty, "\(differences.count) rows differ, first: \(differences.prefix(5))")
    }

    @Test func meetsTheAccuracyTargets() throws {
        let rows: [Row]
        do {
            rows = try Self.loadCorpus()
        } catch {
            Issue.record("cannot read the User-Agent corpus at \(Self.corpusPath) (set RELINK_UA_CORPUS): \(error)")
            return
        }
        #expect(rows.count > 8000)
        let labels = ["ios", "android", "crawler", "desktop", "other"]
        var matrix: [String: [Platform: Int]] = [:]
        for row in rows {
            matrix[row.label, default: [:]][PlatformDetector.detect(userAgent: row.userAgent).platform, default: 0] += 1
        }
        // The confusion matrix: one row per label, one column per detected platform.
        let columns = Platform.allCases
        var lines = ["label      " + columns.map { $0.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) }.joined()]
        for label in labels {
            let counts = columns.map { String(matrix[label]?[$0] ?? 0).padding(toLength: 9, withPad: " ", startingAt: 0) }
            lines.append(label.padding(toLength: 11, withPad: " ", startingAt: 0) + counts.joined())
        }
        func total(_ label: String) -> Int { matrix[label, default: [:]].values.reduce(0, +) }
        func share(_ label: String, _ where: (Platform) -> Bool) -> Double {
            Double(matrix[label, default: [:]].filter { `where`($0.key) }.values.reduce(0, +)) / Double(total(label))
        }
        for label in ["ios", "android", "crawler"] {
            lines.append("\(label): \(String(format: "%.2f", 100 * share(label) { Self.label(of: $0) == label }))% get their label")
        }
        for label in ["desktop", "other", "crawler"] {
            lines.append("\(label): \(String(format: "%.2f", 100 * share(label) { $0.isIOS || $0 == .android }))% sent to a store")
        }
        print("Platform detection over \(rows.count) User-Agents:\n" + lines.joined(separator: "\n"))

        for label in ["ios", "android", "crawler"] {
            #expect(share(label) { Self.label(of: $0) == label } >= 0.99, "\(label) rows that get their label")
        }
        for label in ["desktop", "other", "crawler"] {
            #expect(share(label) { $0.isIOS || $0 == .android } <= 0.005, "\(label) rows sent to a store")
        }
    }
}
