/// Expressions as SQL terms: constants, key paths (joining through to-one relationships), to-many key paths
/// (kept for quantifiers and membership), collection aggregates and `SUBQUERY(…).@count` as scalar subqueries,
/// and arithmetic.
extension SQLiteFetchCompiler {
    /// What an expression compiles to.
    enum Term {
        /// A value: a column or computed SQL expression; `attribute` types it when it is one attribute's column
        /// (strings then honour comparison options), `type` when only the kind is known.
        case value(sql: String, attribute: NSAttributeDescription?, type: NSAttributeType?)
        /// An object key (`Z_PK` of a row or a to-one foreign key); `root` is the hierarchy whose keys it holds.
        case key(sql: String, root: NSEntityDescription)
        /// A constant, not yet bound (it is converted to the other side's storage when compared).
        case constant(Any?)
        /// A key path that reaches a to-many relationship: usable with `ANY`/`ALL`/`NONE`, `IN` and `CONTAINS`.
        case toMany(ToManyPath)
    }

    /// `scope`'s rows → `relationship` (to-many) → the key path `rest` on each destination.
    struct ToManyPath {
        var scope: Int
        var alias: String
        var relationship: NSRelationshipDescription
        var rest: [String]
    }

    /// The term of an expression in the current scopes.
    mutating func term(_ expression: NSExpression) throws -> Term {
        switch expression.node {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            return .key(sql: "\(scopes[selfScope].alias).Z_PK", root: scopes[selfScope].entity.rootEntity)
        case .variable(let name):
            guard let index = variables[name] else { throw Untranslatable(reason: "unbound variable $\(name)") }
            return .key(sql: "\(scopes[index].alias).Z_PK", root: scopes[index].entity.rootEntity)
        case .keyPath(let operand, let path):
            return try keyPathTerm(operand: operand, path: path)
        case .aggregate(let elements):
            let values = try elements.map { element -> Any in
                guard case .constant(let value) = element.node else { throw Untranslatable(reason: "non-constant aggregate") }
                return value ?? NSNull()
            }
            return .constant(values)
        case .function(let target, let name, let arguments):
            return try functionTerm(target: target, name: name, arguments: arguments, expression: expression)
        default:
            throw Untranslatable(reason: "expression \(expression)")
        }
    }

    private mutating func keyPathTerm(operand: NSExpression, path: String) throws -> Term {
        var components = path.split(separator: ".").map(String.init)
        switch operand.node {
        case .evaluatedObject:
            return try resolve(components, in: selfScope)
        case .variable(let name):
            guard let index = variables[name] else { throw Untranslatable(reason: "unbound variable $\(name)") }
            return try resolve(components, in: index)
        case .subquery(let collection, let variable, let predicate):
            guard components.first == "@count" else { throw Untranslatable(reason: "SUBQUERY without @count") }
            components.removeFirst()
            return try subqueryCount(collection: collection, variable: variable, predicate: predicate)
        default:
            throw Untranslatable(reason: "key path on an expression")
        }
    }

