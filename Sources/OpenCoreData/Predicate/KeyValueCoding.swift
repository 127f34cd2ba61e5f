import Foundation

/// Key-value coding for objects that predicates, expressions and sort descriptors evaluate against.
///
/// Without the Objective-C runtime there is no `valueForKey:` on every object, so a type opts in by returning the value
/// of each of its keys. Managed objects conform; so can any of your types:
///
/// ```swift
/// struct Person: KeyValueCoding {
///     var name: String
///     var friends: [Person]
///     func value(forKey key: String) -> Any? {
///         switch key {
///         case "name": return name
///         case "friends": return friends
///         default: return nil
///         }
///     }
/// }
/// NSPredicate(format: "ANY friends.name BEGINSWITH 'A'").evaluate(with: person)
/// ```
///
/// Values that do not conform are still understood: `[String: Any]` and `NSDictionary` (a missing key is `nil`),
/// arrays, sets and ordered sets (a key maps over the elements and returns the collection of results, as KVC does),
/// strings (`length`, `uppercaseString`, …), numbers, dates, and — as an extension — other Swift values through their
/// stored properties (`Mirror`).
public protocol KeyValueCoding {
    /// Returns the value for a single key, or `nil`.
    ///
    /// ```swift
    /// person.value(forKey: "name") // "Ann"
    /// ```
    func value(forKey key: String) -> Any?

    /// Returns the value for a dotted key path, which may go through to-one and to-many values and may contain
    /// collection operators (`"friends.@count"`, `"orders.@sum.total"`). The default implementation resolves the
    /// first key with ``value(forKey:)`` and continues on its result; conforming types may customise it.
    ///
    /// ```swift
    /// person.value(forKeyPath: "friends.@count") // 2
    /// ```
    func value(forKeyPath keyPath: String) -> Any?
}

extension KeyValueCoding {
    /// The default key path lookup: ``value(forKey:)`` for the first key, then key-value coding on the result.
    /// An unknown key below the first one stops the program (Apple raises `NSUnknownKeyException`), except while a
    /// predicate is being evaluated with a throwing API, which then throws instead. Numbers come back as
    /// `NSNumber`s (`person.value(forKeyPath: "friends.@count") as? Double` is 2.0, as on Apple platforms).
    ///
    /// ```swift
    /// person.value(forKeyPath: "friends.name") // ["Bob", "Cy"]
    /// ```
    public func value(forKeyPath keyPath: String) -> Any? {
        do {
            // Computed values (`@count`, `@sum`, string lengths) come back as NSNumbers, as Apple's KVC returns them.
            return FoundationBridging.object(try KeyValueCodingEngine.defaultValue(of: self, forKeyPath: keyPath))
        } catch {
            if let sink = KeyValueCodingEngine.ErrorSink.current {
                sink.record(error)
                return nil
            }
            fatalError(PredicateError.message(of: error))
        }
    }
}

