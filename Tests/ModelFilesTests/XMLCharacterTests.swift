import Foundation
import ModelFiles
import ObjectGraph
import Testing

/// Text written as XML (a model's `contents`, a property list) is read back as it was written, or not written at
/// all: a carriage return comes back (a parser turns a bare one into a line feed), a character XML 1.0 cannot
/// hold is an error naming it.
struct XMLCharacterTests {
    static func model(note: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Book", attributes: [AttributeDescription(name: "title", type: .string)],
                userInfo: ["note": note])
        ])
    }

    @Test(arguments: ["a\rb", "a\r\nb", "tab\there\nand there", "\u{FFFD}\u{10FFFF} & <x>"])
    func writableTextComesBackAsItWas(text: String) throws {
        let model = try Self.model(note: text)
        let reread = try ModelLoader.readContents(Data(try XcodeModelWriter.contents(of: model).utf8))
        #expect(reread.entity(named: "Book")?.userInfo["note"] == text)
        let plist = try XMLPropertyListWriter.document(.dictionary(["note": .string(text), text: .integer(1)]))
        #expect(try PropertyList.read(Data(plist.utf8)) == .dictionary(["note": .string(text), text: .integer(1)]))
    }

    @Test(arguments: ["a\u{1}b", "\u{0}", "\u{FFFE}", "x\u{1B}[0m"])
    func unwritableTextIsAnError(text: String) throws {
        let model = try Self.model(note: text)
        do {
            _ = try XcodeModelWriter.contents(of: model)
            Issue.record("a model holding \(text.debugDescription) was written")
        } catch {
            #expect(error.message.contains("U+"), "\(error)")
        }
        #expect(throws: ModelFileError.self) { try XMLPropertyListWriter.document(.string(text)) }
    }
}
