import OpenCoreData

// The random predicates and sort descriptors of the differential test: an AST of our own (so the oracle knows each
// comparison's operands), rendered to a format string with `%@` arguments and parsed by `NSPredicate(format:)`, as
// users write predicates.

// MARK: - AST

/// A reference to a generated object, resolved per context (each store has its own objects and IDs).
struct DifferentialReference: CustomStringConvertible {
    let entity: String
    let id: Int64
    var description: String { DifferentialData.key(entity, id) }
}

/// An expression of a generated predicate.
indirect enum DifferentialExpression {
    /// A key path from the evaluated object (or, inside a subquery, from the iteration variable).
    case key(String)
    /// A constant bound as `%@`.
    case constant(Any)
    /// A constant written into the format string (`3`, `'text'`, `nil`, `YES`), with its value.
    case literal(String, Any?)
    /// `{a, b, …}`: an aggregate of expressions.
    case aggregate([DifferentialExpression])
    /// A collection constant bound as one `%@` (`[Any]`, `Set`).
    case collection([Any], asSet: Bool)
    /// A managed object (or its ID) bound as `%@`.
    case object(DifferentialReference, asID: Bool)
    /// An array of managed objects (or IDs) bound as `%@`.
    case objects([DifferentialReference], asIDs: Bool)
    /// `$name`, substituted with `withSubstitutionVariables` before the fetch.
    case variable(String, DifferentialExpression)
    /// `a + b`, `a * b`, … (only on required attributes: Apple raises on `nil * 2` in memory).
    case arithmetic(DifferentialExpression, String, DifferentialExpression)
    /// `name(argument)`: a predefined function (`lowercase`, `uppercase`, `abs`, …).
    case function(String, [DifferentialExpression])
    /// `SUBQUERY(collection, $variable, predicate).@count`.
    case subqueryCount(collection: String, variable: String, predicate: DifferentialPredicate)

    /// Whether the expression is the literal `nil` (a comparison with it is `IS NULL` in SQL).
    var isNilLiteral: Bool {
        switch self {
        case .literal(_, let value): return value == nil
        case .constant(let value): return value is NSNull
        case .variable(_, let value): return value.isNilLiteral
        default: return false
        }
    }
}

/// The comparison operators, with their format spelling.
enum DifferentialOperator: String, CaseIterable {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case between = "BETWEEN", `in` = "IN", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS"
    case like = "LIKE", matches = "MATCHES"

    var type: NSComparisonPredicate.Operator {
        switch self {
        case .equal: return .equalTo
        case .notEqual: return .notEqualTo
        case .less: return .lessThan
        case .lessOrEqual: return .lessThanOrEqualTo
        case .greater: return .greaterThan
        case .greaterOrEqual: return .greaterThanOrEqualTo
        case .between: return .between
        case .in: return .in
        case .beginsWith: return .beginsWith
        case .endsWith: return .endsWith
        case .contains: return .contains
        case .like: return .like
        case .matches: return .matches
        }
    }

    static let ordering: [DifferentialOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
    static let strings: [DifferentialOperator] = [.beginsWith, .endsWith, .contains, .like, .matches]
}

/// `ANY`, `SOME`, `ALL`, `NONE`.
enum DifferentialQuantifier: String {
    case any = "ANY", some = "SOME", all = "ALL", none = "NONE"
}

/// A generated predicate.
indirect enum DifferentialPredicate {
    case and([DifferentialPredicate])
    case or([DifferentialPredicate])
    case not(DifferentialPredicate)
    case constant(Bool)
    case comparison(DifferentialComparison)
    /// A hand-written format whose `%@` arguments are the expressions, in order (`sqliteTranslatesWithoutFallback`).
    case raw(String, [DifferentialExpression])
}

struct DifferentialComparison {
    var quantifier: DifferentialQuantifier?
    var lhs: DifferentialExpression
    var op: DifferentialOperator
    /// Option letters: "", "c", "d", "cd", "n".
    var options: String
    var rhs: DifferentialExpression

