// Typed access to the objects of a checked `KeyedArchive`, for the codecs that decode Apple's classes by
// hand (predicates and expressions, compiled models) instead of through NSKeyedUnarchiver: those classes
// do not exist on Linux under their Apple names, and their archives (model caches) contain reference
// cycles that Foundation's unarchiver would follow.

import Foundation

/// Reads fields, strings, numbers, collections and Foundation values out of a keyed archive, throwing
/// `KeyedArchiveError` for anything of the wrong shape.
///
/// ```swift
/// let reader = try KeyedArchiveReader(data: data)
/// let root = try reader.root()
/// let name = try reader.string(reader.field("NSEntityName", of: root))
/// ```
package struct KeyedArchiveReader {
    let archive: KeyedArchive

    package init(data: Data) throws(KeyedArchiveError) {
        archive = try KeyedArchive(data: data)
    }

    /// The object under `$top.root` (refused when absent or `$null`).
    package func root(key: String = "root") throws(KeyedArchiveError) -> Int {
        guard let root = archive.top[key], root != 0 else { throw KeyedArchiveError(description: "the archive has no \(key) object") }
        return root
    }

    /// The class name of object `index` (`NSString` for inline strings, `NSNumber` for numbers).
    package func className(_ index: Int) -> String? {
        archive.archivedClassName(ofObject: index)
    }

    /// The raw value of field `key` of object `index` (nil when the object has no such field).
    func field(_ key: String, of index: Int) -> PropertyListObject? {
        archive.fields(ofObject: index)?[key]
    }

    /// The object referred to by field `key` of object `index`, or nil for a missing field or `$null`.
    package func reference(_ key: String, of index: Int) throws(KeyedArchiveError) -> Int? {
        switch field(key, of: index) {
        case nil: return nil
        case .uid(let reference)?: return reference == 0 ? nil : Int(reference)
        default: throw KeyedArchiveError(description: "\(describe(index)): \(key) is not an object reference")
        }
    }

    /// Like ``reference(_:of:)``, refusing a missing or `$null` field.
    package func requiredReference(_ key: String, of index: Int) throws(KeyedArchiveError) -> Int {
        guard let reference = try reference(key, of: index) else {
            throw KeyedArchiveError(description: "\(describe(index)): \(key) is missing")
        }
        return reference
    }

    /// The string object `index` (an inline string or an NSString/NSMutableString object).
    package func string(at index: Int) throws(KeyedArchiveError) -> String {
        switch archive.objects[index] {
        case .string(let value) where value != "$null": return value
        case .dictionary where ["NSString", "NSMutableString"].contains(className(index)):
            if case .string(let value)? = field("NS.string", of: index) { return value }
            if case .data(let bytes)? = field("NS.bytes", of: index), let value = String(bytes: bytes, encoding: .utf8) { return value }
        default: break
        }
        throw KeyedArchiveError(description: "object \(index) is not a string")
    }

    /// The string under field `key`, or nil for a missing field or `$null`.
    package func string(_ key: String, of index: Int) throws(KeyedArchiveError) -> String? {
        guard let reference = try reference(key, of: index) else { return nil }
        return try string(at: reference)
    }

    /// The integer under field `key` (inline, or a reference to a number), or nil when absent.
    package func integer(_ key: String, of index: Int) throws(KeyedArchiveError) -> Int? {
        switch field(key, of: index) {
        case nil: return nil
        case .integer(let value)?: return Int(exactly: value) ?? Int(truncatingIfNeeded: value)
        case .boolean(let value)?: return value ? 1 : 0
        case .uid(let reference)? where reference != 0:
            if case .integer(let value) = archive.objects[Int(reference)] { return Int(truncatingIfNeeded: value) }
        default: break
        }
        throw KeyedArchiveError(description: "\(describe(index)): \(key) is not an integer")
    }

    /// The boolean under field `key`, or `defaultValue` when absent.
    package func bool(_ key: String, of index: Int, default defaultValue: Bool = false) throws(KeyedArchiveError) -> Bool {
        switch field(key, of: index) {
        case nil: return defaultValue
        case .boolean(let value)?: return value
        case .integer(let value)?: return value != 0
        default: throw KeyedArchiveError(description: "\(describe(index)): \(key) is not a boolean")
        }
    }

    /// The element references of an NSArray, NSSet or NSOrderedSet object (`$null` elements refused).
    package func elements(of index: Int) throws(KeyedArchiveError) -> [Int] {
        guard let name = className(index), KeyedArchive.arrayClassNames.contains(name) else {
            throw KeyedArchiveError(description: "\(describe(index)) is not an array or set")
        }
        guard case .array(let values)? = field("NS.objects", of: index) else {
            throw KeyedArchiveError(description: "\(describe(index)): NS.objects is missing")
        }
        var result: [Int] = []
        for value in values {
            guard case .uid(let reference) = value, reference != 0 else {
                throw KeyedArchiveError(description: "\(describe(index)) holds a non-object")
            }
            result.append(Int(reference))
        }
        return result
    }

    /// The elements of the collection under field `key`; empty for a missing field or `$null`.
    package func elements(_ key: String, of index: Int) throws(KeyedArchiveError) -> [Int] {
        guard let reference = try reference(key, of: index) else { return [] }
        return try elements(of: reference)
    }

    /// The key and value references of an NSDictionary object.
    package func entries(of index: Int) throws(KeyedArchiveError) -> [(key: Int, value: Int)] {
        guard let name = className(index), KeyedArchive.dictionaryClassNames.contains(name) else {
            throw KeyedArchiveError(description: "\(describe(index)) is not a dictionary")
        }
        guard case .array(let keys)? = field("NS.keys", of: index), case .array(let values)? = field("NS.objects", of: index),
              keys.count == values.count else {
            throw KeyedArchiveError(description: "\(describe(index)): NS.keys and NS.objects do not pair up")
        }
        var result: [(key: Int, value: Int)] = []
        for (key, value) in zip(keys, values) {
            guard case .uid(let keyReference) = key, keyReference != 0, case .uid(let valueReference) = value, valueReference != 0 else {
                throw KeyedArchiveError(description: "\(describe(index)) holds a non-object")
            }
            result.append((Int(keyReference), Int(valueReference)))
        }
        return result
    }

    /// A Foundation value: strings, numbers, booleans, data, dates, UUIDs, URLs, `NSNull`, and arrays, sets and
    /// dictionaries of those (as Swift arrays, `Set<AnyHashable>` and `[AnyHashable: Any]`). Objects of other
    /// classes are refused.
    package func foundationValue(at index: Int, depth: Int = 0) throws(KeyedArchiveError) -> Any {
        guard depth < KeyedArchive.maximumGraphDepth else { throw KeyedArchiveError(description: "values nested too deeply") }
        switch archive.objects[index] {
        case .string(let value) where value != "$null": return value
        // Numbers and booleans come back as the Swift values the predicate parser produces for literals.
        case .integer(let value): return Int(exactly: value) ?? NSNumber(value: value)
        case .unsignedInteger(let value): return value
        case .real(let value): return value
        case .boolean(let value): return value
        case .data(let bytes): return Data(bytes)
        case .dictionary: break
        default: throw KeyedArchiveError(description: "object \(index) is not a value")
        }
        let name = className(index) ?? "?"
        switch name {
        case "NSString", "NSMutableString": return try string(at: index)
        case "NSData", "NSMutableData":
            guard case .data(let bytes)? = field("NS.data", of: index) else { throw KeyedArchiveError(description: "\(describe(index)): NS.data is missing") }
            return Data(bytes)
        case "NSDate":
            switch field("NS.time", of: index) {
            case .real(let time)?: return Date(timeIntervalSinceReferenceDate: time)
            case .integer(let time)?: return Date(timeIntervalSinceReferenceDate: Double(time))
            default: throw KeyedArchiveError(description: "\(describe(index)): NS.time is missing")
            }
        case "NSUUID":
            guard case .data(let bytes)? = field("NS.uuidbytes", of: index), bytes.count == 16 else {
                throw KeyedArchiveError(description: "\(describe(index)): NS.uuidbytes is not 16 bytes")
            }
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        case "NSURL":
            let relative = try string("NS.relative", of: index) ?? ""
            let base = try reference("NS.base", of: index).map { (reference) throws(KeyedArchiveError) in try foundationValue(at: reference, depth: depth + 1) } as? URL
            guard let url = URL(string: relative, relativeTo: base) else { throw KeyedArchiveError(description: "\(describe(index)) is not a valid URL") }
            return url
        case "NSNull": return NSNull()
        case _ where KeyedArchive.arrayClassNames.contains(name):
            var values: [Any] = []
            for element in try elements(of: index) { values.append(try foundationValue(at: element, depth: depth + 1)) }
            if name.hasSuffix("Set") && !name.contains("Ordered") {
                var set = Set<AnyHashable>()
                for value in values {
                    guard let hashable = value as? AnyHashable else { throw KeyedArchiveError(description: "\(describe(index)) holds an unhashable value") }
                    set.insert(hashable)
                }
                return set
            }
            return values
        case _ where KeyedArchive.dictionaryClassNames.contains(name):
            var result: [AnyHashable: Any] = [:]
            for entry in try entries(of: index) {
                guard let key = try foundationValue(at: entry.key, depth: depth + 1) as? AnyHashable else {
                    throw KeyedArchiveError(description: "\(describe(index)) has an unhashable key")
                }
                result[key] = try foundationValue(at: entry.value, depth: depth + 1)
            }
            return result
        default:
            throw KeyedArchiveError(description: "\(describe(index)) is of class \(name), which is not a Foundation value class")
        }
    }

    /// "NSEntityDescription object 12", for error messages.
    package func describe(_ index: Int) -> String {
        "\(className(index) ?? "object") object \(index)"
    }
}
