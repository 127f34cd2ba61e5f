extension SQLiteStore {
    /// The SELECT list that reads every column of an entity table (`Z_PK, Z_ENT, Z_OPT, …`), with `alias.` prefixes.
    func selectList(_ table: SQLiteSchema.EntityTable, alias: String = "t0") -> String {
        (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)).map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// Decodes the current row of `statement` (selected with `selectList`, starting at column `offset`) into an
    /// object ID and snapshot; nil if its `Z_ENT` is not an entity of the model.
    func decodeRow(_ statement: SQLiteStatement, table: SQLiteSchema.EntityTable, offset: Int32 = 0) throws -> (NSManagedObjectID, ObjectSnapshot)? {
        var entities = RowEntityCache()
        return try decodeRow(statement, table: table, offset: offset, entities: &entities)
    }

    /// `decodeRow` for a loop over rows: `entities` keeps the last row's entity, mapping and layout for the next.
    /// With `cachedRow`, a row whose version the row cache already holds is not decoded: the cached ID and values
    /// are returned (entities with derived attributes are always decoded: Apple's triggers change those columns
    /// without advancing `Z_OPT`). A decoded row is handed to `record` (``RowCache/passingRows(_:)``).
    func decodeRow(_ statement: SQLiteStatement, table: SQLiteSchema.EntityTable, offset: Int32 = 0, entities: inout RowEntityCache,
                   cachedRow: RowCache.Lookup = .none,
                   record: (NSManagedObjectID, ObjectSnapshot) -> Void = { _, _ in }) throws -> (NSManagedObjectID, ObjectSnapshot)? {
        let primaryKey = statement.int64(at: offset)
        let entityNumber = Int(statement.int64(at: offset + 1))
        if entityNumber != entities.number || entities.table !== table {
            guard let entity = schema.entity(number: entityNumber), entity.rootEntity === table.root else {
                // Every row of a table is of an entity stored there: any other Z_ENT (a damaged page reads as NULL
                // columns) is corruption, reported rather than skipped (skipping loses the row without a word).
                throw CoreDataError.make(NSFileReadCorruptFileError,
                                         "The store at \(path) is corrupt: row \(primaryKey) of \(table.name) has entity number \(statement.isNull(at: offset + 1) ? "NULL" : String(entityNumber)), not one of the entities stored in that table",
                                         userInfo: [NSFilePathErrorKey: path])
            }
            let layout = entity.layout
            entities = RowEntityCache(number: entityNumber, table: table, entity: entity, mapping: schema.mapping(for: entity), layout: layout,
                                      rowsAreReusable: !layout.attributes.contains { $0 is NSDerivedAttributeDescription },
                                      hierarchy: ObjectIdentifier(entity.rootEntity), storeIdentifier: identity.identifierAndHash.0)
        }
        guard let entity = entities.entity else { return nil }
        let version = statement.isNull(at: offset + 2) ? 0 : statement.int64(at: offset + 2)
        // A cached row comes with the cache's ID for it: the objects share one ID with the cache (a new one would
        // double the IDs held in memory). It is looked up by primary key, without making an ID, when it can be.
        // A row cached under a super-entity's ID (an object first known by a URI naming the super-entity) is handed
        // out with an ID of the row's own entity.
        var probed = false
        if entities.rowsAreReusable {
            switch cachedRow.byKey(entities.hierarchy, entities.storeIdentifier, primaryKey, version) {
            case .found(let cachedID, let snapshot):
                return (cachedID.entity === entity ? cachedID : objectID(for: entity, primaryKey: primaryKey), snapshot)
            case .absent: probed = true
            case .needsID: break
            }
        }
        let rowID = objectID(for: entity, primaryKey: primaryKey)
        if entities.rowsAreReusable, !probed, let (cachedID, snapshot) = cachedRow.byID(rowID, version) {
            return (cachedID.entity === entity ? cachedID : rowID, snapshot)
        }
        // Bound only for a row to decode: copying the mapping retains its arrays.
        guard let mapping = entities.mapping, let layout = entities.layout else { return nil }
        var attributes = [StoredValue](repeating: .null, count: layout.attributes.count)
        for (slot, column) in mapping.attributeColumns.enumerated() {
            guard let column else { continue }
            let attribute = layout.attributes[slot]
            let raw = statement.value(at: offset + 3 + Int32(column))
            attributes[slot] = try decodeAttribute(raw, attribute: attribute)
        }
        var toOne = [NSManagedObjectID?](repeating: nil, count: layout.toOneRelationships.count)
        for (slot, columns) in mapping.toOneColumns.enumerated() {
            guard let columns, case .integer(let key) = statement.value(at: offset + 3 + Int32(columns.key)) else { continue }
            let relationship = layout.toOneRelationships[slot]
            guard let destination = relationship.destinationEntity else { continue }
            var destinationEntity = destination
            if let entityColumn = columns.entity, case .integer(let number) = statement.value(at: offset + 3 + Int32(entityColumn)),
                let concrete = schema.entity(number: Int(number))
            {
                destinationEntity = concrete
            } else if !destination.subentities.isEmpty, let concrete = try concreteEntity(of: key, in: destination, on: statement.connection) {
                destinationEntity = concrete
            }
            toOne[slot] = objectID(for: destinationEntity, primaryKey: key)
        }
        let snapshot = ObjectSnapshot(attributes: attributes, toOne: toOne, version: version)
        record(rowID, snapshot)
        return (rowID, snapshot)
    }

    /// An attribute's stored value from its column (external binary references resolved).
    func decodeAttribute(_ raw: SQLiteValue, attribute: NSAttributeDescription) throws -> StoredValue {
        if attribute.allowsExternalBinaryDataStorage, case .blob(let data) = raw, let first = data.first {
            switch first {
            case 0x01: return .data(data.dropFirst())
            case 0x02:
                // A missing or unreadable file loses that one value, not the whole fetch (as Core Data does).
                do {
                    return .data(try externalStorage.read(reference: data))
                } catch {
                    logger.error("External binary data of \(attribute.entity.name ?? "?").\(attribute.name) is unreadable; reading nil: \(error)")
                    return .null
                }
            default: break
            }
        }
        return SQLiteValueCodec.storedValue(raw, for: attribute.attributeType)
    }

    /// The concrete entity of a row of a hierarchy, read from its `Z_ENT` on `connection` (the one reading the row
    /// that refers to it: a pinned generation's, a pooled reader's or the store's own).
    func concreteEntity(of primaryKey: Int64, in entity: NSEntityDescription, on connection: SQLiteConnection) throws -> NSEntityDescription? {
        let table = schema.table(for: entity)
        guard case .integer(let number)? = try connection.cachedStatementValue("SELECT Z_ENT FROM \(table.name) WHERE Z_PK = ?", .integer(primaryKey)) else { return nil }
        return schema.entity(number: Int(number))
    }

    func snapshot(for objectID: NSManagedObjectID, requestContext: StoreRequestContext) throws -> ObjectSnapshot? {
        guard let primaryKey = objectID.primaryKey else { return nil }
        let table = schema.table(for: objectID.entity)
        let statement = try readConnection(for: requestContext).cachedStatement("SELECT \(selectList(table)) FROM \(table.name) t0 WHERE t0.Z_PK = ?")
        defer { statement.reset() }
        try statement.bind(primaryKey, at: 1)
        guard try statement.step(), let (rowID, snapshot) = try decodeRow(statement, table: table) else { return nil }
        guard rowID.entity.isKindOf(entity: objectID.entity) || objectID.entity.isKindOf(entity: rowID.entity) else { return nil }
        return snapshot
    }

    func relatedObjectIDs(of objectID: NSManagedObjectID, through relationship: NSRelationshipDescription, requestContext: StoreRequestContext) throws -> [NSManagedObjectID] {
        guard let primaryKey = objectID.primaryKey, let destination = relationship.destinationEntity else { return [] }
        let mapping = schema.mapping(for: objectID.entity)
        guard case .toMany(let slot, _)? = objectID.entity.layout.slots[relationship.name] else { return [] }
        let destinationTable = schema.table(for: destination)
        let entityFilter = destinationTable.isPolymorphic
            ? " AND d.Z_ENT IN (\(schema.mapping(for: destination).entityNumbersIncludingSubentities.map(String.init).joined(separator: ", ")))" : ""
        let sql: String
        switch mapping.toManyStorage[slot] {
        case .inverseColumn(let table, _, let column, let orderColumn):
            sql = "SELECT d.Z_PK, d.Z_ENT FROM \(table.name) d WHERE d.\(column) = ?\(entityFilter) ORDER BY \(orderColumn.map { "d.\($0), " } ?? "")d.Z_PK"
        case .joinTable(let join, let sourceColumn, let destinationColumn, let orderColumn):
            sql = "SELECT d.Z_PK, d.Z_ENT FROM \(join.name) j JOIN \(destinationTable.name) d ON d.Z_PK = j.\(destinationColumn) WHERE j.\(sourceColumn) = ?\(entityFilter) ORDER BY \(orderColumn.map { "j.\($0), " } ?? "")d.Z_PK"
        case .ownJoinTable(let name, let sourceColumn, let destinationColumn, let orderColumn):
            sql = "SELECT d.Z_PK, d.Z_ENT FROM \(name) j JOIN \(destinationTable.name) d ON d.Z_PK = j.\(destinationColumn) WHERE j.\(sourceColumn) = ?\(entityFilter) ORDER BY \(orderColumn.map { "j.\($0), " } ?? "")d.Z_PK"
        case .notStored:
            return []
        }
        let statement = try readConnection(for: requestContext).cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(primaryKey, at: 1)
        var result: [NSManagedObjectID] = []
        while try statement.step() {
            guard let entity = schema.entity(number: Int(statement.int64(at: 1))) else { continue }
            result.append(self.objectID(for: entity, primaryKey: statement.int64(at: 0)))
        }
        return result
    }
}

extension SQLiteConnection {
    /// The first column of the first row of a cached single-parameter query.
    func cachedStatementValue(_ sql: String, _ argument: SQLiteValue) throws -> SQLiteValue? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(argument, at: 1)
        guard try statement.step() else { return nil }
        return statement.value(at: 0)
    }
}

/// The entity of the rows being decoded, with what decoding them needs (looked up again when `Z_ENT` changes).
struct RowEntityCache {
    var number = 0
    var table: SQLiteSchema.EntityTable?
    var entity: NSEntityDescription?
    var mapping: SQLiteSchema.EntityMapping?
    var layout: EntityLayout?
    /// Whether a cached row of the same version may stand for the stored one (no derived attributes).
    var rowsAreReusable = false
    /// The entity's hierarchy (its root entity's identity) and the store's identifier: the row cache's key for a row.
    var hierarchy = ObjectIdentifier(RowEntityCache.self)
    var storeIdentifier = ""
}
