package dev.relink;

/**
 * Why a call failed, as a value (calls never throw): a {@link Kind}, the HTTP status and FDL's {@code apiStatus}
 * when the server answered, a message, and the server's {@code Retry-After} when it sent one.
 */
public final class RelinkError {
    /** What went wrong, in the terms all Relink clients share. */
    public enum Kind {
        /** No connection to the server. */
        OFFLINE,
        /** No answer within the timeout. */
        TIMEOUT,
        /** 429, still refused after the retries the budget allows. */
        RATE_LIMITED,
        /** 503, still refused after the retries the budget allows. */
        UNAVAILABLE,
        /** Any other answer outside 2xx, a redirect included (never followed). */
        HTTP,
        /** A 2xx answer that is not the JSON expected. */
        MALFORMED,
        /** The call's own arguments: an empty URL, a server URL that is not https. */
        INVALID_INPUT
    }

    private final Kind kind;
    private final Integer status;
    private final String apiStatus;
    private final String message;
    private final Integer retryAfterSeconds;

    /**
     * @param kind what went wrong.
     * @param status the HTTP status, or null when the server did not answer.
     * @param apiStatus FDL's status name from the error body ({@code NOT_FOUND}, …), or null.
     * @param message what happened, for logs.
     * @param retryAfterSeconds the server's {@code Retry-After}, or null.
     */
    public RelinkError(Kind kind, Integer status, String apiStatus, String message, Integer retryAfterSeconds) {
        if (kind == null) throw new NullPointerException("kind");
        this.kind = kind;
        this.status = status;
        this.apiStatus = apiStatus;
        this.message = message == null ? "" : message;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    static RelinkError of(Kind kind, String message) {
        return new RelinkError(kind, null, null, message, null);
    }

    /** @return what went wrong. */
    public Kind getKind() { return kind; }
    /** @return the HTTP status, or null when the server did not answer. */
    public Integer getStatus() { return status; }
    /** @return FDL's status name from the error body, or null. */
    public String getApiStatus() { return apiStatus; }
    /** @return what happened, for logs (never the install referrer or device signals). */
    public String getMessage() { return message; }
    /** @return the server's {@code Retry-After} in seconds, or null when it sent none. */
    public Integer getRetryAfterSeconds() { return retryAfterSeconds; }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("RelinkError(").append(kind);
        if (status != null) text.append(", HTTP ").append(status);
        if (apiStatus != null) text.append(' ').append(apiStatus);
        if (retryAfterSeconds != null) text.append(", retry after ").append(retryAfterSeconds).append(" s");
        return text.append(": ").append(message).append(')').toString();
    }
}
