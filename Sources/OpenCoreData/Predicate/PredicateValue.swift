import Foundation

/// Lets the evaluator (and `FoundationBridging`) look inside an `Optional` that was boxed in `Any`.
protocol AnyOptionalBox {
    var wrappedAny: Any? { get }
}

extension Optional: AnyOptionalBox {
    var wrappedAny: Any? {
        switch self {
        case .some(let wrapped): return wrapped
        case .none: return nil
        }
    }
}

/// The value model of the evaluator: how `Any` values from key-value coding, constants and bindings are read.
///
/// Values keep their original types (`String` or `NSString`, `Int` or `NSNumber`, …); these helpers give every family
/// one meaning: `nil`, `Optional.none` and `NSNull` are all "no value"; every Swift integer and floating-point type,
/// `Bool`, `Decimal`, `NSNumber` and `NSDecimalNumber` is a number; `String`, `NSString` and `Substring` are strings.
package enum PredicateValue {
    /// Unwraps nested optionals and maps `NSNull` to `nil`.
    static func normalize(_ value: Any?) -> Any? {
        guard var current = value else { return nil }
        var guardCount = 0
        while let box = current as? any AnyOptionalBox, guardCount < 16 {
            guard let inner = box.wrappedAny else { return nil }
            current = inner
            guardCount += 1
        }
        // A metatype test: `current is NSNull` would bridge a Swift collection to Foundation first (slow, and for
        // a set holding decimals a crash in Linux Foundation's NSDecimalNumber.hash).
        if type(of: current) is NSNull.Type { return nil }
        return current
    }

    static func isNil(_ value: Any?) -> Bool { normalize(value) == nil }

    // MARK: Strings

    package static func string(_ value: Any) -> String? {
        switch value {
        case let s as String: return s
        case let s as Substring: return String(s)
        case let s as NSString: return s as String
        case let c as Character: return String(c)
        default: return nil
        }
    }

    // MARK: Collections

    /// The kind of a collection value, which decides equality (sets are unordered) and what key-value coding returns.
    enum CollectionKind { case array, set, orderedSet }

    /// The elements of an array, set or ordered set (Swift or Foundation), or `nil` if `value` is not one.
    /// Strings, `Data` and dictionaries are not collections here.
    static func collection(_ value: Any) -> (elements: [Any], kind: CollectionKind)? {
        // Swift collections first: testing them against Foundation classes would bridge them.
        if let array = value as? [Any] { return (array, .array) }
        if let set = value as? Set<AnyHashable> { return (set.map { $0.base }, .set) }
        if value is String || value is NSString || value is Data || value is NSData { return nil }
        if value is NSDictionary { return nil }
        if let ordered = value as? NSOrderedSet { return (ordered.array, .orderedSet) }
        if let set = value as? NSSet, type(of: value) is NSSet.Type { return (set.allObjects, .set) }
        if let array = value as? NSArray, type(of: value) is NSArray.Type { return (array.map { $0 }, .array) }
        if let array = value as? [Any] { return (array, .array) }
        if let set = value as? Set<AnyHashable> { return (set.map { $0.base }, .set) }
        if let sequence = value as? any PredicateCollectionValue { return (sequence.predicateElements, .array) }
        return nil
    }

    /// The keys of a dictionary (`IN` and `ANYKEY` enumerate a dictionary's keys, as fast enumeration does).
    static func dictionary(_ value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        if let dictionary = value as? NSDictionary {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                if let name = string(key) { result[name] = element }
            }
            return result
        }
        if let dictionary = value as? [AnyHashable: Any] {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                if let name = string(key.base) { result[name] = element }
            }
            return result
        }
        return nil
    }

    /// Builds the result of mapping over a collection of `kind`: an array, or a set when every value is hashable.
    static func makeCollection(_ values: [Any], kind: CollectionKind) -> Any {
        guard kind == .set else { return values }
        var set = Set<AnyHashable>()
        for value in values {
            // Linux Foundation's NSDecimalNumber.hash recurses until the stack overflows: hash its Decimal.
            if let number = value as? NSDecimalNumber {
                set.insert(AnyHashable(number.decimalValue))
                continue
            }
            guard let hashable = value as? AnyHashable else { return uniqued(values) }
            set.insert(hashable)
        }
        return set
    }

    /// Removes duplicates (by ``equal(_:_:options:)``) keeping the first occurrence.
    static func uniqued(_ values: [Any]) -> [Any] {
        var result: [Any] = []
        outer: for value in values {
            for existing in result where equal(existing, value) { continue outer }
            result.append(value)
        }
        return result
    }

    // MARK: Dates, data, identifiers

    static func date(_ value: Any) -> Date? {
        if let date = value as? Date { return date }
        if let date = value as? NSDate { return Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate) }
        return nil
    }

    static func data(_ value: Any) -> Data? {
        if let data = value as? Data { return data }
        if let data = value as? NSData { return Data(referencing: data) }
        return nil
    }

    static func uuid(_ value: Any) -> UUID? {
        if let uuid = value as? UUID { return uuid }
        if let uuid = value as? NSUUID { return UUID(uuidString: uuid.uuidString) }
        return nil
    }

    static func url(_ value: Any) -> URL? {
        if let url = value as? URL { return url }
        if let url = value as? NSURL { return url as URL }
        return nil
    }

    // MARK: Equality

    /// Equality as `==` in a predicate evaluates it: numbers numerically (`1 == 1.0`, `TRUE == 1`), strings with
    /// `options` (canonically equivalent strings are equal), dates, data and UUIDs by value, arrays element-wise,
    /// sets regardless of order, and `nil` equal to `NSNull` but to nothing else.
    static func equal(_ lhs: Any?, _ rhs: Any?, options: NSComparisonPredicate.Options = []) -> Bool {
        let left = normalize(lhs)
        let right = normalize(rhs)
        guard let left, let right else { return left == nil && right == nil }
        if let a = PredicateNumber(left), let b = PredicateNumber(right) { return a.compare(b) == .orderedSame }
        if let a = string(left), let b = string(right) {
            return PredicateStringComparison.equal(a, b, options: options)
        }
        if let a = date(left), let b = date(right) { return a == b }
        if let a = data(left), let b = data(right) { return a == b }
        if let a = uuid(left), let b = uuid(right) { return a == b }
        if let a = url(left), let b = url(right) { return a == b }
        if let a = collection(left), let b = collection(right) {
            guard a.elements.count == b.elements.count else { return false }
            if a.kind == .set || b.kind == .set {
                guard a.kind == b.kind else { return false }
                return a.elements.allSatisfy { element in b.elements.contains { equal(element, $0, options: options) } }
                    && b.elements.allSatisfy { element in a.elements.contains { equal(element, $0, options: options) } }
            }
            return zip(a.elements, b.elements).allSatisfy { equal($0, $1, options: options) }
        }
        if let a = dictionary(left), let b = dictionary(right) {
            guard a.count == b.count else { return false }
            return a.allSatisfy { key, value in b[key].map { equal(value, $0, options: options) } ?? false }
        }
        // The kind first: a struct's exact-type test, where the protocol cast would search conformances.
        if let kind = right as? EntityKind, let entity = left as? any KindTestedEntity { return kind.matches(entity) }
        if let kind = left as? EntityKind, let entity = right as? any KindTestedEntity { return kind.matches(entity) }
        if let a = left as? NSObject, let b = right as? NSObject { return a.isEqual(b) }
        if let a = left as? AnyHashable, let b = right as? AnyHashable { return a == b }
        if let a = left as? IndexSymbol, let b = right as? IndexSymbol { return a == b }
        let leftObject = type(of: left) is AnyClass
        let rightObject = type(of: right) is AnyClass
        if leftObject && rightObject { return (left as AnyObject) === (right as AnyObject) }
        return false
    }

    // MARK: Ordering

    /// Orders two values for `<`, `<=`, `>`, `>=` and `BETWEEN`: `nil` when either is nil (the comparison is then
    /// false), otherwise numbers, strings (with `options`) and dates among themselves; anything else throws, as Apple
    /// raises for an ordering between incompatible types.
    static func order(_ lhs: Any?, _ rhs: Any?, options: NSComparisonPredicate.Options = []) throws -> ComparisonResult? {
        guard let left = normalize(lhs), let right = normalize(rhs) else { return nil }
        if let a = PredicateNumber(left), let b = PredicateNumber(right) { return a.compare(b) }
        if let a = string(left), let b = string(right) { return PredicateStringComparison.compare(a, b, options: options) }
        if let a = date(left), let b = date(right) { return a.compare(b) }
        throw PredicateError.evaluation("cannot compare \(typeName(left)) with \(typeName(right))")
    }

    static func typeName(_ value: Any?) -> String {
        guard let value = normalize(value) else { return "nil" }
        if string(value) != nil { return "a string" }
        if PredicateNumber(value) != nil { return "a number" }
        if date(value) != nil { return "a date" }
        if collection(value) != nil { return "a collection" }
        return "\(type(of: value))"
    }

    /// A short description for error messages.
    static func describe(_ value: Any?) -> String {
        guard let value = normalize(value) else { return "nil" }
        if let s = string(value) { return "\"\(s)\"" }
        return "\(value)"
    }
}

/// Collections that are neither `Array` nor `Set` but should still be walked as to-many values (`ArraySlice`,
/// `ContiguousArray`).
protocol PredicateCollectionValue {
    var predicateElements: [Any] { get }
}

extension ArraySlice: PredicateCollectionValue {
    var predicateElements: [Any] { map { $0 } }
}

extension ContiguousArray: PredicateCollectionValue {
    var predicateElements: [Any] { map { $0 } }
}

/// The symbolic indexes `FIRST`, `LAST` and `SIZE` of the index expression `array[FIRST]`.
struct IndexSymbol: Hashable, Sendable, CustomStringConvertible {
    let name: String
    static let first = IndexSymbol(name: "FIRST")
    static let last = IndexSymbol(name: "LAST")
    static let size = IndexSymbol(name: "SIZE")
    var description: String { name }
}
