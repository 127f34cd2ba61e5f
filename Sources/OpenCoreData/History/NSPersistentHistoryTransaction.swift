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

    /// The entity of transactions, for the fetch request of `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`,
    /// with Apple's attributes: `author`, `contextName`, `bundleID`, `processID`, `timestamp`, `transactionNumber` and
    /// `token`. In its predicate a token (`token > %@`) stands for the transaction it ends with, store by store; a
    /// token naming a transaction no longer (or not yet) in a store's history throws `NSPersistentHistoryTokenExpiredError`
    /// when the request runs (as Apple's Core Data does since iOS 18).
    ///
    /// For example:
    /// ```swift
    /// let fetch = NSFetchRequest<NSFetchRequestResult>()
    /// fetch.entity = NSPersistentHistoryTransaction.entityDescription
    /// fetch.predicate = NSPredicate(format: "token > %@ AND author != %@", lastToken, "app")
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

/// The entities that describe history for `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`, with Apple's
/// attributes (Apple's `_PFPersistentHistoryFetchModel`, iOS 18): `Transaction` — `author`, `contextName`, `bundleID`,
/// `processID` (strings), `timestamp` (date), `transactionNumber` and `token` (64-bit integers: a token in a predicate
/// stands for its transaction number in each store); `Change` — `changeID`, `changeType`, `changedEntity` (64-bit
/// integers: an entity description in a predicate stands for its entity number in each store) and `changedObjectID`
/// (an object ID). A predicate is evaluated on each transaction or change (`HistoryPredicateRows`).
enum HistoryEntities {
    static let transaction: NSEntityDescription = entity(named: "Transaction", [
        ("author", .stringAttributeType), ("contextName", .stringAttributeType), ("bundleID", .stringAttributeType),
        ("processID", .stringAttributeType), ("timestamp", .dateAttributeType), ("transactionNumber", .integer64AttributeType),
        ("token", .integer64AttributeType),
    ])

    static let change: NSEntityDescription = entity(named: "Change", [
        ("changeID", .integer64AttributeType), ("changeType", .integer64AttributeType), ("changedEntity", .integer64AttributeType),
        ("changedObjectID", .objectIDAttributeType),
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
