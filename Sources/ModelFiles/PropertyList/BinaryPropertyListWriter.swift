public import Foundation
public import ObjectGraph

/// Writes binary property lists (`bplist00`), for SQLite store metadata (`Z_METADATA.Z_PLIST`).
public enum BinaryPropertyListWriter {
    /// The binary property list for a value (UIDs and nulls are written as in keyed archives).
    /// - Parameter value: the value.
    /// - Returns: the `bplist00` bytes.
    public static func data(_ value: PropertyList) -> Data {
        var objects: [[UInt8]] = []
        var uniqued: [PropertyList: Int] = [:]
        func add(_ value: PropertyList) -> Int {
            if case .array = value {
            } else if case .dictionary = value {
            } else if let known = uniqued[value] {
                return known
            }
            let index = objects.count
            objects.append([])
            var bytes: [UInt8] = []
            switch value {
            case .null: bytes = [0x00]
            case .boolean(let b): bytes = [b ? 0x09 : 0x08]
            case .integer(let i):
                if i >= 0 && i <= 0xFF {
                    bytes = [0x10, UInt8(i)]
                } else if i >= 0 && i <= 0xFFFF {
                    bytes = [0x11] + bigEndian(UInt64(i), 2)
                } else if i >= 0 && i <= 0xFFFF_FFFF {
                    bytes = [0x12] + bigEndian(UInt64(i), 4)
                } else {
                    bytes = [0x13] + bigEndian(UInt64(bitPattern: i), 8)
                }
            case .real(let r): bytes = [0x23] + bigEndian(r.bitPattern, 8)
            case .date(let d): bytes = [0x33] + bigEndian(d.timeIntervalSinceReferenceDate.bitPattern, 8)
            case .data(let d): bytes = header(0x4, d.count) + Array(d)
            case .string(let s):
                if s.utf8.allSatisfy({ $0 < 0x80 }) {
                    bytes = header(0x5, s.utf8.count) + Array(s.utf8)
                } else {
                    let units = Array(s.utf16)
                    bytes = header(0x6, units.count)
                    for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
                }
            case .uid(let u): bytes = [0x80 | 3] + bigEndian(UInt64(u), 4)
            case .array(let items):
                let refs = items.map { add($0) }
                bytes = header(0xA, refs.count) + refs.flatMap { bigEndian(UInt64($0), 4) }
            case .dictionary(let entries):
                let sorted = entries.sorted { $0.key < $1.key }
                let keyRefs = sorted.map { add(.string($0.key)) }
                let valueRefs = sorted.map { add($0.value) }
                bytes = header(0xD, sorted.count) + (keyRefs + valueRefs).flatMap { bigEndian(UInt64($0), 4) }
            }
            objects[index] = bytes
            if case .array = value {} else if case .dictionary = value {} else { uniqued[value] = index }
            return index
        }
        let top = add(value)
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let tableOffset = out.count
        for offset in offsets { out += bigEndian(UInt64(offset), 8) }
        out += [0, 0, 0, 0, 0, 0, 8, 4]
        out += bigEndian(UInt64(objects.count), 8)
        out += bigEndian(UInt64(top), 8)
        out += bigEndian(UInt64(tableOffset), 8)
        return Data(out)
    }

    private static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    private static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
        if count < 15 { return [kind << 4 | UInt8(count)] }
        let length: [UInt8] =
            count <= 0xFF
            ? [0x10, UInt8(count)]
            : count <= 0xFFFF
                ? [0x11] + bigEndian(UInt64(count), 2)
                : [0x12] + bigEndian(UInt64(count), 4)
        return [kind << 4 | 0x0F] + length
    }
}
