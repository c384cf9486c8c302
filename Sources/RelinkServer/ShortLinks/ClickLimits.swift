import NIOConcurrencyHelpers

/// The click limits of this instance's links (`ClickLimitStateMachine`): the store reads around the state machine, its
/// lock never held across one.
final class ClickLimits: Sendable {
    private typealias Waiter = CheckedContinuation<ClickLimitAction, any Error>

    private let state: NIOLockedValueBox<ClickLimitStateMachine<Waiter>>

    /// - Parameter capacity: the most links held per project; each costs about a hundred bytes.
    init(capacity: Int = 10_000) {
        state = NIOLockedValueBox(ClickLimitStateMachine(capacity: capacity))
    }

    /// Whether a click may follow link `linkId` of project `projectId` as of `version` (its record's last change),
    /// taking one of its `limit` clicks when `taking`.
    /// - Parameter readCount: the link's human clicks in the store and unwritten here.
    /// - Throws: what `readCount` throws.
    func take(
        linkId: Int64, projectId: String, version: Double, limit: Int64, taking: Bool, readCount: () async throws -> Int64
    ) async throws -> Bool {
        var action = state.withLockedValue {
            $0.click(linkId: linkId, projectId: projectId, version: version, limit: limit, taking: taking, now: .now)
        }
        while true {
            switch action {
            case .allow: return true
            case .refuse: return false
            case .readUntracked: return try await readCount() < limit
            case .read:
                let start = ContinuousClock.now
                let count: Int64
                do {
                    count = try await readCount()
                } catch {
                    for waiter in state.withLockedValue({ $0.readFailed(linkId: linkId) }) { waiter.resume(throwing: error) }
                    throw error
                }
                let (answer, resume) = state.withLockedValue {
                    $0.readSucceeded(linkId: linkId, count: count, start: start, limit: limit, taking: taking)
                }
                for (waiter, action) in resume { waiter.resume(returning: action) }
                // The link changed while it read: read again (`action` is still `.read`).
                if answer == .read { continue }
                return answer == .allow
            case .wait:
                action = try await withCheckedThrowingContinuation { (waiter: Waiter) in
                    let next = state.withLockedValue {
                        $0.wait(
                            linkId: linkId, projectId: projectId, version: version, limit: limit, taking: taking, waiter: waiter, now: .now)
                    }
                    if next != .wait { waiter.resume(returning: next) }
                }
            // A kept waiter is resumed with its answer: the loop ends with it.
            }
        }
    }
}
