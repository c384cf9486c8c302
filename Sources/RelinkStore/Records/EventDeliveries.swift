/// The webhook deliveries a write sends (a link's insert or change, an install's claim), written in that write's own
/// transaction: an event is in the outbox exactly when what it tells of is saved, never lost after a write that is (a
/// store that failed between the two, a commit answered as unknown) and never sent for one rolled back.
public struct EventDeliveries<Saved: Sendable>: Sendable {
    /// The deliveries for what was saved (a link with the `updatedAt` the store stamped, a claimed click's id); none
    /// when nobody subscribes.
    public var make: @Sendable (Saved) -> [WebhookDelivery]
    /// Pending deliveries a webhook may hold: past it, new ones are left out, as `enqueueDeliveries` does.
    public var maximumPending: Int
    /// Told, after the commit, how many were left out for their webhook's cap.
    public var leftOut: @Sendable (Int) -> Void

    public init(
        maximumPending: Int, leftOut: @escaping @Sendable (Int) -> Void = { _ in }, make: @escaping @Sendable (Saved) -> [WebhookDelivery]
    ) {
        self.make = make
        self.maximumPending = maximumPending
        self.leftOut = leftOut
    }
}
