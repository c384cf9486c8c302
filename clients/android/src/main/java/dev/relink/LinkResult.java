package dev.relink;

/** The answer of {@link Relink#reopen} and {@link Relink#resolve}: {@link Kind#RESOLVED} or {@link Kind#FAILED}. */
public final class LinkResult {
    /** Which of the two answers this is. */
    public enum Kind {
        /** {@link #getLink()} has the deep link. */
        RESOLVED,
        /** {@link #getError()} says why. */
        FAILED
    }

    private final Kind kind;
    private final ResolvedLink link;
    private final RelinkError error;

    private LinkResult(Kind kind, ResolvedLink link, RelinkError error) {
        this.kind = kind;
        this.link = link;
        this.error = error;
    }

    static LinkResult resolved(ResolvedLink link) { return new LinkResult(Kind.RESOLVED, link, null); }
    static LinkResult failed(RelinkError error) { return new LinkResult(Kind.FAILED, null, error); }

    /** @return which answer this is. */
    public Kind getKind() { return kind; }
    /** @return true for {@link Kind#RESOLVED}. */
    public boolean isResolved() { return kind == Kind.RESOLVED; }
    /** @return the link for {@link Kind#RESOLVED}, else null. */
    public ResolvedLink getLink() { return link; }
    /** @return the error for {@link Kind#FAILED}, else null. */
    public RelinkError getError() { return error; }

    @Override
    public String toString() {
        return kind == Kind.RESOLVED ? "LinkResult.RESOLVED(" + link + ")" : "LinkResult.FAILED(" + error + ")";
    }
}
