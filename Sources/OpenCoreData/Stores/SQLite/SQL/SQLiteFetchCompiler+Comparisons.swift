/// Comparison predicates: operators, string options (Foundation's folding through `OCD_STRING_MATCH` and the
/// `OCD_FOLD_<options>` collations), `[n]` prefix searches as index-friendly ranges, quantified and membership
/// tests on to-many relationships, and constants bound in the storage of what they are compared with.
extension SQLiteFetchCompiler {
    mutating func condition(_ comparison: NSComparisonPredicate) throws -> String {
        let left = try term(comparison.leftExpression)
        let right = try term(comparison.rightExpression)
        let type = comparison.predicateOperatorType
        let options = comparison.options
        switch comparison.comparisonPredicateModifier {
        case .any, .all:
            guard case .toMany(let path) = left else { throw Untranslatable(reason: "ANY/ALL on a key path without a to-many relationship") }
            return try quantified(path, modifier: comparison.comparisonPredicateModifier) { compiler, member in
                try compiler.compare(member, type, right, options: options)
            }
        default:
            break
        }
        switch (left, right, type) {
        case (_, .toMany(let path), .in) where path.rest.isEmpty || !isToMany(left):
            // `value IN tags.name`, `%@ IN tags`: some member equals the value.
            return try quantified(path, modifier: .any) { compiler, member in try compiler.compare(member, .equalTo, left, options: options) }
        case (.toMany(let path), _, .contains):
            // `tags CONTAINS %@`: some member is the value.
            return try quantified(path, modifier: .any) { compiler, member in try compiler.compare(member, .equalTo, right, options: options) }
        case (.toMany, _, _), (_, .toMany, _):
            throw Untranslatable(reason: "a to-many key path without ANY, ALL or NONE in \(comparison.predicateFormat)")
        default:
            return try compare(left, type, right, options: options)
        }
    }

    private func isToMany(_ term: Term) -> Bool {
        if case .toMany = term { return true }
        return false
    }

    /// `left <type> right` for two scalar terms.
    mutating func compare(_ left: Term, _ type: NSComparisonPredicate.Operator, _ right: Term,
                          options: NSComparisonPredicate.Options) throws -> String {
        switch (left, right) {
        case (.constant(let a), .constant(let b)):
            let evaluated = NSComparisonPredicate(leftExpression: NSExpression(forConstantValue: a), rightExpression: NSExpression(forConstantValue: b),
                                                  modifier: .direct, type: type, options: options)
            guard let result = try? evaluated.evaluateThrowing(with: nil) else { throw Untranslatable(reason: "constant comparison") }
            return result ? "1" : "0"
        case (.constant(let value), _):
            guard let flipped = Self.flipped(type) else { throw Untranslatable(reason: "constant on the left of \(type)") }
            return try compare(right, flipped, .constant(value), options: options)
        case (_, .constant(let value)):
            let condition = try compare(left, type, constant: value, options: options)
            if case .value(let sql, _, _) = left, let alias = nilAggregates[sql] {
                return "(CASE WHEN \(alias).Z_PK IS NULL THEN \(type == .notEqualTo && !(value == nil || ValueConversion.isNull(value)) ? 1 : 0) ELSE \(condition) END)"
            }
            return condition
        case (.key(let a, _), .key(let b, _)):
            guard let op = Self.sqlOperator(type) else { throw Untranslatable(reason: "operator \(type) between keys") }
            return "\(a) \(op) \(b)"
        case (.value(let a, _, let typeA), .value(let b, _, _)):
            return try compareValues(a, typeA, type, b, options: options)
        default:
            throw Untranslatable(reason: "comparison of a key with a value")
        }
    }

    /// The operator with its operands swapped (`5 < x` is `x > 5`).
    static func flipped(_ type: NSComparisonPredicate.Operator) -> NSComparisonPredicate.Operator? {
        switch type {
        case .lessThan: return .greaterThan
        case .lessThanOrEqualTo: return .greaterThanOrEqualTo
        case .greaterThan: return .lessThan
        case .greaterThanOrEqualTo: return .lessThanOrEqualTo
        case .equalTo, .notEqualTo: return type
        default: return nil
        }
    }

    static func sqlOperator(_ type: NSComparisonPredicate.Operator) -> String? {
        switch type {
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        case .equalTo: return "="
        case .notEqualTo: return "!="
        default: return nil
        }
    }

    /// The folding options that change how strings compare (`[c]`, `[d]`); `[n]` and plain comparisons are literal.
    static func folding(_ options: NSComparisonPredicate.Options) -> NSComparisonPredicate.Options {
        options.contains(.normalized) ? [] : options.intersection([.caseInsensitive, .diacriticInsensitive])
    }

    /// `OCD_STRING_MATCH(…) = 1` for a string operator.
    private static func match(_ op: SQLiteFunctions.StringOperator, _ options: NSComparisonPredicate.Options, _ value: String, _ pattern: String) -> String {
        "OCD_STRING_MATCH(\(op.rawValue), \(options.rawValue), \(value), \(pattern)) = 1"
    }

