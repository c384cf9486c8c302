import Logging
import RelinkStore
import ServiceLifecycle

/// With a store shared by several instances, keeps this instance's link cache in step with the others: each
/// change another instance makes drops that link from the cache, so the next click here reads it again.
struct LinkChangeWatcher: Service {
    let feed: any LinkChangeFeed
    let cache: LinkCache

    func run() async throws {
        let cache = self.cache
        await cancelWhenGracefulShutdown {
            await feed.watchLinkChanges { change in cache.apply(change) }
        }
    }
}