    var comparisonOptions: NSComparisonPredicate.Options {
        var result: NSComparisonPredicate.Options = []
        if options.contains("c") { result.insert(.caseInsensitive) }
        if options.contains("d") { result.insert(.diacriticInsensitive) }
        if options.contains("n") { result.insert(.normalized) }
        return result
    }
}

/// One generated fetch: entity, predicate, sort descriptors, limit and offset.
struct DifferentialCase: CustomStringConvertible {
    let index: Int
    let entity: String
    let predicate: DifferentialPredicate?
    /// Key, ascending, selector name; the fetch appends `id` ascending (a unique key: a total order).
    let sorts: [(key: String, ascending: Bool, selector: String)]
    let fetchLimit: Int
    let fetchOffset: Int
    /// A one-line summary for failure reports.
    var description: String {
        var parts = ["#\(index) \(entity)"]
        if !sorts.isEmpty { parts.append("sorted by " + sorts.map { "\($0.key) \($0.ascending ? "ASC" : "DESC") \($0.selector)" }.joined(separator: ", ") + ", id ASC") }
        if fetchLimit > 0 { parts.append("limit \(fetchLimit)") }
        if fetchOffset > 0 { parts.append("offset \(fetchOffset)") }
        return parts.joined(separator: ", ")
    }
}

// MARK: - Rendering

/// A predicate rendered for one context: objects resolved to that context's objects (or IDs), variables kept as
/// `$name` (for the fetch) or replaced by their values (for the oracle).
struct DifferentialRenderer {
    enum Variables { case keep, inline }

    let resolve: (DifferentialReference, _ asID: Bool) -> Any
    let variables: Variables
    private(set) var arguments: [Any] = []
    private(set) var bindings: [String: Any] = [:]

    init(variables: Variables, resolve: @escaping (DifferentialReference, _ asID: Bool) -> Any) {
        self.variables = variables
        self.resolve = resolve
    }

    mutating func render(_ predicate: DifferentialPredicate, prefix: String = "") -> String {
        switch predicate {
        case .and(let parts): return "(" + parts.map { render($0, prefix: prefix) }.joined(separator: " AND ") + ")"
        case .or(let parts): return "(" + parts.map { render($0, prefix: prefix) }.joined(separator: " OR ") + ")"
        case .not(let part): return "NOT " + render(part, prefix: prefix)
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison): return render(comparison, prefix: prefix)
        case .raw(let format, let arguments):
            for argument in arguments { _ = render(argument, prefix: prefix) }
            return format
        }
    }

    mutating func render(_ comparison: DifferentialComparison, prefix: String) -> String {
        let quantifier = comparison.quantifier.map { $0.rawValue + " " } ?? ""
        let options = comparison.options.isEmpty ? "" : "[\(comparison.options)]"
        let lhs = render(comparison.lhs, prefix: prefix)
        let rhs = render(comparison.rhs, prefix: prefix)
        return "\(quantifier)\(lhs) \(comparison.op.rawValue)\(options) \(rhs)"
    }

    mutating func render(_ expression: DifferentialExpression, prefix: String) -> String {
        switch expression {
        case .key(let path): return prefix + path
        case .constant(let value):
            arguments.append(value)
            return "%@"
        case .literal(let text, _): return text
        case .aggregate(let elements): return "{" + elements.map { render($0, prefix: prefix) }.joined(separator: ", ") + "}"
        case .collection(let values, let asSet):
            arguments.append(asSet ? NSSet(array: values) : values)
            return "%@"
        case .object(let reference, let asID):
            arguments.append(resolve(reference, asID))
            return "%@"
        case .objects(let references, let asIDs):
            arguments.append(references.map { resolve($0, asIDs) })
            return "%@"
        case .variable(let name, let bound):
            switch variables {
            case .keep:
                bindings[name] = value(of: bound)
                return "$" + name
            case .inline:
                return render(bound, prefix: prefix)
            }
        case .arithmetic(let a, let op, let b): return "(" + render(a, prefix: prefix) + " \(op) " + render(b, prefix: prefix) + ")"
        case .function(let name, let arguments): return name + "(" + arguments.map { render($0, prefix: prefix) }.joined(separator: ", ") + ")"
        case .subqueryCount(let collection, let variable, let predicate):
            return "SUBQUERY(\(prefix)\(collection), $\(variable), \(render(predicate, prefix: "$\(variable).")))" + ".@count"
        }
    }

