import Foundation

/// The predefined functions of `NSExpression` (`NSExpression.h`), `CAST`, indexing, and the methods that
/// `FUNCTION(target, 'selector', …)` and custom-selector comparisons can invoke without an Objective-C runtime.
///
/// `FUNCTION` supports these methods: on strings `stringByAppendingString:`, `uppercaseString`, `lowercaseString`,
/// `capitalizedString`, `length`, `description`, `intValue`, `integerValue`, `doubleValue`, `floatValue`, `boolValue`,
/// `hasPrefix:`, `hasSuffix:`, `containsString:`, `isEqualToString:`, `substringToIndex:`, `substringFromIndex:`,
/// `compare:`, `caseInsensitiveCompare:`; on numbers the value accessors and `stringValue`; on collections `count`,
/// `firstObject`, `lastObject`, `objectAtIndex:`, `containsObject:`, `allObjects`; on every value `isEqual:`,
/// `description`; and any key of a key-value coding value (`FUNCTION(person, 'name')`).
package enum PredicateFunctions {
    /// Selector → number of arguments (`nil`: one collection, or the values themselves).
    package static let table: [String: Int?] = [
        "sum:": nil, "count:": nil, "min:": nil, "max:": nil, "average:": nil, "median:": nil, "mode:": nil, "stddev:": nil,
        "add:to:": 2, "from:subtract:": 2, "multiply:by:": 2, "divide:by:": 2, "modulus:by:": 2,
        "sqrt:": 1, "log:": 1, "ln:": 1, "raise:toPower:": 2, "exp:": 1, "floor:": 1, "ceiling:": 1, "abs:": 1,
        "trunc:": 1, "uppercase:": 1, "lowercase:": 1, "random": 0, "randomn:": 1, "now": 0,
        "bitwiseAnd:with:": 2, "bitwiseOr:with:": 2, "bitwiseXor:with:": 2, "leftshift:by:": 2, "rightshift:by:": 2,
        "onesComplement:": 1, "noindex:": 1, "distanceToLocation:fromLocation:": 2, "length:": 1,
        "castObject:toType:": 2, "objectFrom:withIndex:": 2,
    ]

    /// Functions printed as infix operators, and their symbols.
    static let infix: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "raise:toPower:": "**",
    ]

    static func isPredefined(_ name: String) -> Bool { table[name] != nil }

    /// The selector for a name written in a format string: `sum:` as is, `sum` → `sum:`, `now` → `now`.
    static func selector(forName name: String) -> String? {
        if table[name] != nil { return name }
        if !name.hasSuffix(":"), let arity = table[name + ":"], arity == nil || arity == 1 { return name + ":" }
        return nil
    }

    static func arity(of selector: String) -> Int? {
        table[selector] ?? nil
    }

    // MARK: Calling

    /// Calls a predefined function on evaluated arguments.
    static func call(_ name: String, _ arguments: [Any?]) throws -> Any? {
        let args = arguments.map(PredicateValue.normalize)
        func number(_ i: Int) throws -> PredicateNumber {
            guard let value = args[i], let n = PredicateNumber(value) else {
                throw PredicateError.evaluation("\(name) needs a number, not \(PredicateValue.describe(args[i]))")
            }
            return n
        }
        func integer(_ i: Int) throws -> Int64 {
            guard let v = try number(i).int64Value else { throw PredicateError.evaluation("\(name) needs an integer") }
            return v
        }
        func string(_ i: Int) throws -> String {
            guard let value = args[i], let s = PredicateValue.string(value) else {
                throw PredicateError.evaluation("\(name) needs a string, not \(PredicateValue.describe(args[i]))")
            }
            return s
        }
        func elements() throws -> [Any] {
            if args.count == 1 {
                guard let value = args[0] else { return [] }
                if let collection = PredicateValue.collection(value) {
                    return collection.elements.compactMap(PredicateValue.normalize)
                }
                return [value]
            }
            return args.compactMap { $0 }
        }
        switch name {
        case "sum:": return try sum(elements())
        case "count:": return try elements().count
        case "min:": return try extreme(elements(), wantMax: false)
        case "max:": return try extreme(elements(), wantMax: true)
        case "average:": let items = try elements(); return items.isEmpty ? nil : try average(items)
        case "median:": return try median(elements())
        case "mode:": return try mode(elements())
        case "stddev:": return try standardDeviation(elements())
        case "add:to:", "from:subtract:":
            if let date = args[0].flatMap(PredicateValue.date) {
                if let other = args[1].flatMap(PredicateValue.date), name == "from:subtract:" {
                    return date.timeIntervalSince(other)
                }
                let seconds = try number(1).doubleValue
                return date.addingTimeInterval(name == "add:to:" ? seconds : -seconds)
            }
            if name == "add:to:", let date = args[1].flatMap(PredicateValue.date) {
                return date.addingTimeInterval(try number(0).doubleValue)
            }
            return PredicateNumber.apply(name == "add:to:" ? .add : .subtract, try number(0), try number(1)).value
        case "multiply:by:": return PredicateNumber.apply(.multiply, try number(0), try number(1)).value
        case "divide:by:":
            let divisor = try number(1).doubleValue
            if divisor == 0 { throw PredicateError.evaluation("division by zero") }
            return try number(0).doubleValue / divisor
        case "modulus:by:":
            let a = try number(0), b = try number(1)
            if a.isInteger, b.isInteger, let x = a.int64Value, let y = b.int64Value {
                if y == 0 { throw PredicateError.evaluation("modulus by zero") }
                return Int(x.remainderReportingOverflow(dividingBy: y).partialValue)
            }
            let divisor = b.doubleValue
            if divisor == 0 { throw PredicateError.evaluation("modulus by zero") }
            return fmod(a.doubleValue, divisor)
        case "raise:toPower:": return pow(try number(0).doubleValue, try number(1).doubleValue)
        case "sqrt:": return sqrt(try number(0).doubleValue)
        case "log:": return log10(try number(0).doubleValue)
        case "ln:": return log(try number(0).doubleValue)
        case "exp:": return exp(try number(0).doubleValue)
        case "floor:": return floor(try number(0).doubleValue)
        case "ceiling:": return ceil(try number(0).doubleValue)
        case "trunc:": return trunc(try number(0).doubleValue)
        case "abs:":
            let n = try number(0)
            if case .int(let v) = n, v != Int64.min { return Int(abs(v)) }
            if case .uint = n { return n.value }
            if case .decimal(let d) = n { return d < 0 ? -d : d }
            return abs(n.doubleValue)
        case "uppercase:": return try string(0).uppercased()
        case "lowercase:": return try string(0).lowercased()
        case "random": return Double.random(in: 0..<1)
        case "randomn:":
            let bound = try integer(0)
            guard bound > 0 else { throw PredicateError.evaluation("randomn: needs a positive bound") }
            return Int(Int64.random(in: 0..<bound))
        case "now": return Date()
        case "bitwiseAnd:with:": return Int(try integer(0) & integer(1))
        case "bitwiseOr:with:": return Int(try integer(0) | integer(1))
        case "bitwiseXor:with:": return Int(try integer(0) ^ integer(1))
        case "leftshift:by:": return Int(try integer(0) << integer(1))
        case "rightshift:by:": return Int(try integer(0) >> integer(1))
        case "onesComplement:": return Int(~(try integer(0)))
        case "noindex:": return args[0]
        case "length:":
            guard let value = args[0] else { return nil }
            if let s = PredicateValue.string(value) { return s.utf16.count }
            if let collection = PredicateValue.collection(value) { return collection.elements.count }
            throw PredicateError.evaluation("length: needs a string or a collection")
        case "distanceToLocation:fromLocation:":
            return try distance(args[0], args[1])
        case "castObject:toType:":
            return try cast(args[0], toType: try string(1))
        case "objectFrom:withIndex:":
            return try index(args[0], args[1])
        default:
            throw PredicateError.evaluation("unknown function \(name)")
        }
    }

    // MARK: Aggregates

    static func numbers(_ values: [Any], _ name: String) throws -> [PredicateNumber] {
        try values.map { value in
            guard let n = PredicateNumber(value) else {
                throw PredicateError.evaluation("\(name) needs numbers, not \(PredicateValue.describe(value))")
            }
            return n
        }
    }

    static func sum(_ values: [Any]) throws -> Any {
        try numbers(values, "sum").reduce(PredicateNumber.int(0)) { PredicateNumber.apply(.add, $0, $1) }.value
    }

    static func average(_ values: [Any]) throws -> Any {
        let items = try numbers(values, "average")
        let total = items.reduce(PredicateNumber.int(0)) { PredicateNumber.apply(.add, $0, $1) }
        if case .decimal(let d) = total { return d / Decimal(items.count) }
        return total.doubleValue / Double(items.count)
    }

    static func extreme(_ values: [Any], wantMax: Bool) throws -> Any? {
        var best: Any?
        for value in values {
            guard let current = best else { best = value; continue }
            guard let order = try PredicateValue.order(value, current) else { continue }
            if (wantMax && order == .orderedDescending) || (!wantMax && order == .orderedAscending) { best = value }
        }
        return best
    }

    static func median(_ values: [Any]) throws -> Any? {
        let items = try numbers(values, "median").sorted { ($0.compare($1) ?? .orderedSame) == .orderedAscending }
        guard !items.isEmpty else { return nil }
        if items.count % 2 == 1 { return items[items.count / 2].value }
        return (items[items.count / 2 - 1].doubleValue + items[items.count / 2].doubleValue) / 2
    }

    static func mode(_ values: [Any]) throws -> Any {
        var distinct: [Any] = []
        var counts: [Int] = []
        for value in values {
            if let i = distinct.firstIndex(where: { PredicateValue.equal($0, value) }) {
                counts[i] += 1
            } else {
                distinct.append(value)
                counts.append(1)
            }
        }
        guard let top = counts.max() else { return [Any]() }
        return zip(distinct, counts).filter { $0.1 == top }.map { $0.0 }
    }

    static func standardDeviation(_ values: [Any]) throws -> Any? {
        let items = try numbers(values, "stddev").map(\.doubleValue)
        guard !items.isEmpty else { return nil }
        let mean = items.reduce(0, +) / Double(items.count)
        return (items.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(items.count)).squareRoot()
    }

    /// Great-circle distance in metres between two values with `latitude` and `longitude` keys (CLLocation is not
    /// available on Linux; this uses the haversine formula with the mean Earth radius).
    static func distance(_ a: Any?, _ b: Any?) throws -> Any? {
        func coordinate(_ value: Any?) throws -> (Double, Double) {
            guard let value else { throw PredicateError.evaluation("distanceToLocation:fromLocation: needs two locations") }
            let latitude = try KeyValueCodingEngine.value(of: value, forKeyPath: "latitude").flatMap { PredicateNumber($0) }
            let longitude = try KeyValueCodingEngine.value(of: value, forKeyPath: "longitude").flatMap { PredicateNumber($0) }
            guard let latitude, let longitude else {
                throw PredicateError.evaluation("a location needs numeric latitude and longitude")
            }
            return (latitude.doubleValue * .pi / 180, longitude.doubleValue * .pi / 180)
        }
        let (lat1, lon1) = try coordinate(a), (lat2, lon2) = try coordinate(b)
        let h = pow(sin((lat2 - lat1) / 2), 2) + cos(lat1) * cos(lat2) * pow(sin((lon2 - lon1) / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    // MARK: CAST and indexing

    static func cast(_ value: Any?, toType type: String) throws -> Any? {
        guard let value = PredicateValue.normalize(value) else { return nil }
        switch type {
        case "NSString", "String":
            if let s = PredicateValue.string(value) { return s }
            if let n = PredicateNumber(value) { return PredicateFormatter.numberText(n) }
            if let d = PredicateValue.date(value) { return d.description }
            if let u = PredicateValue.uuid(value) { return u.uuidString }
            return "\(value)"
        case "NSNumber", "NSDecimalNumber":
            if let n = PredicateNumber(value) { return type == "NSDecimalNumber" ? n.decimalValue : n.value }
            if let d = PredicateValue.date(value) { return d.timeIntervalSinceReferenceDate }
            if let s = PredicateValue.string(value) {
                let trimmed = s.trimmingCharacters(in: .whitespaces)
                if type == "NSDecimalNumber" { return Decimal(string: trimmed) ?? Decimal.nan }
                if let i = Int(trimmed) { return i }
                if let d = Double(trimmed) { return d }
                return 0
            }
        case "NSDate", "Date":
            if let d = PredicateValue.date(value) { return d }
            if let n = PredicateNumber(value) { return Date(timeIntervalSinceReferenceDate: n.doubleValue) }
        case "NSUUID", "UUID":
            if let u = PredicateValue.uuid(value) { return u }
            if let s = PredicateValue.string(value), let u = UUID(uuidString: s) { return u }
        case "NSData", "Data":
            if let d = PredicateValue.data(value) { return d }
            if let s = PredicateValue.string(value), let d = Data(base64Encoded: s) { return d }
        default:
            throw PredicateError.evaluation("CAST to \(type) is not supported")
        }
        throw PredicateError.evaluation("cannot CAST \(PredicateValue.describe(value)) to \(type)")
    }

    /// `CAST(constant, 'NSDate')` (and the `NSUUID`/`NSData` forms that the printer writes) fold to constants, so that
    /// printed dates, UUIDs and data parse back to the same constants.
    static func foldedCast(_ value: NSExpression, _ type: NSExpression) -> NSExpression {
        if case .constant(let raw) = value.node, case .constant(let typeName) = type.node,
           let name = typeName.flatMap(PredicateValue.string), ["NSDate", "NSUUID", "NSData"].contains(name),
           let folded = try? cast(raw, toType: name) {
            return NSExpression(forConstantValue: folded)
        }
        return NSExpression(node: .function(target: nil, name: "castObject:toType:", arguments: [value, type]))
    }

    static func index(_ collection: Any?, _ index: Any?) throws -> Any? {
        guard let collection = PredicateValue.normalize(collection) else { return nil }
        let index = PredicateValue.normalize(index)
        if let symbol = index as? IndexSymbol {
            guard let elements = PredicateValue.collection(collection)?.elements else {
                if symbol == .size, let dictionary = PredicateValue.dictionary(collection) { return dictionary.count }
                throw PredicateError.evaluation("\(symbol) needs an array")
            }
            switch symbol {
            case .first: return elements.first
            case .last: return elements.last
            default: return elements.count
            }
        }
        if let dictionary = PredicateValue.dictionary(collection) {
            guard let key = index.flatMap(PredicateValue.string) else {
                throw PredicateError.evaluation("a dictionary index must be a string")
            }
            return dictionary[key]
        }
        guard let elements = PredicateValue.collection(collection)?.elements else {
            throw PredicateError.evaluation("cannot index \(PredicateValue.typeName(collection))")
        }
        guard let position = index.flatMap(PredicateNumber.init)?.int64Value else {
            throw PredicateError.evaluation("an array index must be an integer")
        }
        guard position >= 0, position < elements.count else {
            throw PredicateError.evaluation("index \(position) beyond bounds [0 .. \(elements.count - 1)]")
        }
        return elements[Int(position)]
    }

    // MARK: FUNCTION and custom selectors

    /// Invokes a method by name on a value (see the type's documentation for the supported methods).
    static func invoke(_ selector: String, on target: Any?, arguments: [Any?]) throws -> Any? {
        if let target, let method = FunctionRegistry.method(selector, for: target) { return try method.call(target, arguments) }
        if let custom = target as? PredicateFunctionTarget { return try custom.invokePredicateFunction(selector, arguments: arguments) }
        guard let target = PredicateValue.normalize(target) else { return nil }
        let args = arguments.map(PredicateValue.normalize)
        func argument(_ i: Int) throws -> Any? {
            guard i < args.count else { throw PredicateError.evaluation("\(selector) needs \(i + 1) argument(s)") }
            return args[i]
        }
        func stringArgument(_ i: Int) throws -> String {
            guard let s = try argument(i).flatMap(PredicateValue.string) else {
                throw PredicateError.evaluation("\(selector) needs a string argument")
            }
            return s
        }
        switch selector {
        case "isEqual:", "isEqualTo:", "isEqualToString:", "isEqualToNumber:", "isEqualToDate:", "isEqualToArray:",
             "isEqualToSet:", "isEqualToData:", "isEqualToDictionary:":
            return PredicateValue.equal(target, try argument(0))
        case "isNotEqualTo:": return !PredicateValue.equal(target, try argument(0))
        case "isLessThan:": return try PredicateValue.order(target, try argument(0)) == .orderedAscending
        case "isGreaterThan:": return try PredicateValue.order(target, try argument(0)) == .orderedDescending
        case "isLessThanOrEqualTo:": return try PredicateValue.order(target, try argument(0)).map { $0 != .orderedDescending } ?? false
        case "isGreaterThanOrEqualTo:": return try PredicateValue.order(target, try argument(0)).map { $0 != .orderedAscending } ?? false
        case "description": return PredicateValue.string(target) ?? PredicateFormatter.constantText(target)
        case "self": return target
        default: break
        }
        if let string = PredicateValue.string(target) {
            switch selector {
            case "stringByAppendingString:": return string + (try stringArgument(0))
            case "hasPrefix:": return string.hasPrefix(try stringArgument(0))
            case "hasSuffix:": return string.hasSuffix(try stringArgument(0))
            case "containsString:": return string.contains(try stringArgument(0))
            case "compare:": return PredicateStringComparison.compare(string, try stringArgument(0), options: []).rawValue
            case "caseInsensitiveCompare:":
                return PredicateStringComparison.compare(string, try stringArgument(0), options: .caseInsensitive).rawValue
            case "substringToIndex:", "substringFromIndex:":
                guard let n = try argument(0).flatMap(PredicateNumber.init)?.int64Value, n >= 0, n <= string.utf16.count else {
                    throw PredicateError.evaluation("\(selector) index out of range")
                }
                let units = Array(string.utf16)
                let slice = selector == "substringToIndex:" ? units[..<Int(n)] : units[Int(n)...]
                return String(decoding: slice, as: UTF16.self)
            default:
                return try KeyValueCodingEngine.value(of: string, forKey: selector)
            }
        }
        if let collection = PredicateValue.collection(target) {
            switch selector {
            case "count": return collection.elements.count
            case "firstObject", "anyObject": return collection.elements.first
            case "lastObject": return collection.elements.last
            case "allObjects": return collection.elements
            case "containsObject:": let item = try argument(0); return collection.elements.contains { PredicateValue.equal($0, item) }
            case "objectAtIndex:": return try index(target, try argument(0))
            default: break
            }
        }
        if args.isEmpty && !selector.contains(":") {
            return try KeyValueCodingEngine.value(of: target, forKeyPath: selector)
        }
        throw PredicateError.evaluation("\(PredicateValue.typeName(target)) does not respond to the selector \(selector)")
    }

    /// A custom-selector comparison: the method applied to the left value with the right value, as a boolean.
    static func customComparison(_ selector: String, _ lhs: Any?, _ rhs: Any?) throws -> Bool {
        let result = try invoke(selector, on: lhs, arguments: [rhs])
        guard let value = PredicateValue.normalize(result) else { return false }
        if let flag = value as? Bool { return flag }
        if let number = PredicateNumber(value) { return number.doubleValue != 0 }
        throw PredicateError.evaluation("the selector \(selector) did not return a boolean")
    }
}

/// A value that answers `FUNCTION(value, 'selector', …)` itself: layers above the predicate language (Core Data's
/// `NSFetchRequestExpression`) plug their own evaluation in through it.
package protocol PredicateFunctionTarget {
    /// The result of calling `selector` with `arguments` on this value.
    func invokePredicateFunction(_ selector: String, arguments: [Any?]) throws -> Any?
}
