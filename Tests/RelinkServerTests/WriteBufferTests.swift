import Foundation
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// The buffers of the buffered writers, driven event by event: record, take a batch, the write's end.
@Suite("Write buffers") struct WriteBufferTests {
    static func key(_ linkId: Int64, _ event: LinkEvent = .click, _ platform: StatsPlatform = .android) -> EventCounterKey {
        EventCounterKey(linkId: linkId, day: 20_000, platform: platform, event: event)
    }

    /// Counters share the places of all stripes; a batch being written still counts as unwritten and keeps its places
    /// until it is written (so a slow store cannot let twice the cap be held); a failed batch comes back whole.
    @Test func eventCountersCountWhatIsBufferedAndBeingWritten() {
        let places = CounterPlaces(capacity: 3)
        var stripe = EventCounterBuffer(places: places)
        var other = EventCounterBuffer(places: places)
        #expect(stripe.record(Self.key(1)) == .kept)
        #expect(stripe.record(Self.key(1)) == .kept)
        #expect(stripe.record(Self.key(1, .redirect)) == .kept)
        #expect(stripe.record(Self.key(1, .click, .crawler)) == .kept)
        #expect(places.count == 3)
        // Full: a new counter is dropped, in any stripe; an existing one still counts.
        #expect(other.record(Self.key(2)) == .dropped)
        #expect(stripe.record(Self.key(1)) == .kept)
        #expect((stripe.recorded, stripe.dropped, other.recorded, other.dropped) == (5, 0, 1, 1))
        // Human clicks only.
        #expect(stripe.unwrittenClicks(linkId: 1) == 3)

        let batch = stripe.takeBatch()
        #expect(EventCounterBuffer.count(of: batch) == 3)
        #expect(places.count == 3, "the batch being written holds its places")
        #expect(stripe.counts.isEmpty)
        #expect(stripe.unwrittenClicks(linkId: 1) == 3, "being written: not in the store yet")
        // While it is written the cap still holds: no new counter in any stripe, so memory stays at the cap.
        #expect(stripe.record(Self.key(1)) == .dropped)
        #expect(other.record(Self.key(2)) == .dropped)
        #expect(stripe.unwrittenClicks(linkId: 1) == 3)

        // The write failed: it comes back whole, in its own places.
        #expect(stripe.writeFailed(batch) == 0)
        #expect(places.count == 3)
        #expect(stripe.writing.isEmpty)
        #expect(stripe.unwrittenClicks(linkId: 1) == 3)

        // Written: the places are free again.
        _ = stripe.takeBatch()
        stripe.writeSucceeded()
        #expect(places.count == 0)
        #expect(stripe.unwrittenClicks(linkId: 1) == 0)
        #expect(stripe.writing.isEmpty)
        #expect(other.record(Self.key(2)) == .kept)
    }

    /// A counter recorded again while its batch is written takes a place of its own, and gives it back when the
    /// failed batch merges into it.
    @Test func aFailedBatchMergesIntoTheSameCounterRecordedSince() {
        let places = CounterPlaces(capacity: 4)
        var stripe = EventCounterBuffer(places: places)
        #expect(stripe.record(Self.key(1)) == .kept)
        let batch = stripe.takeBatch()
        #expect(stripe.record(Self.key(1)) == .kept)
        #expect(places.count == 2)
        #expect(stripe.writeFailed(batch) == 0)
        #expect(places.count == 1)
        #expect(stripe.unwrittenClicks(linkId: 1) == 2)
    }

    static func click(_ number: Int, link: String = "https://go.pictlink.com/x") -> PendingClick {
        PendingClick(
            id: "click\(number)", projectId: "pictlink", platform: .iOS, linkId: nil, requestedLink: link, createdAt: Date(),
            fingerprint: DeviceFingerprint(addressHash: "a"))
    }