    /// The value a variable is bound to.
    private func value(of expression: DifferentialExpression) -> Any {
        switch expression {
        case .constant(let value): return value
        case .literal(_, let value): return value ?? NSNull()
        case .collection(let values, let asSet): return asSet ? NSSet(array: values) : values
        case .object(let reference, let asID): return resolve(reference, asID)
        case .objects(let references, let asIDs): return references.map { resolve($0, asIDs) }
        default: preconditionFailure("a variable must stand for a constant")
        }
    }
}

// MARK: - Generation

/// What can be compared on an entity: scalar key paths (attributes, also through to-one relationships), to-one
/// key paths (objects), and to-many key paths.
struct DifferentialCatalog {
    struct Scalar {
        let path: String
        let type: DifferentialType
        /// Whether the value can be nil (an optional attribute, or a path through a to-one relationship).
        let isNullable: Bool
    }

    struct ToMany {
        let path: String
        let destination: String
    }

    let entity: String
    let scalars: [Scalar]
    /// To-one key paths and their destination entity.
    let toOnes: [(path: String, destination: String)]
    let toManys: [ToMany]

    init(entity: String) {
        self.entity = entity
        var scalars: [Scalar] = DifferentialSchema.attributes(of: entity).map { Scalar(path: $0.name, type: $0.type, isNullable: $0.isOptional) }
        var toOnes: [(path: String, destination: String)] = []
        var toManys: [ToMany] = []
        for relationship in DifferentialSchema.relationships(of: entity) {
            if relationship.isToMany {
                toManys.append(ToMany(path: relationship.name, destination: relationship.destination))
                continue
            }
            toOnes.append((relationship.name, relationship.destination))
            for attribute in DifferentialSchema.attributes(of: relationship.destination) {
                scalars.append(Scalar(path: "\(relationship.name).\(attribute.name)", type: attribute.type, isNullable: true))
            }
            for second in DifferentialSchema.relationships(of: relationship.destination) {
                if second.isToMany {
                    // One to-one hop, then a to-many relationship (`owner.tags`): for quantifiers and aggregates.
                    toManys.append(ToMany(path: "\(relationship.name).\(second.name)", destination: second.destination))
                } else {
                    toOnes.append(("\(relationship.name).\(second.name)", second.destination))
                    for attribute in DifferentialSchema.attributes(of: second.destination) where ["name", "age"].contains(attribute.name) {
                        scalars.append(Scalar(path: "\(relationship.name).\(second.name).\(attribute.name)", type: attribute.type, isNullable: true))
                    }
                }
            }
        }
        self.scalars = scalars
        self.toOnes = toOnes
        self.toManys = toManys
    }

    /// The required numeric attributes of the entity itself (for arithmetic).
    var requiredNumbers: [Scalar] { scalars.filter { !$0.path.contains(".") && !$0.isNullable && $0.type.isNumeric } }
    /// The required string attributes of the entity itself (for functions).
    var requiredStrings: [Scalar] { scalars.filter { !$0.path.contains(".") && !$0.isNullable && $0.type == .string } }
}

/// Makes random cases from a case's random number generator.
struct DifferentialGenerator {
    var rng: DifferentialRNG
    let data: DifferentialData
    private var variableCount = 0

    init(rng: DifferentialRNG, data: DifferentialData) {
        self.rng = rng
        self.data = data
    }

    static let entities: [(Int, String)] = [
        (50, "DiffPerson"), (18, "DiffItem"), (10, "DiffThing"), (5, "DiffGadget"), (5, "DiffWidget"), (6, "DiffTag"), (6, "DiffStep"),
    ]

