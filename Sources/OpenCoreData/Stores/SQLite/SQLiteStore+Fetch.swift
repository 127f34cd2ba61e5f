extension SQLiteStore: FetchingStore {
    /// Fetches and prefetches pass their rows through the row cache as they read them (``RowCache/passingRows(_:)``).
    var recordsFetchedRows: Bool { true }

    /// Runs a fetch as one SQL query; parts the compiler cannot translate are evaluated in memory on the candidate
    /// rows (logged at debug level), with the limit and offset applied after that filtering, so results are never
    /// wrong.
    func fetch(_ request: StoreFetchRequest, requestContext: StoreRequestContext) throws -> StoreFetchResult {
        // Through the store's own connection (or a pinned generation's), with the coordinator's lock held: never nil.
        try fetch(request, on: readConnection(for: requestContext), pool: nil, requestContext: requestContext)!
    }

    /// A fetch on `connection`. With `pool` (a pooled reader, without the coordinator's lock), the statement is counted
    /// as reading, rows are not looked up in the row cache, and nil is returned — before reading — when part of the
    /// request must be evaluated in memory (that evaluation reads related rows through the store's own connection).
    func fetch(_ request: StoreFetchRequest, on connection: SQLiteConnection, pool: SQLiteReaderPool?, requestContext: StoreRequestContext) throws -> StoreFetchResult? {
        let table = schema.table(for: request.entity)
        var compiler = SQLiteFetchCompiler(schema: schema, entity: request.entity)
        var conditions: [String] = []
        if let entityCondition = compiler.entityCondition(includesSubentities: request.includesSubentities) { conditions.append(entityCondition) }
        var memoryPredicate: NSPredicate?
        if let predicate = request.predicate {
            var attempt = compiler
            do {
                conditions.append(try attempt.condition(predicate))
                compiler = attempt
            } catch let untranslatable as SQLiteFetchCompiler.Untranslatable {
                memoryPredicate = predicate
                logger.debug("filtering \(request.entity.name ?? "?") rows in memory: \(untranslatable.reason) in \(predicate.predicateFormat)")
            }
        }
        var orderTerms: [String] = []
        var memorySort = false
        if !request.sortDescriptors.isEmpty {
            var attempt = compiler
            do {
                orderTerms = try attempt.orderBy(request.sortDescriptors)
                compiler = attempt
            } catch let untranslatable as SQLiteFetchCompiler.Untranslatable {
                memorySort = true
                logger.debug("sorting \(request.entity.name ?? "?") rows in memory: \(untranslatable.reason)")
            }
        }
        if pool != nil && (memoryPredicate != nil || memorySort) { return nil }
        if request.countOnly && memoryPredicate == nil {
            // COUNT(*) over the matching rows, after offset and limit.
            var inner = "SELECT 1 FROM \(compiler.fromClause)"
            if !conditions.isEmpty { inner += " WHERE " + conditions.joined(separator: " AND ") }
            var arguments = compiler.arguments
            if request.fetchLimit > 0 || request.fetchOffset > 0 {
                inner += " LIMIT ? OFFSET ?"
                arguments += [.integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1), .integer(Int64(request.fetchOffset))]
            }
            let statement = try connection.cachedStatement("SELECT COUNT(*) FROM (\(inner))")
            defer { statement.reset() }
            try statement.bind(arguments)
            let step = { try statement.step() }
            guard try pool?.reading(step) ?? step() else { return StoreFetchResult() }
            return StoreFetchResult(objectIDs: [], snapshots: nil, count: Int(statement.int64(at: 0)))
        }
        var sql = "SELECT \(selectList(table)) FROM \(compiler.fromClause)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        // Sorted rows break ties by primary key, so equal keys come back in the same order every time (a sort in
        // memory keeps the order it is given). Unsorted rows come in whatever order SQLite reads them, as in Apple's
        // SQL: a range on an indexed attribute is read in index order, with no sort step.
        if !orderTerms.isEmpty || memorySort { sql += " ORDER BY " + (orderTerms + ["t0.Z_PK"]).joined(separator: ", ") }
        var arguments = compiler.arguments
        let limitInSQL = memoryPredicate == nil && !memorySort
        if limitInSQL && (request.fetchLimit > 0 || request.fetchOffset > 0) {
            sql += " LIMIT ? OFFSET ?"
            arguments += [.integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1), .integer(Int64(request.fetchOffset))]
        }
        let statement = try connection.cachedStatement(sql)   // a pinned query generation reads its own connection
        defer { statement.reset() }
        try statement.bind(arguments)
        // The rows go straight into the result's two arrays (no array of pairs to copy from afterwards).
        var objectIDs: [NSManagedObjectID] = [], snapshots: [ObjectSnapshot] = []
        var entities = RowEntityCache()
        // A pooled read passes no cache: the caller records its rows only if no write committed since it read them.
        let readRows = {
            try RowCache.passingRows(through: request.wantsSnapshots && pool == nil ? request.reusableRows : nil) { cachedRow, record in
                while try statement.step() {
                    guard let (objectID, snapshot) = try self.decodeRow(statement, table: table, entities: &entities, cachedRow: cachedRow, record: record) else { continue }
                    objectIDs.append(objectID)
                    snapshots.append(snapshot)
                }
            }
        }
        if let pool { try pool.reading(readRows) } else { try readRows() }
        if !limitInSQL {
            var rows = try evaluateInMemory(Array(zip(objectIDs, snapshots)), predicate: memoryPredicate, sortDescriptors: memorySort ? request.sortDescriptors : [], requestContext: requestContext)
            if request.fetchOffset > 0 { rows = Array(rows.dropFirst(request.fetchOffset)) }
            if request.fetchLimit > 0 { rows = Array(rows.prefix(request.fetchLimit)) }
            (objectIDs, snapshots) = (rows.map(\.0), rows.map(\.1))
        }
        var result = StoreFetchResult(objectIDs: objectIDs, count: objectIDs.count)
        if request.wantsSnapshots { result.snapshots = snapshots }
        return result
    }

    /// Filters and sorts rows with the predicate layer, through key-value-coding views of the rows.
    private func evaluateInMemory(_ rows: [(NSManagedObjectID, ObjectSnapshot)], predicate: NSPredicate?, sortDescriptors: [NSSortDescriptor], requestContext: StoreRequestContext) throws -> [(NSManagedObjectID, ObjectSnapshot)] {
        let views = RowViews(store: self, requestContext: requestContext)
        views.preload(Dictionary(rows.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first }))
        let prepared = predicate.map { predicate in
            PredicateRewriting.rewrite(predicate) { value in
                if let objectID = value as? NSManagedObjectID { return views.view(for: objectID) }
                return value
            }
        }
        var kept: [(view: RowView, row: (NSManagedObjectID, ObjectSnapshot))] = []
        for row in rows {
            let view = views.view(for: row.0)
            if let prepared, try !prepared.evaluateThrowing(with: view) { continue }
            kept.append((view, row))
        }
        guard !sortDescriptors.isEmpty else { return kept.map(\.row) }
        let rowsByView = Dictionary(uniqueKeysWithValues: kept.map { (ObjectIdentifier($0.view), $0.row) })
        return try NSSortDescriptor.sorted(kept.map(\.view), using: sortDescriptors).map { rowsByView[ObjectIdentifier($0)]! }
    }
}
