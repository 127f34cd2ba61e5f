import Foundation

/// One save's changes as the store's history records them (SwiftData's `HistoryTransaction`).
///
/// ```swift
/// for transaction in try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) {
///     print(transaction.author ?? "-", transaction.changes.count)
/// }
/// ```
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The author the saving context named (``ModelContext/author``).
    var author: String? { get }
    /// The inserted, updated and deleted models.
    var changes: [HistoryChange] { get }
    /// The store the transaction is in.
    var storeIdentifier: String { get }
    /// When the save happened.
    var timestamp: Date { get }
    /// The position after this transaction.
    var token: TokenType { get }
    /// The transaction's number.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// A transaction of Core Data's SQLite store's persistent history.
public struct DefaultHistoryTransaction: HistoryTransaction {
    public let storeIdentifier: String
    /// The bundle identifier of the saving process (its executable's name on Linux).
    public let bundleIdentifier: String
    /// The saving process's identifier.
    public let processIdentifier: String
    public let transactionIdentifier: Int64
    public let token: DefaultHistoryToken
    public let author: String?
    public let changes: [HistoryChange]
    public let timestamp: Date

    public var id: Int64 { transactionIdentifier }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storeIdentifier == rhs.storeIdentifier && lhs.transactionIdentifier == rhs.transactionIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionIdentifier)
    }
}
