import Foundation
@_spi(OpenSwiftData) import OpenCoreDataSupport

/// The coordinator's row cache: the last known snapshot of each object, shared by every context on the
/// coordinator, so that a fault fires without a store round trip when the row is already known
/// (objc.io, "Accessing Data"). Thread-safe.
final class RowCache: Sendable {
    /// A cached row: the ID it was first recorded under (handed out with it, so that objects share one ID with
    /// the cache), when it was read from the store, and the cache generation it was recorded in.
    struct Entry {
        var objectID: NSManagedObjectID
        var snapshot: ObjectSnapshot
        var fetched: ReadTime
        var generation: UInt64

        /// Where an entry keeps its ID and its attribute values' array (each one reference), for
        /// ``PagedIDTable/prefetch(store:primaryKey:)``; an empty table slot (nil) has a null ID there.
        static let objectIDOffset = MemoryLayout<Entry>.offset(of: \Entry.objectID)!
        static let attributesOffset = MemoryLayout<Entry>.offset(of: \Entry.snapshot.attributes)!
    }

    /// When a row was read: nanoseconds on the continuous clock since the cache's reference instant.
    ///
    /// Not a `ContinuousClock.Instant`: the standard library keeps that type's layout resilient (opaque to this
    /// module), which made ``Entry`` a type of unknown layout, so that every copy of an entry and every test of a
    /// table slot for nil went through the type's value witnesses (a copy of the entry to test a slot: 20 % of a
    /// fetch of cached rows).
    struct ReadTime {
        let nanoseconds: Int64

        private static let reference = ContinuousClock.now

        static var now: ReadTime {
            let (seconds, attoseconds) = reference.duration(to: .now).components
            return ReadTime(nanoseconds: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        }

        /// Whether more than `seconds` have passed between this time and `now`.
        func isOlder(than seconds: TimeInterval, at now: ReadTime) -> Bool {
            Double(now.nanoseconds - nanoseconds) > seconds * 1_000_000_000
        }
    }

    /// The rows by the root entity of their inheritance hierarchy, then by object ID (``RowTable``).
    private struct State {
        var rows: [ObjectIdentifier: RowTable] = [:]
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
        mutating func takeRows(of hierarchy: ObjectIdentifier) -> RowTable {
            let hierarchyRows = rows.removeValue(forKey: hierarchy) ?? RowTable()
            guard let staleUpTo = invalidated.removeValue(forKey: hierarchy) else { return hierarchyRows }
            assert(hierarchyRows.allSatisfy { $0.generation <= staleUpTo }, "a row recorded after its hierarchy was marked stale")
            return RowTable()
        }

        /// Calls `record` with the cache slot of each row (one look-up per row): a run of rows of one hierarchy
        /// works on that hierarchy's table, taken out once.
        mutating func update<Rows: Sequence<(NSManagedObjectID, ObjectSnapshot)>>(
            _ snapshots: Rows, _ record: (inout Entry?, NSManagedObjectID, ObjectSnapshot) -> Void
        ) {
            var iterator = snapshots.makeIterator()
            var next = iterator.next()
            while let first = next {
                let hierarchy = RowCache.hierarchy(of: first.0)
                var hierarchyRows = takeRows(of: hierarchy)
                while let (objectID, snapshot) = next, RowCache.hierarchy(of: objectID) == hierarchy {
                    hierarchyRows.withSlot(for: objectID) { record(&$0, objectID, snapshot) }
                    next = iterator.next()
                }
                rows[hierarchy] = hierarchyRows
            }
        }

        /// Forgets the rows of `objectIDs`: a run of IDs of one hierarchy works on that hierarchy's table,
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
                    hierarchyRows.removeValue(for: objectID)
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

    /// The cached row of `objectID`, if it is not older than `maximumAge` seconds (negative: any age; 0: none, the
    /// row is read from the store: a context's `stalenessInterval`).
    func snapshot(for objectID: NSManagedObjectID, maximumAge: TimeInterval = -1) -> ObjectSnapshot? {
        if maximumAge == 0 { return nil }
        let hierarchy = Self.hierarchy(of: objectID)
        return state.withLock { state in
            guard state.rows[hierarchy] != nil else { return nil }
            let staleUpTo = state.invalidated[hierarchy]
            // The entry is read in place: reading it through the subscript copied it, its arrays retained and
            // released again.
            func read(_ rows: inout RowTable) -> ObjectSnapshot? {
                rows.withEntry(for: objectID, currentSnapshot(of:))
            }
            func currentSnapshot(of entry: inout Entry) -> ObjectSnapshot? {
                guard Self.isCurrent(entry.generation, staleUpTo: staleUpTo) else { return nil }
                if maximumAge > 0 && entry.fetched.isOlder(than: maximumAge, at: .now) { return nil }
                return entry.snapshot
            }
            return read(&state.rows[hierarchy]!)
        }
    }

