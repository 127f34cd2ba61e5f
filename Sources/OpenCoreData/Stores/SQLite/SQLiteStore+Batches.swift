/// Reading many rows per statement: the rows of a batch of faults, and the members (with their rows) of a to-many
/// relationship for many objects — what keeps `fetchBatchSize` and `relationshipKeyPathsForPrefetching` free of
/// one query per object.
extension SQLiteStore {
    /// At most this many keys go into one `IN (…)` list (SQLite allows 32,766 parameters).
    static let keysPerStatement = 500

    func snapshots(for objectIDs: [NSManagedObjectID], requestContext: StoreRequestContext) throws -> [NSManagedObjectID: ObjectSnapshot] {
        var result: [NSManagedObjectID: ObjectSnapshot] = [:]
        let byTable = Dictionary(grouping: objectIDs.filter { $0.primaryKey != nil }) { ObjectIdentifier(schema.table(for: $0.entity)) }
        for (_, ids) in byTable {
            let table = schema.table(for: ids[0].entity)
            let wanted = Set(ids)
            for chunk in stride(from: 0, to: ids.count, by: Self.keysPerStatement).map({ Array(ids[$0..<min($0 + Self.keysPerStatement, ids.count)]) }) {
                let placeholders = (1...chunk.count).map { "?\($0)" }.joined(separator: ", ")
                let statement = try readConnection(for: requestContext).cachedStatement("SELECT \(selectList(table)) FROM \(table.name) t0 WHERE t0.Z_PK IN (\(placeholders))")
                defer { statement.reset() }
                try statement.bind(chunk.map { .integer($0.primaryKey!) })
                var entities = RowEntityCache()
                while try statement.step() {
                    guard let (objectID, snapshot) = try decodeRow(statement, table: table, entities: &entities) else { continue }
                    if wanted.contains(objectID) {
                        result[objectID] = snapshot
                    } else if let requested = chunk.first(where: { $0.primaryKey == objectID.primaryKey && (objectID.entity.isKindOf(entity: $0.entity) || $0.entity.isKindOf(entity: objectID.entity)) }) {
                        result[requested] = snapshot   // asked for by a super-entity's ID
                    }
                }
            }
        }
        return result
    }

