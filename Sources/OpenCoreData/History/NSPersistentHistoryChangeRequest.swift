/// A request to fetch or delete persistent history: execute it with a context's `execute(_:)` (or a coordinator's
/// `execute(_:with:)`) and read the `NSPersistentHistoryResult`.
///
/// Fetches return what was committed strictly after the anchor (a date, a token or a transaction); deletes remove
/// what was committed strictly before it — the anchor's own transaction stays.
///
/// For example:
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as? NSPersistentHistoryResult
/// let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
/// for transaction in transactions where transaction.author != "app" {
///     context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
/// }
/// if let last = transactions.last {
///     _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: last))
/// }
/// ```
open class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest {
    private(set) var anchor: HistoryAnchor = .all
    private(set) var isDelete = false
    private var _token: NSPersistentHistoryToken?

    /// What the result holds: `.transactionsAndChanges` by default for fetches, `.statusOnly` for deletes.
    open var resultType: NSPersistentHistoryResultType = .transactionsAndChanges

    /// A fetch request of `NSPersistentHistoryTransaction.entityDescription` (its predicate selects transactions) or of
    /// `NSPersistentHistoryChange.entityDescription` (its predicate selects changes: `.transactionsAndChanges` holds the
    /// transactions that have matching changes, each with only those; `.changesOnly` the changes). Its `fetchLimit` and
    /// `fetchOffset` apply to the transactions or the changes the predicate selects; sort descriptors are refused (history comes in
    /// transaction order), as Apple's Core Data refuses them.
    open var fetchRequest: NSFetchRequest<any NSFetchRequestResult>?

    /// The token the request was made with, if any.
    open var token: NSPersistentHistoryToken? { _token }

    /// Creates a request for all of the history (set `fetchRequest` to filter it).
    public required override init() {
        super.init()
    }

    // MARK: Fetching

    /// The transactions committed after `date`.
    ///
    /// For example:
    /// ```swift
    /// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: Date().addingTimeInterval(-3600))
    /// ```
    open class func fetchHistory(after date: Date) -> Self {
        make(.date(date), delete: false)
    }

    /// The transactions after those a token covers; all of them for nil. Throws `NSPersistentHistoryTokenExpiredError`
    /// when executed if history after the token was deleted.
    ///
    /// For example:
    /// ```swift
    /// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
    /// ```
    open class func fetchHistory(after token: NSPersistentHistoryToken?) -> Self {
        let request = make(.token(token), delete: false)
        request._token = token
        return request
    }

    /// The transactions after `transaction`; all of them for nil.
    ///
    /// For example:
    /// ```swift
    /// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: transactions.last)
    /// ```
    open class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> Self {
        let request = make(.token(transaction?.token), delete: false)
        request._token = transaction?.token
        return request
    }

    /// The transactions (or changes) a fetch request of a history entity selects.
    ///
    /// For example:
    /// ```swift
    /// let fetch = NSPersistentHistoryTransaction.fetchRequest!
    /// fetch.predicate = NSPredicate(format: "author != %@", "app")
    /// let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch)
    /// ```
    open class func fetchHistory(withFetch fetchRequest: NSFetchRequest<any NSFetchRequestResult>) -> Self {
        let request = make(.all, delete: false)
        request.fetchRequest = fetchRequest
        return request
    }

    // MARK: Deleting

    /// Deletes the transactions committed before `date`.
    ///
    /// For example:
    /// ```swift
    /// _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date().addingTimeInterval(-7 * 86_400)))
    /// ```
    open class func deleteHistory(before date: Date) -> Self {
        make(.date(date), delete: true)
    }

    /// Deletes the transactions before the one a token ends with (that one stays); all of them for nil.
    ///
    /// For example:
    /// ```swift
    /// _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: lastToken))
    /// ```
    open class func deleteHistory(before token: NSPersistentHistoryToken?) -> Self {
        let request = make(.token(token), delete: true)
        request._token = token
        return request
    }

    /// Deletes the transactions before `transaction` (which stays); all of them for nil.
    ///
    /// For example:
    /// ```swift
    /// _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: transactions.last))
    /// ```
    open class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> Self {
        let request = make(.token(transaction?.token), delete: true)
        request._token = transaction?.token
        return request
    }

