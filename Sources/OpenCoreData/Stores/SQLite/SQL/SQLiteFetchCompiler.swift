/// Translates a fetch's predicate and sort descriptors into SQL over Apple's layout, with every value bound as
/// a parameter (never spliced into the SQL text). What it cannot translate throws `Untranslatable`; the store
/// then filters or sorts candidate rows in memory instead (an internal, logged step).
///
/// For example, `country.numericISO3166Code == 250 AND rating >= 3` on Mood becomes
/// ```sql
/// SELECT … FROM ZMOOD t0 LEFT JOIN ZCOUNTRY t1 ON t1.Z_PK = t0.ZCOUNTRY
/// WHERE (t1.ZNUMERICISO3166CODE = ? AND t0.ZRATING >= ?)
/// ```
struct SQLiteFetchCompiler {
    /// A part the compiler does not translate.
    struct Untranslatable: Error {
        var reason: String
    }

    let schema: SQLiteSchema
    let entity: NSEntityDescription
    /// Bound values, in order.
    private(set) var arguments: [SQLiteValue] = []
    /// `LEFT JOIN` clauses by key-path prefix.
    private(set) var joins: [(path: String, alias: String, sql: String)] = []

    init(schema: SQLiteSchema, entity: NSEntityDescription) {
        self.schema = schema
        self.entity = entity
    }

    /// The `FROM … JOIN …` clause.
    var fromClause: String {
        ([ "\(schema.table(for: entity).name) t0" ] + joins.map(\.sql)).joined(separator: " ")
    }

    /// The condition that selects the entity's rows in its table (`Z_ENT IN (…)`), or nil if every row matches.
    func entityCondition(includesSubentities: Bool) -> String? {
        let table = schema.table(for: entity)
        let numbers = includesSubentities ? schema.mapping(for: entity).entityNumbersIncludingSubentities : [schema.number(of: entity)]
        if Set(numbers) == Set(table.entities.map { schema.number(of: $0) }) { return nil }
        return numbers.count == 1 ? "t0.Z_ENT = \(numbers[0])" : "t0.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"
    }

    // MARK: Predicates

