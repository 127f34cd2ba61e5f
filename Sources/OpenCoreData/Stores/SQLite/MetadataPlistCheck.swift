import Foundation

/// Refuses a binary property list that holds a set object before it reaches `PropertyListSerialization`:
/// swift-corelibs-foundation crashes (SEGV while bridging `NSSet`) on some malformed sets in a `bplist00`, and
/// Core Data's store metadata never contains a set. Found by `Fuzz/` (FuzzStoreMetadataPlist).
///
/// ```swift
/// guard MetadataPlistCheck.binaryPlistHasNoSet(blob) else { throw … }
/// ```
enum MetadataPlistCheck {
    /// False when `data` is a binary plist whose object table holds a set (marker 0xC_); true otherwise (including
    /// data that is not a well-formed binary plist, which `PropertyListSerialization` then refuses with an error).
    static func binaryPlistHasNoSet(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 40, bytes.starts(with: Array("bplist".utf8)) else { return true }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        func integer(at index: Int, size: Int) -> Int? {
            guard size >= 1, size <= 8, index >= 0, index + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for byte in bytes[index..<(index + size)] { value = value << 8 | UInt64(byte) }
            return value > UInt64(Int.max) ? nil : Int(value)
        }
        guard let objectCount = integer(at: trailer + 8, size: 8), let tableOffset = integer(at: trailer + 24, size: 8),
              objectCount <= bytes.count, tableOffset < trailer else { return true }
        for object in 0..<objectCount {
            guard let offset = integer(at: tableOffset + object * offsetSize, size: offsetSize), offset < trailer else { return true }
            if bytes[offset] >> 4 == 0xC { return false }
        }
        return true
    }
}
