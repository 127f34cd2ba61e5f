import Foundation

/// The coordinator's row cache: the last known snapshot of each object, shared by every context on the
/// coordinator, so that a fault fires without a store round trip when the row is already known
/// (objc.io, "Accessing Data"). Thread-safe.
final class RowCache: Sendable {
    /// A cached row, when it was read from the store, and the cache generation it was recorded in.
    private struct Entry {
        var snapshot: ObjectSnapshot
        var fetched: ContinuousClock.Instant
        var generation: UInt64
    }

    /// The rows by the root entity of their inheritance hierarchy, then by object ID.
    private struct State {
        var rows: [ObjectIdentifier: [NSManagedObjectID: Entry]] = [:]
        /// Hierarchies a batch request changed without listing rows, with the generation that was current then:
        /// their entries of that generation or earlier are stale. (Marking is instant; freeing every row of a large
        /// hierarchy would cost the request milliseconds per 10,000 rows. Stale rows are replaced as rows are read.)
        var invalidated: [ObjectIdentifier: UInt64] = [:]
        var generation: UInt64 = 0

        func isCurrent(_ entry: Entry, in hierarchy: ObjectIdentifier) -> Bool {
            guard let invalidated = invalidated[hierarchy] else { return true }
            return entry.generation > invalidated
        }
    }

    private let state = Locked(State())   // not Mutex: TSan cannot see it (Locked.swift)

    private static func hierarchy(of objectID: NSManagedObjectID) -> ObjectIdentifier { ObjectIdentifier(objectID.entity.rootEntity) }

    /// The hierarchy of a run of object IDs, mostly of one entity: the root is looked up when the entity changes.
    private struct HierarchyLookup {
        private var entity: NSEntityDescription?
        private var hierarchy = ObjectIdentifier(RowCache.self)

        mutating func of(_ objectID: NSManagedObjectID) -> ObjectIdentifier {
            if objectID.entity !== entity {
                entity = objectID.entity
                hierarchy = RowCache.hierarchy(of: objectID)
            }
            return hierarchy
        }
    }

    /// The cached row of `objectID`, if it is not older than `maximumAge` seconds (negative: any age).
    func snapshot(for objectID: NSManagedObjectID, maximumAge: TimeInterval = -1) -> ObjectSnapshot? {
        let hierarchy = Self.hierarchy(of: objectID)
        return state.withLock { state in
            guard let entry = state.rows[hierarchy]?[objectID], state.isCurrent(entry, in: hierarchy) else { return nil }
            if maximumAge >= 0 && entry.fetched.duration(to: .now) > .milliseconds(Int64(maximumAge * 1000)) { return nil }
            return entry.snapshot
        }
    }

    /// Records rows a fetch or fault produced (a newer version replaces an older one).
    func store(_ snapshot: ObjectSnapshot, for objectID: NSManagedObjectID) {
        store([(objectID, snapshot)])
    }

    /// Records the rows a fetch produced, under one lock (a newer version replaces an older one).
    func store(_ snapshots: some Collection<(NSManagedObjectID, ObjectSnapshot)>) {
        guard !snapshots.isEmpty else { return }
        let now = ContinuousClock.now
        var hierarchies = HierarchyLookup()
        state.withLock { state in
            let generation = state.generation
            for (objectID, snapshot) in snapshots {
                let hierarchy = hierarchies.of(objectID)
                if let existing = state.rows[hierarchy]?[objectID], state.isCurrent(existing, in: hierarchy),
                   existing.snapshot.version > snapshot.version { continue }
                state.rows[hierarchy, default: [:]][objectID] = Entry(snapshot: snapshot, fetched: now, generation: generation)
            }
        }
    }

    /// Records the rows a save wrote and forgets the deleted ones.
    func apply(saved: [(NSManagedObjectID, ObjectSnapshot)], deleted: [NSManagedObjectID]) {
        let now = ContinuousClock.now
        var hierarchies = HierarchyLookup()
        state.withLock { state in
            let generation = state.generation
            for (objectID, snapshot) in saved {
                state.rows[hierarchies.of(objectID), default: [:]][objectID] = Entry(snapshot: snapshot, fetched: now, generation: generation)
            }
            for objectID in deleted { state.rows[hierarchies.of(objectID)]?[objectID] = nil }
        }
    }

    /// Forgets rows (so the next access reads the store).
    func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
        state.withLock { state in for objectID in objectIDs { state.rows[Self.hierarchy(of: objectID)]?[objectID] = nil } }
    }

    /// Forgets every row of the inheritance hierarchies of `entities` (after a batch request changed rows it did
    /// not list): the rows cached so far are marked stale at once.
    func removeRows(ofHierarchiesOf entities: [NSEntityDescription]) {
        guard !entities.isEmpty else { return }
        state.withLock { state in
            for entity in entities { state.invalidated[ObjectIdentifier(entity.rootEntity)] = state.generation }
            state.generation += 1
        }
    }

    /// Forgets every row.
    func removeAll() {
        state.withLock { state in
            state.rows.removeAll()
            state.invalidated.removeAll()
        }
    }

    /// The number of current (not stale) cached rows.
    var count: Int {
        state.withLock { state in
            state.rows.reduce(0) { total, hierarchy in total + hierarchy.value.values.filter { state.isCurrent($0, in: hierarchy.key) }.count }
        }
    }
}
