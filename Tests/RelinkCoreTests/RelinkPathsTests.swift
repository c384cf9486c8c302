import RelinkCore
import Testing

@Suite("Relink's own paths")
struct RelinkPathsTests {
    /// As the router reads a path: empty segments skipped, every other byte compared.
    @Test func aPathNamesAnotherAsTheRouterReadsIt() {
        for path in ["/healthz", "//healthz", "/healthz/", "//healthz//"] {
            #expect(RelinkPaths.names(Substring(path), RelinkPaths.health), "\(path)")
        }
        for path in ["/healthz/x", "/healthzz", "/health", "/HEALTHZ", "/", "", "/healthz/.", "/x/healthz"] {
            #expect(!RelinkPaths.names(Substring(path), RelinkPaths.health), "\(path)")
        }
        #expect(RelinkPaths.names("//.well-known//assetlinks.json/", RelinkPaths.assetLinks))
        #expect(!RelinkPaths.names("/.well-known/assetlinks.json/x", RelinkPaths.assetLinks))
        #expect(!RelinkPaths.names("/.well-known", RelinkPaths.assetLinks))
    }

    @Test func consolePathsAreThoseWhoseFirstSegmentIsConsole() {
        for path in ["/console", "/console/", "/console/links/x", "//console/x"] {
            #expect(RelinkPaths.isConsole(Substring(path)), "\(path)")
        }
        for path in ["/consoles", "/x/console", "/", "", "/Console", "/console.x"] {
            #expect(!RelinkPaths.isConsole(Substring(path)), "\(path)")
        }
    }
}
