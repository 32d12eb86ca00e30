import Foundation

/// Where one attribute lives in an object's value buffer, and in what native form.
struct AttributeSlot: Sendable {
    enum Kind: Sendable {
        case int16, int32, int64, double, float, bool, date, decimal, uuid
        /// Non-trivial kinds, kept as optionals so that new storage can start out as nil.
        case string, data, url, value

        init(_ type: AttributeType) {
            switch type {
            case .integer16: self = .int16
            case .integer32: self = .int32
            case .integer64: self = .int64
            case .double: self = .double
            case .float: self = .float
            case .boolean: self = .bool
            case .date: self = .date
            case .decimal: self = .decimal
            case .uuid: self = .uuid
            case .string: self = .string
            case .binary, .transformable: self = .data
            case .uri, .objectID: self = .url
            case .undefined, .composite: self = .value
            }
        }

        var size: Int {
            switch self {
            case .int16: MemoryLayout<Int16>.size
            case .int32, .float: 4
            case .int64, .double, .date: 8
            case .bool: 1
            case .decimal: MemoryLayout<Decimal>.size
            case .uuid: MemoryLayout<UUID>.size
            case .string: MemoryLayout<String?>.size
            case .data: MemoryLayout<Data?>.size
            case .url: MemoryLayout<URL?>.size
            case .value: MemoryLayout<AttributeValue>.size
            }
        }

        var alignment: Int {
            switch self {
            case .int16: 2
            case .int32, .float: 4
            case .bool: 1
            case .decimal: MemoryLayout<Decimal>.alignment
            case .uuid: MemoryLayout<UUID>.alignment
            case .int64, .double, .date: 8
            case .string: MemoryLayout<String?>.alignment
            case .data: MemoryLayout<Data?>.alignment
            case .url: MemoryLayout<URL?>.alignment
            case .value: MemoryLayout<AttributeValue>.alignment
            }
        }
    }

    let kind: Kind
    let offset: Int
}

/// The attribute values of one object in a single buffer laid out by its ``EntityLayout``: a null bitmap, then each
/// value in its native form at a fixed offset (like the stored properties of a plain class), then the object's
/// relationship slots. Reading and writing go through ``AttributeValue`` at the edges.
struct AttributeStorage {
    let base: UnsafeMutableRawPointer

    private init(base: UnsafeMutableRawPointer) { self.base = base }

    /// Allocates storage with every attribute null: a copy of the layout's empty buffer.
    init(layout: EntityLayout) {
        base = Self.allocate(layout.storageSize, alignment: layout.storageAlignment)
        base.copyMemory(from: layout.emptyStorage, byteCount: layout.storageSize)
    }

    /// `size` bytes aligned to `alignment`: from `malloc` when it aligns them (the standard library's `allocate`
    /// makes every allocation an aligned one on Linux, which costs twice as much), else from `allocate`.
    static func allocate(_ size: Int, alignment: Int) -> UnsafeMutableRawPointer {
        guard alignment <= 2 * MemoryLayout<Int>.size, let p = malloc(size) else {
            return UnsafeMutableRawPointer.allocate(byteCount: size, alignment: alignment)
        }
        return p
    }

    /// Lets go of memory from ``allocate(_:alignment:)`` (`free` takes either kind).
    static func deallocate(_ p: UnsafeMutableRawPointer) {
        Foundation.free(p)
    }

    /// A buffer of `size` bytes for `slots` with every attribute null and every relationship slot pointing nowhere
    /// (no value in it holds a reference): what ``EntityLayout`` copies into each new buffer.
    static func makeEmpty(
        slots: [AttributeSlot], size: Int, alignment: Int, relationshipOffset: Int, relationshipCount: Int
    ) -> UnsafeMutableRawPointer {
        let base = allocate(size, alignment: alignment)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        for slot in slots {
            let p = base + slot.offset
            switch slot.kind {
            case .string: p.bindMemory(to: String?.self, capacity: 1).initialize(to: nil)
            case .data: p.bindMemory(to: Data?.self, capacity: 1).initialize(to: nil)
            case .url: p.bindMemory(to: URL?.self, capacity: 1).initialize(to: nil)
            case .value: p.bindMemory(to: AttributeValue.self, capacity: 1).initialize(to: .null)
            default: break
            }
        }
        (base + relationshipOffset).bindMemory(to: RelationshipSlot.self, capacity: relationshipCount)
            .initialize(repeating: .unresolvedToOne(nil), count: relationshipCount)
        return base
    }

