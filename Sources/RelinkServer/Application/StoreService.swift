import RelinkStore
import ServiceLifecycle

/// The store as one of the application's services (see `RelinkStore.run()`): first in the group, so it stops
/// after everything that writes to it.
struct StoreService: Service {
    let store: any RelinkStore

    func run() async throws {
        try await store.run()
    }
}
