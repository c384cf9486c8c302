package dev.relink;

/**
 * The answer of {@link Relink#claimDeferredLink}: {@link Kind#MATCHED} with a {@link DeferredLink},
 * {@link Kind#ORGANIC} (no click before the install), {@link Kind#ALREADY_CLAIMED} (an earlier launch got the
 * answer; no request was made), or {@link Kind#FAILED} with a {@link RelinkError} (the next launch may try again).
 */
public final class ClaimResult {
    /** Which of the four answers this is. */
    public enum Kind {
        /** The server matched a click: {@link #getLink()} has the deep link. */
        MATCHED,
        /** No click before the install: the server's {@link #getMatchMessage()} says why. */
        ORGANIC,
        /** An earlier launch got the server's answer; no request was made. */
        ALREADY_CLAIMED,
        /** {@link #getError()} says why; the claim is not marked done, so the next launch tries again. */
        FAILED
    }

    private static final ClaimResult ALREADY = new ClaimResult(Kind.ALREADY_CLAIMED, null, null, null);

    private final Kind kind;
    private final DeferredLink link;
    private final String matchMessage;
    private final RelinkError error;

    private ClaimResult(Kind kind, DeferredLink link, String matchMessage, RelinkError error) {
        this.kind = kind;
        this.link = link;
        this.matchMessage = matchMessage;
        this.error = error;
    }

    static ClaimResult matched(DeferredLink link) { return new ClaimResult(Kind.MATCHED, link, link.getMatchMessage(), null); }
    static ClaimResult organic(String matchMessage) { return new ClaimResult(Kind.ORGANIC, null, matchMessage, null); }
    static ClaimResult alreadyClaimed() { return ALREADY; }
    static ClaimResult failed(RelinkError error) { return new ClaimResult(Kind.FAILED, null, null, error); }

    /** @return which answer this is. */
    public Kind getKind() { return kind; }
    /** @return true for {@link Kind#MATCHED}. */
    public boolean isMatched() { return kind == Kind.MATCHED; }
    /** @return the matched link for {@link Kind#MATCHED}, else null. */
    public DeferredLink getLink() { return link; }
    /** @return the server's message for {@link Kind#MATCHED} and {@link Kind#ORGANIC}, else null. */
    public String getMatchMessage() { return matchMessage; }
    /** @return the error for {@link Kind#FAILED}, else null. */
    public RelinkError getError() { return error; }

    @Override
    public String toString() {
        switch (kind) {
            case MATCHED: return "ClaimResult.MATCHED(" + link + ")";
            case FAILED: return "ClaimResult.FAILED(" + error + ")";
            default: return "ClaimResult." + kind;
        }
    }
}
