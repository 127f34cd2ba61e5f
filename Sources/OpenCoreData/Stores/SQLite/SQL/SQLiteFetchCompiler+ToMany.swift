/// To-many relationships in SQL: how a row's members are found (the link), and the predicates that range over
/// them — `ANY`/`SOME`, `ALL`, `NONE`, `value IN members` and `members CONTAINS value` — as `EXISTS` subqueries.
extension SQLiteFetchCompiler {
    /// The members of a to-many relationship of the row `alias`: `FROM` (the destination table as `alias`, joined
    /// with the join table for many-to-many) and the condition tying them to the row.
    struct Link {
        var from: String
        var alias: String
        var condition: String
    }

    mutating func link(_ relationship: NSRelationshipDescription, from owner: String) throws -> Link {
        guard let destination = relationship.destinationEntity else { throw Untranslatable(reason: "relationship without destination") }
        let source = relationship.entity
        guard case .toMany(let slot, _)? = source.layout.slots[relationship.name] else { throw Untranslatable(reason: "not a to-many relationship") }
        let table = schema.table(for: destination)
        let alias = newAlias("d")
        let filter = Self.entityFilter(schema: schema, entity: destination, alias: alias).map { " AND " + $0 } ?? ""
        switch schema.mapping(for: source).toManyStorage[slot] {
        case .inverseColumn(_, _, let column, _):
            return Link(from: "\(table.name) \(alias)", alias: alias, condition: "\(alias).\(column) = \(owner).Z_PK\(filter)")
        case .joinTable(let join, let sourceColumn, let destinationColumn, _):
            let joinAlias = newAlias("j")
            return Link(from: "\(table.name) \(alias) JOIN \(join.name) \(joinAlias) ON \(joinAlias).\(destinationColumn) = \(alias).Z_PK", alias: alias,
                        condition: "\(joinAlias).\(sourceColumn) = \(owner).Z_PK\(filter)")
        case .ownJoinTable(let name, let sourceColumn, let destinationColumn, _):
            let joinAlias = newAlias("j")
            return Link(from: "\(table.name) \(alias) JOIN \(name) \(joinAlias) ON \(joinAlias).\(destinationColumn) = \(alias).Z_PK", alias: alias,
                        condition: "\(joinAlias).\(sourceColumn) = \(owner).Z_PK\(filter)")
        case .notStored:
            throw Untranslatable(reason: "transient to-many relationship \(relationship.name)")
        }
    }

    /// A comparison whose left side ranges over the members of a to-many path (`ANY tags.name == "x"`); `compare`
    /// builds the per-member condition from the member's term.
    mutating func quantified(_ path: ToManyPath, modifier: NSComparisonPredicate.Modifier,
                             compare: (inout SQLiteFetchCompiler, Term) throws -> String) throws -> String {
        guard let destination = path.relationship.destinationEntity else { throw Untranslatable(reason: "relationship without destination") }
        let link = try self.link(path.relationship, from: path.alias)
        let (inner, scope) = try withScope(destination) { compiler, index -> String in
            compiler.scopes[index].alias = link.alias
            let member = try compiler.resolve(path.rest, in: index)
            if case .toMany = member {
                // `ANY items.tags.name`: Apple's SQL store refuses two to-many keys in one path, and key-value
                // coding yields a set of sets that compares unequal to any value; the in-memory step does that.
                throw Untranslatable(reason: "a key path with two to-many relationships")
            }
            return try compare(&compiler, member)
        }
        let from = ([link.from] + scope.joins.map(\.sql)).joined(separator: " ")
        switch modifier {
        case .any: return "EXISTS (SELECT 1 FROM \(from) WHERE \(link.condition) AND \(inner))"
        // ALL as Apple's SQL has it: no member fails the condition; members whose value is NULL neither pass nor
        // fail (key-value coding leaves nil out of a relationship's values, so the in-memory evaluator agrees).
        case .all: return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link.condition) AND NOT (\(inner)))"
        case .direct: throw Untranslatable(reason: "a to-many key path without ANY, ALL or NONE")
        @unknown default: throw Untranslatable(reason: "modifier")
        }
    }
}
