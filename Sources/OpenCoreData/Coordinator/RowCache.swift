import Foundation

/// The coordinator's row cache: the last known snapshot of each object, shared by every context on the
/// coordinator, so that a fault fires without a store round trip when the row is already known
/// (objc.io, "Accessing Data"). Thread-safe.
final class RowCache: Sendable {
    /// A cached row and when it was read from the store.
    private struct Entry {
        var snapshot: ObjectSnapshot
        var fetched: ContinuousClock.Instant
    }

    /// The rows by the root entity of their inheritance hierarchy, then by object ID: a batch request that changes
    /// rows without listing them drops a whole hierarchy at once.
    private let rows = Locked<[ObjectIdentifier: [NSManagedObjectID: Entry]]>([:])   // not Mutex: TSan cannot see it (Locked.swift)

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
        return rows.withLock { rows in
            guard let entry = rows[hierarchy]?[objectID] else { return nil }
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
        rows.withLock { rows in
            for (objectID, snapshot) in snapshots {
                rows[hierarchies.of(objectID), default: [:]].updateValue(forKey: objectID) { existing in
                    if let existing, existing.snapshot.version > snapshot.version { return existing }
                    return Entry(snapshot: snapshot, fetched: now)
                }
            }
        }
    }

    /// Records the rows a save wrote and forgets the deleted ones.
    func apply(saved: [(NSManagedObjectID, ObjectSnapshot)], deleted: [NSManagedObjectID]) {
        let now = ContinuousClock.now
        var hierarchies = HierarchyLookup()
        rows.withLock { rows in
            for (objectID, snapshot) in saved { rows[hierarchies.of(objectID), default: [:]][objectID] = Entry(snapshot: snapshot, fetched: now) }
            for objectID in deleted { rows[hierarchies.of(objectID)]?[objectID] = nil }
        }
    }

    /// Forgets rows (so the next access reads the store).
    func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
        rows.withLock { rows in for objectID in objectIDs { rows[Self.hierarchy(of: objectID)]?[objectID] = nil } }
    }

    /// Forgets every row of the inheritance hierarchies of `entities` (after a batch request changed rows it did
    /// not list).
    func removeRows(ofHierarchiesOf entities: [NSEntityDescription]) {
        guard !entities.isEmpty else { return }
        let dropped: [[NSManagedObjectID: Entry]] = rows.withLock { rows in
            entities.compactMap { rows.removeValue(forKey: ObjectIdentifier($0.rootEntity)) }
        }
        // Freeing a large hierarchy's rows takes a while (milliseconds per 10,000): not on the caller's time.
        if dropped.reduce(0, { $0 + $1.count }) > 1_000 {
            Self.releaseQueue.async { withExtendedLifetime(dropped) {} }
        }
    }

    /// Where large sets of forgotten rows are freed.
    private static let releaseQueue = DispatchQueue(label: "OpenCoreData.RowCache.release", qos: .utility)

    /// Forgets every row.
    func removeAll() { rows.withLock { $0.removeAll() } }

    /// The number of cached rows.
    var count: Int { rows.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}

private extension Dictionary {
    /// Replaces the value for `key` with `transform` of the current one (nil when absent), with one lookup.
    mutating func updateValue(forKey key: Key, _ transform: (Value?) -> Value) {
        if let index = index(forKey: key) {
            values[index] = transform(values[index])
        } else {
            self[key] = transform(nil)
        }
    }
}
