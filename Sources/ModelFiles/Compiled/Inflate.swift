import CZlib
import Foundation

/// zlib decompression: raw DEFLATE (RFC 1951) for `Z_MODELCACHE` blobs, and the streams other readers hold.
package enum Inflate {
    /// The most bytes one blob may inflate to; a model cache is tens of kilobytes, so more means corrupt input.
    static let maximumOutput = 256 << 20

    /// What ``stream(_:windowBits:limit:)`` read.
    package struct Result {
        /// The bytes inflated (a little past `limit` when it stopped there).
        package var output: [UInt8] = []
        /// zlib's last status: `Z_STREAM_END` when the stream ended; `Z_MEM_ERROR` when the output passed the limit
        /// (or zlib could not start: ``started``).
        package var status: Int32 = Z_OK
        /// How many input bytes were read.
        package var consumed = 0
        /// zlib's message about the data, if it gave one.
        package var message: String?
        /// Whether zlib started (it could not when out of memory).
        package var started = true
    }

    /// Inflates `input` (`windowBits` as zlib's `inflateInit2` takes it: -15 for raw DEFLATE, 15 for a zlib stream)
    /// into output that grows with the data — never sized from a length the input claims — and stops once the
    /// output passes `limit` bytes.
    package static func stream(_ input: [UInt8], windowBits: Int32, limit: Int) -> Result {
        var result = Result()
        var stream = z_stream()
        guard docutil_inflate_init2(&stream, windowBits) == Z_OK else {
            result.status = Z_MEM_ERROR
            result.started = false
            return result
        }
        defer { inflateEnd(&stream) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var source = input
        let total = source.count
        result.status = source.withUnsafeMutableBufferPointer { inBuffer -> Int32 in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(total)
            var status: Int32 = Z_OK
            repeat {
                status = chunk.withUnsafeMutableBufferPointer { outBuffer -> Int32 in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    let r = inflate(&stream, Z_NO_FLUSH)
                    result.output.append(contentsOf: outBuffer[..<(outBuffer.count - Int(stream.avail_out))])
                    return r
                }
                if result.output.count > limit { return Z_MEM_ERROR }
            } while status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
            return status
        }
        result.consumed = total - Int(stream.avail_in)
        result.message = stream.msg.map { String(cString: $0) }
        return result
    }

    static func raw(_ input: Data) throws(ModelFileError) -> Data {
        guard !input.isEmpty else { throw ModelFileError(.malformed, "model cache: empty") }
        let result = stream(Array(input), windowBits: -15, limit: maximumOutput)
        switch result.status {
        case Z_STREAM_END: return Data(result.output)
        case Z_OK, Z_BUF_ERROR:
            throw ModelFileError(
                .malformed, location: "offset \(result.consumed)", "model cache: deflate data is truncated")
        case _ where !result.started: throw ModelFileError(.io, "model cache: zlib could not start")
        case Z_MEM_ERROR where result.output.count > maximumOutput:
            throw ModelFileError(.malformed, "model cache: inflates to more than \(maximumOutput >> 20) MB")
        default:
            throw ModelFileError(
                .malformed, location: "offset \(result.consumed)",
                "model cache: \(result.message ?? "corrupt deflate data")")
        }
    }
}