    mutating func makeCase(index: Int) -> DifferentialCase {
        let entity = rng.weighted(Self.entities)
        let catalog = DifferentialCatalog(entity: entity)
        let predicate: DifferentialPredicate? = rng.chance(0.04) ? nil : makePredicate(catalog, depth: 0)
        var sorts: [(key: String, ascending: Bool, selector: String)] = []
        var limit = 0, offset = 0
        if rng.chance(0.65) {
            let sortable = catalog.scalars.filter { ($0.type.isOrdered || [.bool, .uuid, .data].contains($0.type)) && $0.path.split(separator: ".").count <= 2 && $0.path != "id" }
            let own = sortable.filter { !$0.path.contains(".") }
            for _ in 0..<rng.weighted([(5, 1), (3, 2), (1, 3)]) {
                let key = rng.chance(0.7) && !own.isEmpty ? rng.pick(own) : rng.pick(sortable)
                let selector = key.type == .string
                    ? rng.weighted([(4, "compare:"), (3, "caseInsensitiveCompare:"), (3, "localizedStandardCompare:"), (1, "localizedCompare:"), (1, "localizedCaseInsensitiveCompare:")])
                    : "compare:"
                sorts.append((key.path, rng.chance(0.6), selector))
            }
            if rng.chance(0.25) { limit = rng.int(1...8) }
            if rng.chance(0.2) { offset = rng.int(1...5) }
        }
        return DifferentialCase(index: index, entity: entity, predicate: predicate, sorts: sorts, fetchLimit: limit, fetchOffset: offset)
    }

    // MARK: Predicates

    /// A predicate: compounds (AND, OR, NOT) down to two levels, then comparisons; inside a subquery only
    /// comparisons the subquery's element can answer (no to-many relationships, nothing nested).
    mutating func makePredicate(_ catalog: DifferentialCatalog, depth: Int, inSubquery: Bool = false) -> DifferentialPredicate {
        let compoundWeight = depth == 0 ? 45 : (depth == 1 ? 25 : 0)
        let notWeight = depth < 2 ? compoundWeight / 3 + 4 : 0
        switch rng.weighted([(compoundWeight, 0), (notWeight, 1), (100, 2), (2, 3)]) {
        case 0:
            let parts = (0..<rng.weighted([(4, 2), (1, 3)])).map { _ in makePredicate(catalog, depth: depth + 1, inSubquery: inSubquery) }
            return rng.chance(0.5) ? .and(parts) : .or(parts)
        case 1:
            return .not(makePredicate(catalog, depth: depth + 1, inSubquery: inSubquery))
        case 3:
            return .constant(rng.chance(0.5))
        default:
            return .comparison(makeComparison(catalog, inSubquery: inSubquery))
        }
    }

    mutating func makeComparison(_ catalog: DifferentialCatalog, inSubquery: Bool) -> DifferentialComparison {
        var choices: [(Int, Int)] = [(30, 0), (6, 1), (5, 2), (6, 3), (14, 4), (5, 5)]
        if !inSubquery {
            choices += [(10, 6), (7, 7), (5, 8), (7, 9), (4, 10), (5, 11), (4, 12)]
        }
        switch rng.weighted(choices) {
        case 0: return scalarComparison(catalog)
        case 1: return nilComparison(catalog)
        case 2: return betweenComparison(catalog)
        case 3: return inComparison(catalog)
        case 4: return stringComparison(catalog)
        case 5: return keyPathComparison(catalog)
        case 6: return quantified(catalog)
        case 7: return aggregate(catalog)
        case 8: return subquery(catalog)
        case 9: return objectComparison(catalog)
        case 10: return arithmetic(catalog)
        case 11: return function(catalog)
        default:
            switch rng.int(0...3) {
            case 0: return withVariable(inComparison(catalog))
            case 1: return withVariable(objectComparison(catalog))
            default: return withVariable(scalarComparison(catalog))
            }
        }
    }

