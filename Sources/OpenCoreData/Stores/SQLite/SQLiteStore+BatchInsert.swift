extension SQLiteStore {
    /// Inserts a batch of rows with one prepared `INSERT` (`Z_PK`s handed out from `Z_PRIMARYKEY.Z_MAX`, `Z_OPT`
    /// 1), in one transaction. A row that violates a uniqueness constraint is resolved as the request says: the
    /// whole request fails, the stored row takes the new values (`UPDATE … WHERE Z_PK = ?`, its `Z_OPT`
    /// incremented), or the stored row is kept.
    ///
    /// For example, for `Item(name, rating)`:
    /// ```sql
    /// INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZRATING, ZNAME) VALUES (?, ?, 1, ?, ?)
    /// UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?
    /// ```
    func executeBatchInsert(_ request: StoreBatchInsert, requestContext: StoreRequestContext) throws -> StoreBatchOutcome {
        let name = "NSBatchInsertRequest"
        try checkBatchWritable(name)
        let entity = request.entity
        let mapping = schema.mapping(for: entity)
        let table = mapping.table
        let columns = writtenAttributeColumns(mapping)
        let externalColumns = columns.filter { $0.attribute.allowsExternalBinaryDataStorage }.map(\.column)
        let constraints = BatchValues.constraints(of: entity)
        let rootNumber = Int64(schema.number(of: entity.rootEntity))
        let entityNumber = Int64(mapping.number)
        let insertSQL = "INSERT INTO \(table.name) (Z_PK, Z_ENT, Z_OPT\(columns.map { ", \($0.column)" }.joined())) VALUES (?, ?, 1\(String(repeating: ", ?", count: columns.count)))"
        return try inBatchTransaction(requestContext: requestContext) { createdFiles, obsoleteFiles in
            var outcome = StoreBatchOutcome()
            outcome.objectIDs.reserveCapacity(request.rows.count)
            // The rows whose derived attributes to compute, when the entity has any the store computes (not its
            // triggers): new and overwritten rows. The cache forgets `objectIDs` (new and overwritten rows), so
            // `changedObjectIDs` lists only rows the derived attributes changed.
            let computesDerived = DerivedAttributes.slots(of: entity).contains { !schema.isTriggerMaintained($0.1) }
            var written: [NSManagedObjectID] = []
            let firstKey = try firstFreePrimaryKey(rootNumber: rootNumber, table: table)
            var nextKey = firstKey
            let insert = try connection.cachedStatement(insertSQL)
            for row in request.rows {
                let filesBefore = createdFiles.count
                try insert.bind(nextKey, at: 1)
                try insert.bind(entityNumber, at: 2)
                var index: Int32 = 3
                for column in columns {
                    try insert.bind(try batchColumnValue(row[column.slot], for: column.attribute, createdFiles: &createdFiles), at: index)
                    index += 1
                }
                do {
                    try insert.execute()
                } catch {
                    guard !constraints.isEmpty, SQLiteResultCode.constraintUnique ~= error,
                          let conflict = try existingConflict(for: row, of: entity, constraints: constraints, table: table)
                    else { throw error }
                    // The attempt's files are not used: the row was not inserted.
                    for file in createdFiles[filesBefore...] { try? FileManager.default.removeItem(at: file) }
                    createdFiles.removeSubrange(filesBefore...)
                    switch request.conflictResolution {
                    case .fail:
                        throw BatchValues.constraintViolation(entity: conflict.declaring, constraint: conflict.names, values: conflict.values,
                                                              objectIDs: [conflict.existing], request: name)
                    case .storeWins:
                        outcome.objectIDs.append(conflict.existing)
                    case .incomingWins:
                        obsoleteFiles += try externalFiles(in: table, columns: externalColumns, keys: [conflict.existing.primaryKey ?? 0])
                        try overwrite(conflict.existing, with: row, of: entity, createdFiles: &createdFiles)
                        outcome.objectIDs.append(conflict.existing)
                        if computesDerived { written.append(conflict.existing) }
                    }
                    continue
                }
                let objectID = objectID(for: entity, primaryKey: nextKey)
                outcome.objectIDs.append(objectID)
                if computesDerived { written.append(objectID) }
                nextKey += 1
            }
            if nextKey > firstKey {
                let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
                try update.bind(nextKey - 1, at: 1)
                try update.bind(rootNumber, at: 2)
                try update.execute()
            }
            if computesDerived { outcome.changedObjectIDs = try recomputeDerivedAttributes(of: written) }
            outcome.changedObjectIDs.formUnion(takeDerivedChanges())
            return outcome
        }
    }

    /// The attribute columns a batch request writes for an entity: stored attributes that are not derived.
    func writtenAttributeColumns(_ mapping: SQLiteSchema.EntityMapping) -> [(slot: Int, attribute: NSAttributeDescription, column: String)] {
        let layout = mapping.entity.layout
        return mapping.attributeColumns.enumerated().compactMap { slot, column in
            guard let column else { return nil }
            let attribute = layout.attributes[slot]
            guard !(attribute is NSDerivedAttributeDescription), !attribute.isTransient else { return nil }
            return (slot, attribute, mapping.table.columns[column].name)
        }
    }

    /// The first primary key a new row of the hierarchy may take: after `Z_MAX` and after every existing row.
    private func firstFreePrimaryKey(rootNumber: Int64, table: SQLiteSchema.EntityTable) throws -> Int64 {
        guard case .integer(let max)? = try connection.fetchValue("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [.integer(rootNumber)]) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store has no primary key row for \(table.root.name ?? "?")")
        }
        var tableMax: Int64 = 0
        if case .integer(let value)? = try connection.fetchValue("SELECT MAX(Z_PK) FROM \(table.name)") { tableMax = value }
        return Swift.max(max, tableMax) + 1
    }

    /// A uniqueness conflict of a new row: the stored row with the same constrained values, and which constraint.
    private func existingConflict(for row: [StoredValue], of entity: NSEntityDescription,
                                  constraints: [(declaring: NSEntityDescription, names: [String], slots: [Int])],
                                  table: SQLiteSchema.EntityTable)
        throws -> (existing: NSManagedObjectID, declaring: NSEntityDescription, names: [String], values: [StoredValue])?
    {
        let layout = entity.layout
        for constraint in constraints {
            let values = constraint.slots.map { row[$0] }
            guard !values.contains(where: \.isNull) else { continue }
            let columns = constraint.names.compactMap { schema.columnName(of: $0, in: constraint.declaring) }
            guard columns.count == constraint.names.count else { continue }
            let arguments = zip(constraint.slots, values).map { slot, value in SQLiteValueCodec.sqliteValue(value, for: layout.attributes[slot].attributeType) }
            let sql = "SELECT Z_PK, Z_ENT FROM \(table.name) WHERE \(columns.map { "\($0) = ?" }.joined(separator: " AND ")) LIMIT 1"
            guard let found = try connection.fetchAll(sql, arguments: arguments).first,
                  case .integer(let key) = found[0], case .integer(let number) = found[1], let existingEntity = schema.entity(number: Int(number))
            else { continue }
            return (objectID(for: existingEntity, primaryKey: key), constraint.declaring, constraint.names, values)
        }
        return nil
    }

    /// Writes a batch-inserted row's values over a stored row (an upsert), incrementing its version; only the
    /// attributes the stored row's entity has are written.
    private func overwrite(_ existing: NSManagedObjectID, with row: [StoredValue], of entity: NSEntityDescription, createdFiles: inout [URL]) throws {
        guard let key = existing.primaryKey else { return }
        let mapping = schema.mapping(for: entity)
        let existingSlots = existing.entity.layout.slots
        let columns = writtenAttributeColumns(mapping).filter { column in
            if case .attribute(_, let attribute)? = existingSlots[column.attribute.name] { return attribute === column.attribute }
            return false
        }
        let statement = try connection.cachedStatement("UPDATE \(mapping.table.name) SET Z_OPT = IFNULL(Z_OPT, 0) + 1\(columns.map { ", \($0.column) = ?" }.joined()) WHERE Z_PK = ?")
        var index: Int32 = 1
        for column in columns {
            try statement.bind(try batchColumnValue(row[column.slot], for: column.attribute, createdFiles: &createdFiles), at: index)
            index += 1
        }
        try statement.bind(key, at: index)
        try statement.execute()
    }
}
