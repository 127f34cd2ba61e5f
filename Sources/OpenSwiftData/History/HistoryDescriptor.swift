import Foundation

/// Which history transactions to fetch or delete (SwiftData's `HistoryDescriptor`): a `#Predicate` over the
/// transaction (its token, author, timestamp…), an order and a limit.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > lastToken })
/// descriptor.fetchLimit = 100
/// let transactions = try context.fetchHistory(descriptor)
/// ```
public struct HistoryDescriptor<TransactionType: HistoryTransaction>: Sendable {
    /// Which transactions (all when nil).
    public var predicate: Predicate<TransactionType>?
    /// Their order (by transaction by default).
    public var sortBy: [SortDescriptor<TransactionType>]
    /// The most transactions to return.
    public var fetchLimit: Int?

    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
