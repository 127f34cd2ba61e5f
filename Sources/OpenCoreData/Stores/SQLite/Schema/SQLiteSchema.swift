/// How a model maps onto Apple's SQLite store layout (store-format.md §2–§6): entity numbers (`Z_ENT`), one
/// table per inheritance hierarchy (`Z<ROOT>`), a column per stored attribute and to-one relationship (plus the
/// polymorphic `Z<n>_<NAME>` and ordered `Z_FOK_<NAME>` columns), join tables for many-to-many relationships,
/// and the current generation's index names. Computed once per store; immutable.
final class SQLiteSchema: @unchecked Sendable {
    // @unchecked Sendable: immutable after init (descriptions are frozen and Sendable).

    /// A column of an entity table.
    struct Column {
        enum Kind {
            case attribute(NSAttributeDescription)
            case toOne(NSRelationshipDescription)
            /// The destination's `Z_ENT` of a polymorphic to-one relationship.
            case toOneEntity(NSRelationshipDescription)
            /// The order key of an object in an ordered to-many relationship (on the destination's table).
            case orderKey(NSRelationshipDescription)
        }
        var name: String
        var type: String
        var kind: Kind
    }

    /// One table per root entity.
    final class EntityTable {
        let name: String
        let root: NSEntityDescription
        /// Every entity stored in the table (the root and its sub-entities), in number order.
        let entities: [NSEntityDescription]
        var columns: [Column] = []
        init(name: String, root: NSEntityDescription, entities: [NSEntityDescription]) {
            self.name = name
            self.root = root
            self.entities = entities
        }
        /// Whether the table holds more than one entity (rows must be filtered by `Z_ENT`).
        var isPolymorphic: Bool { entities.count > 1 }
    }

    /// A many-to-many join table: `first` holds the keys of `relationship`'s source objects, `second` the keys of
    /// its destinations.
    struct JoinTable {
        var name: String
        /// The relationship that names the table (r_A) and its inverse.
        var relationship: NSRelationshipDescription
        var inverse: NSRelationshipDescription
        var firstColumn: String
        var secondColumn: String
        /// Order key columns: of `relationship`'s members (if ordered), of the inverse's members (if ordered).
        var orderColumn: String?
        var inverseOrderColumn: String?
    }

    /// Where a to-many relationship's members are found.
    enum ToManyStorage {
        /// The destination table's to-one column of the inverse (and its order key if ordered).
        case inverseColumn(table: EntityTable, destination: NSEntityDescription, column: String, orderColumn: String?)
        /// A join table; `sourceColumn` holds this side's keys, `destinationColumn` the members' keys.
        case joinTable(JoinTable, sourceColumn: String, destinationColumn: String, orderColumn: String?)
        /// No inverse: members are kept in a join table of OpenCoreData's own layout (see DEVIATIONS.md).
        case ownJoinTable(name: String, sourceColumn: String, destinationColumn: String, orderColumn: String?)
        /// A transient relationship: nothing is stored.
        case notStored
    }

    /// The storage of one concrete entity's properties.
    struct EntityMapping {
        let entity: NSEntityDescription
        let number: Int
        let table: EntityTable
        /// Column index (in `table.columns`) by attribute slot; nil for transient attributes.
        let attributeColumns: [Int?]
        /// Column indexes by to-one slot: the key column and the polymorphic entity column.
        let toOneColumns: [(key: Int, entity: Int?)?]
        /// Storage by to-many slot.
        let toManyStorage: [ToManyStorage]
        /// `Z_ENT` values of this entity and its sub-entities.
        let entityNumbersIncludingSubentities: [Int]
    }

    let model: NSManagedObjectModel
    /// Entities in `Z_ENT` order (index + 1 is the number).
    let entitiesInOrder: [NSEntityDescription]
    /// Whether some entity has a derived attribute the store computes when saving (not one Apple's triggers maintain).
    let hasStoreComputedDerivedAttributes: Bool
    private let numbers: [ObjectIdentifier: Int]
    private(set) var tables: [EntityTable] = []
    private var tablesByRoot: [ObjectIdentifier: EntityTable] = [:]
    private(set) var joinTables: [JoinTable] = []
    private(set) var ownJoinTables: [(name: String, sourceColumn: String, destinationColumn: String, orderColumn: String?)] = []
    private var mappings: [ObjectIdentifier: EntityMapping] = [:]

