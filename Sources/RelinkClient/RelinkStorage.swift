import Foundation

/// Where `Relink` keeps its two facts across launches: the install id and whether the first launch's claim was
/// answered. `UserDefaultsStorage` on Apple platforms; `MemoryStorage` for tests and apps that keep them elsewhere.
public protocol RelinkStorage: Sendable {
    /// The value last set under `key`, or nil if none was.
    func string(forKey key: String) -> String?
    /// Keeps `value` under `key`, replacing what was there. Called from any thread.
    func set(_ value: String, forKey key: String)
}

/// `RelinkStorage` in `UserDefaults` (the standard defaults unless another suite is given).
public struct UserDefaultsStorage: RelinkStorage, @unchecked Sendable {
    // UserDefaults is documented as thread-safe; the SDK marks it Sendable only from iOS 17's.
    private let defaults: UserDefaults

    /// - Parameter defaults: the defaults to keep the values in; a suite of the app group's to share them with
    ///   an extension.
    public init(_ defaults: UserDefaults = .standard) {
        self.defaults = defaults
    }

    public func string(forKey key: String) -> String? { defaults.string(forKey: key) }
    public func set(_ value: String, forKey key: String) { defaults.set(value, forKey: key) }
}

/// `RelinkStorage` in memory: lost when the process ends.
public final class MemoryStorage: RelinkStorage, @unchecked Sendable {
    // Guarded by `lock`; NSLock because Mutex needs iOS 18.
    private var values: [String: String] = [:]
    private let lock = NSLock()

    /// Empty storage, as on a first launch.
    public init() {}

    public func string(forKey key: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return values[key]
    }

    public func set(_ value: String, forKey key: String) {
        lock.lock()
        defer { lock.unlock() }
        values[key] = value
    }
}
