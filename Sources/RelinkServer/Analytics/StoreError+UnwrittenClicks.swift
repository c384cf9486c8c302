import RelinkStore

extension StoreError {
    /// What a read that must count every click so far answers when the clicks still in memory could not be written:
    /// the store's 503, rather than figures without them.
    static let unwrittenClicks = StoreError.unavailable("the clicks in memory could not be written")
    /// The same for the pending clicks kept for deferred linking.
    static let unwrittenPendingClicks = StoreError.unavailable("the pending clicks in memory could not be written")
}
