extension SQLiteStore {
    /// Writes a save in one `BEGIN IMMEDIATE` transaction: version checks (optimistic locking), deletions,
    /// rows, to-many memberships (order keys, join tables) and metadata — all of it or, on any error, none.
    func save(_ changes: StoreSaveChanges, requestContext: StoreRequestContext) throws -> StoreSaveResult {
        guard !isReadOnly, !connection.isReadOnly else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The persistent store at \(path) is read-only", userInfo: [NSAffectedStoresErrorKey: [self]])
        }
        var work = SaveWork()
        derivedValueChanges.reset()
        var changedByStore = Set<NSManagedObjectID>()
        // Cleared before the metadata is written (metadata set meanwhile, on another thread, sets it again); set
        // again if the save fails.
        var wroteMetadata = false
        do {
            try connection.inTransaction(.immediate) {
                transactionDidBegin()
                // Optimistic locking is part of each UPDATE and DELETE (`… AND IFNULL(Z_OPT, 0) = ?`); rows it did
                // not match are examined afterwards, and every conflict is reported before anything commits.
                for delete in changes.deletes { try deleteRow(delete.objectID, expectedVersion: delete.expectedVersion, work: &work) }
                for update in changes.updates { try writeRow(update.objectID, update.snapshot, version: update.expectedVersion + 1, expectedVersion: update.expectedVersion, work: &work) }
                if !work.conflicts.isEmpty { throw StoreSaveConflicts(conflicts: work.conflicts) }
                for insert in changes.inserts { try writeRow(insert.objectID, insert.snapshot, version: 1, expectedVersion: nil, work: &work) }
                // Passes over the saved objects that most saves need for none of them: without reading the others
                // (each read touched 100,000 IDs and snapshots that had left the processor's caches).
                for index in changes.inserts.indices where !changes.inserts[index].toMany.isEmpty {
                    try writeToMany(changes.inserts[index].objectID, changes.inserts[index].toMany)
                }
                for index in changes.updates.indices where !changes.updates[index].toMany.isEmpty {
                    try writeToMany(changes.updates[index].objectID, changes.updates[index].toMany, changes: changes.updates[index].toManyChanges)
                }
                if schema.hasStoreComputedDerivedAttributes {
                    changedByStore = try computeDerivedAttributes(changes.inserts.map(\.objectID) + changes.updates.map(\.objectID))
                }
                if metadataNeedsWriting, let metadata = super.metadata {
                    metadataNeedsWriting = false
                    wroteMetadata = true
                    try rewriteMetadataRow(metadata)
                }
                try transactionWillCommit(changes, requestContext: requestContext)   // persistent history writes its rows
                testHookInsideWriteTransaction?()
            }
        } catch {
            if wroteMetadata { metadataNeedsWriting = true }
            for file in work.createdFiles { try? FileManager.default.removeItem(at: file) }
            if SQLiteResultCode.constraintUnique ~= error || SQLiteResultCode.constraintPrimaryKey ~= error, let objectID = work.current {
                try checkVersions(changes)   // a version conflict is reported before a uniqueness failure
                throw try constraintViolation(for: objectID, changes: changes, error: error)
            }
            throw error
        }
        transactionDidCommit()   // the remote-change notification
        for file in work.obsoleteFiles { try? FileManager.default.removeItem(at: file) }
        for (tableName, entityNumber, primaryKey) in derivedValueChanges.take() {
            guard let entity = schema.entity(number: entityNumber), schema.table(for: entity).name == tableName else { continue }
            changedByStore.insert(objectID(for: entity, primaryKey: primaryKey))
        }
        return StoreSaveResult(objectsChangedByStore: changedByStore)
    }

    /// Writes the metadata row alone, in its own transaction (a context saved with no changes).
    func saveMetadata() throws {
        guard metadataNeedsWriting, let metadata = super.metadata, !isReadOnly, let connection, !connection.isReadOnly else { return }
        metadataNeedsWriting = false   // before writing: metadata set meanwhile sets it again
        do {
            try connection.inTransaction(.immediate) {
                try rewriteMetadataRow(metadata)
            }
        } catch {
            metadataNeedsWriting = true
            throw error
        }
    }

    /// Writes `metadata` (with the model's version hashes where it has none of its own) over the store's metadata row.
    private func rewriteMetadataRow(_ metadata: [String: Any]) throws {
        try writeMetadataRow(metadata.merging(Self.modelMetadata(model)) { current, _ in current }, uuid: identifier ?? "", insert: false)
    }

    /// Computes the derived attributes the triggers do not maintain, for the saved objects; returns those changed.
    private func computeDerivedAttributes(_ objectIDs: [NSManagedObjectID]) throws -> Set<NSManagedObjectID> {
        var changed = Set<NSManagedObjectID>()
        let views = RowViews(store: self, requestContext: .unattributed)
        // The derived attributes of the last object's entity (a save's objects come grouped by entity).
        var entity: NSEntityDescription?
        var derived: [(Int, NSDerivedAttributeDescription)] = []
        for objectID in objectIDs {
            if objectID.entity !== entity {
                entity = objectID.entity
                derived = DerivedAttributes.slots(of: objectID.entity).filter { !schema.isTriggerMaintained($0.1) }
            }
            guard !derived.isEmpty, let primaryKey = objectID.primaryKey else { continue }
            let mapping = schema.mapping(for: objectID.entity)
            for (slot, attribute) in derived {
                guard let column = mapping.attributeColumns[slot] else { continue }
                let value = DerivedAttributes.value(of: attribute, for: views.view(for: objectID))
                let statement = try connection.cachedStatement("UPDATE \(mapping.table.name) SET \(mapping.table.columns[column].name) = ? WHERE Z_PK = ?")
                try statement.bind(SQLiteValueCodec.sqliteValue(value, for: attribute.attributeType), at: 1)
                try statement.bind(primaryKey, at: 2)
                try statement.execute()
                changed.insert(objectID)
            }
        }
        return changed
    }

    /// What a save wrote besides rows, for cleanup.
    struct SaveWork {
        var createdFiles: [URL] = []
        var obsoleteFiles: [URL] = []
        /// The object being written (to attribute a constraint failure).
        var current: NSManagedObjectID?
        /// Rows whose version was not the one the context expected.
        var conflicts: [StoreSaveConflicts.Conflict] = []
    }

    /// Throws `StoreSaveConflicts` if a row changed (or vanished) since the context read it.
    private func checkVersions(_ changes: StoreSaveChanges) throws {
        var conflicts: [StoreSaveConflicts.Conflict] = []
        for update in changes.updates {
            if let conflict = try versionConflict(update.objectID, expected: update.expectedVersion, mustExist: true) { conflicts.append(conflict) }
        }
        for delete in changes.deletes {
            if let conflict = try versionConflict(delete.objectID, expected: delete.expectedVersion, mustExist: false) { conflicts.append(conflict) }
        }
        if !conflicts.isEmpty { throw StoreSaveConflicts(conflicts: conflicts) }
    }

    /// The conflict of a row whose stored version is not `expected` (or that is gone, when it must exist).
    private func versionConflict(_ objectID: NSManagedObjectID, expected: Int64, mustExist: Bool) throws -> StoreSaveConflicts.Conflict? {
        guard let primaryKey = objectID.primaryKey else { return nil }
        let table = schema.table(for: objectID.entity)
        switch try connection.cachedStatementValue("SELECT Z_OPT FROM \(table.name) WHERE Z_PK = ?", .integer(primaryKey)) {
        case nil:
            return mustExist ? .init(objectID: objectID, expectedVersion: expected, persisted: nil) : nil
        case .integer(let version)? where version == expected:
            return nil
        case .null? where expected == 0:
            return nil
        default:
            return .init(objectID: objectID, expectedVersion: expected, persisted: try snapshot(for: objectID, requestContext: .unattributed))
        }
    }

    private func deleteRow(_ objectID: NSManagedObjectID, expectedVersion: Int64, work: inout SaveWork) throws {
        guard let primaryKey = objectID.primaryKey else { return }
        let plan = rowWritePlan(for: objectID.entity)
        let mapping = plan.mapping
        if plan.hasExternalStorage { try collectExternalFiles(of: objectID, mapping: mapping, into: &work.obsoleteFiles) }
        let delete = try connection.cachedStatement(plan.deleteSQL)
        try delete.bind(primaryKey, at: 1)
        try delete.bind(expectedVersion, at: 2)
        try delete.execute()
        if connection.changes == 0 {
            // Gone already (nothing to do) or changed since it was read (a conflict).
            if let conflict = try versionConflict(objectID, expected: expectedVersion, mustExist: false) { work.conflicts.append(conflict) }
            return
        }
        for storage in mapping.toManyStorage {
            switch storage {
            case .joinTable(let join, let sourceColumn, _, _):
                try execute("DELETE FROM \(join.name) WHERE \(sourceColumn) = ?", [.integer(primaryKey)])
            case .ownJoinTable(let name, let sourceColumn, _, _):
                try execute("DELETE FROM \(name) WHERE \(sourceColumn) = ?", [.integer(primaryKey)])
            case .inverseColumn, .notStored:
                continue
            }
        }
    }

    /// The files of an object's external binary values (about to be replaced or deleted).
    private func collectExternalFiles(of objectID: NSManagedObjectID, mapping: SQLiteSchema.EntityMapping, into files: inout [URL]) throws {
        guard let primaryKey = objectID.primaryKey else { return }
        let storage = externalStorage
        for (slot, column) in mapping.attributeColumns.enumerated() {
            guard let column, objectID.entity.layout.attributes[slot].allowsExternalBinaryDataStorage else { continue }
            let name = mapping.table.columns[column].name
            if case .blob(let data)? = try connection.cachedStatementValue("SELECT \(name) FROM \(mapping.table.name) WHERE Z_PK = ?", .integer(primaryKey)),
                let file = storage.file(referencedBy: data)
            {
                files.append(file)
            }
        }
    }

    /// The plan for writing `entity`'s rows (made once per schema).
    private func rowWritePlan(for entity: NSEntityDescription) -> RowWritePlan {
        if let plan = rowWritePlans[ObjectIdentifier(entity)] { return plan }
        let plan = RowWritePlan(mapping: schema.mapping(for: entity), schema: schema)
        rowWritePlans[ObjectIdentifier(entity)] = plan
        return plan
    }

    /// Inserts a row, or updates it when `expectedVersion` is given (the update matches only that version; a
    /// row it does not match is recorded as a conflict).
    private func writeRow(_ objectID: NSManagedObjectID, _ snapshot: ObjectSnapshot, version: Int64, expectedVersion: Int64?, work: inout SaveWork) throws {
        guard let primaryKey = objectID.primaryKey else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "Cannot save \(objectID): it has no primary key in this store")
        }
        work.current = objectID
        let plan = rowWritePlan(for: objectID.entity)
        let isInsert = expectedVersion == nil
        if !isInsert && plan.hasExternalStorage { try collectExternalFiles(of: objectID, mapping: plan.mapping, into: &work.obsoleteFiles) }
        let statement = try connection.cachedStatement(isInsert ? plan.insertSQL : plan.updateSQL)
        var index: Int32
        if isInsert {
            try statement.bind(primaryKey, at: 1)
            try statement.bind(plan.entityNumber, at: 2)
            try statement.bind(version, at: 3)
            index = 4
        } else {
            try statement.bind(version, at: 1)
            index = 2
        }
        for source in plan.sources {
            switch source {
            case .attribute(let slot, let attribute, let external):
                let stored = snapshot.attributes[slot]
                if external, case .data(let data) = stored {
                    let encoded = try externalStorage.encode(data, threshold: Self.externalStorageThreshold)
                    if let file = encoded.file { work.createdFiles.append(file) }
                    try statement.bind(encoded.column, at: index)
                } else {
                    try statement.bind(SQLiteValueCodec.sqliteValue(stored, for: attribute.attributeType), at: index)
                }
            case .toOneKey(let slot):
                if let key = snapshot.toOne[slot]?.primaryKey { try statement.bind(key, at: index) } else { try statement.bindNull(at: index) }
            case .toOneEntity(let slot):
                if let destination = snapshot.toOne[slot] {
                    try statement.bind(Int64(schema.number(of: destination.entity)), at: index)
                } else {
                    try statement.bindNull(at: index)
                }
            }
            index += 1
        }
        if let expectedVersion {
            try statement.bind(primaryKey, at: index)
            try statement.bind(expectedVersion, at: index + 1)
        }
        try statement.execute()
        if let expectedVersion, connection.changes == 0,
           let conflict = try versionConflict(objectID, expected: expectedVersion, mustExist: true) {
            work.conflicts.append(conflict)
        }
    }

    /// Writes the members of changed to-many relationships: order keys of ordered one-to-many relationships,
    /// and join-table rows (diffed, so the other side's order keys survive).
    private func writeToMany(_ objectID: NSManagedObjectID, _ toMany: [Int: [NSManagedObjectID]], changes: [Int: StoreSaveChanges.MemberDiff] = [:]) throws {
        guard let primaryKey = objectID.primaryKey, !toMany.isEmpty else { return }
        let mapping = schema.mapping(for: objectID.entity)
        for (slot, members) in toMany.sorted(by: { $0.key < $1.key }) {
            let keys = members.compactMap(\.primaryKey)
            switch mapping.toManyStorage[slot] {
            case .inverseColumn(let table, _, _, let orderColumn):
                guard let orderColumn else { continue }
                let statement = try connection.cachedStatement("UPDATE \(table.name) SET \(orderColumn) = ? WHERE Z_PK = ?")
                for (position, key) in keys.enumerated() {
                    try statement.bind(Self.orderKey(position), at: 1)
                    try statement.bind(key, at: 2)
                    try statement.execute()
                }
            case .joinTable(let join, let sourceColumn, let destinationColumn, let orderColumn):
                try writeJoinRows(table: join.name, sourceColumn: sourceColumn, destinationColumn: destinationColumn, orderColumn: orderColumn,
                                  destinationTable: destinationTable(of: objectID, slot: slot), source: primaryKey, destinations: keys, changes: changes[slot])
            case .ownJoinTable(let name, let sourceColumn, let destinationColumn, let orderColumn):
                try writeJoinRows(table: name, sourceColumn: sourceColumn, destinationColumn: destinationColumn, orderColumn: orderColumn,
                                  destinationTable: destinationTable(of: objectID, slot: slot), source: primaryKey, destinations: keys, changes: changes[slot])
            case .notStored:
                continue
            }
        }
    }

    /// The table of the destination entity of to-many `slot` of `objectID`'s entity.
    private func destinationTable(of objectID: NSManagedObjectID, slot: Int) -> String? {
        objectID.entity.layout.toManyRelationships[slot].destinationEntity.map { schema.table(for: $0).name }
    }

    /// Makes the join rows of `source` those of `destinations` — with `changes` (the context read the relationship),
    /// only the links it added and removed: a link another context added or removed since stays as it is. A
    /// destination whose row is not there (deleted by another context, whose no-action rule left this object's list
    /// as it was) gets no join row: a row naming a missing object would be one.
    private func writeJoinRows(table: String, sourceColumn: String, destinationColumn: String, orderColumn: String?, destinationTable: String?,
                               source: Int64, destinations: [Int64], changes: StoreSaveChanges.MemberDiff? = nil) throws {
        let wanted = Set(destinations)
        let removed: [Int64]
        if let changes {
            removed = changes.removed.compactMap(\.primaryKey)
        } else {
            removed = try connection.fetchAll("SELECT \(destinationColumn) FROM \(table) WHERE \(sourceColumn) = ?", arguments: [.integer(source)])
                .compactMap { row -> Int64? in if case .integer(let key) = row[0] { return key }; return nil }
                .filter { !wanted.contains($0) }
        }
        let remove = try connection.cachedStatement("DELETE FROM \(table) WHERE \(sourceColumn) = ? AND \(destinationColumn) = ?")
        for key in removed {
            try remove.bind(source, at: 1)
            try remove.bind(key, at: 2)
            try remove.execute()
        }
        let insert = try connection.cachedStatement(destinationTable.map {
            "INSERT OR IGNORE INTO \(table) (\(sourceColumn), \(destinationColumn)) SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM \($0) WHERE Z_PK = ?2)"
        } ?? "INSERT OR IGNORE INTO \(table) (\(sourceColumn), \(destinationColumn)) VALUES (?1, ?2)")
        for key in changes.map({ $0.added.compactMap(\.primaryKey) }) ?? destinations {
            try insert.bind(source, at: 1)
            try insert.bind(key, at: 2)
            try insert.execute()
        }
        guard let orderColumn else { return }
        let order = try connection.cachedStatement("UPDATE \(table) SET \(orderColumn) = ? WHERE \(sourceColumn) = ? AND \(destinationColumn) = ?")
        for (position, key) in destinations.enumerated() {
            try order.bind(Self.orderKey(position), at: 1)
            try order.bind(source, at: 2)
            try order.bind(key, at: 3)
            try order.execute()
        }
    }

    /// Apple's sparse order keys: 2048, 3072, 4096, …
    static func orderKey(_ position: Int) -> Int64 { Int64(position + 2) * 1024 }

    private func execute(_ sql: String, _ arguments: [SQLiteValue]) throws {
        let statement = try connection.cachedStatement(sql)
        try statement.bind(arguments)
        try statement.execute()
    }

    /// Describes a uniqueness failure: which constraint, which saved objects, which stored row.
    private func constraintViolation(for objectID: NSManagedObjectID, changes: StoreSaveChanges, error: Error) throws -> Error {
        let saved = changes.inserts.map { ($0.objectID, $0.snapshot) } + changes.updates.map { ($0.objectID, $0.snapshot) }
        guard let snapshot = saved.first(where: { $0.0 == objectID })?.1 else { return error }
        let layout = objectID.entity.layout
        var entity: NSEntityDescription? = objectID.entity
        while let declaring = entity {
            for constraint in declaring.uniquenessConstraintNames where !constraint.isEmpty {
                let values = constraint.map { name -> StoredValue in
                    switch layout.slots[name] {
                    case .attribute(let slot, _)?: return snapshot.attributes[slot]
                    case .toOne(let slot, _)?: return snapshot.toOne[slot].flatMap { $0.primaryKey.map(StoredValue.integer) } ?? .null
                    default: return .null
                    }
                }
                guard !values.contains(where: \.isNull) else { continue }
                let others = saved.filter { other in
                    other.0 != objectID && other.0.entity.isKindOf(entity: declaring)
                        && constraint.map { name -> StoredValue in
                            let otherLayout = other.0.entity.layout
                            switch otherLayout.slots[name] {
                            case .attribute(let slot, _)?: return other.1.attributes[slot]
                            case .toOne(let slot, _)?: return other.1.toOne[slot].flatMap { $0.primaryKey.map(StoredValue.integer) } ?? .null
                            default: return .null
                            }
                        } == values
                }.map(\.0)
                let existing = try existingRow(matching: constraint, values: values, declaring: declaring, excluding: [objectID] + others)
                if !others.isEmpty || existing != nil {
                    return StoreConstraintViolation(entity: declaring, constraint: constraint, objectIDs: [objectID] + others, existing: existing)
                }
            }
            entity = declaring.superentity
        }
        return error
    }

    /// A stored row (outside the transaction that failed) with the constrained values.
    private func existingRow(matching constraint: [String], values: [StoredValue], declaring: NSEntityDescription, excluding: [NSManagedObjectID]) throws -> NSManagedObjectID? {
        let table = schema.table(for: declaring)
        let columns = constraint.compactMap { schema.columnName(of: $0, in: declaring) }
        guard columns.count == constraint.count else { return nil }
        let layout = declaring.layout
        let arguments = zip(constraint, values).map { name, value -> SQLiteValue in
            if case .attribute(_, let attribute)? = layout.slots[name] { return SQLiteValueCodec.sqliteValue(value, for: attribute.attributeType) }
            if case .integer(let key) = value { return .integer(key) }
            return .null
        }
        let sql = "SELECT Z_PK, Z_ENT FROM \(table.name) WHERE \(columns.map { "\($0) = ?" }.joined(separator: " AND "))"
        for row in try connection.fetchAll(sql, arguments: arguments) {
            guard case .integer(let key) = row[0], case .integer(let number) = row[1], let entity = schema.entity(number: Int(number)) else { continue }
            let candidate = objectID(for: entity, primaryKey: key)
            if !excluding.contains(candidate) { return candidate }
        }
        return nil
    }
}
