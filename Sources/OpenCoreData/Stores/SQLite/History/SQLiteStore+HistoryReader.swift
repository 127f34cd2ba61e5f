/// Reading and deleting persistent history.
extension SQLiteStore: HistoryKeepingStore {
    var keepsHistory: Bool { history?.hasTables == true }

    /// The number of the last transaction written to the store (0 when there is none yet); nil when the store has no
    /// history.
    func currentHistoryTransactionNumber() throws -> Int64? {
        guard history?.hasTables == true else { return nil }
        return try Self.lastHistoryTransaction(on: connection)
    }

    /// The last transaction number a store's history gave out: its `Z_PRIMARYKEY` counter or the newest transaction
    /// (0 when there is none yet). The history tables must exist.
    static func lastHistoryTransaction(on connection: SQLiteConnection) throws -> Int64 {
        var number: Int64 = 0
        if case .integer(let value)? = try connection.cachedStatementValue("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", .integer(historyTransactionEntity)) {
            number = value
        }
        if case .integer(let value)? = try connection.fetchValue("SELECT MAX(Z_PK) FROM ATRANSACTION") { number = max(number, value) }
        return number
    }

    /// The SQL condition on `ATRANSACTION t` an anchor selects, or nil when it selects nothing in this store.
    private func historyCondition(_ anchor: HistoryAnchor, deleting: Bool) throws -> (sql: String, arguments: [SQLiteValue])? {
        switch anchor {
        case .all, .token(nil):
            return ("1", [])
        case .date(let date):
            return (deleting ? "t.ZTIMESTAMP < ?" : "t.ZTIMESTAMP > ?", [.real(date.timeIntervalSinceReferenceDate)])
        case .token(let token?):
            guard let number = token.transactionNumber(forStore: identifier ?? "") else {
                // A token of other stores says nothing about this one: a fetch reads all of its history, a delete
                // deletes none of it.
                return deleting ? nil : ("1", [])
            }
            if !deleting { try checkTokenNotExpired(number) }
            return (deleting ? "t.Z_PK < ?" : "t.Z_PK > ?", [.integer(number)])
        }
    }

    /// Throws `NSPersistentHistoryTokenExpiredError` (134301) when transactions after the token's were deleted: the
    /// history after it is no longer complete.
    private func checkTokenNotExpired(_ number: Int64) throws {
        guard let last = try currentHistoryTransactionNumber(), last > number else { return }
        let oldest: Int64?
        if case .integer(let value)? = try connection.fetchValue("SELECT MIN(Z_PK) FROM ATRANSACTION") { oldest = value } else { oldest = nil }
        if oldest.map({ $0 > number + 1 }) ?? true {
            throw CoreDataError.make(
                NSPersistentHistoryTokenExpiredError,
                "The persistent history token is expired: the history after transaction \(number) of store \(identifier ?? "?") was deleted (the oldest transaction left is \(oldest.map(String.init) ?? "none"))",
                userInfo: [NSAffectedStoresErrorKey: [self]])
        }
    }

    /// The predicate of a history fetch request as this store's rows answer it (``HistoryTransactionRow``,
    /// `HistoryChangeRow`): a token becomes the number of the transaction it ends with in this store (0 for a token
    /// that does not name the store), an entity description the store's number of the entity of that name (-1 when the
    /// store has none). A token naming a transaction that is not in this store's history — deleted, or the token of a
    /// history still empty — throws `NSPersistentHistoryTokenExpiredError`, as Apple's Core Data does (iOS 18).
    func historyPredicate(_ predicate: NSPredicate) throws -> NSPredicate {
        let storeID = identifier ?? ""
        var tokenNumbers: [Int64] = []
        let rewritten = PredicateRewriting.rewrite(predicate) { value in
            switch value {
            case let token as NSPersistentHistoryToken:
                guard let number = token.transactionNumber(forStore: storeID) else { return NSNumber(value: Int64(0)) }
                tokenNumbers.append(number)
                return NSNumber(value: number)
            case let entity as NSEntityDescription:
                guard let name = entity.name, let own = model.entitiesByName[name] else { return NSNumber(value: Int64(-1)) }
                return NSNumber(value: Int64(schema.number(of: own)))
            default:
                return value
            }
        }
        for number in Set(tokenNumbers) {
            let exists = try connection.cachedStatementValue("SELECT 1 FROM ATRANSACTION WHERE Z_PK = ?", .integer(number)) != nil
            guard exists else {
                throw CoreDataError.make(
                    NSPersistentHistoryTokenExpiredError,
                    "The persistent history token in the fetch request's predicate is expired: transaction \(number) is not in the history of store \(storeID)",
                    userInfo: [NSAffectedStoresErrorKey: [self]])
            }
        }
        return rewritten
    }