    /// A constant of `type`: usually a value some object has, sometimes one bound with another Swift type or
    /// written as a literal.
    mutating func constant(_ type: DifferentialType) -> DifferentialExpression {
        let value = DifferentialValues.random(type, using: &rng)
        switch type {
        case .int16, .int32, .int64:
            let number = (value as? Int16).map(Int64.init) ?? (value as? Int32).map(Int64.init) ?? (value as? Int64) ?? 0
            switch rng.int(0...3) {
            case 0: return .literal(String(number), NSNumber(value: number))
            case 1 where number.magnitude < 1 << 53:
                // An integer attribute compared with a double — only where the double is exact: above 2^53 the
                // predicate layer compares as doubles and SQLite exactly, and Apple's semantics there are unverified
                // (`extremeNumbersAgree` checks the out-of-range doubles that must match nothing).
                return .constant(NSNumber(value: Double(number)))
            default: return .constant(NSNumber(value: number))
            }
        case .double:
            let number = value as? Double ?? 0
            return rng.chance(0.2) ? .constant(NSNumber(value: Float(number))) : .constant(NSNumber(value: number))
        case .float:
            let number = value as? Float ?? 0
            return rng.chance(0.5) ? .constant(NSNumber(value: Double(number))) : .constant(NSNumber(value: number))
        case .decimal:
            return rng.chance(0.5) ? .constant(value) : .constant(NSDecimalNumber(decimal: value as? Decimal ?? 0))
        case .bool:
            let flag = value as? Bool ?? false
            return rng.chance(0.5) ? .literal(flag ? "YES" : "NO", NSNumber(value: flag)) : .constant(NSNumber(value: flag))
        case .string:
            // Always a string: a number compared with a string attribute is excluded (DifferentialOracle.swift, rule 9).
            let string = rng.chance(0.7) ? (value as? String ?? "") : rng.pick(DifferentialValues.fragments)
            return .constant(string)
        default:
            return .constant(value)
        }
    }

    mutating func scalar(_ catalog: DifferentialCatalog, where test: (DifferentialCatalog.Scalar) -> Bool = { _ in true }) -> DifferentialCatalog.Scalar {
        let candidates = catalog.scalars.filter(test)
        // Paths through relationships less often than the entity's own attributes.
        let own = candidates.filter { !$0.path.contains(".") }
        return rng.chance(0.7) && !own.isEmpty ? rng.pick(own) : rng.pick(candidates)
    }

    mutating func scalarComparison(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        let key = scalar(catalog)
        let operators: [DifferentialOperator]
        switch key.type {
        case .bool, .uuid, .data, .uri: operators = [.equal, .notEqual]
        default: operators = DifferentialOperator.ordering
        }
        let op = rng.pick(operators)
        var options = ""
        if key.type == .string {
            options = rng.weighted([(6, ""), (3, "c"), (2, "d"), (3, "cd"), (1, "n")])
            if ![.equal, .notEqual].contains(op) && options != "n" && rng.chance(0.6) { options = "" }
        }
        var comparison = DifferentialComparison(lhs: .key(key.path), op: op, options: options, rhs: constant(key.type))
        if rng.chance(0.15) {  // `5 < age`
            let lhs = comparison.lhs
            comparison.lhs = comparison.rhs
            comparison.rhs = lhs
        }
        return comparison
    }

    mutating func nilComparison(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        let lhs: DifferentialExpression = rng.chance(0.8) || catalog.toOnes.isEmpty
            ? .key(scalar(catalog) { $0.isNullable }.path) : .key(rng.pick(catalog.toOnes).path)
        let rhs: DifferentialExpression = rng.chance(0.5) ? .literal(rng.pick(["nil", "NULL"]), nil) : .constant(NSNull())
        return DifferentialComparison(lhs: lhs, op: rng.pick([.equal, .notEqual]), options: "", rhs: rhs)
    }

    mutating func betweenComparison(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        let allowStrings = rng.chance(0.3)
        let key = scalar(catalog) { $0.type.isNumeric || $0.type == .date || ($0.type == .string && allowStrings) }
        let bounds = [constant(key.type), constant(key.type)]
        let rhs: DifferentialExpression = rng.chance(0.7) ? .aggregate(bounds) : .collection(bounds.map(Self.value), asSet: false)
        return DifferentialComparison(lhs: .key(key.path), op: .between, options: "", rhs: rhs)
    }

