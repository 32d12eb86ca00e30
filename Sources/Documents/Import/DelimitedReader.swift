import Foundation

/// One record of a CSV or TSV file: its fields and where each starts.
struct DelimitedRecord {
    var fields: [String] = []
    /// `(line, column)` of each field's first character.
    var positions: [(line: Int, column: Int)] = []
}

/// Reads CSV (RFC 4180) or TSV records one at a time: fields separated by `,` (or a tab), records by CRLF or LF,
/// fields in double quotes may hold separators, line breaks and doubled quotes. UTF-8, with or without a byte order
/// mark. Empty lines are skipped. A quote inside an unquoted field is kept as it is (as most CSV readers do).
struct DelimitedReader {
    let input: ByteInput
    let separator: UInt8
    private var scratch: [UInt8] = []

    init(_ input: ByteInput, separator: UInt8) {
        self.input = input
        self.separator = separator
        scratch.reserveCapacity(256)
    }

    /// The next record, or `nil` at the end of the file.
    /// - Throws: ``DocumentError`` `badData` for an unterminated quoted field, text after a closing quote, or
    ///   bytes that are not UTF-8, at `FILE:LINE:COLUMN`; `io` when reading fails.
    mutating func next() throws(DocumentError) -> DelimitedRecord? {
        var record = DelimitedRecord()
        return try next(into: &record) ? record : nil
    }

    /// Reads the next record into `record` (its arrays reused); `false` at the end of the file.
    /// - Parameter record: replaced by the record read.
    /// - Returns: whether there was a record.
    /// - Throws: as ``next()``.
    mutating func next(into record: inout DelimitedRecord) throws(DocumentError) -> Bool {
        // Empty lines between records are skipped.
        while let byte = try input.peek(), byte == 0x0A || byte == 0x0D { input.advance() }
        guard try input.peek() != nil else { return false }
        record.fields.removeAll(keepingCapacity: true)
        record.positions.removeAll(keepingCapacity: true)
        while true {
            let start = (input.line, input.column)
            scratch.removeAll(keepingCapacity: true)
            if try input.peek() == UInt8(ascii: "\"") {
                input.advance()
                try readQuoted(openedAt: start)
            } else {
                try input.take(until: separator, into: &scratch)
            }
            record.fields.append(try text(of: scratch, at: start))
            record.positions.append(start)
            switch try input.next() {
            case nil, 0x0A:
                return true
            case 0x0D:
                if try input.peek() == 0x0A { input.advance() }
                return true
            default:
                continue  // the separator: another field follows
            }
        }
    }

    /// The field's bytes as text: ASCII as it is (most fields, and checked quickly), anything else validated as
    /// UTF-8.
    private func text(of bytes: [UInt8], at start: (Int, Int)) throws(DocumentError) -> String {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        if high < 0x80 { return String(decoding: bytes, as: UTF8.self) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw DocumentError(.badData, "\(input.url.path):\(start.0):\(start.1): the field is not UTF-8 text")
        }
        return text
    }

    /// Reads a quoted field's contents after its opening quote, up to and including the closing quote.
    private mutating func readQuoted(openedAt start: (Int, Int)) throws(DocumentError) {
        while true {
            guard let byte = try input.next() else {
                throw DocumentError(
                    .badData,
                    "\(input.url.path):\(start.0):\(start.1): the quoted field is not closed before the end of the file"
                )
            }
            if byte == UInt8(ascii: "\"") {
                if try input.peek() == UInt8(ascii: "\"") {
                    input.advance()
                    scratch.append(byte)
                    continue
                }
                if let after = try input.peek(), after != separator, after != 0x0A, after != 0x0D {
                    throw DocumentError(
                        .badData,
                        "\(input.location): unexpected text after the closing quote of the field at \(start.0):\(start.1)"
                    )
                }
                return
            }
            scratch.append(byte)
        }
    }
}
