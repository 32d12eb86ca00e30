import Foundation
import ModelFiles
import ObjectGraph
import Testing

/// The transformer registry: Core Data's keyed-archive names built in, an app's own registered by name.
@Suite struct ValueTransformerRegistryTests {
    struct Reversed: StoredValueTransformer {
        func value(from data: Data) throws -> PropertyList { .string(String(decoding: data.reversed(), as: UTF8.self)) }
    }

    @Test func builtInAndRegisteredTransformers() throws {
        for name in [nil, "NSSecureUnarchiveFromData", "NSKeyedUnarchiveFromDataTransformerName"] {
            #expect(ValueTransformerRegistry.transformer(forName: name) is SecureUnarchiveFromData)
        }
        #expect(ValueTransformerRegistry.transformer(forName: "ReversingTransformer") == nil)
        ValueTransformerRegistry.register(Reversed(), forName: "ReversingTransformer")
        let reversed = try #require(ValueTransformerRegistry.transformer(forName: "ReversingTransformer"))
        #expect(try reversed.value(from: Data("abc".utf8)) == .string("cba"))
        // Bytes that are not a keyed archive are an error, never an empty value.
        #expect(throws: (any Error).self) { try SecureUnarchiveFromData().value(from: Data("nope".utf8)) }
    }
}
