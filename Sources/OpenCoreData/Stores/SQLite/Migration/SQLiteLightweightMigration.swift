/// Migrates an SQLite store in place with SQL, as Core Data's lightweight migration does: the old tables are
/// renamed, the destination model's tables are created, rows are copied with their primary keys (so object
/// IDs survive), relationships are rebuilt from the old foreign keys and join tables, and the metadata is
/// rewritten with the same store UUID. Everything runs in one exclusive transaction: if any step fails the
/// transaction rolls back and the file is exactly as before.
///
/// It runs mappings whose expressions are the ones inference makes (`$source.<key>` for attributes,
/// `destinationInstancesForSourceRelationshipNamed:sourceInstances:` — or Xcode's
/// `destinationInstancesForEntityMappingNamed:sourceInstances:` — over `$source.<key>` for relationships);
/// `canRun(_:)` says whether a mapping qualifies. Others go through `NSMigrationManager`.
final class SQLiteLightweightMigration {
    let connection: SQLiteConnection
    let source: SQLiteSchema
    let destination: SQLiteSchema
    private let mapping: NSMappingModel
    private let progress: (Float) -> Void
    /// Whether the work a store can do later — building the destination's non-unique indexes and dropping the
    /// source's tables — is left for later (`NSPersistentStoreDeferredLightweightMigrationOptionKey`): the metadata
    /// then says so, and `SQLiteStore+DeferredMigration.swift` does it.
    var defersCleanup = false
    /// Destination entity → the source entity its rows come from.
    var sourceEntityByDestination: [ObjectIdentifier: NSEntityDescription] = [:]
    /// Entity mapping by destination entity.
    var mappingByDestination: [ObjectIdentifier: NSEntityMapping] = [:]
    private var pairTableCount = 0
    /// The store's tables that belong to the source model's layout.
    private let oldTables: [String]

    static let oldTablePrefix = "Z_OCDOLD_"
    /// The first `Z_ENT` of Core Data's own tables (`ACHANGE` is 16001); a model's entities are numbered below it.
    static let firstInternalEntityNumber = 16_000