    /// A copy of the values (the null bitmap and every value slot, strings, data and URLs retained), with every
    /// relationship slot pointing nowhere as in new storage: what filling an object from ``SlotValues`` takes.
    func copy(layout: EntityLayout) -> AttributeStorage {
        let copy = Self.allocate(layout.storageSize, alignment: layout.storageAlignment)
        // The bitmap and the values as bits; those that hold references are then initialized as copies of their own
        // (the bits copied were not a reference of the copy's: nothing to release).
        copy.copyMemory(from: base, byteCount: layout.relationshipOffset)
        for slot in layout.referenceSlots {
            let from = base + slot.offset
            let to = copy + slot.offset
            switch slot.kind {
            case .string:
                to.bindMemory(to: String?.self, capacity: 1).initialize(
                    to: from.assumingMemoryBound(to: String?.self).pointee)
            case .data:
                to.bindMemory(to: Data?.self, capacity: 1).initialize(
                    to: from.assumingMemoryBound(to: Data?.self).pointee)
            case .url:
                to.bindMemory(to: URL?.self, capacity: 1).initialize(
                    to: from.assumingMemoryBound(to: URL?.self).pointee)
            case .value:
                to.bindMemory(to: AttributeValue.self, capacity: 1).initialize(
                    to: from.assumingMemoryBound(to: AttributeValue.self).pointee)
            default: break
            }
        }
        // The relationship slots as the layout's empty buffer has them (pointing nowhere: nothing to retain).
        (copy + layout.relationshipOffset).copyMemory(
            from: layout.emptyStorage + layout.relationshipOffset,
            byteCount: layout.storageSize - layout.relationshipOffset)
        return AttributeStorage(base: copy)
    }

    /// Makes every attribute null again (its strings, data and URLs released), leaving the relationship slots as
    /// they are.
    func clearValues(layout: EntityLayout) {
        releaseValues(layout: layout)
        // The bitmap and the values as the empty buffer has them (those that hold references: none).
        base.copyMemory(from: layout.emptyStorage, byteCount: layout.relationshipOffset)
    }

    /// Relationship slot `index` (below the layout's ``EntityLayout/relationshipCount``).
    func relationshipSlot(_ index: Int, layout: EntityLayout) -> UnsafeMutablePointer<RelationshipSlot> {
        (base + layout.relationshipOffset).assumingMemoryBound(to: RelationshipSlot.self) + index
    }

    /// The values that own this buffer while an object borrows it (see ``SlotValues/lend()``), with the retain the
    /// object holds on them; nil for a buffer nothing lends.
    func lender(layout: EntityLayout) -> Unmanaged<SlotValues>? {
        base.load(fromByteOffset: layout.lenderOffset, as: UnsafeRawPointer?.self).map {
            Unmanaged<SlotValues>.fromOpaque($0)
        }
    }

    /// Records (or, with nil, forgets) the values that lend this buffer to an object.
    func setLender(_ lender: Unmanaged<SlotValues>?, layout: EntityLayout) {
        base.storeBytes(
            of: lender.map { UnsafeRawPointer($0.toOpaque()) }, toByteOffset: layout.lenderOffset,
            as: UnsafeRawPointer?.self)
    }

    /// Moves the relationship slots into `other` (whose slots point nowhere, as in a ``copy(layout:)``), leaving
    /// these pointing nowhere: nothing retained or released.
    func moveRelationships(to other: AttributeStorage, layout: EntityLayout) {
        let size = layout.lenderOffset - layout.relationshipOffset
        (other.base + layout.relationshipOffset).copyMemory(from: base + layout.relationshipOffset, byteCount: size)
        (base + layout.relationshipOffset).copyMemory(
            from: layout.emptyStorage + layout.relationshipOffset, byteCount: size)
    }

    /// Lets go of what the relationship slots hold, leaving them pointing nowhere (the attributes as they are).
    func clearRelationships(layout: EntityLayout) {
        let relationships = (base + layout.relationshipOffset).assumingMemoryBound(to: RelationshipSlot.self)
        for index in 0..<layout.relationshipCount {
            _ = (relationships + index).move()
            (relationships + index).initialize(to: .unresolvedToOne(nil))
        }
    }

    /// Releases the values, the relationship slots and the buffer.
    func free(layout: EntityLayout) {
        let relationships = (base + layout.relationshipOffset).assumingMemoryBound(to: RelationshipSlot.self)
        for index in 0..<layout.relationshipCount { _ = (relationships + index).move() }
        releaseValues(layout: layout)
        Self.deallocate(base)
    }

