import Foundation
import ObjectGraph

/// Reads Apple's binary property lists (`bplist00`).
///
/// Every offset, count and reference is checked against the data, so truncated or corrupt input gives a
/// ``ModelFileError`` naming the byte offset, never a crash. Nesting deeper than ``maximumDepth`` and reference
/// cycles are rejected.
struct BinaryPropertyListReader {
    /// Objects already decoded (a list that refers to one object many times decodes it once) and the
    /// containers being decoded (to detect cycles).
    private struct DecodeState {
        var decoded: [Int: PropertyList] = [:]
        var visiting: Set<Int> = []
    }

    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var offsetIntSize = 0
    private var objectRefSize = 0
    private var objectCount = 0
    private var topObject = 0
    private var offsetTableOffset = 0

    init(data: Data) {
        self.bytes = Array(data)
    }

    private func fail(_ offset: Int, _ message: String) -> ModelFileError {
        ModelFileError(.malformed, location: "offset \(offset)", "binary property list: \(message)")
    }

    mutating func read() throws(ModelFileError) -> PropertyList {
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist0".utf8)) else {
            throw fail(0, "too short or no 'bplist0' header")
        }
        let trailer = bytes.count - 32
        offsetIntSize = Int(bytes[trailer + 6])
        objectRefSize = Int(bytes[trailer + 7])
        let count = readUInt(at: trailer + 8, size: 8)
        let top = readUInt(at: trailer + 16, size: 8)
        let table = readUInt(at: trailer + 24, size: 8)
        guard [1, 2, 4, 8].contains(offsetIntSize), [1, 2, 4, 8].contains(objectRefSize) else {
            throw fail(trailer + 6, "bad integer sizes in trailer (\(offsetIntSize), \(objectRefSize))")
        }
        guard count > 0, count < UInt64(bytes.count), top < count else {
            throw fail(trailer + 8, "bad object count \(count) or top object \(top)")
        }
        guard table >= 8, table < UInt64(trailer),
            UInt64(trailer) - table >= count * UInt64(offsetIntSize)
        else {
            throw fail(trailer + 24, "offset table at \(table) does not fit in the file")
        }
        objectCount = Int(count)
        topObject = Int(top)
        offsetTableOffset = Int(table)
        var state = DecodeState()
        return try object(topObject, depth: 0, state: &state)
    }

    private func readUInt(at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    private func checked(_ offset: Int, _ size: Int, _ what: String) throws(ModelFileError) {
        guard offset >= 0, size >= 0, offset <= offsetTableOffset, size <= offsetTableOffset - offset else {
            throw fail(offset, "\(what) runs past the end of the object data")
        }
    }

    private func offset(ofObject index: Int) throws(ModelFileError) -> Int {
        guard index >= 0, index < objectCount else {
            throw fail(offsetTableOffset, "object reference \(index) out of range")
        }
        let value = readUInt(at: offsetTableOffset + index * offsetIntSize, size: offsetIntSize)
        guard value >= 8, value < UInt64(offsetTableOffset) else {
            throw fail(offsetTableOffset + index * offsetIntSize, "object \(index) has bad offset \(value)")
        }
        return Int(value)
    }

    /// Reads the length that follows a marker whose low nibble is 0xF.
    private func length(marker: UInt8, at start: Int) throws(ModelFileError) -> (count: Int, next: Int) {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return (low, start + 1) }
        try checked(start + 1, 1, "length")
        let intMarker = bytes[start + 1]
        guard intMarker & 0xF0 == 0x10 else {
            throw fail(start + 1, "bad length marker 0x\(String(intMarker, radix: 16))")
        }
        let size = 1 << Int(intMarker & 0x0F)
        guard size <= 8 else { throw fail(start + 1, "length integer too wide") }
        try checked(start + 2, size, "length")
        let value = readUInt(at: start + 2, size: size)
        guard value < UInt64(bytes.count) else { throw fail(start + 2, "length \(value) larger than the file") }
        return (Int(value), start + 2 + size)
    }

    private func refs(at start: Int, count: Int) throws(ModelFileError) -> [Int] {
        let (total, overflow) = count.multipliedReportingOverflow(by: objectRefSize)
        guard !overflow else { throw fail(start, "reference list too long") }
        try checked(start, total, "reference list")
        // A reference too large for Int is out of range like any other: the object lookup refuses it.
        return (0..<count).map { Int(clamping: readUInt(at: start + $0 * objectRefSize, size: objectRefSize)) }
    }

    private func object(_ index: Int, depth: Int, state: inout DecodeState) throws(ModelFileError) -> PropertyList {
        if let done = state.decoded[index] { return done }
        let value = try decode(index, depth: depth, state: &state)
        state.decoded[index] = value
        return value
    }

    private func decode(_ index: Int, depth: Int, state: inout DecodeState) throws(ModelFileError) -> PropertyList {
        guard depth < Self.maximumDepth else { throw fail(0, "nesting deeper than \(Self.maximumDepth)") }
        let start = try offset(ofObject: index)
        let marker = bytes[start]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default: throw fail(start, "unknown marker 0x\(String(marker, radix: 16))")
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            guard size <= 16 else { throw fail(start, "integer of \(size) bytes") }
            try checked(start + 1, size, "integer")
            if size == 16 {
                // 128-bit integers hold 64-bit values with a sign-extended high half.
                return .integer(Int64(bitPattern: readUInt(at: start + 9, size: 8)))
            }
            let raw = readUInt(at: start + 1, size: size)
            return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x2:
            let size = 1 << Int(marker & 0x0F)
            try checked(start + 1, size, "real")
            switch size {
            case 4: return .real(Double(Float(bitPattern: UInt32(readUInt(at: start + 1, size: 4)))))
            case 8: return .real(Double(bitPattern: readUInt(at: start + 1, size: 8)))
            default: throw fail(start, "real of \(size) bytes")
            }
        case 0x3:
            guard marker == 0x33 else { throw fail(start, "bad date marker") }
            try checked(start + 1, 8, "date")
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: readUInt(at: start + 1, size: 8))))
        case 0x4:
            let (count, next) = try length(marker: marker, at: start)
            try checked(next, count, "data")
            return .data(Data(bytes[next..<next + count]))
        case 0x5:
            let (count, next) = try length(marker: marker, at: start)
            try checked(next, count, "ASCII string")
            let ascii = bytes[next..<next + count]
            // Never read with replacement characters: writers put other text in UTF-16 strings.
            guard ascii.allSatisfy({ $0 < 0x80 }) else {
                throw fail(start, "an ASCII string holds a byte that is not ASCII")
            }
            return .string(String(decoding: ascii, as: UTF8.self))
        case 0x6:
            let (count, next) = try length(marker: marker, at: start)
            let (byteCount, overflow) = count.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw fail(start, "string too long") }
            try checked(next, byteCount, "UTF-16 string")
            var units: [UInt16] = []
            units.reserveCapacity(count)
            for i in 0..<count { units.append(UInt16(bytes[next + 2 * i]) << 8 | UInt16(bytes[next + 2 * i + 1])) }
            guard let string = String(validating: units, as: UTF16.self) else {
                throw fail(start, "a UTF-16 string holds a lone surrogate, which a string here cannot hold")
            }
            return .string(string)
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            try checked(start + 1, size, "UID")
            let value = readUInt(at: start + 1, size: size)
            guard value < UInt64(Int32.max) else { throw fail(start, "UID \(value) too large") }
            return .uid(Int(value))
        case 0xA, 0xC:
            let (count, next) = try length(marker: marker, at: start)
            let elements = try refs(at: next, count: count)
            guard state.visiting.insert(index).inserted else { throw fail(start, "reference cycle") }
            defer { state.visiting.remove(index) }
            var result: [PropertyList] = []
            result.reserveCapacity(count)
            for element in elements { result.append(try object(element, depth: depth + 1, state: &state)) }
            return .array(result)
        case 0xD:
            let (count, next) = try length(marker: marker, at: start)
            let keys = try refs(at: next, count: count)
            let values = try refs(at: next + count * objectRefSize, count: count)
            guard state.visiting.insert(index).inserted else { throw fail(start, "reference cycle") }
            defer { state.visiting.remove(index) }
            var result: [String: PropertyList] = [:]
            for (k, v) in zip(keys, values) {
                guard case .string(let key) = try object(k, depth: depth + 1, state: &state) else {
                    throw fail(start, "dictionary key is not a string")
                }
                result[key] = try object(v, depth: depth + 1, state: &state)
            }
            return .dictionary(result)
        default:
            throw fail(start, "unknown marker 0x\(String(marker, radix: 16))")
        }
    }
}
