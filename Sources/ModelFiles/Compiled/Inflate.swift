import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951) decompression through zlib, for `Z_MODELCACHE` blobs.
enum Inflate {
    /// The most bytes one blob may inflate to; a model cache is tens of kilobytes, so more means corrupt input.
    static let maximumOutput = 256 << 20

    static func raw(_ input: Data) throws(ModelFileError) -> Data {
        guard !input.isEmpty else { throw ModelFileError(.malformed, "model cache: empty") }
        var stream = z_stream()
        guard docutil_inflate_init2(&stream, -15) == Z_OK else {
            throw ModelFileError(.io, "model cache: zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        var source = Array(input)
        let total = source.count
        status = source.withUnsafeMutableBufferPointer { inBuffer -> Int32 in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(total)
            var result: Int32 = Z_OK
            repeat {
                result = chunk.withUnsafeMutableBufferPointer { outBuffer -> Int32 in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    let r = inflate(&stream, Z_NO_FLUSH)
                    output.append(outBuffer.baseAddress!, count: outBuffer.count - Int(stream.avail_out))
                    return r
                }
                if output.count > maximumOutput { return Z_MEM_ERROR }
            } while result == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
            return result
        }
        switch status {
        case Z_STREAM_END: return output
        case Z_OK, Z_BUF_ERROR:
            throw ModelFileError(
                .malformed, location: "offset \(stream.total_in)", "model cache: deflate data is truncated")
        case Z_MEM_ERROR:
            throw ModelFileError(.malformed, "model cache: inflates to more than \(maximumOutput >> 20) MB")
        default:
            let reason = stream.msg.map { String(cString: $0) } ?? "corrupt deflate data"
            throw ModelFileError(.malformed, location: "offset \(stream.total_in)", "model cache: \(reason)")
        }
    }
}
