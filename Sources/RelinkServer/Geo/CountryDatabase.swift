import CMaxMindDB
import Foundation
import RelinkCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The country of a client address, from a MaxMind-format database (GeoIP2/GeoLite2 Country or City, DB-IP…)
/// read with libmaxminddb. The library is loaded when a database is opened (`relink serve --geoip FILE`), never
/// linked, so Relink builds and runs without it; when it is missing, the error names the package to install.
/// Lookups are read-only on a memory-mapped file and safe from any thread.
public final class CountryDatabase: Sendable {
    public enum LoadError: Error, CustomStringConvertible, Equatable {
        case libraryMissing(String)
        case cannotOpen(path: String, reason: String)

        public var description: String {
            switch self {
            case .libraryMissing(let detail):
                "--geoip needs libmaxminddb, which is not installed: apt-get install libmaxminddb0 (\(detail))"
            case .cannotOpen(let path, let reason): "cannot open the country database \(path): \(reason)"
            }
        }
    }

    /// The loaded library's functions.
    private struct Library: @unchecked Sendable {
        let open: relink_mmdb_open_fn
        let lookup: relink_mmdb_lookup_string_fn
        let value: relink_mmdb_aget_value_fn
        let close: relink_mmdb_close_fn
        let error: relink_mmdb_strerror_fn
    }

    /// The database handle (an MMDB_s, opaque here), read-only once opened.
    private struct Handle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    private let library: Library
    private let handle: Handle
    public let path: String

    /// Opens `path`.
    /// - Parameter libraryNames: the shared objects tried in turn (tests name one that does not exist).
    public init(path: String, libraryNames: [String] = ["libmaxminddb.so.0", "libmaxminddb.so", "libmaxminddb.0.dylib"]) throws(LoadError) {
        var loaded: UnsafeMutableRawPointer?
        var failures: [String] = []
        for name in libraryNames {
            if let found = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                loaded = found
                break
            }
            failures.append(dlerror().map { String(cString: $0) } ?? name)
        }
        guard let loaded else { throw .libraryMissing(failures.first ?? "not found") }
        func symbol<T>(_ name: String, as type: T.Type) throws(LoadError) -> T {
            guard let address = dlsym(loaded, name) else { throw .libraryMissing("\(name) not found in the library") }
            return unsafeBitCast(address, to: type)
        }
        library = Library(
            open: try symbol("MMDB_open", as: relink_mmdb_open_fn.self),
            lookup: try symbol("MMDB_lookup_string", as: relink_mmdb_lookup_string_fn.self),
            value: try symbol("MMDB_aget_value", as: relink_mmdb_aget_value_fn.self), close: try symbol("MMDB_close", as: relink_mmdb_close_fn.self),
            error: try symbol("MMDB_strerror", as: relink_mmdb_strerror_fn.self))
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: Int(RELINK_MMDB_HANDLE_SIZE), alignment: 16)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: Int(RELINK_MMDB_HANDLE_SIZE))
        let status = library.open(path, UInt32(RELINK_MMDB_MODE_MMAP), pointer)
        guard status == RELINK_MMDB_SUCCESS else {
            let reason = library.error(status).map { String(cString: $0) } ?? "error \(status)"
            pointer.deallocate()
            throw .cannotOpen(path: path, reason: reason)
        }
        handle = Handle(pointer: pointer)
        self.path = path
    }

    deinit {
        library.close(handle.pointer)
        handle.pointer.deallocate()
    }

    /// The ISO 3166-1 alpha-2 code of `address`'s country (else its registered country), uppercase; nil when the
    /// database does not know it.
    public func country(of address: String) -> String? {
        // IPv4 written as IPv6 (`::ffff:a.b.c.d`, NAT64) is looked up as the IPv4 address it carries.
        let address = IPAddress(address).map { $0.version == .v4 ? $0.description : address } ?? address
        var addressError: Int32 = 0
        var lookupError: Int32 = 0
        var result = library.lookup(handle.pointer, address, &addressError, &lookupError)
        guard addressError == 0, lookupError == RELINK_MMDB_SUCCESS, result.found_entry else { return nil }
        for first in ["country", "registered_country"] {
            var data = MMDB_entry_data_s()
            let status = first.withCString { key in
                "iso_code".withCString { code in
                    var path: [UnsafePointer<CChar>?] = [key, code, nil]
                    return path.withUnsafeMutableBufferPointer { buffer in
                        buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: 3) {
                            library.value(&result.entry, &data, $0)
                        }
                    }
                }
            }
            guard status == RELINK_MMDB_SUCCESS, data.has_data, data.type == UInt32(RELINK_MMDB_DATA_TYPE_UTF8_STRING),
                let text = data.utf8_string, data.data_size == 2
            else { continue }
            let code = String(decoding: UnsafeRawBufferPointer(start: text, count: 2), as: UTF8.self).uppercased()
            if code.allSatisfy({ $0.isASCII && $0.isLetter }) { return code }
        }
        return nil
    }
}
