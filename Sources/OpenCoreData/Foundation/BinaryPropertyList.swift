// A strict reader for Apple's binary property list format (`bplist00`), including the `UID`
// values that keyed archives use. swift-corelibs-foundation's `NSKeyedUnarchiver` stops the
// process on some malformed archives, so archives are read and checked with this reader first
// (see `KeyedArchive`); only archives that pass are handed to Foundation.

import Foundation

/// One object of a binary property list.
///
/// Dictionaries keep only string keys (keyed archives use nothing else); a dictionary with another
/// kind of key is refused by the reader.
///
/// ```swift
/// let value = try BinaryPropertyList.read(data)
/// if case .dictionary(let top) = value, case .string("NSKeyedArchiver") = top["$archiver"] { … }
/// ```
package indirect enum PropertyListObject: Equatable, Sendable {
    case null
    case boolean(Bool)
    case integer(Int64)
    /// A 16-byte integer whose value does not fit `Int64` (Apple writes large `UInt64` values so).
    case unsignedInteger(UInt64)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case data([UInt8])
    case string(String)
    /// An object reference of a keyed archive (an index into `$objects`).
    case uid(UInt64)
    case array([PropertyListObject])
    case set([PropertyListObject])
    case dictionary([String: PropertyListObject])
}

/// Why a binary property list was refused.
package struct BinaryPropertyListError: Error, CustomStringConvertible {
    package let description: String
}

/// Reads `bplist00` data into `PropertyListObject` values, checking every offset, count and
/// reference against the data's bounds, and refusing reference cycles and nesting deeper than
/// `maximumDepth`.
///
/// ```swift
/// let object = try BinaryPropertyList.read(Data(base64Encoded: archive)!)
/// ```
enum BinaryPropertyList {
    /// Containers nested deeper than this are refused (keyed archives nest two or three levels).
    static let maximumDepth = 64

    /// Parses `data` as a binary property list.
    static func read(_ data: Data) throws(BinaryPropertyListError) -> PropertyListObject {
        var reader = try Reader(bytes: [UInt8](data))
        return try reader.object(at: reader.topObject, depth: 0)
    }

    private struct Reader {
        let bytes: [UInt8]
        let offsetSize: Int
        let referenceSize: Int
        let objectCount: Int
        let topObject: Int
        let offsetTableStart: Int
        var cache: [Int: PropertyListObject] = [:]
        var inProgress: Set<Int> = []

        init(bytes: [UInt8]) throws(BinaryPropertyListError) {
            self.bytes = bytes
            let header = Array("bplist00".utf8)
            guard bytes.count >= header.count + 32, Array(bytes.prefix(header.count)) == header else {
                throw BinaryPropertyListError(description: "not a binary property list")
            }
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
                throw BinaryPropertyListError(description: "bad trailer sizes")
            }
            let count = Self.unsigned(bytes, at: trailer + 8, size: 8)
            let top = Self.unsigned(bytes, at: trailer + 16, size: 8)
            let table = Self.unsigned(bytes, at: trailer + 24, size: 8)
            guard count > 0, count <= UInt64(bytes.count), top < count,
                  table >= UInt64(header.count), table <= UInt64(trailer),
                  count * UInt64(offsetSize) <= UInt64(trailer) - table else {
                throw BinaryPropertyListError(description: "bad trailer")
            }
            objectCount = Int(count)
            topObject = Int(top)
            offsetTableStart = Int(table)
        }

        static func unsigned(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        func offset(ofObject index: Int) throws(BinaryPropertyListError) -> Int {
            let offset = Self.unsigned(bytes, at: offsetTableStart + index * offsetSize, size: offsetSize)
            guard offset >= 8, offset < UInt64(offsetTableStart) else {
                throw BinaryPropertyListError(description: "object offset out of range")
            }
            return Int(offset)
        }

        /// Checks that `count` bytes starting at `start` lie before the offset table.
        func require(_ start: Int, _ count: Int) throws(BinaryPropertyListError) {
            guard count >= 0, start <= offsetTableStart, count <= offsetTableStart - start else {
                throw BinaryPropertyListError(description: "object runs past the end of the data")
            }
        }

        /// Reads the length of a variable-size object: the marker's low nibble, or a following integer.
        func length(marker: UInt8, at position: inout Int) throws(BinaryPropertyListError) -> Int {
            let nibble = Int(marker & 0x0F)
            guard nibble == 0x0F else { return nibble }
            try require(position, 1)
            let intMarker = bytes[position]
            guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
                throw BinaryPropertyListError(description: "bad length marker")
            }
            let size = 1 << Int(intMarker & 0x0F)
            try require(position + 1, size)
            let value = Self.unsigned(bytes, at: position + 1, size: size)
            position += 1 + size
            guard value <= UInt64(offsetTableStart) else {
                throw BinaryPropertyListError(description: "length larger than the data")
            }
            return Int(value)
        }

