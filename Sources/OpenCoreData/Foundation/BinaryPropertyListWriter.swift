// The writing half of `BinaryPropertyList`: encodes `PropertyListObject` values as `bplist00` data, the
// format NSKeyedArchiver archives are stored in (compiled models, model caches, mapping-model expressions).

import Foundation

/// Writes `PropertyListObject` values as Apple binary property lists (`bplist00`).
///
/// Every value becomes one object of the object table (no sharing: keyed archives share through `$objects`
/// and UIDs, not through the plist layer). Integers use the smallest of 1, 2, 4 or 8 bytes (8 for negative
/// values, as Apple writes them), strings are ASCII when they can be and UTF-16BE otherwise.
///
/// ```swift
/// let data = BinaryPropertyListWriter.write(.dictionary(["a": .integer(1)]))
/// try BinaryPropertyList.read(data) // .dictionary(["a": .integer(1)])
/// ```
enum BinaryPropertyListWriter {
    /// Encodes `root` as a binary property list.
    static func write(_ root: PropertyListObject) -> Data {
        var flattener = Flattener()
        _ = flattener.add(root)
        let objects = flattener.objects
        let referenceSize = byteCount(for: UInt64(objects.count))
        var body: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(body.count)
            encode(object, referenceSize: referenceSize, into: &body)
        }
        let offsetTableStart = body.count
        let offsetSize = byteCount(for: UInt64(offsetTableStart))
        for offset in offsets { appendUnsigned(UInt64(offset), size: offsetSize, to: &body) }
        body += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        appendUnsigned(UInt64(objects.count), size: 8, to: &body)
        appendUnsigned(0, size: 8, to: &body)  // the top object is the first one
        appendUnsigned(UInt64(offsetTableStart), size: 8, to: &body)
        return Data(body)
    }

    /// One object of the table: a scalar, or a container whose elements are indexes into the table.
    private enum FlatObject {
        case scalar(PropertyListObject)
        case array([Int], isSet: Bool)
        case dictionary(keys: [Int], values: [Int])
    }

    private struct Flattener {
        var objects: [FlatObject] = []
        var strings: [String: Int] = [:]  // dictionary keys are shared, as Apple's writer shares them

        mutating func add(_ value: PropertyListObject) -> Int {
            let index = objects.count
            switch value {
            case .array(let elements), .set(let elements):
                objects.append(.scalar(.null))
                let references = elements.map { add($0) }
                if case .set = value { objects[index] = .array(references, isSet: true) } else { objects[index] = .array(references, isSet: false) }
            case .dictionary(let entries):
                objects.append(.scalar(.null))
                // Apple's keyed archives list keys in no particular order; sorting makes output reproducible.
                let keys = entries.keys.sorted()
                let keyReferences = keys.map { addKey($0) }
                let valueReferences = keys.map { add(entries[$0]!) }
                objects[index] = .dictionary(keys: keyReferences, values: valueReferences)
            default:
                objects.append(.scalar(value))
            }
            return index
        }

        mutating func addKey(_ key: String) -> Int {
            if let existing = strings[key] { return existing }
            let index = objects.count
            objects.append(.scalar(.string(key)))
            strings[key] = index
            return index
        }
    }

    private static func byteCount(for value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    private static func appendUnsigned(_ value: UInt64, size: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func appendMarker(_ high: UInt8, count: Int, to bytes: inout [UInt8]) {
        if count < 15 {
            bytes.append(high << 4 | UInt8(count))
        } else {
            bytes.append(high << 4 | 0x0F)
            appendInteger(Int64(count), to: &bytes)
        }
    }

    private static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        let size = value < 0 ? 8 : byteCount(for: UInt64(value))
        bytes.append(0x10 | UInt8(size.trailingZeroBitCount))
        appendUnsigned(UInt64(bitPattern: value), size: size, to: &bytes)
    }

    private static func encode(_ object: FlatObject, referenceSize: Int, into bytes: inout [UInt8]) {
        switch object {
        case .array(let references, let isSet):
            appendMarker(isSet ? 0xC : 0xA, count: references.count, to: &bytes)
            for reference in references { appendUnsigned(UInt64(reference), size: referenceSize, to: &bytes) }
        case .dictionary(let keys, let values):
            appendMarker(0xD, count: keys.count, to: &bytes)
            for reference in keys + values { appendUnsigned(UInt64(reference), size: referenceSize, to: &bytes) }
        case .scalar(let value):
            switch value {
            case .null: bytes.append(0x00)
            case .boolean(let flag): bytes.append(flag ? 0x09 : 0x08)
            case .integer(let number): appendInteger(number, to: &bytes)
            case .unsignedInteger(let number):
                bytes.append(0x14)
                appendUnsigned(0, size: 8, to: &bytes)
                appendUnsigned(number, size: 8, to: &bytes)
            case .real(let number):
                bytes.append(0x23)
                appendUnsigned(number.bitPattern, size: 8, to: &bytes)
            case .date(let seconds):
                bytes.append(0x33)
                appendUnsigned(seconds.bitPattern, size: 8, to: &bytes)
            case .data(let data):
                appendMarker(0x4, count: data.count, to: &bytes)
                bytes += data
            case .string(let string):
                if string.utf8.allSatisfy({ $0 < 0x80 }) {
                    appendMarker(0x5, count: string.utf8.count, to: &bytes)
                    bytes += string.utf8
                } else {
                    let units = Array(string.utf16)
                    appendMarker(0x6, count: units.count, to: &bytes)
                    for unit in units { appendUnsigned(UInt64(unit), size: 2, to: &bytes) }
                }
            case .uid(let reference):
                let size = byteCount(for: reference)
                bytes.append(0x80 | UInt8(size - 1))
                appendUnsigned(reference, size: size, to: &bytes)
            case .array, .set, .dictionary:
                preconditionFailure("containers are flattened before encoding")
            }
        }
    }
}
