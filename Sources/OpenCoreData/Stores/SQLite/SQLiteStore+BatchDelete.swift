extension SQLiteStore {
    /// Deletes the matching rows and applies the relationships' delete rules in the store (``BatchDeleteRules``):
    /// rows reached by cascade rules are deleted too, nullify rules clear the surviving rows' inverse keys and
    /// increment their versions, a mandatory inverse that would be left pointing at a deleted row fails the whole
    /// request. Join-table rows of deleted objects and their external-storage files are removed. One transaction.
    ///
    /// For example, deleting the items with `rating < 3`:
    /// ```sql
    /// SELECT t0.Z_PK, t0.Z_ENT FROM ZITEM t0 WHERE t0.ZRATING < ?1 ORDER BY t0.Z_PK
    /// DELETE FROM ZITEM WHERE Z_PK IN (?, ?, …)
    /// ```
    func executeBatchDelete(_ request: StoreBatchDelete, requestContext: StoreRequestContext) throws -> StoreBatchOutcome {
        try checkBatchWritable("NSBatchDeleteRequest")
        return try inBatchTransaction(requestContext: requestContext) { _, obsoleteFiles in
            if request.objectIDs == nil, !request.isLimited, !request.needsObjectIDs, canDeleteRowsUnlisted(of: request.entity),
               let selection = batchSelection(request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate) {
                var outcome = StoreBatchOutcome()
                outcome.unlistedCount = try deleteUnlisted(selection, from: schema.table(for: request.entity))
                outcome.invalidatedEntities = [request.entity]
                outcome.changedObjectIDs = takeDerivedChanges()
                return outcome
            }
            let matched: [NSManagedObjectID]
            if let objectIDs = request.objectIDs {
                let table = schema.table(for: request.entity)
                let existing = Set(try existingRows(in: table, keys: Array(Set(objectIDs.compactMap(\.primaryKey)))).compactMap(\.primaryKey))
                var seen = Set<Int64>()
                matched = objectIDs.filter { objectID in
                    guard let key = objectID.primaryKey, existing.contains(key) else { return false }
                    return seen.insert(key).inserted
                }
            } else if request.isLimited {
                matched = try fetch(request.fetchRequest, requestContext: requestContext).objectIDs
            } else {
                matched = try batchMatchingRows(request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
            }
            var plan = BatchDeletePlan()
            try collectCascades(from: matched, into: &plan)
            let touched = try applyNullifyRules(plan)
            obsoleteFiles += try deleteRows(plan)
            var outcome = StoreBatchOutcome(objectIDs: matched)
            for (entity, keys) in plan.byEntity {
                for key in keys { outcome.changedObjectIDs.insert(objectID(for: entity, primaryKey: key)) }
            }
            outcome.changedObjectIDs.formUnion(touched)
            outcome.changedObjectIDs.formUnion(takeDerivedChanges())
            return outcome
        }
    }

    /// Whether rows of `entity`'s table can be deleted with one statement that does not list them: no relationship
    /// of the model starts or ends in the table (no delete rule, inverse or join row to maintain), no attribute
    /// keeps files outside the store, and no derived attribute needs the rows' keys.
    private func canDeleteRowsUnlisted(of entity: NSEntityDescription) -> Bool {
        let table = schema.table(for: entity)
        let members = Set(table.entities.map(ObjectIdentifier.init))
        for candidate in schema.entitiesInOrder {
            let relationships = candidate.layout.toOneRelationships + candidate.layout.toManyRelationships
            if members.contains(ObjectIdentifier(candidate)) && !relationships.isEmpty { return false }
            if relationships.contains(where: { $0.destinationEntity.map { members.contains(ObjectIdentifier($0)) } ?? false }) { return false }
        }
        let external = table.columns.contains { column in
            if case .attribute(let attribute) = column.kind { return attribute.allowsExternalBinaryDataStorage }
            return false
        }
        return !external && canChangeRowsUnlisted(in: table)
    }

    /// Deletes the selected rows with one statement and returns how many it deleted:
    /// ```sql
    /// DELETE FROM ZITEM AS t0 WHERE t0.ZRATING < ?1
    /// ```
    /// (`DELETE FROM ZITEM` for every row, which SQLite runs as a truncation; `… WHERE Z_PK IN (SELECT t0.Z_PK …)`
    /// when the predicate needs joins).
    private func deleteUnlisted(_ selection: BatchSelection, from table: SQLiteSchema.EntityTable) throws -> Int {
        let target = selection.statementTarget
        return try executeCountingChanges("DELETE FROM \(table.name)\(target.alias)\(target.where)", arguments: selection.arguments)
    }

    /// The rows a batch delete removes: by table name, primary key → concrete entity.
    struct BatchDeletePlan {
        var rows: [String: [Int64: NSEntityDescription]] = [:]

        func contains(_ objectID: NSManagedObjectID, table: String) -> Bool {
            guard let key = objectID.primaryKey else { return false }
            return rows[table]?[key] != nil
        }

        /// Adds a row; false if it was already there.
        mutating func insert(_ objectID: NSManagedObjectID, table: String) -> Bool {
            guard let key = objectID.primaryKey, rows[table]?[key] == nil else { return false }
            rows[table, default: [:]][key] = objectID.entity
            return true
        }

        /// The rows grouped by concrete entity, keys sorted.
        var byEntity: [(entity: NSEntityDescription, keys: [Int64])] {
            var groups: [ObjectIdentifier: (entity: NSEntityDescription, keys: [Int64])] = [:]
            for (_, table) in rows {
                for (key, entity) in table { groups[ObjectIdentifier(entity), default: (entity, [])].keys.append(key) }
            }
            return groups.values.map { ($0.entity, $0.keys.sorted()) }.sorted { ($0.entity.name ?? "") < ($1.entity.name ?? "") }
        }
    }

    /// Adds the matched rows and, transitively, the rows their cascade rules reach.
    private func collectCascades(from matched: [NSManagedObjectID], into plan: inout BatchDeletePlan) throws {
        var frontier = matched
        while !frontier.isEmpty {
            var groups: [ObjectIdentifier: (entity: NSEntityDescription, keys: [Int64])] = [:]
            for objectID in frontier {
                guard let key = objectID.primaryKey, plan.insert(objectID, table: schema.table(for: objectID.entity).name) else { continue }
                groups[ObjectIdentifier(objectID.entity), default: (objectID.entity, [])].keys.append(key)
            }
            var next: [NSManagedObjectID] = []
            for (entity, keys) in groups.values {
                let mapping = schema.mapping(for: entity)
                let layout = entity.layout
                for (slot, relationship) in layout.toOneRelationships.enumerated() where BatchDeleteRules.action(of: relationship) == .cascade {
                    guard let columns = mapping.toOneColumns[slot], let destination = relationship.destinationEntity else { continue }
                    let destinations = try toOneKeys(mapping.table, column: mapping.table.columns[columns.key].name, of: keys).map(\.destination)
                    next += try existingRows(in: schema.table(for: destination), keys: destinations)
                }
                for (slot, relationship) in layout.toManyRelationships.enumerated() where BatchDeleteRules.action(of: relationship) == .cascade {
                    guard let destination = relationship.destinationEntity else { continue }
                    switch mapping.toManyStorage[slot] {
                    case .inverseColumn(let table, _, let column, _):
                        try runChunked(keys, { "SELECT Z_PK, Z_ENT FROM \(table.name) WHERE \(column) IN (\($0))" }) { statement in
                            guard let member = schema.entity(number: Int(statement.int64(at: 1))) else { return }
                            next.append(objectID(for: member, primaryKey: statement.int64(at: 0)))
                        }
                    case .joinTable(let join, let sourceColumn, let destinationColumn, _):
                        let partners = try joinPairs(join.name, sourceColumn: sourceColumn, destinationColumn: destinationColumn, of: keys).map(\.destination)
                        next += try existingRows(in: schema.table(for: destination), keys: partners)
                    case .ownJoinTable(let name, let sourceColumn, let destinationColumn, _):
                        let partners = try joinPairs(name, sourceColumn: sourceColumn, destinationColumn: destinationColumn, of: keys).map(\.destination)
                        next += try existingRows(in: schema.table(for: destination), keys: partners)
                    case .notStored:
                        continue
                    }
                }
            }
            frontier = next
        }
    }

    /// Applies the nullify rules of the deleted rows to the rows that survive; returns the rows it changed.
    private func applyNullifyRules(_ plan: BatchDeletePlan) throws -> Set<NSManagedObjectID> {
        var touched = Set<NSManagedObjectID>()
        for (entity, keys) in plan.byEntity {
            let mapping = schema.mapping(for: entity)
            let layout = entity.layout
            for (slot, relationship) in layout.toOneRelationships.enumerated() where BatchDeleteRules.action(of: relationship) == .nullify {
                guard let inverse = relationship.inverseRelationship, !inverse.isTransient, let destination = relationship.destinationEntity,
                      let columns = mapping.toOneColumns[slot]
                else { continue }
                let destinationTable = schema.table(for: destination)
                let targets = try toOneKeys(mapping.table, column: mapping.table.columns[columns.key].name, of: keys).map(\.destination)
                let live = try existingRows(in: destinationTable, keys: targets).filter { !plan.contains($0, table: destinationTable.name) }
                guard !live.isEmpty else { continue }
                if !inverse.isOptional { throw BatchDeleteRules.mandatoryInverseError(relationship, source: entity, shape: .oneToOne) }
                if inverse.isToMany {
                    // The owner's to-many lost a member: only its version changes (its members are other rows' keys).
                    try incrementVersions(in: destinationTable, keys: live.compactMap(\.primaryKey))
                    touched.formUnion(live)
                } else {
                    touched.formUnion(try clearToOne(inverse, pointingAt: keys, plan: plan, orderColumn: nil))
                }
            }
            for (slot, relationship) in layout.toManyRelationships.enumerated() where BatchDeleteRules.action(of: relationship) == .nullify {
                guard let inverse = relationship.inverseRelationship, !inverse.isTransient, let destination = relationship.destinationEntity else { continue }
                switch mapping.toManyStorage[slot] {
                case .inverseColumn(let table, _, let column, let orderColumn):
                    var members: [NSManagedObjectID] = []
                    try runChunked(keys, { "SELECT Z_PK, Z_ENT FROM \(table.name) WHERE \(column) IN (\($0))" }) { statement in
                        guard let member = schema.entity(number: Int(statement.int64(at: 1))) else { return }
                        members.append(objectID(for: member, primaryKey: statement.int64(at: 0)))
                    }
                    guard members.contains(where: { !plan.contains($0, table: table.name) }) else { continue }
                    if !inverse.isOptional { throw BatchDeleteRules.mandatoryInverseError(relationship, source: entity, shape: .oneToMany) }
                    touched.formUnion(try clearToOne(inverse, pointingAt: keys, plan: plan, orderColumn: orderColumn))
                case .joinTable(let join, let sourceColumn, let destinationColumn, _):
                    let destinationTable = schema.table(for: destination)
                    let partnerKeys = Array(Set(try joinPairs(join.name, sourceColumn: sourceColumn, destinationColumn: destinationColumn, of: keys).map(\.destination)))
                    let live = try existingRows(in: destinationTable, keys: partnerKeys).filter { !plan.contains($0, table: destinationTable.name) }
                    guard !live.isEmpty else { continue }
                    if !inverse.isOptional {
                        // Fails when a surviving partner would be left with no link at all.
                        let sourceTable = schema.table(for: entity)
                        var linked = Set<Int64>()
                        try runChunked(live.compactMap(\.primaryKey), { "SELECT \(destinationColumn), \(sourceColumn) FROM \(join.name) WHERE \(destinationColumn) IN (\($0))" }) { statement in
                            if plan.rows[sourceTable.name]?[statement.int64(at: 1)] == nil { linked.insert(statement.int64(at: 0)) }
                        }
                        if live.contains(where: { !linked.contains($0.primaryKey ?? 0) }) {
                            throw BatchDeleteRules.mandatoryInverseError(relationship, source: entity, shape: .manyToMany)
                        }
                    }
                    try incrementVersions(in: destinationTable, keys: live.compactMap(\.primaryKey))
                    touched.formUnion(live)
                case .ownJoinTable, .notStored:
                    continue
                }
            }
        }
        return touched
    }

    /// Sets a to-one relationship to nil (with its entity and order-key columns) in the surviving rows whose key
    /// is one of `keys`, incrementing their versions; returns those rows.
    private func clearToOne(_ relationship: NSRelationshipDescription, pointingAt keys: [Int64], plan: BatchDeletePlan, orderColumn: String?) throws -> [NSManagedObjectID] {
        let owner = relationship.entity
        guard case .toOne(let slot, _)? = owner.layout.slots[relationship.name], let columns = schema.mapping(for: owner).toOneColumns[slot] else { return [] }
        let table = schema.table(for: owner)
        let keyColumn = table.columns[columns.key].name
        var rows: [NSManagedObjectID] = []
        try runChunked(keys, { "SELECT Z_PK, Z_ENT FROM \(table.name) WHERE \(keyColumn) IN (\($0))" }) { statement in
            guard let entity = schema.entity(number: Int(statement.int64(at: 1))) else { return }
            rows.append(objectID(for: entity, primaryKey: statement.int64(at: 0)))
        }
        rows = rows.filter { !plan.contains($0, table: table.name) }
        guard !rows.isEmpty else { return [] }
        var sets = ["\(keyColumn) = NULL"]
        if let entityColumn = columns.entity { sets.append("\(table.columns[entityColumn].name) = NULL") }
        if let orderColumn { sets.append("\(orderColumn) = NULL") }
        sets.append("Z_OPT = IFNULL(Z_OPT, 0) + 1")
        try runChunked(rows.compactMap(\.primaryKey), { "UPDATE \(table.name) SET \(sets.joined(separator: ", ")) WHERE Z_PK IN (\($0))" })
        return rows
    }

    /// Deletes the planned rows, their join-table rows and (after the commit, through the returned list) their
    /// external-storage files.
    private func deleteRows(_ plan: BatchDeletePlan) throws -> [URL] {
        var files: [URL] = []
        for table in schema.tables {
            guard let rows = plan.rows[table.name], !rows.isEmpty else { continue }
            let keys = rows.keys.sorted()
            let externalColumns = table.columns.compactMap { column -> String? in
                if case .attribute(let attribute) = column.kind, attribute.allowsExternalBinaryDataStorage { return column.name }
                return nil
            }
            files += try externalFiles(in: table, columns: externalColumns, keys: keys)
            try runChunked(keys, { "DELETE FROM \(table.name) WHERE Z_PK IN (\($0))" })
        }
        func keys(of entity: NSEntityDescription?) -> [Int64] {
            guard let entity else { return [] }
            return plan.rows[schema.table(for: entity).name].map { Array($0.keys).sorted() } ?? []
        }
        for join in schema.joinTables {
            let first = keys(of: join.relationship.entity), second = keys(of: join.relationship.destinationEntity)
            if !first.isEmpty { try runChunked(first, { "DELETE FROM \(join.name) WHERE \(join.firstColumn) IN (\($0))" }) }
            if !second.isEmpty { try runChunked(second, { "DELETE FROM \(join.name) WHERE \(join.secondColumn) IN (\($0))" }) }
        }
        var ownDone = Set<String>()
        for entity in schema.entitiesInOrder {
            let mapping = schema.mapping(for: entity)
            for (slot, storage) in mapping.toManyStorage.enumerated() {
                guard case .ownJoinTable(let name, let sourceColumn, let destinationColumn, _) = storage, ownDone.insert(name).inserted else { continue }
                let sources = keys(of: entity), destinations = keys(of: entity.layout.toManyRelationships[slot].destinationEntity)
                if !sources.isEmpty { try runChunked(sources, { "DELETE FROM \(name) WHERE \(sourceColumn) IN (\($0))" }) }
                if !destinations.isEmpty { try runChunked(destinations, { "DELETE FROM \(name) WHERE \(destinationColumn) IN (\($0))" }) }
            }
        }
        return files
    }

    /// The non-null keys a to-one column holds in rows among `keys`.
    private func toOneKeys(_ table: SQLiteSchema.EntityTable, column: String, of keys: [Int64]) throws -> [(source: Int64, destination: Int64)] {
        var pairs: [(source: Int64, destination: Int64)] = []
        try runChunked(keys, { "SELECT Z_PK, \(column) FROM \(table.name) WHERE Z_PK IN (\($0)) AND \(column) IS NOT NULL" }) { statement in
            pairs.append((statement.int64(at: 0), statement.int64(at: 1)))
        }
        return pairs
    }

    /// The links of a join table whose source is among `keys`.
    private func joinPairs(_ table: String, sourceColumn: String, destinationColumn: String, of keys: [Int64]) throws -> [(source: Int64, destination: Int64)] {
        var pairs: [(source: Int64, destination: Int64)] = []
        try runChunked(keys, { "SELECT \(sourceColumn), \(destinationColumn) FROM \(table) WHERE \(sourceColumn) IN (\($0))" }) { statement in
            pairs.append((statement.int64(at: 0), statement.int64(at: 1)))
        }
        return pairs
    }
}
