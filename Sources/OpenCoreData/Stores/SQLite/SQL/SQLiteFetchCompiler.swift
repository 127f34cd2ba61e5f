/// Translates a fetch's predicate and sort descriptors into SQL over Apple's layout, with every value bound as
/// a numbered parameter (`?1`, `?2`, … — never spliced into the SQL text). What it cannot translate throws
/// `Untranslatable`; the store then filters or sorts candidate rows in memory instead (an internal, logged step).
///
/// For example, `country.numericISO3166Code == 250 AND ANY tags.name ==[c] "calm"` on Mood becomes
/// ```sql
/// SELECT … FROM ZMOOD t0 LEFT JOIN ZCOUNTRY t1 ON t1.Z_PK = t0.ZCOUNTRY
/// WHERE (t1.ZNUMERICISO3166CODE = ?1 AND EXISTS (SELECT 1 FROM ZTAG t2 JOIN Z_3TAGS j3 ON j3.Z_5TAGS = t2.Z_PK
///        WHERE j3.Z_3MOODS = t0.Z_PK AND OCD_STRING_MATCH(0, 1, t2.ZNAME, ?2) = 1))
/// ```
///
/// The pieces: this file (state, compound predicates, scopes), `+Comparisons` (operators and options),
/// `+Terms` (key paths, aggregates, subqueries, arithmetic), `+ToMany` (relationship links and quantifiers),
/// `+Sorting` (`ORDER BY`).
struct SQLiteFetchCompiler {
    /// A part the compiler does not translate.
    struct Untranslatable: Error {
        var reason: String
    }

    /// A row source the SQL refers to: the fetched table (`t0`), or the rows of a subquery. Key paths through
    /// to-one relationships add `LEFT JOIN`s to the scope they start in.
    struct Scope {
        var entity: NSEntityDescription
        var alias: String
        var joins: [(path: String, alias: String, sql: String)] = []
    }

    let schema: SQLiteSchema
    let entity: NSEntityDescription
    /// Bound values: `arguments[i]` is parameter `?(i+1)`.
    private(set) var arguments: [SQLiteValue] = []
    /// The open scopes: the fetched table first, then nested subqueries.
    var scopes: [Scope]
    /// The scope each SUBQUERY variable names.
    var variables: [String: Int] = [:]
    /// The scope `SELF` and plain key paths refer to (inside a SUBQUERY still the fetched object).
    var selfScope = 0
    private var aliasCounter = 0
    /// Aggregate terms through a to-one relationship (→ the alias of the relationship's destination row): when that
    /// row is missing, a comparison with a constant gives the in-memory result for nil (false, or true for `!=`)
    /// instead of SQL's unknown.
    var nilAggregates: [String: String] = [:]

    init(schema: SQLiteSchema, entity: NSEntityDescription) {
        self.schema = schema
        self.entity = entity
        scopes = [Scope(entity: entity, alias: "t0")]
    }

    /// The joins of the fetched table (for callers that build their own statements).
    var joins: [(path: String, alias: String, sql: String)] { scopes[0].joins }

    /// The `FROM … JOIN …` clause.
    var fromClause: String {
        (["\(schema.table(for: entity).name) t0"] + scopes[0].joins.map(\.sql)).joined(separator: " ")
    }

    /// The condition that selects the entity's rows in its table (`Z_ENT IN (…)`), or nil if every row matches.
    func entityCondition(includesSubentities: Bool) -> String? {
        Self.entityFilter(schema: schema, entity: entity, alias: "t0", includesSubentities: includesSubentities)
    }

    /// `alias.Z_ENT IN (…)` for the rows of `entity` in its hierarchy's table, or nil when every row is one.
    static func entityFilter(schema: SQLiteSchema, entity: NSEntityDescription, alias: String, includesSubentities: Bool = true) -> String? {
        let table = schema.table(for: entity)
        let numbers = includesSubentities ? schema.mapping(for: entity).entityNumbersIncludingSubentities : [schema.number(of: entity)]
        if Set(numbers) == Set(table.entities.map { schema.number(of: $0) }) { return nil }
        return numbers.count == 1 ? "\(alias).Z_ENT = \(numbers[0])" : "\(alias).Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"
    }

    /// A fresh table alias.
    mutating func newAlias(_ prefix: String = "t") -> String {
        aliasCounter += 1
        return "\(prefix)\(aliasCounter)"
    }

    /// Appends a bound value; returns its placeholder.
    mutating func placeholder(_ value: SQLiteValue) -> String {
        arguments.append(value)
        return "?\(arguments.count)"
    }

    // MARK: Predicates

    /// The SQL condition of a predicate (in the current scope).
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

    /// Compiles `body` inside a new scope for the rows of `entity`; returns its result and the scope (with the
    /// joins it added).
    mutating func withScope<T>(_ entity: NSEntityDescription, variable: String? = nil, _ body: (inout SQLiteFetchCompiler, Int) throws -> T) throws -> (T, Scope) {
        scopes.append(Scope(entity: entity, alias: newAlias("d")))
        let index = scopes.count - 1
        let savedVariable = variable.flatMap { variables[$0] }
        if let variable { variables[variable] = index }
        defer {
            if let variable { variables[variable] = savedVariable }
        }
        let result = try body(&self, index)
        let scope = scopes.removeLast()
        return (result, scope)
    }
}