    mutating func inComparison(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        let key = scalar(catalog) { $0.type != .bool }
        let elements = (0..<rng.int(1...4)).map { _ in constant(key.type) }
        let rhs: DifferentialExpression
        // Never a set of decimals: NSSet hashes its members, and swift-corelibs-foundation's NSDecimalNumber.hash
        // recurses until the stack overflows.
        switch key.type == .decimal ? rng.int(0...1) : rng.int(0...2) {
        case 0: rhs = .aggregate(elements)
        case 1: rhs = .collection(elements.map(Self.value), asSet: false)
        default: rhs = .collection(elements.map(Self.value), asSet: true)
        }
        return DifferentialComparison(lhs: .key(key.path), op: .in, options: "", rhs: rhs)
    }

    mutating func stringOptions() -> String { rng.weighted([(5, ""), (3, "c"), (2, "d"), (3, "cd"), (1, "n")]) }

    mutating func stringOperand(_ op: DifferentialOperator) -> DifferentialExpression {
        switch op {
        case .like: return .constant(rng.pick(DifferentialValues.likePatterns))
        case .matches: return .constant(rng.pick(DifferentialValues.regexes))
        default: return .constant(rng.chance(0.75) ? rng.pick(DifferentialValues.fragments) : rng.pick(DifferentialValues.strings))
        }
    }

    mutating func stringComparison(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        let key = scalar(catalog) { $0.type == .string }
        let op = rng.pick(DifferentialOperator.strings)
        return DifferentialComparison(lhs: .key(key.path), op: op, options: stringOptions(), rhs: stringOperand(op))
    }

    /// Two key paths of the same type compared with each other.
    mutating func keyPathComparison(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        var pairs: [(DifferentialCatalog.Scalar, DifferentialCatalog.Scalar)] = []
        for a in catalog.scalars where a.path != "id" {
            for b in catalog.scalars where b.path != a.path && b.path != "id" {
                let comparable = a.type == b.type || (a.type.isNumeric && b.type.isNumeric)
                if comparable && a.path < b.path && (a.type.isOrdered || [.bool, .uuid].contains(a.type)) { pairs.append((a, b)) }
            }
        }
        guard !pairs.isEmpty else { return scalarComparison(catalog) }
        let (a, b) = rng.pick(pairs)
        let op: DifferentialOperator = a.type.isOrdered && b.type.isOrdered ? rng.pick(DifferentialOperator.ordering) : rng.pick([.equal, .notEqual])
        let options = a.type == .string && rng.chance(0.3) ? rng.pick(["c", "cd"]) : ""
        return DifferentialComparison(lhs: .key(a.path), op: op, options: options, rhs: .key(b.path))
    }

    /// `ANY tags.name BEGINSWITH[c] 'a'`, `ALL steps.position > 3`, `NONE items.price < 1`, `ANY tags == %@`.
    mutating func quantified(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        guard !catalog.toManys.isEmpty else { return scalarComparison(catalog) }
        let toMany = rng.pick(catalog.toManys)
        let quantifier = rng.weighted([(5, DifferentialQuantifier.any), (2, .some), (3, .all), (3, .none)])
        if rng.chance(0.15) {
            // The related objects themselves.
            let candidates = data.objects(of: toMany.destination)
            let reference = rng.pick(candidates).reference
            if rng.chance(0.5) {
                return DifferentialComparison(quantifier: quantifier, lhs: .key(toMany.path), op: .equal, options: "", rhs: .object(reference, asID: rng.chance(0.3)))
            }
            let references = rng.sample(candidates, count: rng.int(1...3)).map(\.reference)
            return DifferentialComparison(quantifier: quantifier, lhs: .key(toMany.path), op: .in, options: "", rhs: .objects(references, asIDs: rng.chance(0.5)))
        }
        // Decimal attributes included: collecting them through a to-many relationship (`ANY reports.balance == 3`)
        // once crashed in Linux Foundation's NSDecimalNumber.hash (`decimalsThroughToManyRelationshipsDoNotCrash`).
        let attributes = DifferentialSchema.attributes(of: toMany.destination).filter { $0.name != "id" || rng.chance(0.1) }
        let attribute = rng.pick(attributes)
        let lhs = DifferentialExpression.key("\(toMany.path).\(attribute.name)")
        if attribute.type == .string && rng.chance(0.6) {
            let op = rng.pick(DifferentialOperator.strings + [.equal, .notEqual])
            let rhs = [.equal, .notEqual].contains(op) ? constant(.string) : stringOperand(op)
            return DifferentialComparison(quantifier: quantifier, lhs: lhs, op: op, options: stringOptions(), rhs: rhs)
        }
        if attribute.isOptional && rng.chance(0.12) {
            return DifferentialComparison(quantifier: quantifier, lhs: lhs, op: rng.pick([.equal, .notEqual]), options: "", rhs: .literal("nil", nil))
        }
        if rng.chance(0.15) && attribute.type != .bool {
            let elements = (0..<rng.int(1...3)).map { _ in constant(attribute.type) }
            return DifferentialComparison(quantifier: quantifier, lhs: lhs, op: .in, options: "", rhs: .aggregate(elements))
        }
        let op = attribute.type.isOrdered ? rng.pick(DifferentialOperator.ordering) : rng.pick([.equal, .notEqual])
        return DifferentialComparison(quantifier: quantifier, lhs: lhs, op: op, options: "", rhs: constant(attribute.type))
    }

