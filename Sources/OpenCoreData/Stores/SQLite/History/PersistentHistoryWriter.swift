/// Writes persistent history, as an observer of the store's write transactions: one `ATRANSACTION` row per save or
/// batch request, one `ACHANGE` row per changed object, in the same SQLite transaction as the changes themselves;
/// after the commit, it announces the store's own write (the remote-change notification).
final class PersistentHistoryWriter: SQLiteTransactionObserver {
    /// The history state of the store it is registered with.
    private let history: SQLiteStoreHistory

    init(state: SQLiteStoreHistory) {
        history = state
    }

    /// Forgets what the history triggers recorded before this transaction.
    func storeDidBeginTransaction(_ store: SQLiteStore) {
        history.recorder.reset()
    }

    func storeWillCommit(_ store: SQLiteStore, changes: StoreSaveChanges?, requestContext: StoreRequestContext) throws {
        try write(in: store, changes: changes, requestContext: requestContext)
    }

    /// Writes the history of the current write transaction (called inside it, after the rows were written): the
    /// rows the triggers reported, coalesced per object (an insert followed by updates is an insert, updates merge,
    /// an update followed by a delete is a delete, an insert followed by a delete is nothing), plus the to-many
    /// relationships a context save changed. Rows whose only change was a bookkeeping column (order keys) are left
    /// out. Nothing is written when nothing changed.
    private func write(in store: SQLiteStore, changes: StoreSaveChanges?, requestContext: StoreRequestContext) throws {
        guard history.isTracking, history.hasTables else { return }
        let schema: SQLiteSchema = store.schema, connection: SQLiteConnection = store.connection
        let entries = history.recorder.take()
        guard !entries.isEmpty || !(changes?.updates.isEmpty ?? true) else { return }

        struct Key: Hashable { var entity: Int; var primaryKey: Int64 }
        struct Pending {
            var type: NSPersistentHistoryChangeType
            var versionChanged = false
            var properties = Set<Int>()
            var oldValues: [SQLiteValue] = []
        }
        var pending: [Key: Pending] = [:]
        var order: [Key] = []
        for entry in entries {
            guard let entity = schema.entity(number: entry.entity) else { continue }
            let key = Key(entity: entry.entity, primaryKey: entry.primaryKey)
            let layout = history.layout(of: entity, schema: schema)
            switch entry.type {
            case .insert:
                if pending[key] == nil { order.append(key) }
                if pending[key]?.type == .delete {
                    // The row was deleted and inserted again with the same key: an update of every property.
                    pending[key] = Pending(type: .update, versionChanged: true, properties: Set(layout.properties.indices))
                } else {
                    pending[key] = Pending(type: .insert)
                }
            case .update:
                var properties = Set<Int>()
                for (index, changed) in entry.changedColumns.enumerated().dropFirst() where changed {
                    if let property = layout.propertyOfColumn[index - 1] { properties.insert(property) }
                }
                let versionChanged = entry.changedColumns.first ?? false
                if var existing = pending[key] {
                    guard existing.type == .update else { continue }   // inserted in this transaction: stays an insert
                    existing.versionChanged = existing.versionChanged || versionChanged
                    existing.properties.formUnion(properties)
                    pending[key] = existing
                } else {
                    order.append(key)
                    pending[key] = Pending(type: .update, versionChanged: versionChanged, properties: properties)
                }
            case .delete:
                if pending[key]?.type == .insert {
                    pending[key] = nil
                    order.removeAll { $0 == key }
                    continue
                }
                if pending[key] == nil { order.append(key) }
                pending[key] = Pending(type: .delete, oldValues: entry.oldValues)
            @unknown default:
                continue
            }
        }
        // To-many relationships a save changed are updates of their owners (whose rows only got a new version).
        for update in changes?.updates ?? [] where !update.toMany.isEmpty {
            guard let primaryKey = update.objectID.primaryKey, update.objectID.persistentStore === store else { continue }
            let entity = update.objectID.entity
            let key = Key(entity: schema.number(of: entity), primaryKey: primaryKey)
            let layout = history.layout(of: entity, schema: schema)
            let relationships = update.toMany.keys.compactMap { layout.propertyIndex[entity.layout.toManyRelationships[$0].name] }
            if var existing = pending[key] {
                guard existing.type == .update else { continue }
                existing.properties.formUnion(relationships)
                pending[key] = existing
            } else {
                order.append(key)
                pending[key] = Pending(type: .update, versionChanged: true, properties: Set(relationships))
            }
        }
        let rows = order.compactMap { key -> (Key, Pending)? in
            guard let change = pending[key] else { return nil }
            if change.type == .update && !change.versionChanged && change.properties.isEmpty { return nil }
            return (key, change)
        }
        guard !rows.isEmpty else { return }

        let transaction = try nextHistoryKeys(SQLiteStore.historyTransactionEntity, table: "ATRANSACTION", count: 1, connection)
        let insertTransaction = try connection.cachedStatement(
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, NULL, ?, ?, ?, ?, ?)")
        try insertTransaction.bind([
            .integer(transaction), .integer(SQLiteStore.historyTransactionEntity),
            try internHistoryString(requestContext.author, connection), try internHistoryString(Self.historyBundleID, connection),
            try internHistoryString(requestContext.contextName, connection), try internHistoryString(Self.historyProcessName, connection),
            .real(Date().timeIntervalSinceReferenceDate),
        ])
        try insertTransaction.execute()

        let firstChange = try nextHistoryKeys(SQLiteStore.historyChangeEntity, table: "ACHANGE", count: Int64(rows.count), connection)
        let tombstoneColumns = (0..<history.tombstoneColumnCount).map { ", ZTOMBSTONE\($0)" }.joined()
        let insertChange = try connection.cachedStatement(
            "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneColumns)) VALUES (?, ?, NULL, ?, ?, ?, ?, ?\(String(repeating: ", ?", count: history.tombstoneColumnCount)))")
        for (offset, (key, change)) in rows.enumerated() {
            guard let entity = schema.entity(number: key.entity) else { continue }
            let layout = history.layout(of: entity, schema: schema)
            var values: [SQLiteValue] = [
                .integer(firstChange + Int64(offset)), .integer(SQLiteStore.historyChangeEntity), .integer(Int64(change.type.rawValue)),
                .integer(Int64(key.entity)), .integer(key.primaryKey), .integer(transaction),
                change.type == .update ? .blob(layout.encodeColumns(change.properties)) : .null,
            ]
            var tombstones = [SQLiteValue](repeating: .null, count: history.tombstoneColumnCount)
            if change.type == .delete {
                let candidates = store.tombstoneCandidateColumns(of: schema.table(for: entity), history)
                for (index, tombstone) in layout.tombstoneAttributes.enumerated() where index < tombstones.count {
                    if let position = candidates.firstIndex(of: tombstone.column), position < change.oldValues.count {
                        tombstones[index] = change.oldValues[position]
                    }
                }
            }
            values += tombstones
            try insertChange.bind(values)
            try insertChange.execute()
        }
        history.lastWrittenTransaction = transaction
    }

