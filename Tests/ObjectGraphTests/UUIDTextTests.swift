import Foundation
import ObjectGraph
import Testing

/// `UUIDText.parse` accepts exactly the texts Foundation's `UUID(uuidString:)` accepts, with the same value.
@Suite struct UUIDTextTests {
    @Test func readsWhatFoundationReads() {
        var texts: [String] = [
            "", "0", "00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
            "ffffffff-ffff-ffff-ffff-ffffffffffff", "59F2297C-C110-421E-B5C3-9E7AC72B1AFC",
            "59f2297c-c110-421e-b5c3-9e7ac72b1afc", "59F2297CC110421EB5C39E7AC72B1AFC",
            "59F2297C-C110-421E-B5C3-9E7AC72B1AF", "59F2297C-C110-421E-B5C3-9E7AC72B1AFCD",
            "59F2297C_C110-421E-B5C3-9E7AC72B1AFC", "59F2297C-C110-421E-B5C3-9E7AC72B1AFG",
            "{59F2297C-C110-421E-B5C3-9E7AC72B1AFC}", " 59F2297C-C110-421E-B5C3-9E7AC72B1AFC",
            "59F2297C-C110-421E-B5C3-9E7AC72B1AF\u{E9}", "5-9F2297CC110-421E-B5C3-9E7AC72B1AFC",
            "59F2297C-C110-421E-B5C3-9E7AC72B1AF-", "-9F2297C-C110-421E-B5C3-9E7AC72B1AFC",
        ]
        for _ in 0..<2_000 {
            let uuid = UUID().uuidString
            texts.append(Bool.random() ? uuid : uuid.lowercased())
            // One character changed to anything printable.
            var scalars = Array(uuid.unicodeScalars)
            scalars[Int.random(in: 0..<scalars.count)] = Unicode.Scalar(UInt8.random(in: 0x20...0x7E))
            texts.append(String(String.UnicodeScalarView(scalars)))
        }
        for text in texts {
            #expect(UUIDText.parse(text) == UUID(uuidString: text), "\(text)")
        }
    }
}
