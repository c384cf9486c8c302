import Foundation
import RelinkCore

/// Resident memory in MB, from /proc (Linux); 0 elsewhere.
func residentMB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes / 1024
}

/// Client addresses as the server keys them: IPv4 text.
func address(_ number: Int) -> String {
    "\(10 + (number >> 24) & 0xFF).\((number >> 16) & 0xFF).\((number >> 8) & 0xFF).\(number & 0xFF)"
}

let limit = RateLimit(requestsPerSecond: 20, burst: 100)
let requests = 2_000_000
let capacity = 100_000 / 16  // one shard of the server's limiter
let clock = ContinuousClock()

func run(_ name: String, distinct: Int) -> Double {
    let keys = (0..<min(distinct, requests)).map(address)
    var buckets = TokenBuckets<String>(capacity: capacity)
    var limited = 0
    let start = clock.now
    for request in 0..<requests {
        let now = Double(request) / 100_000  // 100,000 requests a second
        if buckets.take(keys[request % keys.count], limit: limit, now: now) != nil { limited += 1 }
    }
    let elapsed = clock.now - start
    let nanoseconds = (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(requests)
    print(
        String(
            format: "%@ %7.0f ns/decision  %9d limited  %6d keys held  RSS %6.1f MB",
            name.padding(toLength: 28, withPad: " ", startingAt: 0), nanoseconds, limited, buckets.count, residentMB()))
    return nanoseconds
}

print("\(requests) decisions each, a table of \(capacity) keys (one shard of the server's 100,000)")
let few = run("10 clients", distinct: 10)
let many = run("1,000,000 distinct clients", distinct: 1_000_000)
print(String(format: "1,000,000 against 10: %.2fx the time per decision", many / few))