    /// Releases the strings, data, URLs and other values the attribute slots hold, leaving their memory
    /// uninitialized. Each is moved out and dropped as its own type: `deinitialize(count:)` destroyed it through the
    /// type's metadata (a lookup and an indirect call per value, a fifth of tearing a fetched object down).
    private func releaseValues(layout: EntityLayout) {
        for slot in layout.referenceSlots {
            let p = base + slot.offset
            switch slot.kind {
            case .string: _ = p.assumingMemoryBound(to: String?.self).move()
            case .data: _ = p.assumingMemoryBound(to: Data?.self).move()
            case .url: _ = p.assumingMemoryBound(to: URL?.self).move()
            case .value: _ = p.assumingMemoryBound(to: AttributeValue.self).move()
            default: break
            }
        }
    }

    @inline(__always)
    private func isNull(_ index: Int) -> Bool {
        base.load(fromByteOffset: index >> 3, as: UInt8.self) & (1 << UInt8(index & 7)) == 0
    }

    @inline(__always)
    private func setPresent(_ index: Int, _ present: Bool) {
        let byte = base.load(fromByteOffset: index >> 3, as: UInt8.self)
        let bit = UInt8(1) << UInt8(index & 7)
        base.storeBytes(of: present ? byte | bit : byte & ~bit, toByteOffset: index >> 3, as: UInt8.self)
    }