    func prefetchMembers(of objectIDs: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                         reusableRows: RowCache?, requestContext: StoreRequestContext) throws -> [[PrefetchedMember]] {
        guard let destination = relationship.destinationEntity, let first = objectIDs.first,
              case .toMany(let slot, _)? = relationship.entity.layout.slots[relationship.name] else { return objectIDs.map { _ in [] } }
        let destinationTable = schema.table(for: destination)
        let filter = SQLiteFetchCompiler.entityFilter(schema: schema, entity: destination, alias: "d").map { " AND " + $0 } ?? ""
        let sourceSQL: (String) -> String
        var scanSQL: String?
        switch schema.mapping(for: first.entity).toManyStorage[slot] {
        case .inverseColumn(_, _, let column, let orderColumn):
            sourceSQL = { keys in
                "SELECT \(self.selectList(destinationTable, alias: "d")), d.\(column) FROM \(destinationTable.name) d WHERE d.\(column) IN (\(keys))\(filter) ORDER BY d.\(column), \(orderColumn.map { "d.\($0), " } ?? "")d.Z_PK"
            }
            if orderColumn == nil, try readsMostRows(of: schema.table(for: first.entity), keyCount: objectIDs.count, requestContext: requestContext) {
                // One pass over the destination table in row order, as a plain SELECT would make: for most of the
                // sources' rows it costs less than an index look-up and a table seek per member, and each source's
                // members still come in primary-key order.
                scanSQL = "SELECT \(selectList(destinationTable, alias: "d")), d.\(column) FROM \(destinationTable.name) d NOT INDEXED WHERE d.\(column) IS NOT NULL\(filter)"
            }
        case .joinTable(let join, let sourceColumn, let destinationColumn, let orderColumn):
            sourceSQL = { keys in
                "SELECT \(self.selectList(destinationTable, alias: "d")), j.\(sourceColumn) FROM \(join.name) j JOIN \(destinationTable.name) d ON d.Z_PK = j.\(destinationColumn) WHERE j.\(sourceColumn) IN (\(keys))\(filter) ORDER BY j.\(sourceColumn), \(orderColumn.map { "j.\($0), " } ?? "")d.Z_PK"
            }
        case .ownJoinTable(let name, let sourceColumn, let destinationColumn, let orderColumn):
            sourceSQL = { keys in
                "SELECT \(self.selectList(destinationTable, alias: "d")), j.\(sourceColumn) FROM \(name) j JOIN \(destinationTable.name) d ON d.Z_PK = j.\(destinationColumn) WHERE j.\(sourceColumn) IN (\(keys))\(filter) ORDER BY j.\(sourceColumn), \(orderColumn.map { "j.\($0), " } ?? "")d.Z_PK"
            }
        case .notStored:
            return objectIDs.map { _ in [] }
        }
        // Each source's position by primary key (rows come grouped by source, so one look-up per source's run).
        var positionsByKey: [Int64: [Int]] = [:]
        for (position, objectID) in objectIDs.enumerated() {
            if let key = objectID.primaryKey { positionsByKey[key, default: []].append(position) }
        }
        var members = [[PrefetchedMember]](repeating: [], count: objectIDs.count)
        let keys = Array(positionsByKey.keys)
        let sourceColumnIndex = Int32(3 + destinationTable.columns.count)
        try RowCache.passingRows(through: reusableRows) { cachedRow, record in
            var entities = RowEntityCache()
            var runKey: Int64?, runPosition: Int?
            // A row of a source not asked for (read by a scan) is skipped before it is decoded.
            func readMembers(_ statement: SQLiteStatement) throws {
                while try statement.step() {
                    let key = statement.int64(at: sourceColumnIndex)
                    if key != runKey { (runKey, runPosition) = (key, positionsByKey[key]?.first) }
                    guard let position = runPosition,
                          let (member, snapshot) = try decodeRow(statement, table: destinationTable, entities: &entities, cachedRow: cachedRow, record: record)
                    else { continue }
                    members[position].append(PrefetchedMember(objectID: member, snapshot: snapshot))
                }
            }
            if let scanSQL {
                let statement = try readConnection(for: requestContext).cachedStatement(scanSQL)
                defer { statement.reset() }
                try readMembers(statement)
                return
            }
            for start in stride(from: 0, to: keys.count, by: Self.keysPerStatement) {
                let chunk = Array(keys[start..<min(start + Self.keysPerStatement, keys.count)])
                let statement = try readConnection(for: requestContext).cachedStatement(sourceSQL((1...chunk.count).map { "?\($0)" }.joined(separator: ", ")))
                defer { statement.reset() }
                try statement.bind(chunk.map { .integer($0) })
                try readMembers(statement)
            }
        }
        // A source asked for twice (by two IDs of one row) gets the same members.
        for positions in positionsByKey.values where positions.count > 1 {
            for position in positions.dropFirst() { members[position] = members[positions[0]] }
        }
        return members
    }

    /// Whether `keyCount` keys name at least half the rows of `table`, going by its largest primary key (an
    /// overestimate of its row count after deletions, so the estimate errs towards reading by key).
    private func readsMostRows(of table: SQLiteSchema.EntityTable, keyCount: Int, requestContext: StoreRequestContext) throws -> Bool {
        let statement = try readConnection(for: requestContext).cachedStatement("SELECT MAX(Z_PK) FROM \(table.name)")
        defer { statement.reset() }
        guard try statement.step() else { return false }
        return Int64(keyCount) * 2 >= statement.int64(at: 0)
    }
}
