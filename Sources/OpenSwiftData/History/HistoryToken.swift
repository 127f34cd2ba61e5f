import Foundation

/// A position in a store's history (SwiftData's `HistoryToken`): transactions after it are the changes since.
///
/// ```swift
/// let last = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token
/// let newer = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > last! })
/// ```
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// What the token holds.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The store whose history it is a position in.
    var storeIdentifier: String { get }
    /// The position.
    var tokenValue: TokenType? { get }
}

/// The history token of Core Data's SQLite store: a store identifier and a transaction number. Tokens of one store
/// order by transaction; `Codable`, to keep the last one processed.
///
/// ```swift
/// let data = try JSONEncoder().encode(transaction.token)
/// ```
public struct DefaultHistoryToken: HistoryToken {
    public let storeIdentifier: String
    /// The transaction number.
    public let transactionNumber: Int64

    public var tokenValue: Int64? { transactionNumber }
    public var id: Int64 { transactionNumber }

    init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.storeIdentifier, lhs.transactionNumber) < (rhs.storeIdentifier, rhs.transactionNumber)
    }
}
