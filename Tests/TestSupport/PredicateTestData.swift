public import Foundation
public import ObjectGraph

/// The shared data set of the predicate suite: a person with to-one and to-many values of every kind.
public enum PredicateTestData {
    public static let birthday = Date(timeIntervalSinceReferenceDate: -31_622_400)  // 2000-01-01 00:00:00 UTC
    public static let uuid = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!

    public static func friend(_ name: String, _ age: Int64, tags: [String], city: String) -> PredicateValue {
        .dictionary([
            "name": .string(name), "age": .integer(age), "tags": .collection(tags.map { .string($0) }, ordered: false),
            "address": .dictionary(["city": .string(city)]),
        ])
    }

    public static var person: PredicateValue {
        .dictionary([
            "name": .string("Alice"),
            "age": .integer(30),
            "height": .double(1.68),
            "salary": .decimal(Decimal(string: "5000.50")!),
            "isActive": .boolean(true),
            "isAdmin": .boolean(false),
            "nickname": .null,
            "birthday": .date(birthday),
            "city": .string("Zürich"),
            "email": .string("alice@example.com"),
            "title": .string("Dr. Strange"),
            "notes": .string("line1\nline2"),
            "quote": .string("say \"hi\""),
            "tags": .collection([.string("swift"), .string("core data"), .string("linux")], ordered: false),
            "scores": .collection([.integer(90), .integer(85), .integer(77)], ordered: true),
            "empty": .collection([], ordered: false),
            "zero": .integer(0),
            "negative": .integer(-5),
            "big": .integer(Int64.max),
            "uuid": .uuid(uuid),
            "homepage": .url(URL(string: "https://example.com/alice")!),
            "avatar": .data(Data([1, 2, 3])),
            "address": .dictionary([
                "city": .string("Paris"), "zip": .string("75001"), "country": .dictionary(["code": .string("FR")]),
            ]),
            "manager": .null,
            "friends": .collection(
                [
                    friend("Bob", 25, tags: ["a"], city: "Berlin"),
                    friend("Carol", 35, tags: ["b", "c"], city: "Paris"),
                    friend("Dave", 40, tags: [], city: "Rome"),
                ], ordered: false),
            "size": .integer(3),
            "first": .string("reserved"),
        ])
    }
}
