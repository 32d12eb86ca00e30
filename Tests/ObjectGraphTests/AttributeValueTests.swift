import Foundation
import ObjectGraph
import Testing

struct AttributeValueTests {
    @Test func referenceDateIsJanuaryFirst2001() {
        let date = ReferenceDate.date(secondsSinceReferenceDate: 0)
        #expect(date.timeIntervalSince1970 == ReferenceDate.secondsAfterUnixEpoch)
        #expect(ReferenceDate.seconds(of: Date(timeIntervalSince1970: 978_307_200 + 86_400)) == 86_400)
    }

    @Test(arguments: [
        ("100", AttributeType.integer16, AttributeValue.integer16(100)),
        ("-32768", .integer16, .integer16(-32768)),
        ("2147483647", .integer32, .integer32(2_147_483_647)),
        ("9223372036854775807", .integer64, .integer64(.max)),
        ("YES", .integer32, .integer32(1)),
        ("2.5", .double, .double(2.5)),
        ("9.2e-5", .double, .double(9.2e-5)),
        ("2.5", .float, .float(2.5)),
        ("YES", .boolean, .boolean(true)),
        ("NO", .boolean, .boolean(false)),
        ("0.0", .boolean, .boolean(false)),
        ("true", .boolean, .boolean(true)),
        ("Untitled", .string, .string("Untitled")),
        ("388411200", .date, .date(Date(timeIntervalSinceReferenceDate: 388_411_200))),
        ("2013-04-23 12:00:00 +0000", .date, .date(Date(timeIntervalSinceReferenceDate: 388_411_200))),
        ("2013-04-23T12:00:00Z", .date, .date(Date(timeIntervalSinceReferenceDate: 388_411_200))),
        (
            "9DA05BB0-3F2A-4C1F-978F-3D70EC917014", .uuid,
            .uuid(UUID(uuidString: "9DA05BB0-3F2A-4C1F-978F-3D70EC917014")!)
        ),
        ("https://example.com/a?b=c", .uri, .uri(URL(string: "https://example.com/a?b=c")!)),
        ("AAEC", .binary, .binary(Data([0, 1, 2]))),
    ])
    func parsesModelFileText(text: String, type: AttributeType, expected: AttributeValue) throws {
        #expect(try AttributeValue(parsing: text, as: type) == expected)
    }

    /// Parsing trims white space at either end (tabs, spaces, Unicode spaces) and nothing else, whichever way it
    /// gets there (text that ends in printable ASCII is not copied).
    /// A value in a message describes itself by its literal text and type; a NaN date too (Foundation's own date
    /// description stops the program on one).
    @Test func valuesDescribeThemselvesEvenNaNDates() {
        #expect("\(AttributeValue.date(Date(timeIntervalSinceReferenceDate: .nan)))" == "nan (Date)")
        #expect("\(AttributeValue.integer16(7))" == "7 (Integer 16)")
        #expect("\([AttributeValue.string("a"), .null])" == #"["a", null]"#)
    }

