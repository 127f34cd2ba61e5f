import Foundation

/// One transaction of persistent history as read from a store: what a context save or a batch request changed,
/// with its author, context name, process and time.
struct HistoryTransactionRecord {
    var number: Int64
    var timestamp: Date
    var author: String?
    var bundleID: String
    var contextName: String?
    var processID: String
    var storeID: String
}

/// One change of a transaction as read from a store.
struct HistoryChangeRecord {
    var changeID: Int64
    var changeType: NSPersistentHistoryChangeType
    var objectID: NSManagedObjectID
    /// The store's number of the changed object's entity (`Z_ENT`, `ACHANGE.ZENTITY`): the history entity's `changedEntity`.
    var entityNumber: Int64 = 0
    /// For updates: the properties that changed (nil when the store did not record them).
    var updatedProperties: Set<NSPropertyDescription>?
    /// For deletions: the values of the attributes that `preservesValueInHistoryOnDeletion`, by name.
    var tombstone: [String: Any]?
}

/// A transaction and its changes, shared by the transaction object and its change objects (so that neither
/// retains the other: a change's `transaction` is made from this data on demand).
final class HistoryTransactionData {
    let record: HistoryTransactionRecord
    /// nil when the request asked for transactions only.
    let changes: [HistoryChangeRecord]?

    init(record: HistoryTransactionRecord, changes: [HistoryChangeRecord]?) {
        self.record = record
        self.changes = changes
    }
}
