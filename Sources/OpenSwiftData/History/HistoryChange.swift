import Foundation

/// One model's change in a history transaction (SwiftData's `HistoryChange`).
///
/// ```swift
/// switch change {
/// case .insert(let insert): print("inserted", insert.changedPersistentIdentifier)
/// case .update(let update as DefaultHistoryUpdate<Trip>): print("updated", update.updatedAttributes)
/// case .update: break
/// case .delete(let delete as DefaultHistoryDelete<Trip>): print("deleted", delete.tombstone[\.name] ?? "-")
/// case .delete: break
/// }
/// ```
public enum HistoryChange: Sendable {
    case insert(any HistoryInsert)
    case update(any HistoryUpdate)
    case delete(any HistoryDelete)

    /// The identifier of the changed model.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// An insertion in the history.
public protocol HistoryInsert<Model>: Sendable {
    associatedtype Model: PersistentModel
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: ChangeIdentifier { get }
    var transactionIdentifier: TransactionIdentifier { get }
}

/// An update in the history, with the attributes it changed.
public protocol HistoryUpdate<Model>: Sendable {
    associatedtype Model: PersistentModel
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: ChangeIdentifier { get }
    var transactionIdentifier: TransactionIdentifier { get }
    /// The persisted properties the update changed.
    var updatedAttributes: [PartialKeyPath<Model>] { get }
}

/// A deletion in the history, with the values `.preserveValueOnDeletion` kept.
public protocol HistoryDelete<Model>: Sendable {
    associatedtype Model: PersistentModel
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: ChangeIdentifier { get }
    var transactionIdentifier: TransactionIdentifier { get }
    /// The kept values of the deleted model.
    var tombstone: HistoryTombstone<Model> { get }
}

/// An insertion of Core Data's history.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
}

/// An update of Core Data's history.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable, @unchecked Sendable {
    // @unchecked Sendable: immutable; PartialKeyPath (an immutable value) is not declared Sendable.
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let updatedAttributes: [PartialKeyPath<Model>]
}

/// A deletion of Core Data's history.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let tombstone: HistoryTombstone<Model>

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier && lhs.transactionIdentifier == rhs.transactionIdentifier
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(changeIdentifier) }
}

/// The values a deleted model's `.preserveValueOnDeletion` attributes had (SwiftData's `HistoryTombstone`).
///
/// ```swift
/// let name = delete.tombstone[\Trip.name] as? String
/// ```
public struct HistoryTombstone<Model: PersistentModel>: Sequence, @unchecked Sendable {
    // @unchecked Sendable: immutable; the values are Sendable and the key paths immutable values.
    private let values: [(keyPath: PartialKeyPath<Model>, value: (any Sendable)?)]

    init(values: [(keyPath: PartialKeyPath<Model>, value: (any Sendable)?)]) {
        self.values = values
    }

    /// The kept value of a property (nil if it was nil, or not kept).
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        values.first { $0.keyPath == keyPath }?.value ?? nil
    }

    public func makeIterator() -> IndexingIterator<[(keyPath: PartialKeyPath<Model>, value: (any Sendable)?)]> {
        values.makeIterator()
    }
}
