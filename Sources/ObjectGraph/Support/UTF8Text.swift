/// Text read from a file as UTF-8, never with replacement characters: bytes that are not UTF-8 give no string, so
/// the reader reports them (or keeps them as bytes) instead of changing the value.
package enum UTF8Text {
    /// The string `bytes` hold, or nil when they are not UTF-8.
    ///
    /// Text that is all ASCII (the common case) is found eight bytes at a time and decoded without a second
    /// check; other text is validated by the standard library.
    package static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let raw = UnsafeRawBufferPointer(bytes)
        var high: UInt64 = 0
        var i = 0
        while i + 8 <= raw.count {
            high |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < raw.count {
            high |= UInt64(raw[i])
            i += 1
        }
        if high & 0x8080_8080_8080_8080 == 0 { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }
}