    /// Posts the remote-change notification of the store's own write, with the transaction it wrote.
    func storeDidCommit(_ store: SQLiteStore) {
        let written = history.lastWrittenTransaction
        history.lastWrittenTransaction = nil
        if let watcher = history.watcher {
            watcher.noteOwnWrite(transaction: history.hasTables ? written ?? (try? store.currentHistoryTransactionNumber()) ?? nil : nil)
        }
    }

    /// `count` new primary keys of a history table, from its `Z_PRIMARYKEY` counter (never reused, so transaction
    /// numbers only grow, even after history is deleted).
    private func nextHistoryKeys(_ entity: Int64, table: String, count: Int64, _ connection: SQLiteConnection) throws -> Int64 {
        var maximum: Int64 = 0
        if case .integer(let value)? = try connection.cachedStatementValue("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", .integer(entity)) { maximum = value }
        if case .integer(let value)? = try connection.fetchValue("SELECT MAX(Z_PK) FROM \(table)") { maximum = max(maximum, value) }
        let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        try update.bind(maximum + count, at: 1)
        try update.bind(entity, at: 2)
        try update.execute()
        if connection.changes == 0 {
            let names = [SQLiteStore.historyChangeEntity: "CHANGE", SQLiteStore.historyTransactionEntity: "TRANSACTION", SQLiteStore.historyStringEntity: "TRANSACTIONSTRING"]
            let insert = try connection.cachedStatement("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)")
            try insert.bind([.integer(entity), .text(names[entity] ?? ""), .integer(maximum + count)])
            try insert.execute()
        }
        return maximum + 1
    }

    /// The `ATRANSACTIONSTRING` key of a string (added when new); NULL for nil.
    private func internHistoryString(_ string: String?, _ connection: SQLiteConnection) throws -> SQLiteValue {
        guard let string else { return .null }
        if case .integer(let key)? = try connection.cachedStatementValue("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", .text(string)) {
            return .integer(key)
        }
        let key = try nextHistoryKeys(SQLiteStore.historyStringEntity, table: "ATRANSACTIONSTRING", count: 1, connection)
        let insert = try connection.cachedStatement("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, NULL, ?)")
        try insert.bind([.integer(key), .integer(SQLiteStore.historyStringEntity), .text(string)])
        try insert.execute()
        return .integer(key)
    }

    /// The bundle identifier history records: the main bundle's, or the process name when it has none (Linux
    /// executables usually have none; Apple's Core Data records `com.apple.dt.xctest.tool` for XCTest).
    static var historyBundleID: String { Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName }

    /// The process name history records as the process ID (Apple's stores hold names such as `xctest` there).
    static var historyProcessName: String { ProcessInfo.processInfo.processName }
}
