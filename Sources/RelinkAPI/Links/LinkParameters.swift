/// The parameters of a long link: at most one value per `LinkParameter`.
///
/// An empty value means "absent", so `parameters[.apn] = ""` removes `apn`; a link never carries `apn=`.
public struct LinkParameters: Hashable, Sendable {
    /// One set parameter: its position in `LinkParameter.allCases`, and its value.
    private struct Slot: Hashable, Sendable {
        let index: UInt8
        var value: String
    }

    /// The parameters that are set, in `allCases` order. A link sets a handful of the 27, and a million links may be
    /// held in memory, so only those are stored; a read compares a few small integers.
    private var slots: [Slot] = []

    public init() {}

    /// The parameters in `values`; the others are absent.
    /// - Parameter values: a value per parameter.
    public init(_ values: [LinkParameter: String]) {
        self.init()
        for (parameter, value) in values { self[parameter] = value }
    }

    public subscript(_ parameter: LinkParameter) -> String? {
        get {
            let index = UInt8(parameter.index)
            for slot in slots {
                if slot.index == index { return slot.value }
                if slot.index > index { return nil }
            }
            return nil
        }
        set {
            let index = UInt8(parameter.index)
            let position = slots.firstIndex { $0.index >= index } ?? slots.endIndex
            let present = position < slots.endIndex && slots[position].index == index
            switch (newValue, present) {
            case (let value?, true) where !value.isEmpty: slots[position].value = value
            case (let value?, false) where !value.isEmpty: slots.insert(Slot(index: index, value: value), at: position)
            case (_, true): slots.remove(at: position)
            default: break
            }
        }
    }

    public var isEmpty: Bool { slots.isEmpty }
    public var count: Int { slots.count }

    /// The parameters that are set, in builder order.
    public var entries: [(parameter: LinkParameter, value: String)] {
        slots.map { (LinkParameter.allCases[Int($0.index)], $0.value) }
    }

    /// These parameters, with each parameter that is absent here taken from `other`.
    /// - Parameter other: defaults.
    /// - Returns: the merged parameters.
    public func filling(from other: LinkParameters) -> LinkParameters {
        guard !other.slots.isEmpty else { return self }
        var merged = LinkParameters()
        merged.slots.reserveCapacity(slots.count + other.slots.count)
        var mine = slots[...]
        var theirs = other.slots[...]
        while let first = mine.first ?? theirs.first {
            if let own = mine.first, let default_ = theirs.first {
                if own.index <= default_.index {
                    merged.slots.append(own)
                    mine = mine.dropFirst()
                    if default_.index == own.index { theirs = theirs.dropFirst() }
                } else {
                    merged.slots.append(default_)
                    theirs = theirs.dropFirst()
                }
            } else {
                merged.slots.append(first)
                if mine.first != nil { mine = mine.dropFirst() } else { theirs = theirs.dropFirst() }
            }
        }
        return merged
    }
}

extension LinkParameters {
    public var link: String? {
        get { self[.link] }
        set { self[.link] = newValue }
    }
    public var apn: String? {
        get { self[.apn] }
        set { self[.apn] = newValue }
    }
    public var afl: String? {
        get { self[.afl] }
        set { self[.afl] = newValue }
    }
    public var amv: String? {
        get { self[.amv] }
        set { self[.amv] = newValue }
    }
    /// `amv` when it is a versionCode (ASCII digits fitting 32 bits), the only form the Play referrer and a claim's
    /// answer carry; anything else is warned about when the link is made, and ignored.
    public var amvVersionCode: String? {
        guard let amv, amv.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), Int32(amv) != nil else { return nil }
        return amv
    }
    public var al: String? {
        get { self[.al] }
        set { self[.al] = newValue }
    }
    public var ibi: String? {
        get { self[.ibi] }
        set { self[.ibi] = newValue }
    }
    public var ifl: String? {
        get { self[.ifl] }
        set { self[.ifl] = newValue }
    }
    public var ius: String? {
        get { self[.ius] }
        set { self[.ius] = newValue }
    }
    public var ipfl: String? {
        get { self[.ipfl] }
        set { self[.ipfl] = newValue }
    }
    public var ipbi: String? {
        get { self[.ipbi] }
        set { self[.ipbi] = newValue }
    }
    public var isi: String? {
        get { self[.isi] }
        set { self[.isi] = newValue }
    }
    public var imv: String? {
        get { self[.imv] }
        set { self[.imv] = newValue }
    }
    public var efr: String? {
        get { self[.efr] }
        set { self[.efr] = newValue }
    }
    public var ofl: String? {
        get { self[.ofl] }
        set { self[.ofl] = newValue }
    }
    public var st: String? {
        get { self[.st] }
        set { self[.st] = newValue }
    }
    public var sd: String? {
        get { self[.sd] }
        set { self[.sd] = newValue }
    }
    public var si: String? {
        get { self[.si] }
        set { self[.si] = newValue }
    }
    public var utmSource: String? {
        get { self[.utmSource] }
        set { self[.utmSource] = newValue }
    }
    public var utmMedium: String? {
        get { self[.utmMedium] }
        set { self[.utmMedium] = newValue }
    }
    public var utmCampaign: String? {
        get { self[.utmCampaign] }
        set { self[.utmCampaign] = newValue }
    }
    public var utmTerm: String? {
        get { self[.utmTerm] }
        set { self[.utmTerm] = newValue }
    }
    public var utmContent: String? {
        get { self[.utmContent] }
        set { self[.utmContent] = newValue }
    }
    public var at: String? {
        get { self[.at] }
        set { self[.at] = newValue }
    }
    public var ct: String? {
        get { self[.ct] }
        set { self[.ct] = newValue }
    }
    public var mt: String? {
        get { self[.mt] }
        set { self[.mt] = newValue }
    }
    public var pt: String? {
        get { self[.pt] }
        set { self[.pt] = newValue }
    }
    public var d: String? {
        get { self[.d] }
        set { self[.d] = newValue }
    }

    /// `efr=1`: skip the iOS preview page.
    public var isForcedRedirect: Bool { self[.efr] == "1" }
    /// `d=1`: show the debug page.
    public var isDebug: Bool { self[.d] == "1" }
}

extension LinkParameters: Codable {
    /// Encodes as a JSON object keyed by query key (`{"link": "…", "utm_source": "…"}`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode([String: String].self)
        var parameters = LinkParameters()
        for (name, value) in raw {
            guard let parameter = LinkParameter(name: name) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "'\(name)' is not a link parameter")
            }
            parameters[parameter] = value
        }
        self = parameters
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(uniqueKeysWithValues: entries.map { ($0.parameter.name, $0.value) }))
    }
}