    /// The string function's ordering operator for `<`, `<=`, `>`, `>=`.
    static func orderOperator(_ type: NSComparisonPredicate.Operator) -> SQLiteFunctions.StringOperator? {
        switch type {
        case .lessThan: return .lessThan
        case .lessThanOrEqualTo: return .lessThanOrEqual
        case .greaterThan: return .greaterThan
        case .greaterThanOrEqualTo: return .greaterThanOrEqual
        default: return nil
        }
    }

    private static func stringOperator(_ type: NSComparisonPredicate.Operator) -> SQLiteFunctions.StringOperator? {
        switch type {
        case .beginsWith: return .beginsWith
        case .endsWith: return .endsWith
        case .contains: return .contains
        case .like: return .like
        case .matches: return .matches
        default: return nil
        }
    }

    /// Two value terms.
    private mutating func compareValues(_ a: String, _ typeA: NSAttributeType?, _ type: NSComparisonPredicate.Operator, _ b: String,
                                        options: NSComparisonPredicate.Options) throws -> String {
        let isString = typeA == .stringAttributeType || typeA == .URIAttributeType
        if options.contains(.localeSensitive) && isString { throw Untranslatable(reason: "[l] between key paths") }
        if let op = Self.stringOperator(type) {
            guard isString else { throw Untranslatable(reason: "string operator on a non-string") }
            return Self.match(op, options, a, b)
        }
        guard let op = Self.sqlOperator(type) else { throw Untranslatable(reason: "operator \(type) between key paths") }
        let folding = Self.folding(options)
        guard isString, !folding.isEmpty else { return "\(a) \(op) \(b)" }
        switch type {
        case .equalTo: return Self.match(.equal, options, a, b)
        case .notEqualTo: return "(\(a) IS NOT NULL AND \(b) IS NOT NULL AND NOT \(Self.match(.equal, options, a, b)))"
        default: return Self.match(Self.orderOperator(type)!, options, a, b)
        }
    }

    /// A term compared with a constant.
    private mutating func compare(_ left: Term, _ type: NSComparisonPredicate.Operator, constant value: Any?,
                                  options: NSComparisonPredicate.Options) throws -> String {
        let sql: String, attribute: NSAttributeDescription?, valueType: NSAttributeType?, keyRoot: NSEntityDescription?
        switch left {
        case .value(let s, let a, let t): (sql, attribute, valueType, keyRoot) = (s, a, t, nil)
        case .key(let s, let root): (sql, attribute, valueType, keyRoot) = (s, nil, nil, root)
        default: throw Untranslatable(reason: "comparison with a constant")
        }
        let isString = valueType == .stringAttributeType || valueType == .URIAttributeType
        if options.contains(.localeSensitive) && !options.contains(.normalized) && isString { throw Untranslatable(reason: "[l] comparison") }
        let folding = isString ? Self.folding(options) : []
        func bind(_ constant: Any?) throws -> String {
            try self.bind(constant, attribute: attribute, type: valueType, keyRoot: keyRoot)
        }
        if valueType == .objectIDAttributeType, attribute == nil, keyRoot == nil {
            return try compareEntity(sql, type, value)
        }
        let isNull = value == nil || ValueConversion.isNull(value)
        switch type {
        case .equalTo where isNull: return "\(sql) IS NULL"
        case .notEqualTo where isNull: return "\(sql) IS NOT NULL"
        case .lessThan where isNull, .lessThanOrEqualTo where isNull, .greaterThan where isNull, .greaterThanOrEqualTo where isNull:
            return "0"
        case .between:
            guard let bounds = Self.elements(value), bounds.count == 2 else { throw Untranslatable(reason: "BETWEEN needs two bounds") }
            if !folding.isEmpty {
                guard let low = bounds[0] as? String, let high = bounds[1] as? String else { throw Untranslatable(reason: "BETWEEN with options and non-strings") }
                return "(\(Self.match(.greaterThanOrEqual, options, sql, placeholder(.text(low)))) AND \(Self.match(.lessThanOrEqual, options, sql, placeholder(.text(high)))))"
            }
            return "\(sql) BETWEEN \(try bind(bounds[0])) AND \(try bind(bounds[1]))"
        case .in:
            guard let elements = Self.elements(value) else {
                throw Untranslatable(reason: "IN with a non-collection")
            }
            let nonNull = elements.filter { !ValueConversion.isNull($0) }
            let nullClause = nonNull.count < elements.count ? " OR \(sql) IS NULL" : ""
            guard !nonNull.isEmpty else { return nullClause.isEmpty ? "0" : "\(sql) IS NULL" }
            if !folding.isEmpty {
                let matches = try nonNull.map { element -> String in
                    guard let string = element as? String else { throw Untranslatable(reason: "IN with options and a non-string") }
                    return Self.match(.equal, options, sql, placeholder(.text(string)))
                }
                return "(" + matches.joined(separator: " OR ") + nullClause + ")"
            }
            let placeholders = try nonNull.map { try bind($0) }
            return "(\(sql) IN (\(placeholders.joined(separator: ", ")))\(nullClause))"
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard isString else { throw Untranslatable(reason: "string operator on a non-string") }
            guard let pattern = value as? String else { return "0" }
            if type == .beginsWith && options.contains(.normalized) {
                // `[n]`: the caller stores folded text; a prefix is a range over the column's index (objc.io).
                guard !pattern.isEmpty else { return "0" }
                guard let upper = Self.successor(ofPrefix: pattern) else { return "\(sql) >= \(placeholder(.text(pattern)))" }
                return "(\(sql) >= \(placeholder(.text(pattern))) AND \(sql) < \(placeholder(.text(upper))))"
            }
            return Self.match(Self.stringOperator(type)!, options, sql, placeholder(.text(pattern)))
        default:
            guard let op = Self.sqlOperator(type) else { throw Untranslatable(reason: "operator \(type)") }
            if !folding.isEmpty {
                guard let string = value as? String else { throw Untranslatable(reason: "string options with a non-string") }
                let bound = placeholder(.text(string))
                switch type {
                case .equalTo: return Self.match(.equal, options, sql, bound)
                case .notEqualTo: return "(\(sql) IS NOT NULL AND NOT \(Self.match(.equal, options, sql, bound)))"
                // Through the string function, as Apple's store does: a NULL operand is false (not unknown).
                default: return Self.match(Self.orderOperator(type)!, options, sql, bound)
                }
            }
            return "\(sql) \(op) \(try bind(value))"
        }
    }