    @Test func parsingTrimsWhiteSpaceOnly() throws {
        for text in ["42", " 42", "42 ", "\t42\t", "\u{00A0}42\u{2003}", "  42\u{3000}"] {
            #expect(try AttributeValue(parsing: text, as: .integer64) == .integer64(42), "\(text.debugDescription)")
        }
        for text in ["4 2", "\n42", "42\n", "x42", ""] {
            #expect(throws: ValueConversionError.self, "\(text.debugDescription)") {
                try AttributeValue(parsing: text, as: .integer64)
            }
        }
        #expect(try AttributeValue(parsing: " a b ", as: .string) == .string(" a b "))
        #expect(try AttributeValue(parsing: "\u{00A0}YES", as: .boolean) == .boolean(true))
    }

    @Test func decimalParsingIsExact() throws {
        let value = try AttributeValue(parsing: "12345678901234567890.123456789", as: .decimal)
        #expect(value.literalText == "12345678901234567890.123456789")
    }

    @Test(arguments: [
        ("40000", AttributeType.integer16), ("x", .integer32), ("1.5", .integer64), ("maybe", .boolean),
        ("not a date", .date), ("nope", .uuid), ("", .uri), ("1.2.3", .decimal), ("abc", .double),
    ])
    func rejectsTextThatIsNotTheType(text: String, type: AttributeType) {
        #expect(throws: ValueConversionError.self) { try AttributeValue(parsing: text, as: type) }
    }

    @Test(arguments: [
        AttributeValue.integer16(-7), .integer32(70000), .integer64(-9_000_000_000), .double(0.1), .double(-2.5e300),
        .float(3.25), .boolean(true), .boolean(false), .string("a \"quoted\" string"),
        .date(Date(timeIntervalSinceReferenceDate: 632_791_365.430915)),
        .uuid(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!), .uri(URL(string: "file:///tmp/x")!),
        .binary(Data([0xDE, 0xAD, 0xBE, 0xEF])), .transformable(Data([1, 2, 3])),
    ])
    func literalTextReadsBackToAnEqualValue(value: AttributeValue) throws {
        let type = try #require(value.type)
        #expect(try AttributeValue(parsing: value.literalText, as: type) == value)
    }

    @Test func integerConversionsAreLossless() throws {
        #expect(try AttributeValue.integer64(120).converted(to: .integer16) == .integer16(120))
        #expect(throws: ValueConversionError.self) { try AttributeValue.integer64(70_000).converted(to: .integer16) }
        #expect(try AttributeValue.double(42).converted(to: .integer32) == .integer32(42))
        #expect(throws: ValueConversionError.self) { try AttributeValue.double(42.5).converted(to: .integer32) }
        #expect(try AttributeValue.integer32(1).converted(to: .boolean) == .boolean(true))
        #expect(throws: ValueConversionError.self) { try AttributeValue.integer32(2).converted(to: .boolean) }
        #expect(
            try AttributeValue.integer64(9_007_199_254_740_992).converted(to: .double) == .double(9_007_199_254_740_992)
        )
        #expect(throws: ValueConversionError.self) {
            try AttributeValue.integer64(9_007_199_254_740_993).converted(to: .double)
        }
        #expect(try AttributeValue.double(0.5).converted(to: .float) == .float(0.5))
        #expect(throws: ValueConversionError.self) { try AttributeValue.double(0.1).converted(to: .float) }
        #expect(try AttributeValue.decimal(Decimal(string: "12")!).converted(to: .integer64) == .integer64(12))
        #expect(throws: ValueConversionError.self) {
            try AttributeValue.decimal(Decimal(string: "12.5")!).converted(to: .integer64)
        }
    }

    @Test func otherConversions() throws {
        let uuid = UUID()
        #expect(try AttributeValue.binary(uuid.bytes).converted(to: .uuid) == .uuid(uuid))
        #expect(try AttributeValue.uuid(uuid).converted(to: .string) == .string(uuid.uuidString))
        #expect(
            try AttributeValue.double(86_400).converted(to: .date)
                == .date(Date(timeIntervalSinceReferenceDate: 86_400)))
        #expect(try AttributeValue.string("12").converted(to: .integer32) == .integer32(12))
        #expect(try AttributeValue.null.converted(to: .string) == .null)
        #expect(throws: ValueConversionError.self) { try AttributeValue.boolean(true).converted(to: .date) }
        #expect(throws: ValueConversionError.self) { try AttributeValue.string("x").converted(to: .composite) }
    }

    @Test func numericAccessors() {
        #expect(AttributeValue.integer16(5).int64Value == 5)
        #expect(AttributeValue.float(1.5).doubleValue == 1.5)
        #expect(AttributeValue.double(1.5).int64Value == nil)
        #expect(AttributeValue.boolean(true).doubleValue == 1)
        #expect(AttributeValue.string("x").doubleValue == nil)
        #expect(AttributeValue.integer32(3).decimalValue == Decimal(3))
        #expect(AttributeValue.null.type == nil)
        #expect(AttributeValue.null.isNull)
    }

    @Test func everyTypeHasAnXcodeNameThatReadsBack() {
        for type in AttributeType.allCases {
            #expect(AttributeType(xcodeName: type.xcodeName) == type)
        }
        #expect(AttributeType(xcodeName: "Binary Data") == .binary)
        #expect(AttributeType(xcodeName: "Object ID") == .objectID)
        #expect(AttributeType(xcodeName: "Integer 12") == nil)
    }
}
