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
        var rows: [ObjectIdentifier: [ObjectIDKey: Entry]] = [:]
        /// Hierarchies a batch request changed without listing rows, with the generation that was current then:
        /// their entries of that generation or earlier are stale. (Marking is instant; freeing every row of a large
        /// hierarchy would cost the request milliseconds per 10,000 rows. Stale rows are dropped when rows are next
        /// recorded for the hierarchy, and ignored until then.)
        var invalidated: [ObjectIdentifier: UInt64] = [:]
        var generation: UInt64 = 0

        /// Whether a row recorded in `generation` is current: not made stale by a batch request on its hierarchy since.
        func isCurrent(_ generation: UInt64, in hierarchy: ObjectIdentifier) -> Bool {
            RowCache.isCurrent(generation, staleUpTo: invalidated[hierarchy])
        }

        /// The rows of `hierarchy`, taken out (so that they can be changed in place; put them back) without the
        /// stale ones: rows are about to be added to a hierarchy a batch request made stale, and rows of other keys
        /// would never replace its stale rows (the cache would grow with every batch delete and insert).
        ///
        /// A hierarchy marked stale holds stale rows only: every row is recorded through this method, which clears
        /// the mark, so none was recorded since the mark. Its rows are dropped whole (filtering them built a new
        /// dictionary of none, entry by entry).
        mutating func takeRows(of hierarchy: ObjectIdentifier) -> [ObjectIDKey: Entry] {
            let hierarchyRows = rows.removeValue(forKey: hierarchy) ?? [:]
            guard let staleUpTo = invalidated.removeValue(forKey: hierarchy) else { return hierarchyRows }
            assert(hierarchyRows.values.allSatisfy { $0.generation <= staleUpTo }, "a row recorded after its hierarchy was marked stale")
            return [:]
        }

        /// Calls `record` with the cache slot of each row (one hash look-up per row): a run of rows of one hierarchy
        /// works on that hierarchy's dictionary, taken out once (and sized for `expectedCount` rows when new).
        mutating func update<Rows: Sequence<(NSManagedObjectID, ObjectSnapshot)>>(
            _ snapshots: Rows, expectedCount: Int, _ record: (inout Entry?, ObjectSnapshot) -> Void
        ) {
            var iterator = snapshots.makeIterator()
            var next = iterator.next()
            while let first = next {
                let hierarchy = RowCache.hierarchy(of: first.0)
                var hierarchyRows = takeRows(of: hierarchy)
                if hierarchyRows.capacity < expectedCount { hierarchyRows.reserveCapacity(expectedCount) }
                while let (objectID, snapshot) = next, RowCache.hierarchy(of: objectID) == hierarchy {
                    record(&hierarchyRows[ObjectIDKey(objectID)], snapshot)
                    next = iterator.next()
                }
                rows[hierarchy] = hierarchyRows
            }
        }

        /// Forgets the rows of `objectIDs`: a run of IDs of one hierarchy works on that hierarchy's dictionary,
        /// taken out once (each `rows[hierarchy]?[key] = nil` looked the hierarchy up again).
        mutating func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
            var iterator = objectIDs.makeIterator()
            var next = iterator.next()
            while let first = next {
                let hierarchy = RowCache.hierarchy(of: first)
                guard var hierarchyRows = rows.removeValue(forKey: hierarchy) else {
                    while let objectID = next, RowCache.hierarchy(of: objectID) == hierarchy { next = iterator.next() }
                    continue
                }
                while let objectID = next, RowCache.hierarchy(of: objectID) == hierarchy {
                    hierarchyRows.removeValue(forKey: ObjectIDKey(objectID))
                    next = iterator.next()
                }
                rows[hierarchy] = hierarchyRows
            }
        }
    }

    private let state = Locked(State())   // not Mutex: TSan cannot see it (Locked.swift)

    /// Whether a row recorded in `generation` is current, given the generation up to which a batch request made
    /// its hierarchy's rows stale (nil: none did).
    private static func isCurrent(_ generation: UInt64, staleUpTo: UInt64?) -> Bool {
        guard let staleUpTo else { return true }
        return generation > staleUpTo
    }

    private static func hierarchy(of objectID: NSManagedObjectID) -> ObjectIdentifier { objectID.rootEntityIdentity }

    /// The cached row of `objectID`, if it is not older than `maximumAge` seconds (negative: any age).
    func snapshot(for objectID: NSManagedObjectID, maximumAge: TimeInterval = -1) -> ObjectSnapshot? {
        let hierarchy = Self.hierarchy(of: objectID)
        return state.withLock { state in
            guard state.rows[hierarchy] != nil else { return nil }
            let staleUpTo = state.invalidated[hierarchy]
            // The entry is read in place: reading it through the subscript copied it, its arrays retained and
            // released again.
            func read(_ rows: inout [ObjectIDKey: Entry]) -> ObjectSnapshot? {
                guard let index = rows.index(forKey: ObjectIDKey(objectID)) else { return nil }
                return currentSnapshot(of: &rows.values[index])
            }
            func currentSnapshot(of entry: inout Entry) -> ObjectSnapshot? {
                guard Self.isCurrent(entry.generation, staleUpTo: staleUpTo) else { return nil }
                if maximumAge >= 0 && entry.fetched.duration(to: .now) > .milliseconds(Int64(maximumAge * 1000)) { return nil }
                return entry.snapshot
            }
            return read(&state.rows[hierarchy]!)
        }
    }

    /// ``passingRows(_:)`` of `cache`; without a cache, no row is found and none recorded.
    static func passingRows<R>(through cache: RowCache?, _ body: (_ cachedRow: (NSManagedObjectID, Int64) -> (NSManagedObjectID, ObjectSnapshot)?,
                                                            _ record: (NSManagedObjectID, ObjectSnapshot) -> Void) throws -> R) rethrows -> R {
        guard let cache else { return try body({ _, _ in nil }, { _, _ in }) }
        return try cache.passingRows(body)
    }

    /// Runs `body` (a store's fetch loop) with the cache locked, so that the rows pass through it as they are read,
    /// one hash look-up each: `cachedRow` hands out the current cached row of an object ID, with the cache's own
    /// equal ID, when it has the stored version (and marks it as read: a row the store already delivered is not
    /// decoded again), `record` keeps a row the store decoded, as ``store(_:expectedCount:)`` would.
    func passingRows<R>(_ body: (_ cachedRow: (NSManagedObjectID, Int64) -> (NSManagedObjectID, ObjectSnapshot)?,
                                 _ record: (NSManagedObjectID, ObjectSnapshot) -> Void) throws -> R) rethrows -> R {
        let now = ContinuousClock.now
        return try state.withLock { state in
            let generation = state.generation
            // The current hierarchy's rows, out of `state` while the loop works on them.
            var hierarchy: ObjectIdentifier?
            var hierarchyRows: [ObjectIDKey: Entry] = [:]
            func switchTo(_ rowHierarchy: ObjectIdentifier) {
                guard rowHierarchy != hierarchy else { return }
                if let hierarchy { state.rows[hierarchy] = hierarchyRows }
                hierarchy = rowHierarchy
                hierarchyRows = state.takeRows(of: rowHierarchy)
            }
            defer { if let hierarchy { state.rows[hierarchy] = hierarchyRows } }
            return try body({ objectID, version in
                switchTo(Self.hierarchy(of: objectID))
                guard let index = hierarchyRows.index(forKey: ObjectIDKey(objectID)) else { return nil }
                // One in-place access to the entry (reading it through the subscript copied it, arrays retained).
                func markRead(_ entry: inout Entry) -> ObjectSnapshot? {
                    guard entry.snapshot.version == version else { return nil }
                    entry.fetched = now
                    return entry.snapshot
                }
                return markRead(&hierarchyRows.values[index]).map { (hierarchyRows.keys[index].objectID, $0) }
            }, { objectID, snapshot in
                switchTo(Self.hierarchy(of: objectID))
                Self.record(snapshot, in: &hierarchyRows[ObjectIDKey(objectID)], now: now, generation: generation)
            })
        }
    }

    /// Keeps a row read from a store in its cache slot: a newer cached row stays; one of the same version is
    /// replaced (only SQLite's versions identify a row's content), unless it is the cached row itself, reused by
    /// the store: that one is only marked as read.
    private static func record(_ snapshot: ObjectSnapshot, in entry: inout Entry?, now: ContinuousClock.Instant, generation: UInt64) {
        if let version = entry?.snapshot.version, version >= snapshot.version {
            if version > snapshot.version { return }
            if entry!.snapshot.sharesValues(with: snapshot) {
                entry!.fetched = now
                return
            }
        }
        entry = Entry(snapshot: snapshot, fetched: now, generation: generation)
    }

    /// Records rows a fetch or fault produced (a newer version replaces an older one).
    func store(_ snapshot: ObjectSnapshot, for objectID: NSManagedObjectID) {
        store(CollectionOfOne((objectID, snapshot)))
    }

    /// Records the rows a fetch produced, under one lock (a newer version replaces an older one).
    func store(_ snapshots: some Sequence<(NSManagedObjectID, ObjectSnapshot)>, expectedCount: Int = 1) {
        let now = ContinuousClock.now
        state.withLock { state in
            let generation = state.generation
            state.update(snapshots, expectedCount: expectedCount) { entry, snapshot in
                Self.record(snapshot, in: &entry, now: now, generation: generation)
            }
        }
    }

    /// Records the rows a save wrote and forgets the deleted ones.
    func apply(saved: [(NSManagedObjectID, ObjectSnapshot)], deleted: [NSManagedObjectID]) {
        let now = ContinuousClock.now
        state.withLock { state in
            let generation = state.generation
            state.update(saved, expectedCount: saved.count) { entry, snapshot in
                entry = Entry(snapshot: snapshot, fetched: now, generation: generation)
            }
            state.remove(deleted)
        }
    }

    /// Forgets rows (so the next access reads the store).
    func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
        state.withLock { state in state.remove(objectIDs) }
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

    /// The number of rows held, stale ones included (what the cache costs in memory).
    var heldCount: Int {
        state.withLock { state in state.rows.values.reduce(0) { $0 + $1.count } }
    }

    /// The number of current (not stale) cached rows.
    var count: Int {
        state.withLock { state in
            state.rows.reduce(0) { total, hierarchy in total + hierarchy.value.values.filter { state.isCurrent($0.generation, in: hierarchy.key) }.count }
        }
    }
}
