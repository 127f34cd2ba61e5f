/// What the predicate of a history fetch request (`NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`) is
/// evaluated against: a transaction or a change as a row of Apple's history entities (`HistoryEntities`), whose
/// `token` and `changedEntity` are 64-bit integers — the transaction's number and the store's entity number. The
/// predicate's constants were rewritten to match, store by store (`SQLiteStore.historyPredicate(_:)`).
///
/// Key paths outside Apple's entities (`storeID`, `changes`, `tombstone`, `updatedProperties`, and a change's
/// `transaction` with the transaction's keys below it) are answered by the transaction's or change's own key-value
/// coding: an extension (Apple's Core Data refuses them).
///
/// ```swift
/// let keep = try predicate.evaluateThrowing(with: HistoryTransactionRow(transaction))
/// ```
final class HistoryTransactionRow: NSObject, KeyValueCoding {
    let transaction: NSPersistentHistoryTransaction

    init(_ transaction: NSPersistentHistoryTransaction) {
        self.transaction = transaction
        super.init()
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "token", "transactionNumber": return NSNumber(value: transaction.transactionNumber)
        default: return transaction.value(forKey: key)
        }
    }
}

/// A change as a row of Apple's `Change` history entity (see ``HistoryTransactionRow``). Like Apple's, it also
/// answers `token` (its transaction's number), so `token > %@` selects the changes of later transactions.
///
/// ```swift
/// let keep = try predicate.evaluateThrowing(with: HistoryChangeRow(change))
/// ```
final class HistoryChangeRow: NSObject, KeyValueCoding {
    let change: NSPersistentHistoryChange

    init(_ change: NSPersistentHistoryChange) {
        self.change = change
        super.init()
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "changedEntity": return NSNumber(value: change.data.changes![change.index].entityNumber)
        case "token": return NSNumber(value: change.data.record.number)
        case "transaction": return HistoryTransactionRow(NSPersistentHistoryTransaction(data: change.data))
        default: return change.value(forKey: key)
        }
    }
}
