/// What an `NSPersistentHistoryChangeRequest` returns in its `NSPersistentHistoryResult`.
///
/// For example:
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
/// request.resultType = .transactionsOnly
/// ```
public enum NSPersistentHistoryResultType: Int, Sendable, Hashable {
    /// Whether the request succeeded (`NSNumber` true).
    case statusOnly = 0
    /// The IDs of the changed objects (`[NSManagedObjectID]`, each once, in history order).
    case objectIDs = 1
    /// The number of changes (`NSNumber`); for a delete, the number of changes deleted.
    case count = 2
    /// The transactions (`[NSPersistentHistoryTransaction]`), whose `changes` are nil.
    case transactionsOnly = 3
    /// The changes (`[NSPersistentHistoryChange]`).
    case changesOnly = 4
    /// The transactions with their changes (the default for fetches).
    case transactionsAndChanges = 5
}

/// The result of executing an `NSPersistentHistoryChangeRequest`.
///
/// For example:
/// ```swift
/// let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult
/// let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
/// ```
open class NSPersistentHistoryResult: NSPersistentStoreResult {
    private let _result: Any?
    private let _resultType: NSPersistentHistoryResultType

    init(result: Any?, resultType: NSPersistentHistoryResultType) {
        _result = result
        _resultType = resultType
        super.init()
    }

    /// The result, of the kind `resultType` says.
    open var result: Any? { _result }

    /// The kind of result.
    open var resultType: NSPersistentHistoryResultType { _resultType }
}