    /// `tags.@count > 2`, `items.@sum.price >= 10`, `@avg`, `@min`, `@max`.
    mutating func aggregate(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        guard !catalog.toManys.isEmpty else { return scalarComparison(catalog) }
        let toMany = rng.pick(catalog.toManys)
        let numbers = DifferentialSchema.attributes(of: toMany.destination).filter { $0.type.isNumeric && $0.name != "id" }
        let op = rng.pick(DifferentialOperator.ordering)
        if numbers.isEmpty || rng.chance(0.35) {
            return DifferentialComparison(lhs: .key("\(toMany.path).@count"), op: op, options: "", rhs: .constant(NSNumber(value: rng.int(0...4))))
        }
        let attribute = rng.pick(numbers)
        let function = rng.pick(["@sum", "@avg", "@min", "@max"])
        let bound: Double = rng.pick([0, 1, 2, 2.5, 5, 10, 20, 100])
        return DifferentialComparison(lhs: .key("\(toMany.path).\(function).\(attribute.name)"), op: op, options: "", rhs: .constant(NSNumber(value: bound)))
    }

    /// `SUBQUERY(items, $i, $i.price > 5 AND $i.title BEGINSWITH 'a').@count > 0`.
    mutating func subquery(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        guard let toMany = catalog.toManys.filter({ !$0.path.contains(".") }).randomElement(using: &rng) else { return scalarComparison(catalog) }
        let inner = DifferentialCatalog(entity: toMany.destination)
        let variable = rng.pick(["x", "i", "elem"])
        let predicate = makePredicate(inner, depth: 1, inSubquery: true)
        let count: DifferentialExpression = .subqueryCount(collection: toMany.path, variable: variable, predicate: predicate)
        let op = rng.pick(DifferentialOperator.ordering)
        return DifferentialComparison(lhs: count, op: op, options: "", rhs: .constant(NSNumber(value: rng.int(0...2))))
    }

    /// `SELF == %@`, `SELF IN %@`, `owner == %@`, `owner IN %@` (objects or object IDs), `%@ IN tags`, `tags CONTAINS %@`.
    mutating func objectComparison(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        let shape = rng.int(0...3)
        if shape == 0 || (shape == 1 && catalog.toOnes.isEmpty) {
            let candidates = data.objects(of: catalog.entity)
            if rng.chance(0.5) {
                return DifferentialComparison(lhs: .key("SELF"), op: rng.pick([.equal, .notEqual]), options: "", rhs: .object(rng.pick(candidates).reference, asID: rng.chance(0.4)))
            }
            let references = rng.sample(candidates, count: rng.int(0...5)).map(\.reference)
            return DifferentialComparison(lhs: .key("SELF"), op: .in, options: "", rhs: .objects(references, asIDs: rng.chance(0.5)))
        }
        if shape == 1 {
            let toOne = rng.pick(catalog.toOnes)
            let candidates = data.objects(of: toOne.destination)
            if rng.chance(0.5) {
                return DifferentialComparison(lhs: .key(toOne.path), op: rng.pick([.equal, .notEqual]), options: "", rhs: .object(rng.pick(candidates).reference, asID: rng.chance(0.4)))
            }
            let references = rng.sample(candidates, count: rng.int(1...5)).map(\.reference)
            return DifferentialComparison(lhs: .key(toOne.path), op: .in, options: "", rhs: .objects(references, asIDs: rng.chance(0.5)))
        }
        guard let toMany = catalog.toManys.filter({ !$0.path.contains(".") }).randomElement(using: &rng) else { return scalarComparison(catalog) }
        let member = rng.pick(data.objects(of: toMany.destination)).reference
        if shape == 2 {
            return DifferentialComparison(lhs: .object(member, asID: false), op: .in, options: "", rhs: .key(toMany.path))
        }
        return DifferentialComparison(lhs: .key(toMany.path), op: .contains, options: "", rhs: .object(member, asID: false))
    }