    /// Resolves key-path components from the rows of scope `index`: to-one steps join, an attribute or to-one
    /// relationship at the end is a column, a to-many step stops with the rest of the path (or a collection
    /// operator right after it becomes a scalar subquery).
    mutating func resolve(_ path: [String], in index: Int) throws -> Term {
        var components = path
        if components.first == "SELF" || components.first == "self" { components.removeFirst() }
        var current = scopes[index].entity
        var alias = scopes[index].alias
        guard !components.isEmpty else { return .key(sql: "\(alias).Z_PK", root: current.rootEntity) }
        var prefix = ""
        for (position, component) in components.enumerated() {
            let isLast = position == components.count - 1
            if component == "entity", isLast, current.propertiesByName[component] == nil {
                // The object's entity: its row's Z_ENT (compared with entities as their numbers).
                return .value(sql: "\(alias).Z_ENT", attribute: nil, type: .objectIDAttributeType)
            }
            guard let property = current.propertiesByName[component] else { throw Untranslatable(reason: "unknown key \(component)") }
            if property.isTransient { throw Untranslatable(reason: "transient key \(component)") }
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                let rest = Array(components[(position + 1)...])
                let path = ToManyPath(scope: index, alias: alias, relationship: relationship, rest: rest)
                if let first = rest.first, first.hasPrefix("@") { return try aggregate(path) }
                return .toMany(path)
            }
            guard let column = schema.columnName(of: component, in: current) else {
                throw Untranslatable(reason: "key \(component) has no column")
            }
            if let attribute = property as? NSAttributeDescription {
                guard isLast else { throw Untranslatable(reason: "key path continues after the attribute \(component)") }
                if attribute.attributeType == .transformableAttributeType { throw Untranslatable(reason: "transformable attribute \(component)") }
                return .value(sql: "\(alias).\(column)", attribute: attribute, type: attribute.attributeType)
            }
            guard let relationship = property as? NSRelationshipDescription, let destination = relationship.destinationEntity else {
                throw Untranslatable(reason: "key \(component)")
            }
            if isLast { return .key(sql: "\(alias).\(column)", root: destination.rootEntity) }
            prefix += (prefix.isEmpty ? "" : ".") + component
            if let existing = scopes[index].joins.first(where: { $0.path == prefix }) {
                alias = existing.alias
            } else {
                let joined = newAlias()
                scopes[index].joins.append((prefix, joined, "LEFT JOIN \(schema.table(for: destination).name) \(joined) ON \(joined).Z_PK = \(alias).\(column)"))
                alias = joined
            }
            current = destination
        }
        throw Untranslatable(reason: "empty key path")
    }

    /// `items.@count`, `items.@sum.price`, `@avg`, `@min`, `@max` as a scalar subquery over the members, with
    /// the in-memory evaluator's results for empty collections (0 for count, sum and average, NULL for min/max).
    private mutating func aggregate(_ path: ToManyPath) throws -> Term {
        let operation = path.rest[0]
        let rest = Array(path.rest.dropFirst())
        guard let destination = path.relationship.destinationEntity else { throw Untranslatable(reason: "relationship without destination") }
        // Through a to-one relationship that is nil there is no collection: the in-memory result is nil, not 0.
        func guarded(_ sql: String) -> String {
            guard path.alias != scopes[path.scope].alias else { return sql }
            let guardedSQL = "CASE WHEN \(path.alias).Z_PK IS NULL THEN NULL ELSE \(sql) END"
            nilAggregates[guardedSQL] = path.alias
            return guardedSQL
        }
        if operation == "@count" {
            let link = try self.link(path.relationship, from: path.alias)
            return .value(sql: guarded("(SELECT COUNT(*) FROM \(link.from) WHERE \(link.condition))"), attribute: nil, type: .integer64AttributeType)
        }
        let function: String
        switch operation {
        case "@sum": function = "SUM"
        case "@avg": function = "AVG"
        case "@min": function = "MIN"
        case "@max": function = "MAX"
        default: throw Untranslatable(reason: "collection operator \(operation)")
        }
        guard !rest.isEmpty else { throw Untranslatable(reason: "\(operation) without a key") }
        let link = try self.link(path.relationship, from: path.alias)
        let (value, scope) = try withScope(destination) { compiler, index -> (String, NSAttributeType?) in
            compiler.scopes[index].alias = link.alias
            guard case .value(let sql, _, let type) = try compiler.resolve(rest, in: index) else {
                throw Untranslatable(reason: "\(operation) of a non-value")
            }
            guard type.map(Self.isNumericOrDate) ?? true || function == "MIN" || function == "MAX" else {
                throw Untranslatable(reason: "\(operation) of a non-number")
            }
            return (sql, type)
        }
        let from = ([link.from] + scope.joins.map(\.sql)).joined(separator: " ")
        let aggregateSQL: String
        switch function {
        // TOTAL: SUM's value without its integer overflow error (the in-memory sum does not fail either).
        case "SUM": aggregateSQL = "TOTAL(\(value.0))"
        case "AVG": aggregateSQL = "COALESCE(AVG(\(value.0)), 0)"
        default: aggregateSQL = "\(function)(\(value.0))"
        }
        let type: NSAttributeType? = function == "AVG" || function == "SUM" ? .doubleAttributeType : value.1
        return .value(sql: guarded("(SELECT \(aggregateSQL) FROM \(from) WHERE \(link.condition))"), attribute: nil, type: type)
    }

    /// `SUBQUERY(collection, $x, predicate).@count`.
    private mutating func subqueryCount(collection: NSExpression, variable: String, predicate: NSPredicate) throws -> Term {
        guard case .toMany(let path) = try term(collection), path.rest.isEmpty, let destination = path.relationship.destinationEntity else {
            throw Untranslatable(reason: "SUBQUERY over something other than a to-many relationship")
        }
        let link = try self.link(path.relationship, from: path.alias)
        let (condition, scope) = try withScope(destination, variable: variable) { compiler, index -> String in
            compiler.scopes[index].alias = link.alias
            return try compiler.condition(predicate)
        }
        let from = ([link.from] + scope.joins.map(\.sql)).joined(separator: " ")
        return .value(sql: "(SELECT COUNT(*) FROM \(from) WHERE \(link.condition) AND \(condition))", attribute: nil, type: .integer64AttributeType)
    }

    /// Arithmetic on values (`price * 2`, `abs:`), and functions of constants evaluated once (`now()`).
    private mutating func functionTerm(target: NSExpression?, name: String, arguments: [NSExpression], expression: NSExpression) throws -> Term {
        if target == nil, arguments.allSatisfy({ if case .constant = $0.node { return true }; return false }) {
            guard let value = try? expression.evaluatedValue(with: nil, context: nil) else {
                throw Untranslatable(reason: "function \(name) of constants")
            }
            return .constant(value)
        }
        guard target == nil else { throw Untranslatable(reason: "function with a target") }
        if name == "lowercase:" || name == "uppercase:", arguments.count == 1 {
            guard case .value(let sql, _, let type) = try term(arguments[0]), type == .stringAttributeType || type == nil else {
                throw Untranslatable(reason: "function \(name) of a non-string")
            }
            return .value(sql: "\(name == "lowercase:" ? "OCD_LOWERCASE" : "OCD_UPPERCASE")(\(sql))", attribute: nil, type: .stringAttributeType)
        }
        let operands = try arguments.map { argument -> String in
            switch try term(argument) {
            case .value(let sql, _, let type):
                guard type.map(Self.isNumericOrDate) ?? true else { throw Untranslatable(reason: "function \(name) of a non-number") }
                return sql
            case .constant(let value):
                switch value.flatMap(PredicateNumber.init) {
                case .int(let integer)?: return placeholder(.integer(integer))
                case let number?: return placeholder(.real(number.doubleValue))
                case nil: throw Untranslatable(reason: "function \(name) of a non-number constant")
                }
            default:
                throw Untranslatable(reason: "function \(name) of a key or relationship")
            }
        }
        let sql: String
        switch (name, operands.count) {
        case ("add:to:", 2): sql = "(\(operands[0]) + \(operands[1]))"
        case ("from:subtract:", 2): sql = "(\(operands[0]) - \(operands[1]))"
        case ("multiply:by:", 2): sql = "(\(operands[0]) * \(operands[1]))"
        case ("divide:by:", 2): sql = "(CAST(\(operands[0]) AS REAL) / \(operands[1]))"
        case ("abs:", 1): sql = "ABS(\(operands[0]))"
        default: throw Untranslatable(reason: "function \(name)")
        }
        return .value(sql: sql, attribute: nil, type: .doubleAttributeType)
    }

    static func isNumericOrDate(_ type: NSAttributeType) -> Bool {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType, .floatAttributeType,
             .decimalAttributeType, .booleanAttributeType, .dateAttributeType:
            return true
        default:
            return false
        }
    }
}
