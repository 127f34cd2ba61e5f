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

/// A set of changes in the persistent history: one context save or one batch request, with who made it and when.
///
/// For example:
/// ```swift
/// for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] where transaction.author != "app" {
///     viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
/// }
/// ```
open class NSPersistentHistoryTransaction: NSObject, NSCopying, KeyValueCoding {
    let data: HistoryTransactionData
    private var cachedChanges: [NSPersistentHistoryChange]?

    init(data: HistoryTransactionData) {
        self.data = data
        super.init()
    }

    /// When the transaction was committed.
    open var timestamp: Date { data.record.timestamp }
    /// The token of the history up to and including this transaction.
    open var token: NSPersistentHistoryToken { NSPersistentHistoryToken(transactionNumbers: [data.record.storeID: data.record.number]) }
    /// The transaction's number in its store (increasing).
    open var transactionNumber: Int64 { data.record.number }
    /// The identifier (`NSStoreUUID`) of the store the transaction was written to.
    open var storeID: String { data.record.storeID }
    /// The bundle identifier of the writing process (its name when it has no bundle identifier, as on Linux).
    open var bundleID: String { data.record.bundleID }
    /// The name of the writing process.
    open var processID: String { data.record.processID }
    /// The `name` of the context that saved, if it had one.
    open var contextName: String? { data.record.contextName }
    /// The `transactionAuthor` of the context that saved, if it had one.
    open var author: String? { data.record.author }

    /// The transaction's changes, in the order they were recorded; nil when the request asked for
    /// `.transactionsOnly`.
    open var changes: [NSPersistentHistoryChange]? {
        if let cachedChanges { return cachedChanges }
        guard let records = data.changes else { return nil }
        let made = records.indices.map { NSPersistentHistoryChange(data: data, index: $0) }
        cachedChanges = made
        return made
    }

    /// A notification to merge this transaction's changes into a context: named
    /// `NSManagedObjectContextDidSave`, with sets of `NSManagedObjectID`s under `NSInsertedObjectsKey`,
    /// `NSUpdatedObjectsKey` and `NSDeletedObjectsKey`.
    ///
    /// For example:
    /// ```swift
    /// viewContext.perform { viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
    /// ```
    open func objectIDNotification() -> Notification {
        var inserted = Set<NSManagedObjectID>(), updated = Set<NSManagedObjectID>(), deleted = Set<NSManagedObjectID>()
        for change in data.changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.objectID)
            case .update: updated.insert(change.objectID)
            case .delete: deleted.insert(change.objectID)
            }
        }
        return Notification(name: .NSManagedObjectContextDidSave, object: nil, userInfo: [
            NSInsertedObjectsKey: inserted, NSUpdatedObjectsKey: updated, NSDeletedObjectsKey: deleted,
        ])
    }

    // MARK: The history entity

    /// The entity of transactions, for the fetch request of `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`:
    /// its predicate filters transactions by `author`, `bundleID`, `contextName`, `processID`, `storeID`, `timestamp`
    /// and `transactionNumber`.
    ///
    /// For example:
    /// ```swift
    /// let fetch = NSFetchRequest<NSFetchRequestResult>()
    /// fetch.entity = NSPersistentHistoryTransaction.entityDescription
    /// fetch.predicate = NSPredicate(format: "author != %@", "app")
    /// ```
    open class var entityDescription: NSEntityDescription? { HistoryEntities.transaction }

    /// The entity of transactions (the same for every context).
    ///
    /// For example:
    /// ```swift
    /// let entity = NSPersistentHistoryTransaction.entityDescription(with: context)
    /// ```
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { HistoryEntities.transaction }

    /// A fetch request of transactions, to filter history with a predicate.
    ///
    /// For example:
    /// ```swift
    /// let fetch = NSPersistentHistoryTransaction.fetchRequest!
    /// fetch.predicate = NSPredicate(format: "author != %@", "app")
    /// let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch)
    /// ```
    open class var fetchRequest: NSFetchRequest<any NSFetchRequestResult>? {
        let request = NSFetchRequest<any NSFetchRequestResult>()
        request.entity = HistoryEntities.transaction
        return request
    }

    // MARK: Key-value coding

    /// The value of a property by name (for predicates over transactions).
    ///
    /// For example:
    /// ```swift
    /// transaction.value(forKey: "author")   // "importer"
    /// ```
    open func value(forKey key: String) -> Any? {
        switch key {
        case "timestamp": return timestamp
        case "token": return token
        case "transactionNumber": return NSNumber(value: transactionNumber)
        case "storeID": return storeID
        case "bundleID": return bundleID
        case "processID": return processID
        case "contextName": return contextName
        case "author": return author
        case "changes": return changes
        default: return nil
        }
    }

    // MARK: NSObject

    /// The transaction itself (transactions are immutable).
    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPersistentHistoryTransaction else { return false }
        return other.storeID == storeID && other.transactionNumber == transactionNumber
    }

    open override var hash: Int { storeID.hashValue ^ transactionNumber.hashValue }

    open override var description: String {
        "<NSPersistentHistoryTransaction: \(transactionNumber), \(timestamp), author: \(author ?? "nil"), context: \(contextName ?? "nil"), "
            + "process: \(processID), \(data.changes.map { "\($0.count) changes" } ?? "changes not fetched")>"
    }
}

/// The synthetic entities that describe history for `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`.
enum HistoryEntities {
    static let transaction: NSEntityDescription = entity(named: "Transaction", [
        ("author", .stringAttributeType), ("bundleID", .stringAttributeType), ("contextName", .stringAttributeType),
        ("processID", .stringAttributeType), ("storeID", .stringAttributeType), ("timestamp", .dateAttributeType),
        ("transactionNumber", .integer64AttributeType),
    ])

    static let change: NSEntityDescription = entity(named: "Change", [
        ("changeID", .integer64AttributeType), ("changeType", .integer64AttributeType), ("changedEntity", .stringAttributeType),
        ("changedObjectID", .objectIDAttributeType),
        ("tombstone", .transformableAttributeType), ("updatedProperties", .transformableAttributeType),
    ])

    private static func entity(named name: String, _ attributes: [(String, NSAttributeType)]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.properties = attributes.map { name, type in
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        return entity
    }

    /// Which history entity a fetch request names (by entity or entity name), if any.
    static func kind(of request: NSFetchRequest<any NSFetchRequestResult>) -> NSEntityDescription? {
        if let entity = request.entity {
            if entity === transaction || entity.name == transaction.name { return transaction }
            if entity === change || entity.name == change.name { return change }
            return nil
        }
        switch request.entityName {
        case transaction.name?: return transaction
        case change.name?: return change
        default: return nil
        }
    }
}