    init(connection: SQLiteConnection, sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel,
         mapping: NSMappingModel, progress: @escaping (Float) -> Void = { _ in }) throws {
        self.connection = connection
        var columnsByTable: [String: [String]] = [:]
        for row in try connection.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table'") {
            guard case .text(let table) = row[0] else { continue }
            columnsByTable[table] = try connection.fetchAll("PRAGMA table_info(\(SQLiteStore.quoted(table)))").compactMap { row -> String? in
                if case .text(let name) = row[1] { return name }
                return nil
            }
        }
        source = SQLiteSchema(model: sourceModel, existingTables: columnsByTable)
        destination = SQLiteSchema(model: destinationModel)
        oldTables = source.tables.map(\.name) + source.joinTables.map(\.name) + source.ownJoinTables.map(\.name)
        self.mapping = mapping
        self.progress = progress
        for entityMapping in mapping.entityMappings ?? [] {
            guard let name = entityMapping.destinationEntityName, let entity = destinationModel.entitiesByName[name] else { continue }
            mappingByDestination[ObjectIdentifier(entity)] = entityMapping
            if entityMapping.mappingType != .addEntityMappingType, let sourceName = entityMapping.sourceEntityName,
                let sourceEntity = sourceModel.entitiesByName[sourceName]
            {
                sourceEntityByDestination[ObjectIdentifier(entity)] = sourceEntity
            }
        }
    }

    /// Whether `mapping` only uses what SQL can do (no custom policies, no computed values).
    static func canRun(_ mapping: NSMappingModel) -> Bool {
        for entityMapping in mapping.entityMappings ?? [] {
            switch entityMapping.mappingType {
            case .copyEntityMappingType, .transformEntityMappingType, .addEntityMappingType, .removeEntityMappingType: break
            default: return false
            }
            if let policy = entityMapping.entityMigrationPolicyClassName, !policy.isEmpty, policy != "NSEntityMigrationPolicy" { return false }
            for property in entityMapping.attributeMappings ?? [] where property.valueExpression != nil {
                if MappingInference.sourceKey(of: property.valueExpression) == nil { return false }
            }
            for property in entityMapping.relationshipMappings ?? [] where property.valueExpression != nil {
                if relationshipSource(of: property.valueExpression) == nil { return false }
            }
        }
        return true
    }

    /// The source key of a relationship expression over `$source.<key>`: Apple's inferred
    /// `destinationInstancesForSourceRelationshipNamed:sourceInstances:` or Xcode's
    /// `destinationInstancesForEntityMappingNamed:sourceInstances:`.
    static func relationshipSource(of expression: NSExpression?) -> String? {
        guard let expression, case .function(let target?, let name, let arguments) = expression.node,
            name == "destinationInstancesForSourceRelationshipNamed:sourceInstances:" || name == "destinationInstancesForEntityMappingNamed:sourceInstances:",
            arguments.count == 2, case .variable("manager") = target.node, case .constant(_ as String) = arguments[0].node
        else { return nil }
        return MappingInference.sourceKey(of: arguments[1])
    }

    /// Runs the migration in one exclusive transaction and rewrites the metadata (keeping the store UUID).
    func run() throws {
        try connection.inTransaction(.exclusive) {
            try renameOldTables()
            progress(0.1)
            for statement in destination.creationStatements() where statement.hasPrefix("CREATE TABLE ") {
                let name = statement.dropFirst("CREATE TABLE ".count).prefix { $0 != " " }
                if ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains(String(name)) { continue }
                try connection.execute(statement)
            }
            try copyRows()
            progress(0.5)
            try rebuildRelationships()
            progress(0.8)
            if !defersCleanup {
                for table in oldTables { try connection.execute("DROP TABLE IF EXISTS \(SQLiteStore.quoted(Self.oldTablePrefix + table))") }
            }
            for index in 0..<pairTableCount { try connection.execute("DROP TABLE IF EXISTS temp.Z_OCDPAIRS_\(index)") }
            try rewritePrimaryKeys()
            try rewriteHistory()
            try rewriteMetadata()
            // Uniqueness constraints are checked now (a violation fails the migration); other indexes only speed
            // reads up, and may wait.
            let indexes = destination.indexStatements().filter { !defersCleanup || $0.hasPrefix("CREATE UNIQUE INDEX") }
            do {
                for statement in indexes + destination.triggerStatements() { try connection.execute(statement) }
            } catch let error as NSError where Self.isConstraintFailure(error) {
                throw CoreDataError.make(NSMigrationConstraintViolationError, "The migrated rows violate a uniqueness constraint of the destination model",
                                         userInfo: [NSUnderlyingErrorKey: error])
            }
            progress(1)
        }
    }

    private static func isConstraintFailure(_ error: NSError) -> Bool {
        guard let code = (error.userInfo[NSSQLiteErrorDomain] as? NSNumber)?.int32Value else { return false }
        return SQLiteResultCode(rawValue: code).primary == .constraint
    }

    // MARK: Tables


    private func old(_ table: String) -> String { SQLiteStore.quoted(Self.oldTablePrefix + table) }

    /// Renames the source layout's tables out of the way, dropping their indexes and triggers (the
    /// destination recreates its own).
    private func renameOldTables() throws {
        // Tables a deferred migration left to drop later are dropped now: their names are about to be reused.
        for table in try SQLiteStore.leftoverMigrationTables(on: connection) {
            try connection.execute("DROP TABLE IF EXISTS \(SQLiteStore.quoted(table))")
        }
        let tables = Set(try connection.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { row -> String? in
            if case .text(let name) = row[0] { return name }
            return nil
        })
        let rows = try connection.fetchAll("SELECT type, name, tbl_name FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL")
        for row in rows {
            guard case .text(let type) = row[0], case .text(let name) = row[1], case .text(let table) = row[2] else { continue }
            guard oldTables.contains(table) || name.hasPrefix("Z_DA_") else { continue }
            try connection.execute("DROP \(type == "index" ? "INDEX" : "TRIGGER") IF EXISTS \(SQLiteStore.quoted(name))")
        }
        for table in oldTables where tables.contains(table) {
            try connection.execute("ALTER TABLE \(SQLiteStore.quoted(table)) RENAME TO \(old(table))")
        }
        for table in oldTables where !tables.contains(table) {
            throw CoreDataError.make(NSMigrationManagerSourceStoreError, "The store has no table \(table), which its model version needs")
        }
    }

    // MARK: Rows

    /// Copies every migrated entity's rows with their primary keys and `Z_OPT`, converting attributes.
    private func copyRows() throws {
        for (index, entity) in destination.entitiesInOrder.enumerated() {
            progress(0.1 + 0.4 * Float(index) / Float(max(1, destination.entitiesInOrder.count)))
            guard let sourceEntity = sourceEntityByDestination[ObjectIdentifier(entity)], let entityMapping = mappingByDestination[ObjectIdentifier(entity)] else { continue }
            let table = destination.table(for: entity).name
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
            var values = ["Z_PK", "\(destination.number(of: entity))", "Z_OPT"]
            var arguments: [SQLiteValue] = []
            for case let attribute as NSAttributeDescription in entity.properties where !attribute.isTransient {
                guard let column = destination.columnName(of: attribute.name, in: entity) else { continue }
                var expression: String?
                if let key = MappingInference.sourceKey(of: entityMapping.attributeMapping(named: attribute.name)?.valueExpression),
                    let sourceAttribute = sourceEntity.propertiesByName[key] as? NSAttributeDescription,
                    let sourceColumn = source.columnName(of: key, in: sourceEntity)
                {
                    expression = Self.converted(sourceColumn, from: sourceAttribute.attributeType, to: attribute.attributeType)
                }
                if let defaultValue = attribute.defaultValue, expression == nil || !attribute.isOptional {
                    let stored = ValueConversion.storedValue(fromKVC: defaultValue, for: attribute) ?? .null
                    let literal = SQLiteValueCodec.sqliteValue(stored, for: attribute.attributeType)
                    if literal != .null {
                        arguments.append(literal)
                        expression = expression.map { "COALESCE(\($0), ?)" } ?? "?"
                    }
                }
                guard let expression else { continue }
                columns.append(column)
                values.append(expression)
            }
            let sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(old(source.table(for: sourceEntity).name)) WHERE Z_ENT = \(source.number(of: sourceEntity))"
            let statement = try connection.prepare(sql)
            try statement.bind(arguments)
            try statement.execute()
        }
    }

    /// A source column converted to a destination attribute type (SQL `CAST`, as the types' storage classes need).
    static func converted(_ column: String, from old: NSAttributeType, to new: NSAttributeType) -> String {
        guard old != new else { return column }
        switch new {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            return "CAST(\(column) AS INTEGER)"
        case .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
            return "CAST(\(column) AS REAL)"
        case .stringAttributeType where old == .booleanAttributeType || old == .integer16AttributeType || old == .integer32AttributeType || old == .integer64AttributeType:
            return "CAST(\(column) AS TEXT)"
        case .stringAttributeType where old == .doubleAttributeType || old == .floatAttributeType || old == .decimalAttributeType:
            // A whole number prints without ".0", as NSNumber's description does.
            return "CASE WHEN \(column) = CAST(\(column) AS INTEGER) THEN CAST(CAST(\(column) AS INTEGER) AS TEXT) ELSE CAST(\(column) AS TEXT) END"
        default:
            return column
        }
    }

    // MARK: Relationships

    /// The destination entities (this one and its sub-entities) as a SQL list of `Z_ENT` numbers.
    private func destinationNumbers(_ entity: NSEntityDescription) -> String {
        destination.mapping(for: entity).entityNumbersIncludingSubentities.map(String.init).joined(separator: ", ")
    }

    /// `CASE <column> WHEN <source Z_ENT> THEN <destination Z_ENT> … END`: source entity numbers in
    /// destination numbering (NULL for entities that are not migrated).
    private func convertedEntityNumber(_ column: String) -> String {
        var cases = ""
        for entity in destination.entitiesInOrder {
            guard let sourceEntity = sourceEntityByDestination[ObjectIdentifier(entity)] else { continue }
            cases += " WHEN \(source.number(of: sourceEntity)) THEN \(destination.number(of: entity))"
        }
        return cases.isEmpty ? "NULL" : "CASE \(column)\(cases) END"
    }

    /// The source relationships a destination relationship takes its members from, per its entity mappings.
    private func sourceRelationships(for relationship: NSRelationshipDescription) -> [NSRelationshipDescription] {
        var found: [NSRelationshipDescription] = []
        for entity in destination.entitiesInOrder where entity.isKindOf(entity: relationship.entity) {
            guard let sourceEntity = sourceEntityByDestination[ObjectIdentifier(entity)],
                let expression = mappingByDestination[ObjectIdentifier(entity)]?.relationshipMapping(named: relationship.name)?.valueExpression,
                let key = Self.relationshipSource(of: expression),
                let sourceRelationship = sourceEntity.propertiesByName[key] as? NSRelationshipDescription, !sourceRelationship.isTransient,
                !found.contains(where: { $0 === sourceRelationship })
            else { continue }
            found.append(sourceRelationship)
        }
        return found
    }

    /// SQL selecting `(owner, target, ent, ord)` rows of a source relationship: the source object's key, the
    /// member's key and source `Z_ENT`, and the member's position when the relationship is ordered.
    private func sourcePairs(_ relationship: NSRelationshipDescription) -> String? {
        guard let target = relationship.destinationEntity else { return nil }
        if !relationship.isToMany {
            let table = source.table(for: relationship.entity)
            guard let key = table.columns.first(where: { if case .toOne(let r) = $0.kind { return r === relationship }; return false })?.name else { return nil }
            let entityColumn = table.columns.first(where: { if case .toOneEntity(let r) = $0.kind { return r === relationship }; return false })?.name
            let owners = source.mapping(for: relationship.entity).entityNumbersIncludingSubentities.map(String.init).joined(separator: ", ")
            return "SELECT Z_PK, \(key), \(entityColumn ?? "\(source.number(of: target))"), NULL FROM \(old(table.name)) WHERE \(key) IS NOT NULL AND Z_ENT IN (\(owners))"
        }
        let layout = relationship.entity.layout
        guard let index = layout.toManyRelationships.firstIndex(where: { $0 === relationship }) else { return nil }
        let targetTable = old(source.table(for: target).name)
        switch source.mapping(for: relationship.entity).toManyStorage[index] {
        case .inverseColumn(let table, let destinationEntity, let column, let orderColumn):
            let members = source.mapping(for: destinationEntity).entityNumbersIncludingSubentities.map(String.init).joined(separator: ", ")
            return "SELECT \(column), Z_PK, Z_ENT, \(orderColumn ?? "NULL") FROM \(old(table.name)) WHERE \(column) IS NOT NULL AND Z_ENT IN (\(members))"
        case .joinTable(let join, let sourceColumn, let destinationColumn, let orderColumn):
            return "SELECT j.\(sourceColumn), j.\(destinationColumn), t.Z_ENT, \(orderColumn.map { "j.\($0)" } ?? "NULL") FROM \(old(join.name)) j JOIN \(targetTable) t ON t.Z_PK = j.\(destinationColumn)"
        case .ownJoinTable(let name, let sourceColumn, let destinationColumn, let orderColumn):
            return "SELECT j.\(sourceColumn), j.\(destinationColumn), t.Z_ENT, \(orderColumn.map { "j.\($0)" } ?? "NULL") FROM \(old(name)) j JOIN \(targetTable) t ON t.Z_PK = j.\(destinationColumn)"
        case .notStored:
            return nil
        }
    }

    /// Materialises the members of a destination relationship as a temporary table `(owner, target, ent,
    /// ord)` in destination terms — from its mapped source relationship, or reversed from its inverse's —
    /// keeping only owners that were migrated into entities the relationship connects and members whose entity
    /// the relationship reaches. A reference to a row that no longer exists is copied as it is (as Apple's SQL
    /// migration copies the column), not dropped.
    /// `ord` numbers each owner's members from 1 (the source order where the source was ordered).
    private func pairs(for relationship: NSRelationshipDescription) throws -> String? {
        guard let target = relationship.destinationEntity else { return nil }
        var selects: [String] = []
        for sourceRelationship in sourceRelationships(for: relationship) {
            if let sql = sourcePairs(sourceRelationship) { selects.append(sql) }
        }
        var reversed = false
        if selects.isEmpty, let inverse = relationship.inverseRelationship {
            for sourceRelationship in sourceRelationships(for: inverse) {
                if let sql = sourcePairs(sourceRelationship) { selects.append(sql) }
            }
            reversed = true
        }
        guard !selects.isEmpty else { return nil }
        let name = "temp.Z_OCDPAIRS_\(pairTableCount)"
        pairTableCount += 1
        let raw = selects.joined(separator: " UNION ALL ")
        let ownerTable = destination.table(for: relationship.entity).name, targetTable = destination.table(for: target).name
        // Reversed pairs name the owner by its key only: its destination Z_ENT comes from the migrated row.
        let body: String
        if reversed {
            body = "SELECT p.t AS owner, p.o AS target, m.Z_ENT AS ent, NULL AS sord FROM (\(raw.replacingFirstColumns())) p JOIN \(targetTable) m ON m.Z_PK = p.o"
        } else {
            body = "SELECT p.o AS owner, p.t AS target, \(convertedEntityNumber("p.e")) AS ent, p.r AS sord FROM (\(raw.replacingFirstColumns())) p"
        }
        try connection.execute("""
            CREATE TEMP TABLE \(name.dropFirst("temp.".count)) AS SELECT owner, target, ent, ROW_NUMBER() OVER (PARTITION BY owner ORDER BY sord, target) AS ord FROM (\(body)) q \
            WHERE ent IN (\(destinationNumbers(target))) AND owner IN (SELECT Z_PK FROM \(ownerTable) WHERE Z_ENT IN (\(destinationNumbers(relationship.entity))))
            """)
        try connection.execute("CREATE INDEX \(name)_OWNER ON \(name.dropFirst("temp.".count)) (owner, target)")
        try connection.execute("CREATE INDEX \(name)_TARGET ON \(name.dropFirst("temp.".count)) (target, owner)")
        return name
    }

    /// Writes every destination relationship's storage: to-one columns (with polymorphic entity and order
    /// key columns) and join tables.
    private func rebuildRelationships() throws {
        for (index, table) in destination.tables.enumerated() {
            progress(0.5 + 0.3 * Float(index) / Float(max(1, destination.tables.count)))
            for column in table.columns {
                guard case .toOne(let relationship) = column.kind, let pairs = try pairs(for: relationship) else { continue }
                let entityColumn = table.columns.first(where: { if case .toOneEntity(let r) = $0.kind { return r === relationship }; return false })?.name
                var assignments = "\(column.name) = (SELECT target FROM \(pairs) p WHERE p.owner = \(table.name).Z_PK ORDER BY ord LIMIT 1)"
                if let entityColumn {
                    assignments += ", \(entityColumn) = (SELECT ent FROM \(pairs) p WHERE p.owner = \(table.name).Z_PK ORDER BY ord LIMIT 1)"
                }
                try connection.execute("UPDATE \(table.name) SET \(assignments) WHERE Z_ENT IN (\(destinationNumbers(relationship.entity)))")
                // The order of this object among its owner's members, where the inverse is ordered.
                if let inverse = relationship.inverseRelationship, inverse.isOrdered,
                    let orderColumn = table.columns.first(where: { if case .orderKey(let r) = $0.kind { return r === inverse }; return false })?.name,
                    let members = try self.pairs(for: inverse)
                {
                    try connection.execute("UPDATE \(table.name) SET \(orderColumn) = (SELECT ord FROM \(members) p WHERE p.target = \(table.name).Z_PK AND p.owner = \(table.name).\(column.name)) WHERE Z_ENT IN (\(destinationNumbers(relationship.entity)))")
                }
            }
        }
        for join in destination.joinTables {
            guard let pairs = try pairs(for: join.relationship) else { continue }
            var columns = [join.firstColumn, join.secondColumn], values = ["p.owner", "p.target"]
            if let order = join.orderColumn { columns.append(order); values.append("p.ord") }
            if let order = join.inverseOrderColumn {
                let inversePairs = try self.pairs(for: join.inverse)
                columns.append(order)
                values.append(inversePairs.map { "(SELECT ord FROM \($0) i WHERE i.owner = p.target AND i.target = p.owner)" } ?? "NULL")
            }
            try connection.execute("INSERT OR IGNORE INTO \(join.name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(pairs) p")
        }
        for entity in destination.entitiesInOrder {
            let layout = entity.layout
            for (index, relationship) in layout.toManyRelationships.enumerated() where relationship.entity === entity {
                guard case .ownJoinTable(let name, let sourceColumn, let destinationColumn, let orderColumn) = destination.mapping(for: entity).toManyStorage[index],
                    let pairs = try pairs(for: relationship)
                else { continue }
                var columns = [sourceColumn, destinationColumn], values = ["p.owner", "p.target"]
                if let orderColumn { columns.append(orderColumn); values.append("p.ord") }
                try connection.execute("INSERT OR IGNORE INTO \(name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(pairs) p")
            }
        }
    }

    // MARK: Bookkeeping

    /// Rewrites `Z_PRIMARYKEY` for the destination entities; a root's `Z_MAX` never goes below the source's,
    /// so primary keys of deleted objects are not reused. The rows of Core Data's own tables (numbers from 16000:
    /// the history tables' counters, which keep transaction numbers from being reused) stay.
    private func rewritePrimaryKeys() throws {
        var oldMax: [String: Int64] = [:]
        for row in try connection.fetchAll("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < \(Self.firstInternalEntityNumber)") {
            if case .text(let name) = row[0], case .integer(let max) = row[1] { oldMax[name] = max }
        }
        try connection.execute("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < \(Self.firstInternalEntityNumber)")
        let insert = try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)")
        for (index, entity) in destination.entitiesInOrder.enumerated() {
            var max: Int64 = 0
            if entity.superentity == nil {
                if case .integer(let tableMax)? = try connection.fetchValue("SELECT MAX(Z_PK) FROM \(destination.table(for: entity).name)") { max = tableMax }
                if let sourceRoot = sourceEntityByDestination[ObjectIdentifier(entity)]?.rootEntity.name { max = Swift.max(max, oldMax[sourceRoot] ?? 0) }
            }
            try insert.bind([.integer(Int64(index + 1)), .text(entity.name ?? ""), .integer(Int64(entity.superentity.map { destination.number(of: $0) } ?? 0)), .integer(max)])
            try insert.execute()
            insert.reset()
        }
    }

    /// Replaces the metadata's model keys with the destination model's, keeping the UUID and user keys, and the
    /// model cache with the destination model's (none when the model cannot be archived faithfully).
    private func rewriteMetadata() throws {
        guard let row = try connection.fetchAll("SELECT Z_UUID, Z_PLIST FROM Z_METADATA").first, case .blob(let data) = row[1],
            var metadata = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else {
            throw CoreDataError.make(NSMigrationManagerSourceStoreError, "The store's metadata cannot be read")
        }
        metadata.merge(SQLiteStore.modelMetadata(destination.model)) { _, new in new }
        metadata[NSStoreUUIDKey] = nil
        metadata[NSPersistentStoreDeferredLightweightMigrationOptionKey] = defersCleanup ? true : nil
        let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        let update = try connection.prepare("UPDATE Z_METADATA SET Z_PLIST = ?")
        try update.bind([.blob(plist)])
        try update.execute()
        try connection.execute("CREATE TABLE IF NOT EXISTS Z_MODELCACHE (Z_CONTENT BLOB)")
        try connection.execute("DELETE FROM Z_MODELCACHE")
        try SQLiteStore.writeModelCache(for: destination.model, on: connection)
    }
}

private extension String {
    /// Names the four columns of a pair query `o`, `t`, `e`, `r` (wrapping it so the union keeps working).
    func replacingFirstColumns() -> String {
        "SELECT column1 AS o, column2 AS t, column3 AS e, column4 AS r FROM (VALUES (NULL, NULL, NULL, NULL)) WHERE 0 UNION ALL \(self)"
    }
}
