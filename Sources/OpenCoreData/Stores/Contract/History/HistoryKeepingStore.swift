import Foundation

/// Where a history request starts (fetches: strictly after it) or ends (deletes: strictly before it).
enum HistoryAnchor {
    /// All of the history.
    case all
    /// Transactions committed after (fetch) or before (delete) a date.
    case date(Date)
    /// Transactions after (fetch) or before (delete) a token's transaction in each store; nil: all of the history.
    case token(NSPersistentHistoryToken?)
}

/// Stores that keep persistent history (the SQLite store with `NSPersistentHistoryTrackingKey`): the history API of
/// the layers above (`NSPersistentHistoryChangeRequest`, the coordinator's current token) reads and deletes it through
/// this capability, with the coordinator's lock held.
///
/// ```swift
/// for case let store as HistoryKeepingStore in coordinator.persistentStores where store.keepsHistory { … }
/// ```
protocol HistoryKeepingStore: NSPersistentStore {
    /// Whether the store has history to read (its history tables exist).
    var keepsHistory: Bool { get }
    /// The number of the last transaction written (0 when there is none yet); nil when the store keeps no history.
    func currentHistoryTransactionNumber() throws -> Int64?
    /// The predicate of a history fetch request as this store's rows answer it (tokens and entities as the store's
    /// numbers); throws `NSPersistentHistoryTokenExpiredError` for a token whose transaction the store no longer has.
    func historyPredicate(_ predicate: NSPredicate) throws -> NSPredicate
    /// The transactions an anchor selects, in order, with their changes when `includeChanges`.
    func readHistory(_ anchor: HistoryAnchor, deleting: Bool, includeChanges: Bool) throws -> [HistoryTransactionData]
    /// Deletes the transactions an anchor selects (strictly before it); returns the number of changes deleted.
    @discardableResult func deleteHistory(_ anchor: HistoryAnchor) throws -> Int
}
