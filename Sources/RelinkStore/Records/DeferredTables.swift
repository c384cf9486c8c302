/// The tables of deferred deep linking that are kept per project, and the SQL both stores use to list their projects.
enum DeferredTables {
    /// Each with `project_id` leading its primary key or an index.
    static let keyedByProject = ["pending_clicks", "clicked_links", "install_claims", "shadow_matches"]

    /// The project ids in `table`, hopping from one to the next along the index that `project_id` leads rather than
    /// reading every row: a project's pending clicks may be millions.
    static func distinctProjects(_ table: String) -> String {
        """
        WITH RECURSIVE p(id) AS (
            SELECT (SELECT MIN(project_id) FROM \(table))
            UNION ALL SELECT (SELECT MIN(project_id) FROM \(table) WHERE project_id > p.id) FROM p WHERE p.id IS NOT NULL)
        SELECT id FROM p WHERE id IS NOT NULL
        """
    }
}
