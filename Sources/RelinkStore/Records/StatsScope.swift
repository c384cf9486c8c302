/// Whose statistics to read: one link's, or a whole project's.
public enum StatsScope: Hashable, Sendable {
    case link(id: Int64)
    case project(id: String)
}
