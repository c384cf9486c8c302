import Foundation
import RelinkCore
import RelinkStore

/// A stored short link in a few hundred bytes, as the link cache keeps most of its entries: one allocation, the
/// parameters packed in bytes after the fields, the long link left out when it is the canonical one (made again from
/// the parameters), the idempotency key as its 32 bytes, the project id and domain shared with the project's, and the
/// fields most links lack in a box of their own. `record(prefix:)` gives back exactly the record it was made from.
/// The fields and bytes are written once, in `make`, before the object is shared, and never changed.
final class CompactShortLink: ManagedBuffer<CompactShortLink.Fields, UInt8> {
    /// Ordered so that the small fields pack together (about 140 bytes).
    struct Fields {
        let id: Int64
        let projectId: String
        let domain: String
        let code: String
        let createdAt: Date
        let updatedAt: Date
        /// `expiresAt`'s time interval since the reference date, NaN for none.
        let expiresAt: Double
        /// `maxClicks`, `Int.min` for none.
        let maxClicks: Int
        /// A SHA-256 idempotency key (64 lowercase hex digits) as bytes, when `flags` has `digestFlag`.
        let idempotencyDigest: (UInt64, UInt64, UInt64, UInt64)
        let rare: Rare?
        /// The packed parameters' length in bytes: each set parameter's position in `LinkParameter.allCases`, its
        /// value's UTF-8 length (LEB128), the bytes.
        let parametersLength: UInt32
        let suffixOption: SuffixOption
        let flags: UInt8
    }

    /// What few links have, or what could not be made smaller: a class, so a link without any costs one pointer.
    final class Rare: Sendable {
        let longLink: String?
        let idempotencyKey: String?
        let name: String?
        let preview: PagePreview?
        let rules: LinkRules?
        let expiredLink: String?
        /// A NaN expiry or a click limit of `Int.min` (only a hand-edited row has one), which the fields cannot hold.
        let oddLimits: (expiresAt: Date?, maxClicks: Int?)?

        init(
            longLink: String?, idempotencyKey: String?, name: String?, preview: PagePreview?, rules: LinkRules?, expiredLink: String?,
            oddLimits: (expiresAt: Date?, maxClicks: Int?)?
        ) {
            self.oddLimits = oddLimits
            self.longLink = longLink
            self.idempotencyKey = idempotencyKey
            self.name = name
            self.preview = preview
            self.rules = rules
            self.expiredLink = expiredLink
        }

        /// The bytes of its texts, rules and card, and the box itself.
        var approximateByteCount: Int {
            var bytes = 64
            for text in [longLink, idempotencyKey, name, expiredLink] { bytes += text?.utf8.count ?? 0 }
            if let preview {
                for text in [preview.title, preview.description, preview.imageURL, preview.pageURL, preview.failure] {
                    bytes += 16 + (text?.utf8.count ?? 0)
                }
            }
            // Rules hold names, versions and URLs in nested arrays: their JSON is a fair measure, and few links have any.
            if let rules { bytes += 2 * ((try? JSONEncoder().encode(rules).count) ?? 0) }
            return bytes
        }

        var isEmpty: Bool {
            longLink == nil && idempotencyKey == nil && name == nil && preview == nil && rules == nil && expiredLink == nil && oddLimits == nil
        }
    }

    private static let disabledFlag: UInt8 = 1
    private static let archivedFlag: UInt8 = 2
    private static let fetchPreviewFlag: UInt8 = 4
    private static let digestFlag: UInt8 = 8
    private static let parameters = LinkParameter.allCases
    private static let positions = Dictionary(uniqueKeysWithValues: LinkParameter.allCases.enumerated().map { ($1, UInt8($0)) })

