// Writes NSKeyedArchiver archives without Foundation's NSKeyedArchiver, for objects that exist only as
// Apple class names (NSManagedObjectModel, NSComparisonPredicate, NSKeyPathExpression, …): the codecs
// describe each object as a class chain and a dictionary of fields, and this writer lays them out in
// `$objects` the way Apple's archiver does (`$null` first, strings shared, one class description per class).

import Foundation
import OpenCoreDataPredicate

/// Builds a keyed archive object by object.
///
/// Objects that can be reached more than once (or that refer back to themselves, as entities and their
/// properties do) are reserved first with ``reserve(_:)`` and filled later with ``fill(_:className:classes:fields:)``.
///
/// ```swift
/// var writer = KeyedArchiveWriter()
/// let root = writer.object(className: "NSVariableExpression", classes: ["NSVariableExpression", "NSExpression", "NSObject"],
///                          fields: ["NSVariable": writer.string("x"), "NSExpressionType": .integer(2)])
/// let data = writer.archive(root: root)
/// ```
package struct KeyedArchiveWriter {
    package private(set) var objects: [PropertyListObject] = [.string("$null")]
    private var classReferences: [String: UInt64] = [:]
    private var stringReferences: [String: UInt64] = [:]
    private var reserved: [ObjectIdentifier: UInt64] = [:]

    package init() {}

    /// The reference standing for nil.
    package static let null = PropertyListObject.uid(0)

    /// A reference to a (shared) string object.
    package mutating func string(_ value: String) -> PropertyListObject {
        if let existing = stringReferences[value] { return .uid(existing) }
        let index = UInt64(objects.count)
        objects.append(.string(value))
        stringReferences[value] = index
        return .uid(index)
    }

    /// A reference to `value` as a string, or `$null`.
    package mutating func optionalString(_ value: String?) -> PropertyListObject {
        value.map { string($0) } ?? Self.null
    }

    /// An inline scalar (number, boolean or data) stored as an object of `$objects`, as Apple stores the values
    /// of collections and of object-valued keys.
    package mutating func scalarObject(_ value: PropertyListObject) -> PropertyListObject {
        let index = UInt64(objects.count)
        objects.append(value)
        return .uid(index)
    }

    /// The reference to the class description of `className`, created on first use.
    mutating func classReference(_ className: String, classes: [String]) -> PropertyListObject {
        if let existing = classReferences[className] { return .uid(existing) }
        let index = UInt64(objects.count)
        objects.append(.dictionary(["$classname": .string(className), "$classes": .array(classes.map { .string($0) })]))
        classReferences[className] = index
        return .uid(index)
    }

    /// Appends an object with its class and fields and returns its reference.
    package mutating func object(className: String, classes: [String], fields: [String: PropertyListObject]) -> PropertyListObject {
        let index = objects.count
        objects.append(.null)
        fill(index, className: className, classes: classes, fields: fields)
        return .uid(UInt64(index))
    }

    /// The reference already reserved for `object`, if any.
    package func existingReference(for object: AnyObject) -> PropertyListObject? {
        reserved[ObjectIdentifier(object)].map { .uid($0) }
    }

    /// Reserves a slot for `object` (so that fields written later can refer to it) and returns its index.
    package mutating func reserve(_ object: AnyObject) -> Int {
        let index = objects.count
        objects.append(.null)
        reserved[ObjectIdentifier(object)] = UInt64(index)
        return index
    }

    /// Fills a reserved slot.
    package mutating func fill(_ index: Int, className: String, classes: [String], fields: [String: PropertyListObject]) {
        var entries = fields
        entries["$class"] = classReference(className, classes: classes)
        objects[index] = .dictionary(entries)
    }

    /// An `NSArray` (or `NSMutableArray`, …) of already-encoded references.
    package mutating func array(_ elements: [PropertyListObject], className: String = "NSArray") -> PropertyListObject {
        let classes = className == "NSArray" ? ["NSArray", "NSObject"] : [className, "NSArray", "NSObject"]
        return object(className: className, classes: classes, fields: ["NS.objects": .array(elements)])
    }

    /// An `NSSet` (or `NSMutableSet`) of already-encoded references.
    package mutating func set(_ elements: [PropertyListObject], className: String = "NSSet") -> PropertyListObject {
        let classes = className == "NSSet" ? ["NSSet", "NSObject"] : [className, "NSSet", "NSObject"]
        return object(className: className, classes: classes, fields: ["NS.objects": .array(elements)])
    }

    /// An `NSDictionary` (or `NSMutableDictionary`) of already-encoded keys and values.
    package mutating func dictionary(_ entries: [(key: PropertyListObject, value: PropertyListObject)],
                             className: String = "NSDictionary") -> PropertyListObject {
        let classes = className == "NSDictionary" ? ["NSDictionary", "NSObject"] : [className, "NSDictionary", "NSObject"]
        return object(className: className, classes: classes,
                      fields: ["NS.keys": .array(entries.map(\.key)), "NS.objects": .array(entries.map(\.value))])
    }

    /// A Foundation value (strings, numbers, booleans, data, dates, UUIDs, URLs, `NSNull`, arrays, sets and
    /// dictionaries of those), or nil for a value of any other type.
    package mutating func foundationValue(_ value: Any) -> PropertyListObject? {
        switch value {
        case let string as String: return self.string(string)
        case let flag as Bool where type(of: value) == Bool.self: return scalarObject(.boolean(flag))
        case let number as NSNumber where type(of: value) is NSNumber.Type && !(number is NSDecimalNumber):
            // Booleans are NSNumbers of Objective-C type `c` on Linux as on Apple platforms.
            if String(cString: number.objCType) == "c", number.int64Value == 0 || number.int64Value == 1 {
                return scalarObject(.boolean(number.boolValue))
            }
            return numberObject(PredicateNumber(number: number))
        default:
            if let number = PredicateNumber(value) { return numberObject(number) }
            return otherFoundationValue(value)
        }
    }

    private mutating func numberObject(_ number: PredicateNumber) -> PropertyListObject {
        switch number {
        case .int(let value): return scalarObject(.integer(value))
        case .uint(let value): return scalarObject(.unsignedInteger(value))
        case .double(let value): return scalarObject(.real(value))
        // NSDecimalNumber's own layout is not produced; the value is kept as a double.
        case .decimal(let value): return scalarObject(.real(DecimalConversion.double(value)))
        }
    }

    private mutating func otherFoundationValue(_ value: Any) -> PropertyListObject? {
        switch value {
        case let data as Data: return scalarObject(.data([UInt8](data)))
        case let date as Date:
            return object(className: "NSDate", classes: ["NSDate", "NSObject"], fields: ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
        case let uuid as UUID:
            let bytes = withUnsafeBytes(of: uuid.uuid) { [UInt8]($0) }
            return object(className: "NSUUID", classes: ["NSUUID", "NSObject"], fields: ["NS.uuidbytes": .data(bytes)])
        case let url as URL:
            return object(className: "NSURL", classes: ["NSURL", "NSObject"],
                          fields: ["NS.base": Self.null, "NS.relative": string(url.absoluteString)])
        case is NSNull:
            return object(className: "NSNull", classes: ["NSNull", "NSObject"], fields: [:])
        case let array as [Any]:
            var elements: [PropertyListObject] = []
            for element in array {
                guard let encoded = foundationValue(element) else { return nil }
                elements.append(encoded)
            }
            return self.array(elements)
        case let set as Set<AnyHashable>:
            var elements: [PropertyListObject] = []
            for element in set {
                guard let encoded = foundationValue(element.base) else { return nil }
                elements.append(encoded)
            }
            return self.set(elements)
        case let dictionary as [AnyHashable: Any]:
            var entries: [(key: PropertyListObject, value: PropertyListObject)] = []
            for (key, element) in dictionary.sorted(by: { "\($0.key)" < "\($1.key)" }) {
                guard let encodedKey = foundationValue(key.base), let encodedValue = foundationValue(element) else { return nil }
                entries.append((encodedKey, encodedValue))
            }
            return self.dictionary(entries)
        default:
            return nil
        }
    }

    /// The archive with `root` under `$top.root`.
    package func archive(root: PropertyListObject) -> Data {
        BinaryPropertyListWriter.write(.dictionary([
            "$version": .integer(100_000),
            "$archiver": .string("NSKeyedArchiver"),
            "$top": .dictionary(["root": root]),
            "$objects": .array(objects),
        ]))
    }
}
