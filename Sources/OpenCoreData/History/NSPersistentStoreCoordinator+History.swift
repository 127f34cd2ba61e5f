extension NSPersistentStoreCoordinator {
    /// The token of the history written so far to `stores` (`NSPersistentStore`s of this coordinator; nil for all of
    /// them): a bookmark to fetch later history from. Nil when none of the stores has persistent history.
    ///
    /// For example:
    /// ```swift
    /// let start = coordinator.currentPersistentHistoryToken(fromStores: nil)
    /// // … other contexts and processes save …
    /// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: start)
    /// ```
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        let candidates = stores?.compactMap { $0 as? NSPersistentStore } ?? persistentStores
        return withLock {
            var numbers: [String: Int64] = [:]
            for case let store as HistoryKeepingStore in candidates where store.persistentStoreCoordinator === self {
                guard let identifier = store.identifier, let number = try? store.currentHistoryTransactionNumber() else { continue }
                numbers[identifier] = number
            }
            return numbers.isEmpty ? nil : NSPersistentHistoryToken(transactionNumbers: numbers)
        }
    }

    /// Whether one of the coordinator's stores keeps persistent history (its token is then worth reading).
    var anyStoreKeepsHistory: Bool {
        persistentStores.contains { ($0 as? HistoryKeepingStore)?.keepsHistory == true }
    }
}
