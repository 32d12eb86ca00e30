import Foundation
import ModelFiles
import ObjectGraph
import Testing

/// Inputs the fuzzers found (Fuzz/), kept so that what they broke stays fixed: each is refused with an error.
struct ModelFilesFuzzFindingsTests {
    @Test(arguments: [
        // Object references wider than Int trapped when converted.
        "YnBsaXN0MTXR/gIDCVFhUXWlBAUGBwgQASNABAAAAAAAAAlReEEAgAMIDQ8RFxkiIyUnAAAAKAAAAAEIAAAAAAAAAAoAAAAAAAAAAAAAAAAAAAAp",
        "YnBsaXN0MDDSAQIDCVFhUXWlBAUGBwgQASNABAAAAAAAAAlReEEAEwAIDQ8RFhkiIyUnAAAAAAAAAQgAAAAAAAAACgAAAAAAAAAAAAAAAAAAACk=",
        "YnBsaXN0MDDSAQIDCVFhUXWlBAUGBwgQASNABAAAAAAAAAlReEEAUwAIDQ8RFhkiIyUnAAAAAAAAAQgAAAAAAAAACgAAAAAAAAAAAAAAAAAAACk=",
    ])
    func damagedPropertyListsAreErrors(base64: String) throws {
        let data = try #require(Data(base64Encoded: base64))
        #expect(throws: ModelFileError.self) { try PropertyList.read(data) }
    }
}