    /// The schema of `model`; `existingTables` (the store's tables and their columns in order, if it exists)
    /// resolves join-table and join-column names whose choice changed between Core Data versions.
    init(model: NSManagedObjectModel, existingTables: [String: [String]] = [:]) {
        self.model = model
        entitiesInOrder = SQLiteSchema.numberEntities(model.entities)
        hasStoreComputedDerivedAttributes = entitiesInOrder.contains { entity in
            DerivedAttributes.slots(of: entity).contains { DerivedAttributes.countDerivation(of: $0.1) == nil }
        }
        var numbers: [ObjectIdentifier: Int] = [:]
        for (index, entity) in entitiesInOrder.enumerated() { numbers[ObjectIdentifier(entity)] = index + 1 }
        self.numbers = numbers
        buildTables()
        buildJoinTables(existingTables: existingTables)
        buildMappings()
    }

    /// The `Z_ENT` of an entity.
    func number(of entity: NSEntityDescription) -> Int { numbers[ObjectIdentifier(entity)]! }

    /// The entity with a `Z_ENT` number.
    func entity(number: Int) -> NSEntityDescription? {
        number >= 1 && number <= entitiesInOrder.count ? entitiesInOrder[number - 1] : nil
    }

    /// The table of an entity's hierarchy.
    func table(for entity: NSEntityDescription) -> EntityTable { tablesByRoot[ObjectIdentifier(entity.rootEntity)]! }

    /// The mapping of a concrete entity.
    func mapping(for entity: NSEntityDescription) -> EntityMapping { mappings[ObjectIdentifier(entity)]! }

    // MARK: Numbering

    /// Apple's numbering: a depth-first pre-order walk of the inheritance forest, roots and each entity's
    /// children sorted by name (case-insensitively, then byte-wise).
    static func numberEntities(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
        func sorted(_ list: [NSEntityDescription]) -> [NSEntityDescription] {
            list.sorted { a, b in
                let x = a.name ?? "", y = b.name ?? ""
                let order = x.lowercased().compare(y.lowercased())
                return order == .orderedSame ? x.utf8.lexicographicallyPrecedes(y.utf8) : order == .orderedAscending
            }
        }
        var result: [NSEntityDescription] = []
        func visit(_ entity: NSEntityDescription) {
            result.append(entity)
            for child in sorted(entity.subentities) { visit(child) }
        }
        for root in sorted(entities.filter { $0.superentity == nil }) { visit(root) }
        return result
    }

    // MARK: Tables and columns

