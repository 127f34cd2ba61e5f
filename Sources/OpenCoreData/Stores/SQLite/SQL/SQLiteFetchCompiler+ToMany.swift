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
        let ((inner, memberValue), scope) = try withScope(destination) { compiler, index -> (String, String?) in
            compiler.scopes[index].alias = link.alias
            let member = try compiler.resolve(path.rest, in: index)
            if case .toMany = member {
                // `ANY items.tags.name`: Apple's SQL store refuses two to-many keys in one path, and key-value
                // coding yields a set of sets that compares unequal to any value; the in-memory step does that.
                throw Untranslatable(reason: "a key path with two to-many relationships")
            }
            if case .value(let sql, _, _) = member { return (try compare(&compiler, member), sql) }
            return (try compare(&compiler, member), nil)
        }
        let from = ([link.from] + scope.joins.map(\.sql)).joined(separator: " ")
        switch modifier {
        case .any: return "EXISTS (SELECT 1 FROM \(from) WHERE \(link.condition) AND \(inner))"
        // ALL as key-value coding has it: an unordered relationship's values leave nil out (those members neither
        // pass nor fail); an ordered one keeps them as NSNull, which fails unless the condition holds for NULL.
        case .all:
            if let memberValue, !path.relationship.isOrdered {
                return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link.condition) AND \(memberValue) IS NOT NULL AND NOT IFNULL(\(inner), 0))"
            }
            return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link.condition) AND NOT IFNULL(\(inner), 0))"
        case .direct: throw Untranslatable(reason: "a to-many key path without ANY, ALL or NONE")
        @unknown default: throw Untranslatable(reason: "modifier")
        }
    }
}
