import CLibPNG
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension QRCode {
    /// The symbol as an 8-bit grayscale PNG `size` pixels square, written by libpng (loaded at run time like
    /// libqrencode): a whole number of pixels per module, at least two (fewer do not scan), centred in white beyond the
    /// quiet zone; a size too small for that gives the smallest image that scans.
    func png(size: Int, library: PNGLibrary? = .shared) throws(EncodingError) -> [UInt8] {
        guard let library else {
            throw .libraryMissing("PNG needs libpng, which is not installed: apt-get install libpng16-16 (\(PNGLibrary.loadFailure))")
        }
        let side = width + 2 * Self.quietZone
        let scale = max(2, size / side)
        let pixels = max(size, side * scale)
        let margin = (pixels - side * scale) / 2
        var image = [UInt8](repeating: 255, count: pixels * pixels)
        for y in 0..<width {
            for x in 0..<width where isDark(x: x, y: y) {
                for row in 0..<scale {
                    let start = (margin + (y + Self.quietZone) * scale + row) * pixels + margin + (x + Self.quietZone) * scale
                    for column in start..<(start + scale) { image[column] = 0 }
                }
            }
        }
        var header = relink_png_image()
        header.version = UInt32(RELINK_PNG_IMAGE_VERSION)
        header.width = UInt32(pixels)
        header.height = UInt32(pixels)
        header.format = UInt32(RELINK_PNG_FORMAT_GRAY)
        var length = 0
        // First the size, then the bytes: libpng never writes past what it was given.
        guard library.write(&header, nil, &length, 0, image, Int32(pixels), nil) != 0, length > 0 else {
            throw .cannotEncode(PNGLibrary.message(&header))
        }
        var output = [UInt8](repeating: 0, count: length)
        let written = output.withUnsafeMutableBytes { buffer in
            library.write(&header, buffer.baseAddress, &length, 0, image, Int32(pixels), nil)
        }
        guard written != 0 else { throw .cannotEncode(PNGLibrary.message(&header)) }
        return Array(output.prefix(length))
    }
}

/// libpng's simplified writer, loaded once per process.
struct PNGLibrary: @unchecked Sendable {
    let write: relink_png_image_write_to_memory_fn

    static let shared: PNGLibrary? = load().library
    static let loadFailure: String = load().failure ?? ""

    static func load(names: [String] = ["libpng16.so.16", "libpng16.so", "libpng16.16.dylib"]) -> (library: PNGLibrary?, failure: String?) {
        var failures: [String] = []
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                failures.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            guard let write = dlsym(handle, "png_image_write_to_memory") else {
                return (nil, "png_image_write_to_memory not found in \(name) (libpng 1.6.29 or later is needed)")
            }
            return (PNGLibrary(write: unsafeBitCast(write, to: relink_png_image_write_to_memory_fn.self)), nil)
        }
        return (nil, failures.first ?? "not found")
    }

    static func message(_ image: inout relink_png_image) -> String {
        withUnsafeBytes(of: &image.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