    /// The smallest string greater than every string that starts with `prefix` (its last scalar incremented).
    static func successor(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars)
                return String(view)
            }
        }
        return nil
    }

    /// Binds a constant in the storage of what it is compared with; returns its placeholder.
    mutating func bind(_ value: Any?, attribute: NSAttributeDescription?, type: NSAttributeType?, keyRoot: NSEntityDescription?) throws -> String {
        if let keyRoot {
            if let objectID = value as? NSManagedObjectID {
                // Keys of another hierarchy, and unsaved objects, match no row.
                guard objectID.entity.rootEntity === keyRoot, let key = objectID.primaryKey else { return placeholder(.integer(-1)) }
                return placeholder(.integer(key))
            }
            guard let number = value.flatMap({ ValueConversion.integer($0) }) else { throw Untranslatable(reason: "non-object compared with a relationship") }
            return placeholder(.integer(number))
        }
        if let attribute {
            if let string = value as? String, attribute.attributeType != .stringAttributeType && attribute.attributeType != .URIAttributeType {
                return placeholder(.text(string))  // compared as SQLite compares mixed storage classes
            }
            // A number compared with a string column is bound as a number, as Apple's store binds an NSNumber: the
            // column's TEXT affinity turns it into text (`plate == 9` matches "9", `plate IN {9, 10}` "9" and "10").
            // The in-memory evaluator finds a string and a number unequal (DEVIATIONS.md S31).
            if attribute.attributeType == .stringAttributeType, let value, PredicateValue.string(value) == nil,
               let number = PredicateNumber(value) {
                if case .int(let integer) = number { return placeholder(.integer(integer)) }
                return placeholder(.real(number.doubleValue))
            }
            // A fractional or out-of-range number against an integer column is compared as a number, not
            // truncated to the column's type (`id > 9.3e18`, `qty < 2.5`).
            if Self.isInteger(attribute.attributeType), !(value is Bool), let number = value.flatMap(PredicateNumber.init) {
                switch number {
                case .int(let integer): return placeholder(.integer(integer))
                default:
                    let double = number.doubleValue
                    if double.rounded() != double || abs(double) >= 9.2e18 { return placeholder(.real(double)) }
                }
            }
            guard let stored = ValueConversion.storedValue(fromKVC: value, for: attribute) else {
                throw Untranslatable(reason: "value \(ValueConversion.typeName(value)) for attribute \(attribute.name)")
            }
            return placeholder(SQLiteValueCodec.sqliteValue(stored, for: attribute.attributeType))
        }
        // A computed value (aggregate, arithmetic): numbers, dates and strings as SQLite stores them.
        switch value {
        case let date as Date: return placeholder(.real(date.timeIntervalSinceReferenceDate))
        case let string as String: return placeholder(.text(string))
        case let bool as Bool: return placeholder(.integer(bool ? 1 : 0))
        default:
            switch value.flatMap(PredicateNumber.init) {
            case .int(let integer)?: return placeholder(.integer(integer))
            case let number?: return placeholder(.real(number.doubleValue))
            case nil: throw Untranslatable(reason: "constant \(ValueConversion.typeName(value)) compared with a computed value")
            }
        }
    }

    static func isInteger(_ type: NSAttributeType) -> Bool {
        type == .integer16AttributeType || type == .integer32AttributeType || type == .integer64AttributeType
    }

    static func elements(_ value: Any?) -> [Any]? {
        switch value {
        case let array as [Any]: return array
        case let set as NSSet: return set.allObjects
        case let ordered as NSOrderedSet: return ordered.array
        case let array as NSArray: return array.map { $0 }
        case let set as Set<AnyHashable>: return set.map(\.base)
        default: return nil
        }
    }
}