/// Key-value coding over arbitrary values (see ``KeyValueCoding``).
package enum KeyValueCodingEngine {
    /// Collects the first error raised inside a ``KeyValueCoding/value(forKeyPath:)`` default implementation while
    /// the evaluator is running, so that throwing evaluation can rethrow it instead of stopping the program.
    final class ErrorSink: @unchecked Sendable { // Only touched by the thread that installed it (task-local scope).
        @TaskLocal static var current: ErrorSink?
        private(set) var error: (any Error)?
        func record(_ error: any Error) {
            if self.error == nil { self.error = error }
        }
    }

    /// The value of `keyPath` on `object`, calling a ``KeyValueCoding`` object's own `value(forKeyPath:)` so that it
    /// can customise the lookup.
    package static func value(of object: Any?, forKeyPath keyPath: String) throws -> Any? {
        guard let object = PredicateValue.normalize(object) else { return nil }
        if keyPath.isEmpty { return object }
        if let coding = object as? any KeyValueCoding {
            let sink = ErrorSink()
            let result = ErrorSink.$current.withValue(sink) { coding.value(forKeyPath: keyPath) }
            if let error = sink.error { throw error }
            return result
        }
        return try defaultValue(of: object, forKeyPath: keyPath)
    }

    /// The default key path algorithm: first key, then the rest on the result; collection operators apply to the
    /// collection on their left and consume the rest of the path.
    static func defaultValue(of object: Any, forKeyPath keyPath: String) throws -> Any? {
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.isEmpty else { return object }
        let first = components.removeFirst()
        let rest = components.joined(separator: ".")
        if first.hasPrefix("@") {
            return try applyCollectionOperator(first, to: object, rest: components.isEmpty ? nil : rest)
        }
        let value = try self.value(of: object, forKey: first)
        if components.isEmpty { return value }
        return try self.value(of: value, forKeyPath: rest)
    }

    /// The value of one key.
    static func value(of object: Any?, forKey key: String) throws -> Any? {
        guard let object = PredicateValue.normalize(object) else { return nil }
        if key == "self" { return object }
        if let coding = object as? any KeyValueCoding { return coding.value(forKey: key) }
        if let dictionary = object as? [String: Any] {
            if key.hasPrefix("@") { return try applyCollectionOperator(key, to: dictionary.map { $0.value }, rest: nil) }
            return dictionary[key]
        }
        if let dictionary = object as? NSDictionary {
            if key.hasPrefix("@") { return try applyCollectionOperator(key, to: dictionary.allValues, rest: nil) }
            return dictionary.object(forKey: key)
        }
        if let dictionary = object as? [AnyHashable: Any] { return dictionary[AnyHashable(key)] }
        if let collection = PredicateValue.collection(object) {
            if key.hasPrefix("@") { return try applyCollectionOperator(key, to: object, rest: nil) }
            var values: [Any] = []
            for element in collection.elements {
                let value = try self.value(of: element, forKey: key)
                if let value = PredicateValue.normalize(value) {
                    values.append(value)
                } else if collection.kind != .set {
                    values.append(NSNull())
                }
            }
            return PredicateValue.makeCollection(values, kind: collection.kind)
        }
        if let string = PredicateValue.string(object) { return try stringValue(string, forKey: key) }
        if let number = PredicateNumber(object) { return try numberValue(number, original: object, forKey: key) }
        if let date = PredicateValue.date(object) {
            switch key {
            case "timeIntervalSinceReferenceDate": return date.timeIntervalSinceReferenceDate
            case "timeIntervalSince1970": return date.timeIntervalSince1970
            case "description": return date.description
            default: break
            }
        }
        if let data = PredicateValue.data(object) {
            switch key {
            case "length", "count": return data.count
            case "description": return "\(data as NSData)"
            default: break
            }
        }
        if let uuid = PredicateValue.uuid(object), key == "UUIDString" || key == "uuidString" || key == "description" {
            return uuid.uuidString
        }
        if let value = mirrorValue(of: object, forKey: key) { return value }
        throw PredicateError.evaluation("\(PredicateValue.typeName(object)) is not key value coding-compliant for the key \"\(key)\"")
    }

    /// Stored properties of Swift values, for types that do not adopt ``KeyValueCoding`` (an OpenCoreData extension).
    private static func mirrorValue(of object: Any, forKey key: String) -> Any?? {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            if current.displayStyle == .optional || current.displayStyle == .enum { return nil }
            for child in current.children where child.label == key {
                return .some(PredicateValue.normalize(child.value))
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    private static func stringValue(_ string: String, forKey key: String) throws -> Any? {
        switch key {
        case "length": return string.utf16.count
        case "description", "string": return string
        case "uppercaseString": return string.uppercased()
        case "lowercaseString": return string.lowercased()
        case "capitalizedString": return string.capitalized
        case "intValue", "integerValue", "longLongValue":
            return Int(string.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber || $0 == "-" || $0 == "+" }) ?? 0
        case "doubleValue", "floatValue": return Double(string.trimmingCharacters(in: .whitespaces)) ?? 0
        case "boolValue":
            let first = string.trimmingCharacters(in: .whitespaces).first
            return first.map { "YyTt123456789".contains($0) } ?? false
        default:
            throw PredicateError.evaluation("a string is not key value coding-compliant for the key \"\(key)\"")
        }
    }

    private static func numberValue(_ number: PredicateNumber, original: Any, forKey key: String) throws -> Any? {
        switch key {
        case "description", "stringValue": return PredicateFormatter.numberText(number)
        case "intValue", "integerValue", "longValue", "longLongValue":
            return number.int64Value.map { Int($0) } ?? Int(number.doubleValue.rounded(.towardZero))
        case "doubleValue", "floatValue": return number.doubleValue
        case "boolValue": return number.doubleValue != 0
        case "decimalValue": return number.decimalValue
        default:
            throw PredicateError.evaluation("a number is not key value coding-compliant for the key \"\(key)\"")
        }
    }

    // MARK: Collection operators

    /// `@count`, `@sum`, `@avg`, `@min`, `@max`, `@distinctUnionOfObjects`, `@unionOfObjects`,
    /// `@distinctUnionOfArrays`, `@unionOfArrays`, `@distinctUnionOfSets`, `@unionOfSets`.
    static func applyCollectionOperator(_ name: String, to object: Any, rest: String?) throws -> Any? {
        guard let collection = PredicateValue.collection(object) else {
            throw PredicateError.evaluation("the collection operator \(name) needs a collection, not \(PredicateValue.typeName(object))")
        }
        if name == "@count" {
            // `@count.key` counts the elements too (Apple ignores the path to the right of @count).
            return collection.elements.count
        }
        func values() throws -> [Any] {
            var result: [Any] = []
            for element in collection.elements {
                let item: Any? = if let rest { try value(of: element, forKeyPath: rest) } else { element }
                if let item = PredicateValue.normalize(item) { result.append(item) }
            }
            return result
        }
        switch name {
        case "@sum":
            return try PredicateFunctions.sum(values())
        case "@avg":
            let items = try values()
            if items.isEmpty { return 0 }
            return try PredicateFunctions.average(items)
        case "@min":
            return try PredicateFunctions.extreme(values(), wantMax: false)
        case "@max":
            return try PredicateFunctions.extreme(values(), wantMax: true)
        case "@unionOfObjects":
            return try values()
        case "@distinctUnionOfObjects":
            return PredicateValue.uniqued(try values())
        case "@unionOfArrays", "@unionOfSets", "@distinctUnionOfArrays", "@distinctUnionOfSets":
            var flattened: [Any] = []
            for element in collection.elements {
                let found: Any? = if let rest { try value(of: element, forKeyPath: rest) } else { element }
                let inner = PredicateValue.normalize(found)
                guard let inner, let innerCollection = PredicateValue.collection(inner) else {
                    throw PredicateError.evaluation("\(name) needs a collection of collections")
                }
                flattened.append(contentsOf: innerCollection.elements.compactMap { PredicateValue.normalize($0) })
            }
            if name.hasPrefix("@distinct") || name == "@unionOfSets" { return PredicateValue.uniqued(flattened) }
            return flattened
        default:
            throw PredicateError.evaluation("unknown collection operator \(name)")
        }
    }
}
