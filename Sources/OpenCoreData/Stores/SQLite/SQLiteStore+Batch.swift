/// Batch requests in the SQLite store: the rows are selected with the fetch compiler's translation of the
/// request's predicate (or, when it has no SQL translation, with the store's own fetch, which evaluates it in
/// memory), then updated with one statement over that selection, or deleted (and, without a translation, updated)
/// with set-wise SQL over chunks of primary keys — every value bound as a parameter. Each request runs in one
/// `BEGIN IMMEDIATE` transaction.
///
/// The pieces: this file (row selection, chunked statements), `+BatchInsert`, `+BatchUpdate`, `+BatchDelete`.
extension SQLiteStore: BatchExecutingStore {
    /// How many primary keys one `IN (…)` list binds.
    static let batchChunkSize = 500

    /// Throws Apple's error for a request on a read-only store.
    func checkBatchWritable(_ request: String) throws {
        guard !isReadOnly, !connection.isReadOnly else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "\(request): the persistent store at \(path) is read-only", userInfo: [NSAffectedStoresErrorKey: [self]])
        }
    }

    /// The rows of `entity` (and its sub-entities, when asked) that `predicate` matches, in primary-key order:
    /// one `SELECT t0.Z_PK, t0.Z_ENT …` with the compiler's condition, or the store's fetch when the predicate has
    /// no SQL translation.
    func batchMatchingRows(_ entity: NSEntityDescription, includesSubentities: Bool, predicate: NSPredicate?) throws -> [NSManagedObjectID] {
        guard let selection = batchSelection(entity, includesSubentities: includesSubentities, predicate: predicate) else {
            let request = StoreFetchRequest(entity: entity, includesSubentities: includesSubentities, predicate: predicate, sortDescriptors: [],
                                            fetchLimit: 0, fetchOffset: 0, wantsSnapshots: false, countOnly: false)
            return try fetch(request, requestContext: .unattributed).objectIDs.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        }
        let statement = try connection.cachedStatement("SELECT t0.Z_PK, t0.Z_ENT " + selection.fromWhere + " ORDER BY t0.Z_PK")
        defer { statement.reset() }
        try statement.bind(selection.arguments)
        var result: [NSManagedObjectID] = []
        while try statement.step() {
            guard let concrete = schema.entity(number: Int(statement.int64(at: 1))) else { continue }
            result.append(objectID(for: concrete, primaryKey: statement.int64(at: 0)))
        }
        return result
    }

    /// The rows a batch request affects, as SQL over alias `t0` (placeholders numbered `?1…`).
    struct BatchSelection {
        /// `ZITEM t0` and any joins the predicate needs.
        var from: String
        /// The conditions (entity filter and predicate), nil when every row of the table is selected.
        var conditions: String?
        var arguments: [SQLiteValue]
        /// Whether `from` is the entity's table alone (no joins), so that an `UPDATE`/`DELETE` can use the
        /// conditions directly.
        var isSingleTable: Bool

        /// `FROM … WHERE …`.
        var fromWhere: String { "FROM \(from)" + (conditions.map { " WHERE " + $0 } ?? "") }

        /// How an `UPDATE` or `DELETE` of the entity's table names it and restricts itself to the selected rows:
        /// `AS t0` and the conditions when the selection needs no joins (nothing for every row), else the keys of a
        /// subquery.
        var statementTarget: (alias: String, where: String) {
            guard isSingleTable else { return ("", " WHERE Z_PK IN (SELECT t0.Z_PK \(fromWhere))") }
            guard let conditions else { return ("", "") }
            return (" AS t0", " WHERE " + conditions)
        }
    }

    /// Runs one statement that changes rows and returns how many it changed (`sqlite3_changes64`).
    func executeCountingChanges(_ sql: String, arguments: [SQLiteValue]) throws -> Int {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        try statement.execute()
        return connection.changes
    }

    /// The selection of the rows a batch request affects, or nil when the predicate has no SQL translation.
    func batchSelection(_ entity: NSEntityDescription, includesSubentities: Bool, predicate: NSPredicate?) -> BatchSelection? {
        var compiler = SQLiteFetchCompiler(schema: schema, entity: entity)
        var conditions: [String] = []
        if let entityCondition = compiler.entityCondition(includesSubentities: includesSubentities) { conditions.append(entityCondition) }
        if let predicate {
            do {
                conditions.append(try compiler.condition(predicate))
            } catch {
                logger.debug("selecting \(entity.name ?? "?") rows for a batch request through a fetch: \(error) in \(predicate.predicateFormat)")
                return nil
            }
        }
        let from = compiler.fromClause
        return BatchSelection(from: from, conditions: conditions.isEmpty ? nil : conditions.joined(separator: " AND "), arguments: compiler.arguments,
                              isSingleTable: from == "\(schema.table(for: entity).name) t0")
    }

    /// Whether rows of `table` can change without listing them: no entity stored there has a derived attribute
    /// recomputed in Swift (those need each row's key).
    func canChangeRowsUnlisted(in table: SQLiteSchema.EntityTable) -> Bool {
        table.entities.allSatisfy { entity in DerivedAttributes.slots(of: entity).allSatisfy { schema.isTriggerMaintained($0.1) } }
    }

    /// Runs `sql(placeholders)` once per chunk of `keys`, binding `leading` values first and then the chunk's keys
    /// to the `?, ?, …` list; calls `row` for every result row.
    func runChunked(_ keys: [Int64], leading: [SQLiteValue] = [], _ sql: (String) -> String, row: (SQLiteStatement) throws -> Void = { _ in }) throws {
        var start = 0
        while start < keys.count {
            let end = min(start + Self.batchChunkSize, keys.count)
            let placeholders = Array(repeating: "?", count: end - start).joined(separator: ", ")
            let statement = try connection.cachedStatement(sql(placeholders))
            defer { statement.reset() }
            try statement.bind(leading)
            var index = Int32(leading.count + 1)
            for key in keys[start..<end] {
                try statement.bind(key, at: index)
                index += 1
            }
            while try statement.step() { try row(statement) }
            start = end
        }
    }

    /// The rows of a table among `keys` that still exist, as object IDs of their concrete entities.
    func existingRows(in table: SQLiteSchema.EntityTable, keys: [Int64]) throws -> [NSManagedObjectID] {
        var result: [NSManagedObjectID] = []
        try runChunked(keys, { "SELECT Z_PK, Z_ENT FROM \(table.name) WHERE Z_PK IN (\($0))" }) { statement in
            guard let entity = schema.entity(number: Int(statement.int64(at: 1))) else { return }
            result.append(objectID(for: entity, primaryKey: statement.int64(at: 0)))
        }
        return result
    }

    /// Increments the versions (`Z_OPT`) of rows of a table.
    func incrementVersions(in table: SQLiteSchema.EntityTable, keys: [Int64]) throws {
        try runChunked(keys, { "UPDATE \(table.name) SET Z_OPT = IFNULL(Z_OPT, 0) + 1 WHERE Z_PK IN (\($0))" })
    }

    /// The objects whose derived attributes Apple's triggers changed since `derivedValueChanges.reset()`.
    func takeDerivedChanges() -> Set<NSManagedObjectID> {
        var changed = Set<NSManagedObjectID>()
        for (tableName, entityNumber, primaryKey) in derivedValueChanges.take() {
            guard let entity = schema.entity(number: entityNumber), schema.table(for: entity).name == tableName else { continue }
            changed.insert(objectID(for: entity, primaryKey: primaryKey))
        }
        return changed
    }

    /// Recomputes the derived attributes the triggers do not maintain, for rows a batch request wrote; returns
    /// the objects whose values were written.
    func recomputeDerivedAttributes(of objectIDs: [NSManagedObjectID]) throws -> Set<NSManagedObjectID> {
        var changed = Set<NSManagedObjectID>()
        var derivedByEntity: [ObjectIdentifier: [(Int, NSDerivedAttributeDescription)]] = [:]
        let views = RowViews(store: self, requestContext: .unattributed)
        var last: (entity: NSEntityDescription, derived: [(Int, NSDerivedAttributeDescription)])?
        for objectID in objectIDs {
            let derived: [(Int, NSDerivedAttributeDescription)]
            if let last, last.entity === objectID.entity {   // rows usually come entity by entity
                derived = last.derived
            } else {
                let key = ObjectIdentifier(objectID.entity)
                derived = derivedByEntity[key] ?? DerivedAttributes.slots(of: objectID.entity).filter { !schema.isTriggerMaintained($0.1) }
                derivedByEntity[key] = derived
                last = (objectID.entity, derived)
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

    /// The column value an attribute's stored value is written as; external binary data goes through
    /// `ExternalBinaryStorage` (new files are appended to `createdFiles`).
    func batchColumnValue(_ value: StoredValue, for attribute: NSAttributeDescription, createdFiles: inout [URL]) throws -> SQLiteValue {
        if attribute.allowsExternalBinaryDataStorage, case .data(let data) = value {
            let encoded = try externalStorage.encode(data, threshold: Self.externalStorageThreshold)
            if let file = encoded.file { createdFiles.append(file) }
            return .blob(encoded.column)
        }
        return SQLiteValueCodec.sqliteValue(value, for: attribute.attributeType)
    }

    /// The external files the rows' external-storage columns refer to (about to be replaced or deleted).
    func externalFiles(in table: SQLiteSchema.EntityTable, columns: [String], keys: [Int64]) throws -> [URL] {
        guard !columns.isEmpty else { return [] }
        let storage = externalStorage
        var files: [URL] = []
        try runChunked(keys, { "SELECT \(columns.joined(separator: ", ")) FROM \(table.name) WHERE Z_PK IN (\($0))" }) { statement in
            for index in columns.indices {
                if case .blob(let data) = statement.value(at: Int32(index)), let file = storage.file(referencedBy: data) { files.append(file) }
            }
        }
        return files
    }

    /// Runs `body` in one immediate transaction; files created by a failed attempt are removed, files made obsolete
    /// by a committed one are removed after the commit.
    func inBatchTransaction<T>(requestContext: StoreRequestContext, _ body: (_ createdFiles: inout [URL], _ obsoleteFiles: inout [URL]) throws -> T) throws -> T {
        var createdFiles: [URL] = []
        var obsoleteFiles: [URL] = []
        derivedValueChanges.reset()
        let result: T
        do {
            result = try connection.inTransaction(.immediate) {
                transactionDidBegin()
                let result = try body(&createdFiles, &obsoleteFiles)
                try transactionWillCommit(nil, requestContext: requestContext)   // persistent history writes its rows
                return result
            }
        } catch {
            for file in createdFiles { try? FileManager.default.removeItem(at: file) }
            derivedValueChanges.reset()
            throw error
        }
        for file in obsoleteFiles { try? FileManager.default.removeItem(at: file) }
        transactionDidCommit()   // the remote-change notification
        return result
    }
}
