/// How both stores choose the deliveries a lease takes, one text for both: after CTEs `flying` (webhook_id, c: leased
/// now), `project_flying` (project_id, c) and `ranked` (id, next_attempt_at, webhook_id, project_id, n: each
/// webhook's first due deliveries, numbered), `loaded` holds those a webhook may still take
/// (`deliveriesPerWebhook` at most in flight), with the load each would bring its webhook and
/// its project; `order` puts the least loaded projects, then webhooks, then the oldest first. So one project's
/// backlog or slow receivers hold back another webhook at most until a slot frees.
enum WebhookLease {
    /// The most deliveries of one webhook in flight at once, across instances: a slow receiver holds no more slots.
    static let deliveriesPerWebhook = 2

    static let loadedCTEs = """
        eligible AS (
            SELECT r.*, r.n + COALESCE(f.c, 0) AS webhook_load
            FROM ranked r LEFT JOIN flying f ON f.webhook_id = r.webhook_id
            WHERE r.n + COALESCE(f.c, 0) <= \(deliveriesPerWebhook)
        ), loaded AS (
            SELECT e.*, COALESCE(p.c, 0)
                + ROW_NUMBER() OVER (PARTITION BY e.project_id ORDER BY e.webhook_load, e.next_attempt_at, e.id) AS project_load
            FROM eligible e LEFT JOIN project_flying p ON p.project_id = e.project_id
        )
        """

    static let order = "ORDER BY project_load, webhook_load, next_attempt_at, id"
}