    /// The value of attribute `index`.
    func value(_ index: Int, layout: EntityLayout) -> AttributeValue {
        if isNull(index) { return .null }
        let slot = layout.slots[index]
        let p = base + slot.offset
        switch slot.kind {
        case .int16: return .integer16(p.load(as: Int16.self))
        case .int32: return .integer32(p.load(as: Int32.self))
        case .int64: return .integer64(p.load(as: Int64.self))
        case .double: return .double(p.load(as: Double.self))
        case .float: return .float(p.load(as: Float.self))
        case .bool: return .boolean(p.load(as: UInt8.self) != 0)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: p.load(as: Double.self)))
        case .decimal: return .decimal(p.load(as: Decimal.self))
        case .uuid: return .uuid(p.load(as: UUID.self))
        case .string: return p.assumingMemoryBound(to: String?.self).pointee.map { .string($0) } ?? .null
        case .data:
            guard let d = p.assumingMemoryBound(to: Data?.self).pointee else { return .null }
            return layout.attributeTypes[index] == .transformable ? .transformable(d) : .binary(d)
        case .url:
            guard let u = p.assumingMemoryBound(to: URL?.self).pointee else { return .null }
            return layout.attributeTypes[index] == .objectID ? .objectID(u) : .uri(u)
        case .value: return p.assumingMemoryBound(to: AttributeValue.self).pointee
        }
    }

    /// The value of attribute `index` as a number or a text where it is one (see ``SlotValues/Scalar``).
    func scalar(_ index: Int, layout: EntityLayout) -> SlotValues.Scalar {
        switch inPlace(index, layout: layout) {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .real(let v): return .real(v)
        case .text:
            return (base + layout.slots[index].offset).assumingMemoryBound(to: String?.self).pointee.map { .text($0) }
                ?? .null
        case .other: return .other
        }
    }

    /// The value at `index` as ``scalar(_:layout:)`` gives it, a string left where it is (``withText(_:layout:_:)``).
    @inline(__always)
    func inPlace(_ index: Int, layout: EntityLayout) -> SlotValues.InPlace {
        if isNull(index) { return .null }
        let slot = layout.slots[index]
        let p = base + slot.offset
        switch slot.kind {
        case .int16: return .integer(Int64(p.load(as: Int16.self)))
        case .int32: return .integer(Int64(p.load(as: Int32.self)))
        case .int64: return .integer(p.load(as: Int64.self))
        case .bool: return .integer(p.load(as: UInt8.self) != 0 ? 1 : 0)
        case .double, .date: return .real(p.load(as: Double.self))
        case .float: return .real(Double(p.load(as: Float.self)))
        case .string: return p.assumingMemoryBound(to: String?.self).pointee == nil ? .null : .text
        case .decimal, .uuid, .data, .url, .value: return .other
        }
    }

    /// Calls `body` with the UTF-8 bytes of the string at `index`, in place (a small string's are copied to the stack
    /// first); nil when the slot holds no string.
    func withText(
        _ index: Int, layout: EntityLayout, _ body: (UnsafeBufferPointer<UInt8>) -> Int32
    ) -> Int32? {
        guard !isNull(index), layout.slots[index].kind == .string else { return nil }
        let p = (base + layout.slots[index].offset).assumingMemoryBound(to: String?.self)
        guard let utf8 = p.pointee?.utf8 else { return nil }
        if let status = utf8.withContiguousStorageIfAvailable(body) { return status }
        // (A string that does not hold its bytes in one piece, as a bridged one may not.)
        return Array(utf8).withUnsafeBufferPointer(body)
    }

    /// Whether slot `index` holds `value`: `value(index, layout:) == value`, compared where the slot is (no value made,
    /// nothing retained).
    func holds(_ index: Int, _ value: AttributeValue, layout: EntityLayout) -> Bool {
        if isNull(index) {
            if case .null = value { return true }
            return false
        }
        let p = base + layout.slots[index].offset
        switch (layout.slots[index].kind, value) {
        case (.int16, .integer16(let v)): return v == p.load(as: Int16.self)
        case (.int32, .integer32(let v)): return v == p.load(as: Int32.self)
        case (.int64, .integer64(let v)): return v == p.load(as: Int64.self)
        case (.double, .double(let v)): return v == p.load(as: Double.self)
        case (.float, .float(let v)): return v == p.load(as: Float.self)
        case (.bool, .boolean(let v)): return v == (p.load(as: UInt8.self) != 0)
        case (.date, .date(let v)): return v == Date(timeIntervalSinceReferenceDate: p.load(as: Double.self))
        case (.decimal, .decimal(let v)): return v == p.load(as: Decimal.self)
        case (.uuid, .uuid(let v)): return v == p.load(as: UUID.self)
        case (.string, _):
            guard let stored = p.assumingMemoryBound(to: String?.self).pointee else {
                if case .null = value { return true }
                return false
            }
            if case .string(let v) = value { return v == stored }
            return false
        case (.data, _):
            guard let stored = p.assumingMemoryBound(to: Data?.self).pointee else {
                if case .null = value { return true }
                return false
            }
            let transformable = layout.attributeTypes[index] == .transformable
            switch value {
            case .binary(let v): return !transformable && v == stored
            case .transformable(let v): return transformable && v == stored
            default: return false
            }
        case (.url, _):
            guard let stored = p.assumingMemoryBound(to: URL?.self).pointee else {
                if case .null = value { return true }
                return false
            }
            let objectID = layout.attributeTypes[index] == .objectID
            switch value {
            case .uri(let v): return !objectID && v == stored
            case .objectID(let v): return objectID && v == stored
            default: return false
            }
        case (.value, _): return p.assumingMemoryBound(to: AttributeValue.self).pointee == value
        default: return false
        }
    }

    /// Whether `value` can be stored in a slot of `kind` for an attribute of `type` (null always can).
    static func fits(_ value: AttributeValue, _ kind: AttributeSlot.Kind, type: AttributeType) -> Bool {
        switch (kind, value) {
        case (_, .null), (.value, _): return true
        case (.int16, .integer16), (.int32, .integer32), (.int64, .integer64), (.double, .double), (.float, .float),
            (.bool, .boolean), (.date, .date), (.decimal, .decimal), (.uuid, .uuid), (.string, .string):
            return true
        case (.data, .binary): return type == .binary
        case (.data, .transformable): return type == .transformable
        case (.url, .uri): return type == .uri
        case (.url, .objectID): return type == .objectID
        default: return false
        }
    }

    /// Stores a non-null `value` in attribute `index` if it is already in its slot's form (as ``fits(_:_:type:)``
    /// tells, one switch instead of two); whether it did. A `.value` slot takes nothing here (its values are
    /// converted first).
    @inline(__always)
    func storeIfFits(_ index: Int, _ value: AttributeValue, layout: EntityLayout) -> Bool {
        let slot = layout.slots[index]
        let p = base + slot.offset
        switch (slot.kind, value) {
        case (.int16, .integer16(let v)): p.storeBytes(of: v, as: Int16.self)
        case (.int32, .integer32(let v)): p.storeBytes(of: v, as: Int32.self)
        case (.int64, .integer64(let v)): p.storeBytes(of: v, as: Int64.self)
        case (.double, .double(let v)): p.storeBytes(of: v, as: Double.self)
        case (.float, .float(let v)): p.storeBytes(of: v, as: Float.self)
        case (.bool, .boolean(let v)): p.storeBytes(of: v ? 1 : 0, as: UInt8.self)
        case (.date, .date(let v)): p.storeBytes(of: v.timeIntervalSinceReferenceDate, as: Double.self)
        case (.decimal, .decimal(let v)): p.storeBytes(of: v, as: Decimal.self)
        case (.uuid, .uuid(let v)): p.storeBytes(of: v, as: UUID.self)
        case (.string, .string(let v)): p.assumingMemoryBound(to: String?.self).pointee = v
        case (.data, .binary(let v)):
            guard layout.attributeTypes[index] == .binary else { return false }
            p.assumingMemoryBound(to: Data?.self).pointee = v
        case (.data, .transformable(let v)):
            guard layout.attributeTypes[index] == .transformable else { return false }
            p.assumingMemoryBound(to: Data?.self).pointee = v
        case (.url, .uri(let v)):
            guard layout.attributeTypes[index] == .uri else { return false }
            p.assumingMemoryBound(to: URL?.self).pointee = v
        case (.url, .objectID(let v)):
            guard layout.attributeTypes[index] == .objectID else { return false }
            p.assumingMemoryBound(to: URL?.self).pointee = v
        default: return false
        }
        setPresent(index, true)
        return true
    }

    /// Stores a whole number read from a file in attribute `index` when it is exactly a value of the attribute's type
    /// (an integer in range, a boolean 0 or 1, a Double, Float or date that is exactly it); whether it did.
    func storeInteger(_ v: Int64, _ index: Int, layout: EntityLayout) -> Bool {
        let slot = layout.slots[index]
        let p = base + slot.offset
        switch slot.kind {
        case .int64: p.storeBytes(of: v, as: Int64.self)
        case .int32:
            guard let small = Int32(exactly: v) else { return false }
            p.storeBytes(of: small, as: Int32.self)
        case .int16:
            guard let small = Int16(exactly: v) else { return false }
            p.storeBytes(of: small, as: Int16.self)
        case .bool:
            guard v == 0 || v == 1 else { return false }
            p.storeBytes(of: UInt8(v), as: UInt8.self)
        case .double:
            guard let d = Double(exactly: v) else { return false }
            p.storeBytes(of: d, as: Double.self)
        case .float:
            guard let f = Float(exactly: v) else { return false }
            p.storeBytes(of: f, as: Float.self)
        case .date: p.storeBytes(of: Double(v), as: Double.self)
        default: return false
        }
        setPresent(index, true)
        return true
    }

    /// Stores a floating-point number read from a file in attribute `index` of type Double or date, or Float when
    /// it is exactly a Float (or NaN); whether it did.
    func storeReal(_ v: Double, _ index: Int, layout: EntityLayout) -> Bool {
        let slot = layout.slots[index]
        let p = base + slot.offset
        switch slot.kind {
        case .double, .date: p.storeBytes(of: v, as: Double.self)
        case .float:
            let f = Float(v)
            guard Double(f) == v || v.isNaN else { return false }
            p.storeBytes(of: f, as: Float.self)
        default: return false
        }
        setPresent(index, true)
        return true
    }

    /// Stores text read from a file in a String attribute `index` when it is UTF-8; whether it did.
    func storeText(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int, layout: EntityLayout) -> Bool {
        let slot = layout.slots[index]
        guard slot.kind == .string, let text = bytes.isEmpty ? "" : UTF8Text.string(bytes) else { return false }
        (base + slot.offset).assumingMemoryBound(to: String?.self).pointee = text
        setPresent(index, true)
        return true
    }

    /// Stores `value` (already converted to the attribute's type) in attribute `index`.
    func set(_ index: Int, _ value: AttributeValue, layout: EntityLayout) {
        if !value.isNull, storeIfFits(index, value, layout: layout) { return }
        // Null, a `.value` slot, or data or a URL of the other case than the attribute's type.
        let slot = layout.slots[index]
        let p = base + slot.offset
        setPresent(index, !value.isNull)
        switch (slot.kind, value) {
        case (.string, .null): p.assumingMemoryBound(to: String?.self).pointee = nil
        case (.data, .binary(let v)), (.data, .transformable(let v)): p.assumingMemoryBound(to: Data?.self).pointee = v
        case (.data, .null): p.assumingMemoryBound(to: Data?.self).pointee = nil
        case (.url, .uri(let v)), (.url, .objectID(let v)): p.assumingMemoryBound(to: URL?.self).pointee = v
        case (.url, .null): p.assumingMemoryBound(to: URL?.self).pointee = nil
        case (.value, _): p.assumingMemoryBound(to: AttributeValue.self).pointee = value
        case (_, .null): break
        default:
            preconditionFailure("attribute value \(value) does not fit slot kind \(slot.kind)")
        }
    }
}