    /// Pending clicks: capped in number and bytes (those being written included); a beacon finds a buffered click; a
    /// failed batch comes back first.
    @Test func pendingClicksAreCappedAndComeBackInOrder() {
        var buffer = PendingClickBuffer(capacity: 3, maximumBytes: 10_000)
        for number in 0..<3 { #expect(buffer.record(Self.click(number)) == .kept) }
        #expect(buffer.record(Self.click(3)) == .dropped)
        let merged1 = buffer.addBrowserSignals(clickId: "click1", screen: "390x844", timeZone: nil, languages: [])
        #expect(merged1)
        let merged2 = buffer.addBrowserSignals(clickId: "nope", screen: "390x844", timeZone: nil, languages: [])
        #expect(!merged2)
        #expect(buffer.clicks[1].fingerprint.screen == "390x844")

        let batch = buffer.takeBatch()
        #expect(PendingClickBuffer.count(of: batch) == 3)
        #expect(buffer.writing == 3)
        // The batch being written holds its places, and its clicks are not buffered any more.
        #expect(buffer.record(Self.click(4)) == .dropped)
        let merged3 = buffer.addBrowserSignals(clickId: "click1", screen: nil, timeZone: "UTC", languages: [])
        #expect(!merged3)
        #expect(buffer.writeFailed(batch) == 0)
        #expect(buffer.clicks.map(\.id) == ["click0", "click1", "click2"])
        let merged4 = buffer.addBrowserSignals(clickId: "click2", screen: nil, timeZone: "UTC", languages: [])
        #expect(merged4)
        #expect(buffer.dropped == 2)

        _ = buffer.takeBatch()
        #expect(buffer.record(Self.click(5)) == .dropped)
        buffer.writeSucceeded()
        #expect(buffer.writing == 0)
        #expect(buffer.record(Self.click(6)) == .kept)

        // Bytes: a long link weighs its length.
        var bytes = PendingClickBuffer(capacity: 100, maximumBytes: 2_100)
        let long = "https://go.pictlink.com/" + String(repeating: "x", count: 1_000)
        #expect(bytes.record(Self.click(1, link: long)) == .kept)
        #expect(bytes.record(Self.click(2, link: long)) == .dropped)
        #expect(bytes.record(Self.click(3)) == .kept)
        // The batch being written holds its bytes too, until its write ends (a slow store let in twice the cap).
        let written = bytes.takeBatch()
        #expect(bytes.record(Self.click(4, link: long)) == .dropped)
        #expect(bytes.writeFailed(written) == 0)
        #expect(bytes.clicks.map(\.id) == ["click1", "click3"])
        _ = bytes.takeBatch()
        bytes.writeSucceeded()
        #expect(bytes.record(Self.click(5, link: long)) == .kept)
    }

    static func delivery(_ number: Int, webhook: Int64) -> WebhookDelivery {
        WebhookDelivery(id: "d\(number)", webhookId: webhook, event: "click", payload: "{}", createdAt: Date(), nextAttemptAt: Date())
    }

    /// Webhook click events: a cap in all and per webhook per interval; a batch gives each webhook its allowance
    /// back; a failed batch is lost (not retried), as before.
    @Test func webhookClicksAreCappedPerWebhookAndInterval() {
        var buffer = WebhookClickBuffer(capacity: 3, perWebhook: 2)
        #expect(buffer.record(Self.delivery(1, webhook: 1)) == .kept)
        #expect(buffer.record(Self.delivery(2, webhook: 1)) == .kept)
        #expect(buffer.record(Self.delivery(3, webhook: 1)) == .dropped)
        #expect(buffer.record(Self.delivery(4, webhook: 2)) == .kept)
        #expect(buffer.record(Self.delivery(5, webhook: 3)) == .dropped)
        #expect(buffer.takeDropped() == 2)
        #expect(buffer.takeDropped() == 0)
        let batch = buffer.takeBatch()
        #expect(batch.map(\.id) == ["d1", "d2", "d4"])
        #expect(buffer.pending.isEmpty)
        #expect(buffer.record(Self.delivery(6, webhook: 1)) == .kept)
        #expect(buffer.writeFailed(batch) == 3)
        #expect(buffer.pending.map(\.id) == ["d6"])
    }
}