    /// How a store's fetch loop asks for the cached row of a row it reads (``passingRows(_:)``).
    struct Lookup {
        /// What ``byKey`` found.
        enum KeyResult {
            /// The current row, with the cache's own ID.
            case found(NSManagedObjectID, ObjectSnapshot)
            /// Not cached with that version.
            case absent
            /// The cache cannot tell without an ID (the row's store is not the one whose rows it indexes by key).
            case needsID
        }
        /// The cached row of an object ID if it has `version`, with the cache's own ID for it.
        let byID: (NSManagedObjectID, Int64) -> (NSManagedObjectID, ObjectSnapshot)?
        /// The same for a row known by its hierarchy (the root entity's identity), store identifier and primary
        /// key: no ID is made to look it up.
        let byKey: (_ hierarchy: ObjectIdentifier, _ store: String, _ primaryKey: Int64, _ version: Int64) -> KeyResult

        /// Finds nothing (no cache).
        static var none: Lookup { Lookup(byID: { _, _ in nil }, byKey: { _, _, _, _ in .absent }) }
    }

    /// How many keys ahead of a scan in key order ``passingRows(_:)`` asks for rows.
    static let prefetchDistance: Int64 = 8

    /// ``passingRows(_:)`` of `cache`; without a cache, no row is found and none recorded.
    static func passingRows<R>(through cache: RowCache?, _ body: (_ cachedRow: Lookup, _ record: (NSManagedObjectID, ObjectSnapshot) -> Void) throws -> R) rethrows -> R {
        guard let cache else { return try body(.none, { _, _ in }) }
        return try cache.passingRows(body)
    }

    /// Runs `body` (a store's fetch loop) with the cache locked, so that the rows pass through it as they are read,
    /// one hash look-up each: `cachedRow` hands out the current cached row of an object ID, with the cache's own
    /// equal ID, when it has the stored version (and marks it as read: a row the store already delivered is not
    /// decoded again), `record` keeps a row the store decoded, as ``store(_:)`` would.
    func passingRows<R>(_ body: (_ cachedRow: Lookup, _ record: (NSManagedObjectID, ObjectSnapshot) -> Void) throws -> R) rethrows -> R {
        let now = ReadTime.now
        return try state.withLock { state in
            let generation = state.generation
            // The current hierarchy's rows, out of `state` while the loop works on them.
            let current = CurrentRows()
            func switchTo(_ rowHierarchy: ObjectIdentifier) {
                guard rowHierarchy != current.hierarchy else { return }
                if let hierarchy = current.hierarchy { state.rows[hierarchy] = current.rows }
                current.hierarchy = rowHierarchy
                current.rows = state.takeRows(of: rowHierarchy)
            }
            defer { if let hierarchy = current.hierarchy { state.rows[hierarchy] = current.rows } }
            // One in-place access to the entry (reading it through the subscript copied it, arrays retained).
            func markRead(_ entry: inout Entry, version: Int64) -> (NSManagedObjectID, ObjectSnapshot)? {
                guard entry.snapshot.version == version else { return nil }
                entry.fetched = now
                return (entry.objectID, entry.snapshot)
            }
            func byID(_ objectID: NSManagedObjectID, _ version: Int64) -> (NSManagedObjectID, ObjectSnapshot)? {
                switchTo(Self.hierarchy(of: objectID))
                return current.rows.withEntry(for: objectID) { markRead(&$0, version: version) }
            }
            func byKey(_ rowHierarchy: ObjectIdentifier, _ store: String, _ primaryKey: Int64, _ version: Int64) -> Lookup.KeyResult {
                switchTo(rowHierarchy)
                // Rows read in key order (a table scan): ask for the row a few keys ahead.
                if primaryKey == current.lastKey &+ 1 { current.rows.prefetch(store: store, primaryKey: primaryKey &+ Self.prefetchDistance) }
                current.lastKey = primaryKey
                if let found = current.rows.withEntry(store: store, primaryKey: primaryKey, { markRead(&$0, version: version) }) {
                    return .found(found.0, found.1)
                }
                return current.rows.isPaged(store: store, primaryKey: primaryKey) ? .absent : .needsID
            }
            func record(_ objectID: NSManagedObjectID, _ snapshot: ObjectSnapshot) {
                switchTo(Self.hierarchy(of: objectID))
                current.rows.withSlot(for: objectID) { Self.record(snapshot, of: objectID, in: &$0, now: now, generation: generation) }
            }
            // The lookup lives only as long as `body` (its closures work on this locked state).
            return try withoutActuallyEscaping(byID) { byID in
                try withoutActuallyEscaping(byKey) { byKey in try body(Lookup(byID: byID, byKey: byKey), record) }
            }
        }
    }

    /// The hierarchy a pass of rows works on, and its rows (taken out of the cache's state meanwhile). A class with
    /// unchecked fields: as local variables captured by the pass's look-ups, each row paid two run-time exclusivity
    /// checks. Only the pass's own look-ups use it, under the cache's lock, one at a time; `withEntry`'s closures
    /// change only the entry they are given.
    private final class CurrentRows {
        @exclusivity(unchecked) var hierarchy: ObjectIdentifier?
        @exclusivity(unchecked) var rows = RowTable()
        /// The primary key `byKey` looked up last (a scan in key order asks for rows ahead).
        @exclusivity(unchecked) var lastKey: Int64 = -2
    }