    /// - Parameters:
    ///   - record: the stored link.
    ///   - project: its project (whose id string the compact link shares).
    ///   - prefix: its domain URI prefix (the canonical long link is made under it).
    static func make(record: ShortLinkRecord, project: Project, prefix: DomainURIPrefix) -> CompactShortLink {
        let packed = pack(record.parameters)
        let digest = record.idempotencyKey.flatMap(Self.digest)
        let rare = Rare(
            longLink: LongLink(prefix: prefix, parameters: record.parameters).url == record.longLink ? nil : record.longLink,
            idempotencyKey: digest == nil ? record.idempotencyKey : nil, name: record.name, preview: record.preview,
            rules: record.rules, expiredLink: record.expiredLink,
            oddLimits: record.expiresAt?.timeIntervalSinceReferenceDate.isNaN == true || record.maxClicks == .min
                ? (record.expiresAt, record.maxClicks) : nil)
        let fields = Fields(
            id: record.id, projectId: record.projectId == project.id ? project.id : record.projectId, domain: record.domain,
            code: record.code, createdAt: record.createdAt, updatedAt: record.updatedAt,
            expiresAt: record.expiresAt?.timeIntervalSinceReferenceDate ?? .nan, maxClicks: record.maxClicks ?? .min,
            idempotencyDigest: digest ?? (0, 0, 0, 0), rare: rare.isEmpty ? nil : rare, parametersLength: UInt32(packed.count),
            suffixOption: record.suffixOption,
            flags: (record.disabled ? disabledFlag : 0) | (record.archived ? archivedFlag : 0) | (record.fetchPreview ? fetchPreviewFlag : 0)
                | (digest != nil ? digestFlag : 0))
        let buffer = create(minimumCapacity: packed.count) { _ in fields }
        buffer.withUnsafeMutablePointerToElements { elements in
            packed.withUnsafeBufferPointer { elements.initialize(from: $0.baseAddress!, count: packed.count) }
        }
        return unsafeDowncast(buffer, to: CompactShortLink.self)
    }

    var id: Int64 { header.id }

    /// About how many bytes this link holds: its buffer, and what its box of rare fields refers to. What the link
    /// cache's byte budget counts; computed once, when the link is kept.
    var approximateByteCount: Int {
        let fields = header
        return 32 + MemoryLayout<Fields>.size + Int(fields.parametersLength) + (fields.rare?.approximateByteCount ?? 0)
    }

    /// The record this was made from; `prefix` is the one it was made with.
    func record(prefix: DomainURIPrefix) -> ShortLinkRecord {
        let fields = header
        let parameters = withUnsafeMutablePointerToElements {
            Self.unpack(UnsafeBufferPointer(start: $0, count: Int(fields.parametersLength)))
        }
        let rare = fields.rare
        return ShortLinkRecord(
            id: fields.id, projectId: fields.projectId, domain: fields.domain, code: fields.code,
            longLink: rare?.longLink ?? LongLink(prefix: prefix, parameters: parameters).url, parameters: parameters,
            suffixOption: fields.suffixOption,
            idempotencyKey: fields.flags & Self.digestFlag != 0 ? Self.hex(fields.idempotencyDigest) : rare?.idempotencyKey,
            disabled: fields.flags & Self.disabledFlag != 0,
            expiresAt: rare?.oddLimits.map(\.expiresAt) ?? (fields.expiresAt.isNaN ? nil : Date(timeIntervalSinceReferenceDate: fields.expiresAt)),
            createdAt: fields.createdAt,
            updatedAt: fields.updatedAt, archived: fields.flags & Self.archivedFlag != 0, name: rare?.name,
            fetchPreview: fields.flags & Self.fetchPreviewFlag != 0, preview: rare?.preview, rules: rare?.rules,
            maxClicks: rare?.oddLimits.map(\.maxClicks) ?? (fields.maxClicks == .min ? nil : fields.maxClicks), expiredLink: rare?.expiredLink)
    }

    static func pack(_ parameters: LinkParameters) -> [UInt8] {
        var bytes: [UInt8] = []
        let entries = parameters.entries
        bytes.reserveCapacity(entries.reduce(0) { $0 + $1.value.utf8.count + 3 })
        for (parameter, value) in entries {
            bytes.append(positions[parameter]!)
            var length = value.utf8.count
            while length >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: length) | 0x80)
                length >>= 7
            }
            bytes.append(UInt8(length))
            bytes.append(contentsOf: value.utf8)
        }
        return bytes
    }

    static func unpack(_ bytes: UnsafeBufferPointer<UInt8>) -> LinkParameters {
        var parameters = LinkParameters()
        var offset = 0
        while offset < bytes.count {
            let parameter = Self.parameters[Int(bytes[offset])]
            offset += 1
            var length = 0
            var shift = 0
            while true {
                let byte = bytes[offset]
                offset += 1
                length |= Int(byte & 0x7f) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            parameters[parameter] = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
            offset += length
        }
        return parameters
    }

    /// The 32 bytes of a key made of 64 lowercase hex digits (as `ShortLinkService` makes them), else nil.
    private static func digest(_ key: String) -> (UInt64, UInt64, UInt64, UInt64)? {
        let digits = Array(key.utf8)
        guard digits.count == 64 else { return nil }
        var words: [UInt64] = [0, 0, 0, 0]
        for (position, digit) in digits.enumerated() {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            words[position / 16] = words[position / 16] << 4 | UInt64(value)
        }
        return (words[0], words[1], words[2], words[3])
    }

    private static func hex(_ words: (UInt64, UInt64, UInt64, UInt64)) -> String {
        [words.0, words.1, words.2, words.3].map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
