/// The webhook deliveries a link's insert or change sends, written in that write's own transaction: an event is in the
/// outbox exactly when its change is saved, never lost after a change that is (a store that failed between the two, a
/// commit answered as unknown) and never sent for one rolled back.
public struct LinkEventDeliveries: Sendable {
    /// The deliveries for the link as saved (with the `updatedAt` the store stamped); none when nobody subscribes.
    public var make: @Sendable (ShortLinkRecord) -> [WebhookDelivery]
    /// Pending deliveries a webhook may hold: past it, new ones are left out, as `enqueueDeliveries` does.
    public var maximumPending: Int
    /// Told, after the commit, how many were left out for their webhook's cap.
    public var leftOut: @Sendable (Int) -> Void

    public init(
        maximumPending: Int, leftOut: @escaping @Sendable (Int) -> Void = { _ in },
        make: @escaping @Sendable (ShortLinkRecord) -> [WebhookDelivery]
    ) {
        self.make = make
        self.maximumPending = maximumPending
        self.leftOut = leftOut
    }
}
