// Raw DEFLATE (RFC 1951, no zlib or gzip header — zlib's `windowBits = -15`), the compression of a store's
// model cache (`Z_MODELCACHE.Z_CONTENT`, research/store-format.md §2.3), through the system zlib.

import CZlib
import Foundation

/// Why DEFLATE data could not be inflated.
package struct DeflateError: Error, CustomStringConvertible {
    package let description: String
}

/// Compresses and decompresses raw DEFLATE streams.
///
/// ```swift
/// let packed = try Deflate.deflate(archive)
/// try Deflate.inflate(packed) == archive  // true
/// ```
package enum Deflate {
    /// Inflated data larger than this is refused (a model archive is a few hundred kilobytes; this bounds what a
    /// damaged or hostile store can make the reader allocate).
    static let maximumInflatedSize = 256 << 20

    /// Decompresses a complete raw DEFLATE stream; trailing bytes after the final block are refused.
    package static func inflate(_ data: Data) throws(DeflateError) -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw DeflateError(description: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var input = [UInt8](data)
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            while true {
                let result: Int32 = chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = uInt(chunkBuffer.count)
                    let result = CZlib.inflate(&stream, Z_NO_FLUSH)
                    output.append(chunkBuffer.baseAddress!, count: chunkBuffer.count - Int(stream.avail_out))
                    return result
                }
                if result == Z_STREAM_END { return stream.avail_in == 0 ? Z_STREAM_END : Z_DATA_ERROR }
                if result != Z_OK { return result == Z_BUF_ERROR ? Z_BUF_ERROR : result }
                if output.count > maximumInflatedSize { return Z_MEM_ERROR }
            }
        }
        switch status {
        case Z_STREAM_END: return output
        case Z_BUF_ERROR: throw DeflateError(description: "the DEFLATE stream is truncated")
        case Z_MEM_ERROR: throw DeflateError(description: "the inflated data is larger than \(maximumInflatedSize) bytes")
        default: throw DeflateError(description: "the data is not a valid DEFLATE stream (zlib status \(status)), or has trailing bytes")
        }
    }

    /// Compresses `data` as one raw DEFLATE stream (best compression).
    package static func deflate(_ data: Data) -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            preconditionFailure("zlib could not start deflating (out of memory)")
        }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let written: Int = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                let result = CZlib.deflate(&stream, Z_FINISH)
                precondition(result == Z_STREAM_END, "deflateBound was too small")  // zlib guarantees it is not
                return outputBuffer.count - Int(stream.avail_out)
            }
        }
        return Data(output.prefix(written))
    }
}
