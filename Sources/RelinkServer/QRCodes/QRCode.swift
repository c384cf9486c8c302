import CQREncode
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A QR code symbol, encoded by libqrencode: `width` x `width` modules, dark or light. The library is loaded at
/// run time on first use (QR codes are optional), so Relink builds and runs without it; when it is missing,
/// encoding throws an error naming the package to install.
struct QRCode: Sendable {
    /// How much of the symbol may be damaged and still read: about 7, 15, 25 and 30%.
    enum ErrorCorrection: String, Sendable, CaseIterable {
        case low = "L"
        case medium = "M"
        case quartile = "Q"
        case high = "H"

        var level: Int32 {
            switch self {
            case .low: RELINK_QR_ECLEVEL_L
            case .medium: RELINK_QR_ECLEVEL_M
            case .quartile: RELINK_QR_ECLEVEL_Q
            case .high: RELINK_QR_ECLEVEL_H
            }
        }
    }

    enum EncodingError: Error, CustomStringConvertible, Equatable {
        /// The library could not be loaded; the text says which package to install.
        case libraryMissing(String)
        /// The text does not fit a QR code (over 2,953 bytes at the lowest level) or the library failed.
        case cannotEncode(String)

        var description: String {
            switch self {
            case .libraryMissing(let detail):
                "QR codes need libqrencode, which is not installed: apt-get install libqrencode4 (\(detail))"
            case .cannotEncode(let reason): "cannot encode the QR code: \(reason)"
            }
        }
    }

    let width: Int
    /// Row by row, `true` for a dark module.
    let modules: [Bool]

    func isDark(x: Int, y: Int) -> Bool { modules[y * width + x] }

    /// The longest text encoded: the most 8-bit data a version 40 symbol holds at level L.
    static let maximumBytes = 2_953

    /// Encodes `text` as 8-bit data (case and every byte kept) at the smallest version that holds it.
    static func encode(_ text: String, correction: ErrorCorrection, library: Library? = .shared) throws(EncodingError) -> QRCode {
        guard let library else { throw .libraryMissing(Library.loadFailure) }
        guard !text.isEmpty, text.utf8.count <= maximumBytes else {
            throw .cannotEncode("the text is \(text.utf8.count) bytes; a QR code holds 1 to \(maximumBytes)")
        }
        guard let symbol = library.encode(text, 0, correction.level, RELINK_QR_MODE_8, 1) else {
            throw .cannotEncode(String(cString: strerror(errno)))
        }
        defer { library.free(symbol) }
        let width = Int(symbol.pointee.width)
        let data = UnsafeBufferPointer(start: symbol.pointee.data, count: width * width)
        return QRCode(width: width, modules: data.map { $0 & 1 == 1 })
    }

    /// libqrencode's two functions, loaded once per process.
    struct Library: @unchecked Sendable {
        let encode: relink_qrcode_encode_string_fn
        let free: relink_qrcode_free_fn

        /// The library, or nil when it is not installed (then `loadFailure` says why).
        static let shared: Library? = load().library
        static let loadFailure: String = load().failure ?? ""

        static let names = ["libqrencode.so.4", "libqrencode.so", "libqrencode.4.dylib"]

        static func load(names: [String] = names) -> (library: Library?, failure: String?) {
            var failures: [String] = []
            for name in names {
                guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                    failures.append(dlerror().map { String(cString: $0) } ?? name)
                    continue
                }
                guard let encode = dlsym(handle, "QRcode_encodeString"), let free = dlsym(handle, "QRcode_free") else {
                    return (nil, "QRcode_encodeString not found in \(name)")
                }
                return (
                    Library(
                        encode: unsafeBitCast(encode, to: relink_qrcode_encode_string_fn.self),
                        free: unsafeBitCast(free, to: relink_qrcode_free_fn.self)), nil
                )
            }
            return (nil, failures.first ?? "not found")
        }
    }
}