    /// The SQL condition of a predicate.
    mutating func condition(_ predicate: NSPredicate) throws -> String {
        switch predicate {
        case let compound as NSCompoundPredicate:
            let parts = try compound.subpredicates.map { sub -> String in
                guard let sub = sub as? NSPredicate else { throw Untranslatable(reason: "subpredicate") }
                return try condition(sub)
            }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? "1" : "(" + parts.joined(separator: " AND ") + ")"
            case .or: return parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")"
            case .not: return "NOT (" + (parts.first ?? "1") + ")"
            @unknown default: throw Untranslatable(reason: "compound type")
            }
        case let comparison as NSComparisonPredicate:
            return try condition(comparison)
        default:
            switch predicate.predicateFormat {
            case "TRUEPREDICATE": return "1"
            case "FALSEPREDICATE": return "0"
            default: throw Untranslatable(reason: "predicate \(predicate.predicateFormat)")
            }
        }
    }

    /// An operand of a comparison.
    enum Operand {
        /// A column; the attribute gives its type, or nil for a key column (to-one, `Z_PK`).
        case column(String, NSAttributeDescription?, isKey: Bool)
        case constant(Any?)
    }

    private mutating func condition(_ comparison: NSComparisonPredicate) throws -> String {
        guard comparison.comparisonPredicateModifier == .direct else { throw Untranslatable(reason: "ANY/ALL/NONE modifier") }
        var left = try operand(comparison.leftExpression)
        var right = try operand(comparison.rightExpression)
        var type = comparison.predicateOperatorType
        if case .constant = left, case .column = right {
            swap(&left, &right)
            switch type {
            case .lessThan: type = .greaterThan
            case .lessThanOrEqualTo: type = .greaterThanOrEqualTo
            case .greaterThan: type = .lessThan
            case .greaterThanOrEqualTo: type = .lessThanOrEqualTo
            case .equalTo, .notEqualTo: break
            default: throw Untranslatable(reason: "constant on the left of \(comparison.predicateFormat)")
            }
        }
        let options = comparison.options.subtracting(.normalized)
        switch (left, right) {
        case (.column(let column, let attribute, let isKey), .constant(let value)):
            return try compare(column: column, attribute: attribute, isKey: isKey, type: type, options: options, value: value)
        case (.column(let a, let attributeA, _), .column(let b, _, _)):
            guard options.isEmpty || attributeA?.attributeType != .stringAttributeType else { throw Untranslatable(reason: "options between two key paths") }
            guard let op = Self.sqlOperator(type) else { throw Untranslatable(reason: "operator between two key paths") }
            return "\(a) \(op) \(b)"
        case (.constant(let a), .constant(let b)):
            let evaluated = NSComparisonPredicate(leftExpression: NSExpression(forConstantValue: a), rightExpression: NSExpression(forConstantValue: b),
                                                  modifier: .direct, type: type, options: comparison.options)
            guard let result = try? evaluated.evaluateThrowing(with: nil) else { throw Untranslatable(reason: "constant comparison") }
            return result ? "1" : "0"
        default:
            throw Untranslatable(reason: comparison.predicateFormat)
        }
    }

    private static func sqlOperator(_ type: NSComparisonPredicate.Operator) -> String? {
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

    private mutating func compare(column: String, attribute: NSAttributeDescription?, isKey: Bool, type: NSComparisonPredicate.Operator,
                                  options: NSComparisonPredicate.Options, value: Any?) throws -> String {
        let isNull = value == nil || value is NSNull
        switch type {
        case .equalTo where isNull: return "\(column) IS NULL"
        case .notEqualTo where isNull: return "\(column) IS NOT NULL"
        case .lessThan where isNull, .lessThanOrEqualTo where isNull, .greaterThan where isNull, .greaterThanOrEqualTo where isNull: return "0"
        case .between:
            guard let bounds = Self.elements(value), bounds.count == 2 else { throw Untranslatable(reason: "BETWEEN needs two bounds") }
            guard options.isEmpty else { throw Untranslatable(reason: "BETWEEN with options") }
            let low = try bind(bounds[0], attribute: attribute, isKey: isKey), high = try bind(bounds[1], attribute: attribute, isKey: isKey)
            return "\(column) BETWEEN \(low) AND \(high)"
        case .in:
            guard let elements = Self.elements(value) else { throw Untranslatable(reason: "IN with a non-collection") }
            guard options.isEmpty || attribute?.attributeType != .stringAttributeType else { throw Untranslatable(reason: "IN with string options") }
            let nonNull = elements.filter { !($0 is NSNull) }
            guard !nonNull.isEmpty else { return "0" }
            let placeholders = try nonNull.map { try bind($0, attribute: attribute, isKey: isKey) }
            return "\(column) IN (\(placeholders.joined(separator: ", ")))"
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard attribute?.attributeType == .stringAttributeType || attribute?.attributeType == .URIAttributeType else {
                throw Untranslatable(reason: "string operator on a non-string")
            }
            guard let pattern = value as? String else { return "0" }
            let code: SQLiteFunctions.StringOperator
            switch type {
            case .beginsWith: code = .beginsWith
            case .endsWith: code = .endsWith
            case .contains: code = .contains
            case .like: code = .like
            default: code = .matches
            }
            arguments.append(.text(pattern))
            return "OCD_STRING_MATCH(\(code.rawValue), \(options.rawValue), \(column), ?) = 1"
        default:
            guard let op = Self.sqlOperator(type) else { throw Untranslatable(reason: "operator \(type)") }
            if !options.isEmpty, attribute?.attributeType == .stringAttributeType {
                guard type == .equalTo || type == .notEqualTo, let string = value as? String else { throw Untranslatable(reason: "ordering with options") }
                arguments.append(.text(string))
                let match = "OCD_STRING_MATCH(\(SQLiteFunctions.StringOperator.equal.rawValue), \(options.rawValue), \(column), ?) = 1"
                return type == .equalTo ? match : "(\(column) IS NOT NULL AND NOT \(match))"
            }
            let placeholder = try bind(value, attribute: attribute, isKey: isKey)
            return "\(column) \(op) \(placeholder)"
        }
    }

    /// Binds a constant converted to the column's storage; returns its placeholder.
    private mutating func bind(_ value: Any?, attribute: NSAttributeDescription?, isKey: Bool) throws -> String {
        if isKey {
            if let objectID = value as? NSManagedObjectID {
                guard let key = objectID.primaryKey else {
                    arguments.append(.integer(-1))  // an unsaved object matches no row
                    return "?"
                }
                arguments.append(.integer(key))
                return "?"
            }
            guard let number = ValueConversion.integer(value as Any) else { throw Untranslatable(reason: "non-object compared with a relationship") }
            arguments.append(.integer(number))
            return "?"
        }
        guard let attribute else { throw Untranslatable(reason: "untyped column") }
        if attribute.attributeType == .transformableAttributeType { throw Untranslatable(reason: "transformable attribute") }
        if let string = value as? String, attribute.attributeType != .stringAttributeType && attribute.attributeType != .URIAttributeType {
            arguments.append(.text(string))  // compared as SQLite does; rarely meaningful, kept for fidelity
            return "?"
        }
        guard let stored = ValueConversion.storedValue(fromKVC: value, for: attribute) else {
            throw Untranslatable(reason: "value \(ValueConversion.typeName(value)) for attribute \(attribute.name)")
        }
        arguments.append(SQLiteValueCodec.sqliteValue(stored, for: attribute.attributeType))
        return "?"
    }

    private static func elements(_ value: Any?) -> [Any]? {
        switch value {
        case let array as [Any]: return array
        case let set as NSSet: return set.allObjects
        case let ordered as NSOrderedSet: return ordered.array
        case let array as NSArray: return array.map { $0 }
        case let set as Set<AnyHashable>: return set.map(\.base)
        default: return nil
        }
    }

    private mutating func operand(_ expression: NSExpression) throws -> Operand {
        switch expression.node {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            return .column("t0.Z_PK", nil, isKey: true)
        case .keyPath(let operand, let path):
            guard case .evaluatedObject = operand.node else { throw Untranslatable(reason: "key path on an expression") }
            return try keyPathColumn(path)
        case .aggregate(let elements):
            let values = try elements.map { element -> Any in
                guard case .constant(let value) = element.node else { throw Untranslatable(reason: "non-constant aggregate") }
                return value ?? NSNull()
            }
            return .constant(values)
        default:
            throw Untranslatable(reason: "expression \(expression)")
        }
    }

    /// The column of a key path through to-one relationships (joining their tables).
    mutating func keyPathColumn(_ path: String) throws -> Operand {
        var components = path.split(separator: ".").map(String.init)
        if components.first == "SELF" || components.first == "self" { components.removeFirst() }
        guard !components.isEmpty else { return .column("t0.Z_PK", nil, isKey: true) }
        var current = entity
        var alias = "t0"
        var prefix = ""
        for (index, component) in components.enumerated() {
            let isLast = index == components.count - 1
            guard let property = current.propertiesByName[component] else { throw Untranslatable(reason: "unknown key \(component)") }
            guard let column = schema.columnName(of: component, in: current) else {
                throw Untranslatable(reason: "key \(component) has no column (to-many or transient)")
            }
            if isLast {
                if let attribute = property as? NSAttributeDescription { return .column("\(alias).\(column)", attribute, isKey: false) }
                return .column("\(alias).\(column)", nil, isKey: true)
            }
            guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany, let destination = relationship.destinationEntity else {
                throw Untranslatable(reason: "key path continues after an attribute")
            }
            prefix += (prefix.isEmpty ? "" : ".") + component
            if let existing = joins.first(where: { $0.path == prefix }) {
                alias = existing.alias
            } else {
                let newAlias = "t\(joins.count + 1)"
                joins.append((prefix, newAlias, "LEFT JOIN \(schema.table(for: destination).name) \(newAlias) ON \(newAlias).Z_PK = \(alias).\(column)"))
                alias = newAlias
            }
            current = destination
        }
        throw Untranslatable(reason: "empty key path")
    }

    // MARK: Sorting

    /// The `ORDER BY` terms of sort descriptors.
    mutating func orderBy(_ descriptors: [NSSortDescriptor]) throws -> [String] {
        try descriptors.map { descriptor in
            guard let key = descriptor.key else { throw Untranslatable(reason: "sort descriptor without a key") }
            guard case .column(let column, let attribute, _) = try keyPathColumn(key) else { throw Untranslatable(reason: "sort key") }
            var collation = ""
            if attribute?.attributeType == .stringAttributeType {
                switch descriptor.selector.map({ NSStringFromSelector($0) }) ?? "compare:" {
                case "compare:": collation = ""
                case "caseInsensitiveCompare:": collation = " COLLATE OCD_CASE_INSENSITIVE"
                case "localizedCompare:": collation = " COLLATE OCD_LOCALIZED"
                case "localizedCaseInsensitiveCompare:": collation = " COLLATE OCD_LOCALIZED_CASE_INSENSITIVE"
                case "localizedStandardCompare:": collation = " COLLATE OCD_LOCALIZED_STANDARD"
                default: throw Untranslatable(reason: "sort selector")
                }
            } else if let selector = descriptor.selector.map({ NSStringFromSelector($0) }), selector != "compare:" {
                throw Untranslatable(reason: "sort selector \(selector) on a non-string")
            }
            return "\(column)\(collation) \(descriptor.ascending ? "ASC" : "DESC")"
        }
    }
}