    /// The transactions an anchor selects, in order, with their changes when `includeChanges`.
    func readHistory(_ anchor: HistoryAnchor, deleting: Bool = false, includeChanges: Bool) throws -> [HistoryTransactionData] {
        guard let history, history.hasTables, let condition = try historyCondition(anchor, deleting: deleting) else { return [] }
        let storeID = identifier ?? ""
        let statement = try connection.cachedStatement("""
            SELECT t.Z_PK, t.ZTIMESTAMP, COALESCE(a.ZNAME, t.ZAUTHOR), COALESCE(b.ZNAME, t.ZBUNDLEID), COALESCE(c.ZNAME, t.ZCONTEXTNAME), COALESCE(p.ZNAME, t.ZPROCESSID) \
            FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS \
            LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS \
            WHERE \(condition.sql) ORDER BY t.Z_PK
            """)
        defer { statement.reset() }
        try statement.bind(condition.arguments)
        var records: [HistoryTransactionRecord] = []
        while try statement.step() {
            records.append(HistoryTransactionRecord(
                number: statement.int64(at: 0), timestamp: Date(timeIntervalSinceReferenceDate: statement.double(at: 1)),
                author: statement.string(at: 2), bundleID: statement.string(at: 3) ?? "", contextName: statement.string(at: 4),
                processID: statement.string(at: 5) ?? "", storeID: storeID))
        }
        guard includeChanges else { return records.map { HistoryTransactionData(record: $0, changes: nil) } }
        let changes = try readChanges(condition, history: history)
        return records.map { HistoryTransactionData(record: $0, changes: changes[$0.number] ?? []) }
    }

    /// The changes of the selected transactions, by transaction number.
    private func readChanges(_ condition: (sql: String, arguments: [SQLiteValue]), history: SQLiteStoreHistory) throws -> [Int64: [HistoryChangeRecord]] {
        let tombstoneColumns = (0..<history.tombstoneColumnCount).map { ", c.ZTOMBSTONE\($0)" }.joined()
        let statement = try connection.cachedStatement(
            "SELECT c.Z_PK, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZTRANSACTIONID, c.ZCOLUMNS\(tombstoneColumns) FROM ACHANGE c JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID WHERE \(condition.sql) ORDER BY c.Z_PK")
        defer { statement.reset() }
        try statement.bind(condition.arguments)
        var result: [Int64: [HistoryChangeRecord]] = [:]
        while try statement.step() {
            // Changes of entities this model does not have (CloudKit's, or a newer model's) are left out.
            guard let type = NSPersistentHistoryChangeType(rawValue: Int(statement.int64(at: 1))),
                let entity = schema.entity(number: Int(statement.int64(at: 2)))
            else { continue }
            let layout = history.layout(of: entity, schema: schema)
            var change = HistoryChangeRecord(changeID: statement.int64(at: 0), changeType: type, objectID: objectID(for: entity, primaryKey: statement.int64(at: 3)),
                                             entityNumber: statement.int64(at: 2))
            if type == .update, let columns = statement.data(at: 5) { change.updatedProperties = layout.decodeColumns(columns) }
            if type == .delete && !layout.tombstoneAttributes.isEmpty {
                var tombstone: [String: Any] = [:]
                for (index, (attribute, _)) in layout.tombstoneAttributes.enumerated() where index < history.tombstoneColumnCount {
                    let stored = try decodeAttribute(statement.value(at: 6 + Int32(index)), attribute: attribute)
                    let value = attribute.attributeType == .transformableAttributeType
                        ? TransformableValues.object(from: stored, attribute: attribute) : ValueConversion.kvcValue(stored, for: attribute)
                    if let value { tombstone[attribute.name] = value }
                }
                change.tombstone = tombstone
            }
            result[statement.int64(at: 4), default: []].append(change)
        }
        return result
    }

    /// Deletes the transactions an anchor selects (strictly before it) with their changes, and the strings no
    /// transaction uses any more; returns the number of changes deleted.
    @discardableResult
    func deleteHistory(_ anchor: HistoryAnchor) throws -> Int {
        guard let history, history.hasTables, let condition = try historyCondition(anchor, deleting: true) else { return 0 }
        guard !isReadOnly, !connection.isReadOnly else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "Cannot delete persistent history: the store at \(path) is read-only", userInfo: [NSAffectedStoresErrorKey: [self]])
        }
        return try connection.inTransaction(.immediate) {
            let changes = try connection.cachedStatement("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition.sql))")
            try changes.bind(condition.arguments)
            try changes.execute()
            let deleted = connection.changes
            let transactions = try connection.cachedStatement("DELETE FROM ATRANSACTION WHERE Z_PK IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition.sql))")
            try transactions.bind(condition.arguments)
            try transactions.execute()
            try connection.execute("""
                DELETE FROM ATRANSACTIONSTRING WHERE Z_PK NOT IN (SELECT ZAUTHORTS FROM ATRANSACTION WHERE ZAUTHORTS IS NOT NULL \
                UNION SELECT ZBUNDLEIDTS FROM ATRANSACTION WHERE ZBUNDLEIDTS IS NOT NULL UNION SELECT ZCONTEXTNAMETS FROM ATRANSACTION WHERE ZCONTEXTNAMETS IS NOT NULL \
                UNION SELECT ZPROCESSIDTS FROM ATRANSACTION WHERE ZPROCESSIDTS IS NOT NULL)
                """)
            return deleted
        }
    }
}
