import Foundation

/// A streaming JSON reader (RFC 8259) over a file: the importers walk the outer arrays and objects token by token
/// and read one record at a time whole, so memory holds one record however long the file. Every value knows its
/// line and column; errors name them. Nesting deeper than ``maximumDepth`` is an error, not a stack overflow.
struct JSONReader {
    let input: ByteInput
    static let maximumDepth = 512

    init(_ input: ByteInput) {
        self.input = input
    }

    var path: String { input.url.path }

    func fail(_ message: String) -> DocumentError {
        DocumentError(.badData, "\(input.location): \(message)")
    }

    func fail(at place: ImportPlace, _ message: String) -> DocumentError {
        DocumentError(.badData, "\(place.described(in: path)): \(message)")
    }

    /// The place of the next byte.
    var place: ImportPlace { .position(line: input.line, column: input.column) }

    func skipWhitespace() throws(DocumentError) {
        while let byte = try input.peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            input.advance()
        }
    }

    /// The next significant byte, not consumed (`nil` at the end).
    func peekToken() throws(DocumentError) -> UInt8? {
        try skipWhitespace()
        return try input.peek()
    }

    /// Consumes `byte` (after whitespace), or fails saying what was expected.
    func expect(_ byte: UInt8, _ what: String) throws(DocumentError) {
        guard try peekToken() == byte else { throw fail("expected \(what), found \(try describeNext())") }
        input.advance()
    }

    func describeNext() throws(DocumentError) -> String {
        guard let byte = try input.peek() else { return "the end of the file" }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }

    /// Checks nothing but whitespace follows the top-level value.
    func expectEnd() throws(DocumentError) {
        if try peekToken() != nil { throw fail("unexpected \(try describeNext()) after the end of the JSON value") }
    }

    // MARK: Walking containers

    /// After `[`: whether another element follows (consuming the comma before it), or the array ended (consuming
    /// `]`). `first` is true for the first call on an array.
    func nextElement(first: Bool) throws(DocumentError) -> Bool {
        if try peekToken() == UInt8(ascii: "]") {
            input.advance()
            return false
        }
        if !first { try expect(UInt8(ascii: ","), "',' or ']'") }
        if try peekToken() == UInt8(ascii: "]") { throw fail("expected a value after ','") }
        return true
    }

    /// After `{`: the next member's key (consuming it and its colon), or `nil` when the object ended.
    func nextKey(first: Bool) throws(DocumentError) -> (String, ImportPlace)? {
        if try peekToken() == UInt8(ascii: "}") {
            input.advance()
            return nil
        }
        if !first { try expect(UInt8(ascii: ","), "',' or '}'") }
        guard try peekToken() == UInt8(ascii: "\"") else {
            throw fail("expected a member name in double quotes, found \(try describeNext())")
        }
        let at = place
        let key = try readString()
        try expect(UInt8(ascii: ":"), "':' after the member name")
        return (key, at)
    }

    // MARK: Whole values

    /// Reads one whole value.
    func readValue(depth: Int = 0) throws(DocumentError) -> ImportNode {
        guard depth < Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth) levels") }
        guard let byte = try peekToken() else { throw fail("expected a value, found the end of the file") }
        let at = place
        switch byte {
        case UInt8(ascii: "{"):
            input.advance()
            var fields: [ImportField] = []
            var seen = Set<String>()
            var first = true
            while let (key, keyPlace) = try nextKey(first: first) {
                first = false
                guard seen.insert(key).inserted else {
                    throw fail(at: keyPlace, "the member '\(key)' appears twice in one object")
                }
                fields.append(ImportField(name: key, node: try readValue(depth: depth + 1)))
            }
            return ImportNode(.object(fields), at: at)
        case UInt8(ascii: "["):
            input.advance()
            var items: [ImportNode] = []
            var first = true
            while try nextElement(first: first) {
                first = false
                items.append(try readValue(depth: depth + 1))
            }
            return ImportNode(.array(items), at: at)
        case UInt8(ascii: "\""):
            return ImportNode(.string(try readString()), at: at)
        case UInt8(ascii: "t"):
            try literal("true")
            return ImportNode(.bool(true), at: at)
        case UInt8(ascii: "f"):
            try literal("false")
            return ImportNode(.bool(false), at: at)
        case UInt8(ascii: "n"):
            try literal("null")
            return ImportNode(.null, at: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return ImportNode(try readNumber(), at: at)
        default:
            throw fail("expected a value, found \(try describeNext())")
        }
    }

    private func literal(_ word: String) throws(DocumentError) {
        let start = input.location
        for expected in word.utf8 {
            guard try input.peek() == expected else { throw DocumentError(.badData, "\(start): expected '\(word)'") }
            input.advance()
        }
    }

    /// A number: a whole number that fits 64 bits as an integer, anything else as its exact text.
    private func readNumber() throws(DocumentError) -> ImportValue {
        var text: [UInt8] = []
        let start = input.location
        func digits() throws(DocumentError) -> Int {
            var count = 0
            while let byte = try input.peek(), byte >= 0x30 && byte <= 0x39 {
                text.append(byte)
                input.advance()
                count += 1
            }
            return count
        }
        if try input.peek() == UInt8(ascii: "-") {
            text.append(UInt8(ascii: "-"))
            input.advance()
        }
        let firstDigit = text.count
        let whole = try digits()
        guard whole > 0, whole == 1 || text[firstDigit] != UInt8(ascii: "0") else {
            throw DocumentError(.badData, "\(start): not a JSON number (no digits, or a leading zero)")
        }
        var isInteger = true
        if try input.peek() == UInt8(ascii: ".") {
            isInteger = false
            text.append(UInt8(ascii: "."))
            input.advance()
            guard try digits() > 0 else { throw DocumentError(.badData, "\(start): no digits after the decimal point") }
        }
        if let byte = try input.peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            isInteger = false
            text.append(byte)
            input.advance()
            if let sign = try input.peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                text.append(sign)
                input.advance()
            }
            guard try digits() > 0 else { throw DocumentError(.badData, "\(start): no digits in the exponent") }
        }
        let literal = String(decoding: text, as: UTF8.self)
        if isInteger, let value = Int64(literal) { return .integer(value) }
        return .number(literal)
    }

    /// A string, after its opening quote is next.
    func readString() throws(DocumentError) -> String {
        let start = input.location
        input.advance()  // the opening quote
        var bytes: [UInt8] = []
        while true {
            guard let byte = try input.next() else {
                throw DocumentError(.badData, "\(start): the string is not closed before the end of the file")
            }
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw DocumentError(.badData, "\(start): the string is not UTF-8 text")
                }
                return text
            case UInt8(ascii: "\\"):
                let escapeAt = input.location
                guard let escaped = try input.next() else {
                    throw DocumentError(.badData, "\(start): the string is not closed before the end of the file")
                }
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escaped)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4(escapeAt)
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard try input.next() == UInt8(ascii: "\\"), try input.next() == UInt8(ascii: "u") else {
                            throw DocumentError(.badData, "\(escapeAt): a high surrogate without its low surrogate")
                        }
                        let low = try hex4(escapeAt)
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw DocumentError(.badData, "\(escapeAt): a high surrogate without its low surrogate")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else {
                        throw DocumentError(.badData, "\(escapeAt): \\u escape of a lone surrogate")
                    }
                    bytes.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw DocumentError(
                        .badData, "\(escapeAt): unknown escape '\\\(Character(Unicode.Scalar(escaped)))'")
                }
            case 0x00..<0x20:
                throw DocumentError(.badData, "\(input.location): a control character inside a string (escape it)")
            default:
                bytes.append(byte)
            }
        }
    }

    private func hex4(_ at: String) throws(DocumentError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try input.next() else { throw DocumentError(.badData, "\(at): a short \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
            default: throw DocumentError(.badData, "\(at): a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | digit
        }
        return value
    }
}