    private class func make(_ anchor: HistoryAnchor, delete: Bool) -> Self {
        let request = self.init()
        request.anchor = anchor
        request.isDelete = delete
        request.resultType = delete ? .statusOnly : .transactionsAndChanges
        return request
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = Swift.type(of: self).init()
        copy.anchor = anchor
        copy.isDelete = isDelete
        copy._token = _token
        copy.resultType = resultType
        copy.fetchRequest = fetchRequest
        copy.affectedStores = affectedStores
        return copy
    }

    open override var description: String {
        let anchorText: String
        switch anchor {
        case .all: anchorText = "all"
        case .date(let date): anchorText = "\(isDelete ? "before" : "after") \(date)"
        case .token(let token): anchorText = "\(isDelete ? "before" : "after") \(token.map { $0.description } ?? "nil")"
        }
        return "<NSPersistentHistoryChangeRequest: \(isDelete ? "delete" : "fetch") \(anchorText), resultType \(resultType)>"
    }
}

// MARK: - Execution

extension NSPersistentHistoryChangeRequest {
    /// Runs the request for `context` on the stores that have persistent history.
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentHistoryResult {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The context has no persistent store coordinator, so it cannot execute a persistent history request.")
        }
        var kind: NSEntityDescription?
        if let fetchRequest, !isDelete {
            guard let entity = HistoryEntities.kind(of: fetchRequest) else {
                throw CoreDataError.make(NSCoreDataError, "The fetch request of an NSPersistentHistoryChangeRequest must use NSPersistentHistoryTransaction.entityDescription or NSPersistentHistoryChange.entityDescription (it names '\(fetchRequest.entityName ?? "nil")')")
            }
            guard fetchRequest.sortDescriptors?.isEmpty ?? true else {
                throw CoreDataError.make(NSCoreDataError, "Persistent history comes in transaction order: the fetch request of an NSPersistentHistoryChangeRequest cannot have sort descriptors")
            }
            kind = entity
        }
        let stores = try historyStores(coordinator)
        let wantsChanges = resultType != .transactionsOnly || kind === HistoryEntities.change
        var selected: [HistoryTransactionData] = []
        var deletedChanges = 0
        // The fetch request's predicate as each store answers it (tokens and entities are per store).
        var predicates: [String: NSPredicate] = [:]
        try coordinator.withLock {
            // A store removed since it was chosen (by another thread: its connection is closed) has no history now.
            let current = coordinator.persistentStores
            let attached = stores.filter { store in current.contains { $0 === store } }
            guard !attached.isEmpty else {
                throw CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError,
                                         "NSPersistentHistoryChangeRequest: the request's stores were removed from the coordinator while it ran")
            }
            for store in attached {
                if kind != nil, let predicate = fetchRequest?.predicate { predicates[store.identifier ?? ""] = try store.historyPredicate(predicate) }
                let needsRead = !isDelete || (resultType != .statusOnly && resultType != .count)
                if needsRead { selected += try store.readHistory(anchor, deleting: isDelete, includeChanges: wantsChanges || isDelete) }
                if isDelete { deletedChanges += try store.deleteHistory(anchor) }
            }
        }
        if stores.count > 1 {
            selected.sort { ($0.record.timestamp, $0.record.number) < ($1.record.timestamp, $1.record.number) }
        }
        if !isDelete {
            // The objects changed by this history may be cached with older values (written by another process): the
            // next fault or refresh reads them from the store.
            coordinator.rowCache.remove(selected.flatMap { ($0.changes ?? []).map(\.objectID) })
        }
        return try result(selected, kind: kind, predicates: predicates, deletedChanges: deletedChanges)
    }

    /// The SQLite stores (of `affectedStores`, or all) that have persistent history; throws when there is none.
    private func historyStores(_ coordinator: NSPersistentStoreCoordinator) throws -> [HistoryKeepingStore] {
        let candidates = affectedStores ?? coordinator.persistentStores
        let stores = candidates.compactMap { $0 as? HistoryKeepingStore }.filter { store in
            coordinator.withLock { store.keepsHistory }
        }
        if stores.isEmpty {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "NSPersistentHistoryChangeRequest: no persistent store of the request has persistent history (add SQLite stores with the option NSPersistentHistoryTrackingKey)",
                userInfo: [NSAffectedStoresErrorKey: candidates])
        }
        return stores
    }

    /// The result of the kind `resultType` asks for.
    /// `predicates`: the fetch request's predicate for each store (by identifier), from ``SQLiteStore/historyPredicate(_:)``.
    private func result(_ transactions: [HistoryTransactionData], kind: NSEntityDescription?, predicates: [String: NSPredicate],
                        deletedChanges: Int) throws -> NSPersistentHistoryResult {
        var transactions = transactions
        var changes: [NSPersistentHistoryChange]?
        if kind === HistoryEntities.transaction, !predicates.isEmpty {
            transactions = try transactions.filter { data in
                try predicates[data.record.storeID].map { try $0.evaluateThrowing(with: HistoryTransactionRow(NSPersistentHistoryTransaction(data: data))) } ?? true
            }
        }
        if kind === HistoryEntities.change {
            // The result holds the matching changes themselves; transactions keep only their matching changes.
            var matching: [NSPersistentHistoryChange] = []
            var filtered: [HistoryTransactionData] = []
            for data in transactions {
                let predicate = predicates[data.record.storeID]
                let kept = try (data.changes ?? []).indices.filter { index in
                    try predicate.map { try $0.evaluateThrowing(with: HistoryChangeRow(NSPersistentHistoryChange(data: data, index: index))) } ?? true
                }
                guard !kept.isEmpty else { continue }
                let narrowed = HistoryTransactionData(record: data.record, changes: kept.map { data.changes![$0] })
                filtered.append(narrowed)
                matching += narrowed.changes!.indices.map { NSPersistentHistoryChange(data: narrowed, index: $0) }
            }
            transactions = filtered
            changes = limited(matching)
        } else if kind != nil {
            transactions = limited(transactions)
        }
        switch resultType {
        case .statusOnly:
            return NSPersistentHistoryResult(result: NSNumber(value: true), resultType: .statusOnly)
        case .count:
            let count = isDelete ? deletedChanges : (changes?.count ?? transactions.reduce(0) { $0 + ($1.changes?.count ?? 0) })
            return NSPersistentHistoryResult(result: NSNumber(value: count), resultType: .count)
        case .objectIDs:
            var seen = Set<NSManagedObjectID>()
            let all = changes.map { $0.map(\.changedObjectID) } ?? transactions.flatMap { ($0.changes ?? []).map(\.objectID) }
            return NSPersistentHistoryResult(result: all.filter { seen.insert($0).inserted }, resultType: .objectIDs)
        case .transactionsOnly:
            let bare = transactions.map { NSPersistentHistoryTransaction(data: HistoryTransactionData(record: $0.record, changes: nil)) }
            return NSPersistentHistoryResult(result: bare, resultType: .transactionsOnly)
        case .changesOnly:
            let all = changes ?? transactions.flatMap { data in (data.changes ?? []).indices.map { NSPersistentHistoryChange(data: data, index: $0) } }
            return NSPersistentHistoryResult(result: all, resultType: .changesOnly)
        case .transactionsAndChanges:
            if let changes {
                // A fetch request of the change entity: the transactions that have matching changes, each holding
                // only those (as Apple's sample code reads it: `result as? [NSPersistentHistoryTransaction]`).
                var grouped: [HistoryTransactionData] = []
                var current: (data: HistoryTransactionData, records: [HistoryChangeRecord])?
                for change in changes {
                    if let open = current, open.data === change.data {
                        current?.records.append(change.data.changes![change.index])
                    } else {
                        if let open = current { grouped.append(HistoryTransactionData(record: open.data.record, changes: open.records)) }
                        current = (change.data, [change.data.changes![change.index]])
                    }
                }
                if let open = current { grouped.append(HistoryTransactionData(record: open.data.record, changes: open.records)) }
                return NSPersistentHistoryResult(result: grouped.map(NSPersistentHistoryTransaction.init(data:)), resultType: .transactionsAndChanges)
            }
            return NSPersistentHistoryResult(result: transactions.map(NSPersistentHistoryTransaction.init(data:)), resultType: .transactionsAndChanges)
        }
    }

    /// `fetchOffset` and `fetchLimit` of the fetch request applied to what the result holds.
    private func limited<T>(_ items: [T]) -> [T] {
        guard let fetchRequest else { return items }
        var result = items
        if fetchRequest.fetchOffset > 0 { result = Array(result.dropFirst(fetchRequest.fetchOffset)) }
        if fetchRequest.fetchLimit > 0 { result = Array(result.prefix(fetchRequest.fetchLimit)) }
        return result
    }
}
