import Foundation
import Testing

@testable import DocUtilCLI

/// The byte buffer dump's and query's JSON is written into: numbers, strings and UUIDs written by hand must read back
/// as the values they stand for, whatever the buffer's size when they are written.
struct JSONBytesTests {
    @Test func integersAreWrittenAsTheirDecimalText() {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 101, 999, 1_000, 65_536, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            // Every magnitude, not only large ones.
            let bits = Int.random(in: 0...63, using: &generator)
            let value = Int64.random(in: 0...(Int64.max >> (63 - bits)), using: &generator)
            values.append(Bool.random(using: &generator) ? value : -value)
        }
        // A small buffer, so that writing crosses its growth many times.
        var out = JSONBytes(capacity: 1)
        var expected = ""
        for value in values {
            out.append(integer: value)
            out.append(byte: UInt8(ascii: ","))
            expected += "\(value),"
        }
        #expect(out.string == expected)
        #expect(out.count == expected.utf8.count)
    }

    @Test func stringsReadBackAsTheTextWritten() throws {
        var texts = [
            "", "plain", "quote \" inside", "back\\slash", "\n\r\t", "\u{0}\u{1}\u{1F}\u{7F}", "é 🙂 中文",
            "\"\\\"\\", String(repeating: "long ", count: 500),
        ]
        var generator = SystemRandomNumberGenerator()
        let pieces: [Character] = ["a", "\"", "\\", "\n", "\u{0}", "\u{1B}", "é", "🙂", " ", "/", "\u{2028}"]
        for _ in 0..<300 {
            texts.append(
                String(
                    (0..<Int.random(in: 0...40, using: &generator)).map { _ in pieces.randomElement(using: &generator)!
                    }))
        }
        for text in texts {
            var out = JSONBytes(capacity: 1)
            out.append(string: text)
            let data = Data(out.bytes)
            #expect(try JSONDecoder().decode(String.self, from: data) == text, "\(text.debugDescription)")
            // Only what JSON requires is escaped: `"`, `\` and C0 controls.
            #expect(!out.bytes.dropFirst().dropLast().contains { $0 < 0x20 })
        }
    }

    @Test func uuidsNewlinesAndLiteralsAreWrittenAsTheyRead() {
        var out = JSONBytes(capacity: 1)
        let uuid = UUID()
        out.append(uuid: uuid)
        out.newline(0)
        out.newline(3)
        out.append(literal: "null")
        out.newline(40)
        out.append(bytes: Array("end".utf8))
        #expect(out.string == "\"\(uuid.uuidString)\"\n\n      null\n" + String(repeating: " ", count: 80) + "end")
        out.removeAll()
        #expect(out.count == 0)
        out.append("again")
        #expect(out.string == "again")
    }
}
