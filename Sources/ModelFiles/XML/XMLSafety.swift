public import Foundation
import ObjectGraph

/// The rules every XML document we read must follow before libxml2 sees it: no DTD internal subset (so no entity
/// or attribute-default declarations, nothing to expand: the "billion laughs" and external-entity attacks have
/// nothing to work with), and an ASCII-compatible encoding (so that this check reads what libxml2 will read).
/// Entity references that remain (undeclared ones, which a document with an external DTD may carry) are refused by
/// the readers when they meet them; character references and the five predefined entities are XML itself.
public enum XMLSafety {
    /// Checks the prolog of an XML document.
    /// - Parameter data: the document's bytes.
    /// - Throws: ``ModelFileError`` `malformed` naming the offset of a DTD internal subset or the encoding problem.
    public static func checkProlog(_ data: Data) throws(ModelFileError) {
        do {
            let bytes = Array(data.prefix(prologLimit))
            var i = 0
            let n = bytes.count
            if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
            if n >= i + 2,
                (bytes[i] == 0xFE && bytes[i + 1] == 0xFF) || (bytes[i] == 0xFF && bytes[i + 1] == 0xFE)
                    || bytes[i] == 0 || (i + 1 < n && bytes[i + 1] == 0)
            {
                throw ModelFileError(
                    .malformed, location: "offset \(i)",
                    "XML: only UTF-8 (or another ASCII-compatible encoding) is read, not UTF-16 or UTF-32")
            }
            func starts(_ text: StaticString) -> Bool {
                let count = text.utf8CodeUnitCount
                guard i + count <= n else { return false }
                for k in 0..<count where bytes[i + k] != text.utf8Start[k] { return false }
                return true
            }
            func skip(past end: StaticString) {
                let count = end.utf8CodeUnitCount
                while i < n {
                    if starts(end) {
                        i += count
                        return
                    }
                    i += 1
                }
            }
            while i < n {
                switch bytes[i] {
                case 0x20, 0x09, 0x0A, 0x0D:
                    i += 1
                    continue
                default:
                    break
                }
                if starts("<?") {
                    skip(past: "?>")
                } else if starts("<!--") {
                    skip(past: "-->")
                } else if starts("<!DOCTYPE") {
                    let start = i
                    var quote: UInt8 = 0
                    i += 9
                    while i < n {
                        let b = bytes[i]
                        if quote != 0 {
                            if b == quote { quote = 0 }
                        } else if b == 0x22 || b == 0x27 {
                            quote = b
                        } else if b == UInt8(ascii: "[") {
                            throw ModelFileError(
                                .malformed, location: "offset \(start)",
                                "XML: the document declares a DTD internal subset (entity or attribute declarations); such documents are refused and their entities never expanded"
                            )
                        } else if b == UInt8(ascii: ">") {
                            i += 1
                            break
                        }
                        i += 1
                    }
                } else {
                    return
                }
            }
            if n == prologLimit {
                throw ModelFileError(
                    .malformed, location: "offset \(n)", "XML: no root element in the first \(prologLimit) bytes")
            }
        }
    }

    /// How far the prolog (declarations, comments, DOCTYPE) may reach before the root element.
    public static let prologLimit = 1 << 20

    /// The error for an entity reference met while reading (`&name;` other than the predefined ones).
    /// - Parameters:
    ///   - name: the entity's name.
    ///   - location: where it was met.
    /// - Returns: a `malformed` error: entity references are refused, never expanded.
    public static func entityReference(_ name: String, location: String?) -> ModelFileError {
        ModelFileError(
            .malformed, location: location,
            "XML: the document uses the entity &\(Diagnostics.quote(name, limit: 60)); entities are never expanded, so it is refused"
        )
    }
}