    /// `price * 2 > 10`, `quantity + 1 >= 3`, `price - quantity < 0`, `id / 2 <= 7`.
    mutating func arithmetic(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        let numbers = catalog.requiredNumbers
        let a = rng.pick(numbers)
        let op = rng.pick(["+", "-", "*", "/"])
        let b: DifferentialExpression = rng.chance(0.3) && numbers.count > 1 && op != "/"
            ? .key(rng.pick(numbers).path) : Self.numberLiteral(rng.pick(["2", "3", "0.5", "-1"]))
        let bound: Double = rng.pick([0, 1, 3, 5, 7.5, 10, 20, 40])
        return DifferentialComparison(lhs: .arithmetic(.key(a.path), op, b), op: rng.pick(DifferentialOperator.ordering), options: "", rhs: .constant(NSNumber(value: bound)))
    }

    /// `lowercase(title) == 'émile'`, `uppercase(title) BEGINSWITH 'A'`, `abs(price - 5) < 2`, `length(title) > 3`.
    mutating func function(_ catalog: DifferentialCatalog) -> DifferentialComparison {
        let strings = catalog.requiredStrings
        if !strings.isEmpty && rng.chance(0.7) {
            let key = rng.pick(strings)
            let function = rng.pick(["lowercase", "uppercase"])
            let op = rng.pick([DifferentialOperator.equal, .notEqual, .beginsWith, .contains, .less])
            let operand: DifferentialExpression = [.beginsWith, .contains].contains(op) ? .constant(rng.pick(DifferentialValues.fragments)) : constant(.string)
            return DifferentialComparison(lhs: .function(function, [.key(key.path)]), op: op, options: "", rhs: operand)
        }
        let numbers = catalog.requiredNumbers
        let a = rng.pick(numbers)
        let argument: DifferentialExpression = .arithmetic(.key(a.path), "-", Self.numberLiteral(rng.pick(["5", "2.5", "10"])))
        return DifferentialComparison(lhs: .function("abs", [argument]), op: rng.pick(DifferentialOperator.ordering), options: "", rhs: .constant(NSNumber(value: rng.pick([0.5, 1, 2, 5]))))
    }

    /// The right side replaced by `$VARn` when it is a constant, a collection or objects (`age > $VAR1`,
    /// `owner IN $VAR2`).
    mutating func withVariable(_ comparison: DifferentialComparison) -> DifferentialComparison {
        var result = comparison
        variableCount += 1
        let name = "VAR\(variableCount)"
        switch result.rhs {
        case .constant, .literal, .collection, .object, .objects:
            result.rhs = .variable(name, result.rhs)
        default:
            break
        }
        return result
    }

    /// A number written into the format string.
    static func numberLiteral(_ text: String) -> DifferentialExpression {
        .literal(text, NSNumber(value: Double(text) ?? 0))
    }

    /// The value of a constant expression (for collections bound as one argument).
    static func value(_ expression: DifferentialExpression) -> Any {
        switch expression {
        case .constant(let value): return value
        case .literal(_, let value): return value ?? NSNull()
        default: preconditionFailure("not a constant: \(expression)")
        }
    }
}

extension DifferentialObject {
    var reference: DifferentialReference { DifferentialReference(entity: entity, id: id) }
}