    /// The SQL type of an attribute's column.
    static func columnType(_ type: NSAttributeType) -> String {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: return "INTEGER"
        case .doubleAttributeType, .floatAttributeType: return "FLOAT"
        case .decimalAttributeType: return "DECIMAL"
        case .dateAttributeType: return "TIMESTAMP"
        case .stringAttributeType, .URIAttributeType: return "VARCHAR"
        default: return "BLOB"
        }
    }

    /// The column name of a property: `Z` + the upper-cased name.
    static func columnName(_ name: String) -> String { "Z" + name.uppercased() }

    private func buildTables() {
        for root in entitiesInOrder where root.superentity == nil {
            let members = entitiesInOrder.filter { $0.isKindOf(entity: root) }
            let table = EntityTable(name: Self.columnName(root.name ?? ""), root: root, entities: members)
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            func unique(_ name: String) -> String {
                var candidate = name
                var suffix = 1
                while used.contains(candidate) {
                    candidate = name + String(suffix)
                    suffix += 1
                }
                used.insert(candidate)
                return candidate
            }
            for entity in members {
                let own = entity.properties.filter { $0.entity === entity && !$0.isTransient }
                    .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
                var integers: [Column] = [], reals: [Column] = [], texts: [Column] = [], blobs: [Column] = []
                for property in own {
                    switch property {
                    case let attribute as NSAttributeDescription:
                        guard attribute.attributeType != .undefinedAttributeType, attribute.attributeType != .objectIDAttributeType else { continue }
                        let type = Self.columnType(attribute.attributeType)
                        let column = Column(name: unique(Self.columnName(attribute.name)), type: type, kind: .attribute(attribute))
                        switch type {
                        case "INTEGER": integers.append(column)
                        case "FLOAT", "DECIMAL", "TIMESTAMP": reals.append(column)
                        case "VARCHAR": texts.append(column)
                        default: blobs.append(column)
                        }
                    case let relationship as NSRelationshipDescription where !relationship.isToMany:
                        integers.append(Column(name: unique(Self.columnName(relationship.name)), type: "INTEGER", kind: .toOne(relationship)))
                        if let destination = relationship.destinationEntity, !destination.subentities.isEmpty {
                            let n = numbers[ObjectIdentifier(destination)] ?? 0
                            integers.append(Column(name: unique("Z\(n)_" + relationship.name.uppercased()), type: "INTEGER", kind: .toOneEntity(relationship)))
                        }
                        if let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered {
                            integers.append(Column(name: unique("Z_FOK_" + relationship.name.uppercased()), type: "INTEGER", kind: .orderKey(inverse)))
                        }
                    default:
                        continue
                    }
                }
                table.columns += integers + reals + texts + blobs
            }
            tables.append(table)
            tablesByRoot[ObjectIdentifier(root)] = table
        }
    }

    private func buildJoinTables(existingTables: [String: [String]]) {
        // Every many-to-many pair once, as (r_A, inverse): r_A is the side whose source entity has the lower
        // number; for a self-referential pair, the larger name (current Core Data) unless an existing store
        // uses the older rule (smaller name).
        var pairs: [(first: NSRelationshipDescription, second: NSRelationshipDescription)] = []
        var done = Set<ObjectIdentifier>()
        for entity in entitiesInOrder {
            for case let relationship as NSRelationshipDescription in entity.properties
            where relationship.entity === entity && relationship.isToMany && !relationship.isTransient {
                guard !done.contains(ObjectIdentifier(relationship)) else { continue }
                guard let inverse = relationship.inverseRelationship, inverse.isToMany, !inverse.isTransient else { continue }
                done.insert(ObjectIdentifier(relationship))
                done.insert(ObjectIdentifier(inverse))
                let sourceNumber = number(of: relationship.entity), inverseSourceNumber = number(of: inverse.entity)
                var first = relationship, second = inverse
                if inverseSourceNumber < sourceNumber || (inverseSourceNumber == sourceNumber && inverse.name > relationship.name) {
                    first = inverse
                    second = relationship
                }
                if inverseSourceNumber == sourceNumber {
                    let preferred = "Z_\(number(of: first.entity))" + first.name.uppercased()
                    let alternative = "Z_\(number(of: second.entity))" + second.name.uppercased()
                    if existingTables[preferred] == nil && existingTables[alternative] != nil { swap(&first, &second) }
                }
                pairs.append((first, second))
            }
        }
        // Key column names are unique across all join tables: a repeat gets a numeric suffix (Wire's
        // `Z_23USERS1`), handed out in the order of r_A's entity name, then r_A's name.
        pairs.sort { a, b in
            let x = a.first.entity.name ?? "", y = b.first.entity.name ?? ""
            return x != y ? x.utf8.lexicographicallyPrecedes(y.utf8) : a.first.name.utf8.lexicographicallyPrecedes(b.first.name.utf8)
        }
        var usedColumns = Set<String>()
        func unique(_ base: String) -> String {
            var candidate = base, suffix = 1
            while usedColumns.contains(candidate) {
                candidate = base + String(suffix)
                suffix += 1
            }
            usedColumns.insert(candidate)
            return candidate
        }
        for (first, second) in pairs {
            let name = "Z_\(number(of: first.entity))" + first.name.uppercased()
            var firstColumn = unique("Z_\(number(of: second.destinationEntity!))" + second.name.uppercased())
            var secondColumn = unique("Z_\(number(of: first.destinationEntity!))" + first.name.uppercased())
            // An existing store's table is authoritative: its two key columns, in order (A's keys, then B's).
            if let existing = existingTables[name] {
                let keys = existing.filter { !$0.hasPrefix("Z_FOK_") }
                if keys.count == 2 {
                    firstColumn = keys[0]
                    secondColumn = keys[1]
                }
            }
            joinTables.append(JoinTable(
                name: name, relationship: first, inverse: second, firstColumn: firstColumn, secondColumn: secondColumn,
                orderColumn: first.isOrdered ? "Z_FOK_" + secondColumn.dropFirst(2) : nil,
                inverseOrderColumn: second.isOrdered ? "Z_FOK_" + firstColumn.dropFirst(2) : nil))
        }
    }

    private func buildMappings() {
        for entity in entitiesInOrder {
            let table = self.table(for: entity)
            let layout = entity.layout
            func columnIndex(_ match: (Column.Kind) -> Bool) -> Int? { table.columns.firstIndex { match($0.kind) } }
            let attributeColumns = layout.attributes.map { attribute -> Int? in
                columnIndex { if case .attribute(let a) = $0 { return a === attribute }; return false }
            }
            let toOneColumns = layout.toOneRelationships.map { relationship -> (key: Int, entity: Int?)? in
                guard let key = columnIndex({ if case .toOne(let r) = $0 { return r === relationship }; return false }) else { return nil }
                let entityColumn = columnIndex { if case .toOneEntity(let r) = $0 { return r === relationship }; return false }
                return (key, entityColumn)
            }
            let toManyStorage = layout.toManyRelationships.map { relationship -> ToManyStorage in
                if relationship.isTransient { return .notStored }
                if let inverse = relationship.inverseRelationship, !inverse.isToMany, let destination = relationship.destinationEntity {
                    let destinationTable = self.table(for: destination)
                    guard let column = destinationTable.columns.first(where: { if case .toOne(let r) = $0.kind { return r === inverse }; return false })?.name
                    else { return .notStored }
                    let order = relationship.isOrdered
                        ? destinationTable.columns.first { if case .orderKey(let r) = $0.kind { return r === relationship }; return false }?.name : nil
                    return .inverseColumn(table: destinationTable, destination: destination, column: column, orderColumn: order)
                }
                if let join = joinTables.first(where: { $0.relationship === relationship || $0.inverse === relationship }) {
                    if join.relationship === relationship {
                        return .joinTable(join, sourceColumn: join.firstColumn, destinationColumn: join.secondColumn, orderColumn: join.orderColumn)
                    }
                    return .joinTable(join, sourceColumn: join.secondColumn, destinationColumn: join.firstColumn, orderColumn: join.inverseOrderColumn)
                }
                let n = number(of: relationship.entity)
                let name = "Z_\(n)" + relationship.name.uppercased() + "_OCD"
                let own = (name: name, sourceColumn: "Z_\(n)SOURCE", destinationColumn: "Z_\(number(of: relationship.destinationEntity!))" + relationship.name.uppercased(),
                           orderColumn: relationship.isOrdered ? "Z_FOK_\(n)" + relationship.name.uppercased() : nil)
                if !ownJoinTables.contains(where: { $0.name == name }) { ownJoinTables.append(own) }
                return .ownJoinTable(name: own.name, sourceColumn: own.sourceColumn, destinationColumn: own.destinationColumn, orderColumn: own.orderColumn)
            }
            let subNumbers = entitiesInOrder.filter { $0.isKindOf(entity: entity) }.map { number(of: $0) }
            mappings[ObjectIdentifier(entity)] = EntityMapping(
                entity: entity, number: number(of: entity), table: table, attributeColumns: attributeColumns,
                toOneColumns: toOneColumns, toManyStorage: toManyStorage, entityNumbersIncludingSubentities: subNumbers)
        }
    }
}