        func references(count: Int, at position: Int) throws(BinaryPropertyListError) -> [Int] {
            let (total, overflow) = count.multipliedReportingOverflow(by: referenceSize)
            guard !overflow else { throw BinaryPropertyListError(description: "container too large") }
            try require(position, total)
            var result: [Int] = []
            result.reserveCapacity(count)
            for index in 0..<count {
                let reference = Self.unsigned(bytes, at: position + index * referenceSize, size: referenceSize)
                guard reference < UInt64(objectCount) else {
                    throw BinaryPropertyListError(description: "object reference out of range")
                }
                result.append(Int(reference))
            }
            return result
        }

        mutating func object(at index: Int, depth: Int) throws(BinaryPropertyListError) -> PropertyListObject {
            if let cached = cache[index] { return cached }
            guard depth <= BinaryPropertyList.maximumDepth else {
                throw BinaryPropertyListError(description: "nesting too deep")
            }
            guard inProgress.insert(index).inserted else {
                throw BinaryPropertyListError(description: "reference cycle")
            }
            defer { inProgress.remove(index) }
            let value = try parse(at: try offset(ofObject: index), depth: depth)
            cache[index] = value
            return value
        }

        mutating func parse(at start: Int, depth: Int) throws(BinaryPropertyListError) -> PropertyListObject {
            let marker = bytes[start]
            var position = start + 1
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return .null
                case 0x08: return .boolean(false)
                case 0x09: return .boolean(true)
                default: throw BinaryPropertyListError(description: "unknown marker \(marker)")
                }
            case 0x1:
                let exponent = Int(marker & 0x0F)
                guard exponent <= 4 else { throw BinaryPropertyListError(description: "bad integer size") }
                let size = 1 << exponent
                try require(position, size)
                if size == 16 {
                    let high = Self.unsigned(bytes, at: position, size: 8)
                    let low = Self.unsigned(bytes, at: position + 8, size: 8)
                    guard high == 0 else { throw BinaryPropertyListError(description: "integer too large") }
                    return low <= UInt64(Int64.max) ? .integer(Int64(low)) : .unsignedInteger(low)
                }
                let raw = Self.unsigned(bytes, at: position, size: size)
                return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
            case 0x2:
                switch marker & 0x0F {
                case 2:
                    try require(position, 4)
                    return .real(Double(Float(bitPattern: UInt32(Self.unsigned(bytes, at: position, size: 4)))))
                case 3:
                    try require(position, 8)
                    return .real(Double(bitPattern: Self.unsigned(bytes, at: position, size: 8)))
                default: throw BinaryPropertyListError(description: "bad real size")
                }
            case 0x3:
                guard marker == 0x33 else { throw BinaryPropertyListError(description: "bad date marker") }
                try require(position, 8)
                return .date(Double(bitPattern: Self.unsigned(bytes, at: position, size: 8)))
            case 0x4:
                let count = try length(marker: marker, at: &position)
                try require(position, count)
                return .data(Array(bytes[position..<(position + count)]))
            case 0x5:
                let count = try length(marker: marker, at: &position)
                try require(position, count)
                // ASCII strings; bytes above 0x7F are read as Latin-1 rather than refused.
                let scalars = bytes[position..<(position + count)].map { Character(Unicode.Scalar($0)) }
                return .string(String(scalars))
            case 0x6:
                let count = try length(marker: marker, at: &position)
                let (byteCount, overflow) = count.multipliedReportingOverflow(by: 2)
                guard !overflow else { throw BinaryPropertyListError(description: "string too large") }
                try require(position, byteCount)
                let units = (0..<count).map { UInt16(Self.unsigned(bytes, at: position + 2 * $0, size: 2)) }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                let size = Int(marker & 0x0F) + 1
                guard size <= 8 else { throw BinaryPropertyListError(description: "UID too large") }
                try require(position, size)
                return .uid(Self.unsigned(bytes, at: position, size: size))
            case 0xA, 0xB, 0xC:
                let count = try length(marker: marker, at: &position)
                let elements = try references(count: count, at: position)
                var values: [PropertyListObject] = []
                values.reserveCapacity(count)
                for element in elements { values.append(try object(at: element, depth: depth + 1)) }
                return marker >> 4 == 0xC ? .set(values) : .array(values)
            case 0xD:
                let count = try length(marker: marker, at: &position)
                let keys = try references(count: count, at: position)
                let values = try references(count: count, at: position + count * referenceSize)
                var dictionary: [String: PropertyListObject] = [:]
                for (key, value) in zip(keys, values) {
                    guard case .string(let name) = try object(at: key, depth: depth + 1) else {
                        throw BinaryPropertyListError(description: "dictionary key is not a string")
                    }
                    dictionary[name] = try object(at: value, depth: depth + 1)
                }
                return .dictionary(dictionary)
            default:
                throw BinaryPropertyListError(description: "unknown marker \(marker)")
            }
        }
    }
}
