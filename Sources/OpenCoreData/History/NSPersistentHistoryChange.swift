/// One insertion, update or deletion of an object, as persistent history recorded it.
///
/// For example:
/// ```swift
/// for change in transaction.changes ?? [] {
///     switch change.changeType {
///     case .insert: print("inserted", change.changedObjectID)
///     case .update: print("updated", change.updatedProperties?.map(\.name) ?? [])
///     case .delete: print("deleted; last id was", change.tombstone?["remoteID"] ?? "unknown")
///     }
/// }
/// ```
open class NSPersistentHistoryChange: NSObject, NSCopying, KeyValueCoding {
    let data: HistoryTransactionData
    let index: Int

    init(data: HistoryTransactionData, index: Int) {
        self.data = data
        self.index = index
        super.init()
    }

    private var record: HistoryChangeRecord { data.changes![index] }

    /// The change's number in its store (increasing).
    open var changeID: Int64 { record.changeID }

    /// The object that changed. For a deletion the object no longer exists; its ID still identifies it.
    open var changedObjectID: NSManagedObjectID { record.objectID }

    /// Insert, update or delete.
    open var changeType: NSPersistentHistoryChangeType { record.changeType }

    /// For a deletion, the last values of the object's attributes whose `preservesValueInHistoryOnDeletion` is set,
    /// by attribute name (nil values are left out); nil for other changes and for objects without such attributes.
    open var tombstone: [AnyHashable: Any]? {
        record.tombstone.map { tombstone in Dictionary(uniqueKeysWithValues: tombstone.map { (AnyHashable($0.key), $0.value) }) }
    }

    /// The transaction the change belongs to.
    open var transaction: NSPersistentHistoryTransaction? { NSPersistentHistoryTransaction(data: data) }

    /// For an update, the properties whose stored values changed (attributes, to-one relationships, and to-many
    /// relationships whose members a context save changed); nil for insertions and deletions.
    open var updatedProperties: Set<NSPropertyDescription>? { record.updatedProperties }

    // MARK: The history entity

    /// The entity of changes, for the fetch request of `NSPersistentHistoryChangeRequest.fetchHistory(withFetch:)`,
    /// with Apple's attributes: `changeID`, `changeType`, `changedEntity` and `changedObjectID`. In its predicate an
    /// entity description (`changedEntity == %@`) matches changes of exactly that entity (not of its subentities).
    ///
    /// For example:
    /// ```swift
    /// let fetch = NSFetchRequest<NSFetchRequestResult>()
    /// fetch.entity = NSPersistentHistoryChange.entityDescription
    /// fetch.predicate = NSPredicate(format: "changeType == %d AND changedEntity == %@", NSPersistentHistoryChangeType.delete.rawValue, noteEntity)
    /// ```
    open class var entityDescription: NSEntityDescription? { HistoryEntities.change }

    /// The entity of changes (the same for every context).
    ///
    /// For example:
    /// ```swift
    /// let entity = NSPersistentHistoryChange.entityDescription(with: context)
    /// ```
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { HistoryEntities.change }

    /// A fetch request of changes, to filter history with a predicate.
    ///
    /// For example:
    /// ```swift
    /// let fetch = NSPersistentHistoryChange.fetchRequest!
    /// fetch.predicate = NSPredicate(format: "changedObjectID == %@", mood.objectID)
    /// let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch)
    /// ```
    open class var fetchRequest: NSFetchRequest<any NSFetchRequestResult>? {
        let request = NSFetchRequest<any NSFetchRequestResult>()
        request.entity = HistoryEntities.change
        return request
    }

    // MARK: Key-value coding

    /// The value of a property by name. `changedEntity` is the changed object's entity description (in history
    /// fetch predicates, `changedEntity == %@` takes an entity description: see `HistoryChangeRow`).
    ///
    /// For example:
    /// ```swift
    /// change.value(forKey: "changeType")      // NSNumber 2 for a deletion
    /// change.value(forKey: "changedEntity")   // Mood's NSEntityDescription
    /// ```
    open func value(forKey key: String) -> Any? {
        switch key {
        case "changeID": return NSNumber(value: changeID)
        case "changeType": return NSNumber(value: changeType.rawValue)
        case "changedObjectID": return changedObjectID
        case "changedEntity": return changedObjectID.entity
        case "tombstone": return tombstone
        case "transaction": return transaction
        case "updatedProperties": return updatedProperties
        default: return nil
        }
    }

    // MARK: NSObject

    /// The change itself (changes are immutable).
    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPersistentHistoryChange else { return false }
        return other.data.record.storeID == data.record.storeID && other.changeID == changeID
    }

    open override var hash: Int { data.record.storeID.hashValue ^ changeID.hashValue }

    open override var description: String {
        let kind = ["insert", "update", "delete"][changeType.rawValue]
        var text = "<NSPersistentHistoryChange: \(changeID) \(kind) \(changedObjectID.uriRepresentation().absoluteString)"
        if let properties = updatedProperties { text += " properties: \(properties.map(\.name).sorted())" }
        if let tombstone = record.tombstone { text += " tombstone: \(tombstone.keys.sorted())" }
        return text + ">"
    }
}
