import HTTPTypes

/// Which requests on a connection the lean path may answer, so that answers stay in the order the requests came:
/// only while the router has none of them in hand, and never after a request asked to close the connection.
struct LeanClickStateMachine {
    private enum Current {
        /// Between requests.
        case idle
        /// The request being read is the router's: its parts go on.
        case forwarded
        /// The request being read was answered here: its remaining parts are dropped.
        case answered
        /// An answer here ended the connection (`Connection: close`): everything after it is dropped.
        case closed
    }

    private var current = Current.idle
    /// Requests handed to the router whose answers it has not finished writing.
    private var routerRequests = 0

    enum HeadAction: Equatable {
        /// Ask the responder; then call `answered(closing:)` or `declined()`.
        case tryAnswer
        case forward
        case drop
    }

    enum PartAction: Equatable {
        case forward
        case drop
    }

    /// A request head arrived; `eligible`: a GET or HEAD without a body.
    mutating func head(eligible: Bool) -> HeadAction {
        switch current {
        case .closed:
            return .drop
        case .idle, .forwarded, .answered:
            if eligible && routerRequests == 0 { return .tryAnswer }
            forward()
            return .forward
        }
    }

    /// The responder answered the request whose head came last.
    mutating func answered(closing: Bool) {
        current = closing ? .closed : .answered
    }

    /// The responder left the request to the router.
    mutating func declined() {
        forward()
    }

    private mutating func forward() {
        current = .forwarded
        routerRequests += 1
    }

    /// A body part or the end of the request being read.
    mutating func part(isEnd: Bool) -> PartAction {
        switch current {
        case .closed:
            return .drop
        case .answered:
            if isEnd { current = .idle }
            return .drop
        case .idle, .forwarded:
            if isEnd { current = .idle }
            return .forward
        }
    }

    /// The router finished writing an answer (also a 400 it writes for a request that could not be parsed, which it
    /// was never handed).
    mutating func routerFinishedAnswer() {
        routerRequests = max(0, routerRequests - 1)
    }
}
