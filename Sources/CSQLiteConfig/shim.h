#include <sqlite3.h>

/// Turns off SQLite's memory statistics, before SQLite is first used in the process (sqlite3_config is variadic, which
/// Swift cannot call). With them on, every allocation SQLite makes on any connection takes one process-wide mutex:
/// the event loops' lookups and the writer then queue for it. Returns SQLITE_OK, or SQLITE_MISUSE once SQLite has
/// been initialized (too late; nothing changes).
static inline int relink_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
