/// The internal contract between the coordinator and the stores OpenCoreData ships (in-memory, SQLite): it
/// deals only in object IDs and snapshots, never in managed objects or contexts (DESIGN.md §3). Every call is
/// made with the coordinator's lock held, so implementations need no locking of their own.
protocol SnapshotStore: NSPersistentStore {
    /// Opens (or creates) the store's content for `model`; called once, when the store is added.
    func load(model: NSManagedObjectModel) throws

    /// `count` new permanent object IDs for objects of `entity`.
    func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID]

    /// New permanent object IDs for newly inserted objects of one entity (custom stores see the objects; the
    /// default asks ``newObjectIDs(for:count:)``).
    func newObjectIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID]

    /// The current row of an object, or `nil` if it no longer exists.
    func snapshot(for objectID: NSManagedObjectID, requestContext: StoreRequestContext) throws -> ObjectSnapshot?

    /// The destinations of a to-many relationship of an object (in order for ordered relationships).
    func relatedObjectIDs(of objectID: NSManagedObjectID, through relationship: NSRelationshipDescription, requestContext: StoreRequestContext) throws -> [NSManagedObjectID]

    /// The rows of several objects at once (batch faulting, prefetching); rows that no longer exist are absent.
    func snapshots(for objectIDs: [NSManagedObjectID], requestContext: StoreRequestContext) throws -> [NSManagedObjectID: ObjectSnapshot]

    /// Whether the rows a fetch or prefetch returns are already recorded in the request's `reusableRows` (the store
    /// passes them through the row cache as it reads them), so the caller need not record them again.
    var recordsFetchedRows: Bool { get }

    /// The members of a to-many relationship of several objects at once (prefetching): for each of `objectIDs`, in
    /// the same order, its members (in order for ordered relationships) with their rows. A row of `reusableRows`
    /// with the stored row's version may be returned instead of decoding the row again.
    func prefetchMembers(of objectIDs: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                         reusableRows: RowCache?, requestContext: StoreRequestContext) throws -> [[PrefetchedMember]]

    /// Applies a save atomically: all of it, or (throwing) none of it. Throws `StoreSaveConflicts` when a row's
    /// version is not the expected one (optimistic locking), `StoreConstraintViolation` for uniqueness.
    func save(_ changes: StoreSaveChanges, requestContext: StoreRequestContext) throws -> StoreSaveResult

    /// The object ID for a primary key of an entity in this store (used to rebuild IDs from URIs).
    func objectID(for entity: NSEntityDescription, primaryKey: Int64) -> NSManagedObjectID

    /// Writes the store's metadata, set since it was last written (`metadataNeedsWriting`), on its own: a save of
    /// no objects. Clears `metadataNeedsWriting` once written.
    func saveMetadata() throws
}

extension SnapshotStore {
    var recordsFetchedRows: Bool { false }

    func snapshots(for objectIDs: [NSManagedObjectID], requestContext: StoreRequestContext) throws -> [NSManagedObjectID: ObjectSnapshot] {
        var result: [NSManagedObjectID: ObjectSnapshot] = [:]
        for objectID in objectIDs {
            if let snapshot = try snapshot(for: objectID, requestContext: requestContext) { result[objectID] = snapshot }
        }
        return result
    }

    func prefetchMembers(of objectIDs: [NSManagedObjectID], through relationship: NSRelationshipDescription,
                         reusableRows: RowCache?, requestContext: StoreRequestContext) throws -> [[PrefetchedMember]] {
        let members = try objectIDs.map { try relatedObjectIDs(of: $0, through: relationship, requestContext: requestContext) }
        let rows = try snapshots(for: Array(Set(members.joined())), requestContext: requestContext)
        return members.map { ids in ids.map { PrefetchedMember(objectID: $0, snapshot: rows[$0]) } }
    }

    func newObjectIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        guard let entity = objects.first?.entity else { return [] }
        return try newObjectIDs(for: entity, count: objects.count)
    }

    func objectID(for entity: NSEntityDescription, primaryKey: Int64) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, key: .primaryKey(primaryKey), store: self)
    }

    /// Stores without a file of their own to write it to (in-memory stores, custom incremental stores, which keep
    /// their metadata as they choose) only note it as written.
    func saveMetadata() throws {
        metadataNeedsWriting = false
    }
}

/// A member of a prefetched to-many relationship, with its row when the store read it.
struct PrefetchedMember {
    var objectID: NSManagedObjectID
    var snapshot: ObjectSnapshot?
}

/// The changes of one save, as the coordinator hands them to a store.
struct StoreSaveChanges {
    /// A new object: its values and the members of its to-many relationships.
    struct Insert {
        var objectID: NSManagedObjectID
        var snapshot: ObjectSnapshot
        /// To-many members by the layout's to-many slot (ordered relationships in order).
        var toMany: [Int: [NSManagedObjectID]]
    }
    /// A changed object: its new values, the version the context last saw, and the to-many relationships
    /// whose members changed.
    struct Update {
        var objectID: NSManagedObjectID
        var snapshot: ObjectSnapshot
        var expectedVersion: Int64
        var toMany: [Int: [NSManagedObjectID]]
        /// For the to-manys in `toMany` whose members the context read: the members it added and removed. A store
        /// writes a many-to-many's links from these (as Apple's does), so that links the context never saw — added or
        /// removed by others since it read the relationship — stay as they are.
        var toManyChanges: [Int: MemberDiff] = [:]
    }

    /// The members a context added to and removed from a to-many since it read it.
    struct MemberDiff {
        var added: [NSManagedObjectID]
        var removed: [NSManagedObjectID]
    }
    /// A deleted object and the version the context last saw.
    struct Delete {
        var objectID: NSManagedObjectID
        var expectedVersion: Int64
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []

    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
}

/// Rows whose version in the store is not the version the saving context saw.
struct StoreSaveConflicts: Error {
    struct Conflict {
        var objectID: NSManagedObjectID
        /// The version the context expected.
        var expectedVersion: Int64
        /// The row as it is in the store now; `nil` if it was deleted.
        var persisted: ObjectSnapshot?
    }
    var conflicts: [Conflict]
}

/// A uniqueness constraint that a save would violate.
struct StoreConstraintViolation: Error {
    /// The entity that declares the constraint.
    var entity: NSEntityDescription
    /// The constraint's property names.
    var constraint: [String]
    /// The objects being saved that collide (with each other or with a stored row).
    var objectIDs: [NSManagedObjectID]
    /// The stored row they collide with, if any.
    var existing: NSManagedObjectID?
}
