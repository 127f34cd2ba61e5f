/// An optimistic-locking conflict found while saving: the store's row changed since the context read it.
///
/// Snapshots hold attributes and to-one relationships (as object IDs), not to-many relationships.
///
/// For example:
/// ```swift
/// catch let error as NSError where error.code == NSManagedObjectMergeError {
///     let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
/// }
/// ```
open class NSMergeConflict: NSObject {
    /// The object being saved.
    open var sourceObject: NSManagedObject
    /// The object's values in the context.
    open var objectSnapshot: [String: Any]?
    /// The values the context last read (the coordinator's cached row).
    open var cachedSnapshot: [String: Any]?
    /// The values in the store now (nil if the row was deleted).
    open var persistedSnapshot: [String: Any]?
    /// The row version the save would write.
    open var newVersionNumber: Int
    /// The row version the context last read.
    open var oldVersionNumber: Int
    /// The store's row now (nil if it was deleted), for the built-in policies.
    var persistedRow: ObjectSnapshot?

    /// Creates a conflict description.
    public init(source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int, cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?) {
        sourceObject = srcObject
        newVersionNumber = newvers
        oldVersionNumber = oldvers
        cachedSnapshot = cachesnap
        persistedSnapshot = persnap
        super.init()
    }

    open override var description: String {
        "NSMergeConflict (\(sourceObject.objectID)) old version \(oldVersionNumber), new version \(newVersionNumber), cached \(cachedSnapshot ?? [:]), persisted \(persistedSnapshot.map { "\($0)" } ?? "deleted")"
    }
}

/// A uniqueness-constraint conflict found while saving: objects (and possibly a stored row) share the values of
/// a uniqueness constraint.
open class NSConstraintConflict: NSObject {
    /// The property names of the constraint.
    open var constraint: [String]
    /// The shared values, by property name.
    open var constraintValues: [String: Any]
    /// The stored object the saved objects collide with, if any.
    open var databaseObject: NSManagedObject?
    /// The stored object's values.
    open var databaseSnapshot: [String: Any]?
    /// The objects being saved that collide.
    open var conflictingObjects: [NSManagedObject]
    /// Their values (as committed snapshots).
    open var conflictingSnapshots: [[AnyHashable: Any]]
    /// Whether the conflict is about updated (not inserted) objects.
    var involvesUpdates = false

    /// Creates a constraint conflict description.
    public init(constraint contraint: [String], database databaseObject: NSManagedObject?, databaseSnapshot: [String: Any]?, conflicting conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]) {
        constraint = contraint
        self.databaseObject = databaseObject
        self.databaseSnapshot = databaseSnapshot
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots.compactMap { $0 as? [AnyHashable: Any] }
        constraintValues = [:]
        super.init()
        if let first = conflictingObjects.first {
            for name in contraint { constraintValues[name] = first.value(forKey: name) ?? NSNull() }
        }
    }

    open override var description: String {
        "NSConstraintConflict (\(constraint)) values \(constraintValues), database object \(databaseObject?.objectID.description ?? "nil"), conflicting \(conflictingObjects.map(\.objectID))"
    }
}