    /// Keeps a row read from a store in its cache slot: a newer cached row stays; one of the same version is
    /// replaced (only SQLite's versions identify a row's content), unless it is the cached row itself, reused by
    /// the store: that one is only marked as read.
    private static func record(_ snapshot: ObjectSnapshot, of objectID: NSManagedObjectID, in entry: inout Entry?, now: ReadTime, generation: UInt64) {
        if let version = entry?.snapshot.version, version >= snapshot.version {
            if version > snapshot.version { return }
            if entry!.snapshot.sharesValues(with: snapshot) {
                entry!.fetched = now
                return
            }
        }
        entry = Entry(objectID: entry?.objectID ?? objectID, snapshot: snapshot, fetched: now, generation: generation)
    }

    /// Records rows a fetch or fault produced (a newer version replaces an older one).
    func store(_ snapshot: ObjectSnapshot, for objectID: NSManagedObjectID) {
        store(CollectionOfOne((objectID, snapshot)))
    }

    /// Records a row read from a store and returns it: `store.snapshot(for: id).map(rowCache.recorded(for: id))`, for
    /// callers that read the row under the coordinator's lock and must record it before releasing the lock.
    func recorded(for objectID: NSManagedObjectID) -> (ObjectSnapshot) -> ObjectSnapshot {
        { snapshot in
            self.store(snapshot, for: objectID)
            return snapshot
        }
    }

    /// Records the rows a fetch produced, under one lock (a newer version replaces an older one).
    func store(_ snapshots: some Sequence<(NSManagedObjectID, ObjectSnapshot)>) {
        let now = ReadTime.now
        state.withLock { state in
            let generation = state.generation
            state.update(snapshots) { entry, objectID, snapshot in
                Self.record(snapshot, of: objectID, in: &entry, now: now, generation: generation)
            }
        }
    }

    /// Records the rows a save wrote and forgets the deleted ones.
    func apply(saved: [(NSManagedObjectID, ObjectSnapshot)], deleted: [NSManagedObjectID]) {
        let now = ReadTime.now
        state.withLock { state in
            let generation = state.generation
            state.update(saved) { entry, objectID, snapshot in
                entry = Entry(objectID: entry?.objectID ?? objectID, snapshot: snapshot, fetched: now, generation: generation)
            }
            state.remove(deleted)
        }
    }

    /// The cache's own IDs for those of `objectIDs` whose rows it holds under an ID of the same entity; the others as
    /// they are. Objects made for them then share one ID with the cache, as fetched objects do (an equal ID of
    /// their own costs about 100 bytes per object, and is freed with it).
    func sharedIDs(_ objectIDs: [NSManagedObjectID]) -> [NSManagedObjectID] {
        guard !objectIDs.isEmpty else { return objectIDs }
        return state.withLock { state in
            var result = objectIDs
            for index in result.indices {
                let objectID = result[index]
                guard let cached = state.rows[Self.hierarchy(of: objectID)]?.withEntry(for: objectID, { $0.objectID }),
                      cached !== objectID, cached.entity === objectID.entity
                else { continue }
                result[index] = cached
            }
            return result
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
            state.rows.reduce(0) { total, hierarchy in total + hierarchy.value.count { state.isCurrent($0.generation, in: hierarchy.key) } }
        }
    }
}

// MARK: Internal checks

extension RowCache {
    /// Checks the cached rows of `objectIDs` and stops the program at the first inconsistency (``InternalChecks``):
    /// a row is kept in its hierarchy's table under its own ID, has a permanent ID, as many values as its entity (or
    /// a sub-entity: an ID may name a super-entity of the row's) has attributes and to-one relationships, and a
    /// generation no later than the cache's.
    func _checkInvariants(of objectIDs: [NSManagedObjectID]) {
        guard !objectIDs.isEmpty else { return }
        state.withLock { state in
            for objectID in objectIDs {
                guard let entry = state.rows[objectID.rootEntityIdentity]?[objectID] else { continue }
                precondition(entry.objectID == objectID, "Internal check: the row cache keeps \(entry.objectID) under \(objectID)")
                precondition(!entry.objectID.isTemporaryID, "Internal check: the row cache holds a temporary ID (\(objectID))")
                func fits(_ entity: NSEntityDescription) -> Bool {
                    let layout = entity.layout
                    return (entry.snapshot.attributes.count == layout.attributes.count && entry.snapshot.toOne.count == layout.toOneRelationships.count)
                        || entity.subentities.contains(where: fits)
                }
                precondition(fits(objectID.entity),
                             "Internal check: row \(objectID) has \(entry.snapshot.attributes.count) values and \(entry.snapshot.toOne.count) to-ones, which no layout of its entity or its sub-entities has")
                precondition(entry.generation <= state.generation, "Internal check: row \(objectID) is of a later generation than the cache")
            }
        }
    }
}
