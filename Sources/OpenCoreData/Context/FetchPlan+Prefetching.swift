/// Batched faulting (`fetchBatchSize`) and relationship prefetching (`relationshipKeyPathsForPrefetching`): the
/// two fetch options that trade one query per object for one query per batch or per key path.
extension FetchPlan {
    /// Whether the result is built as faults that load a batch at a time.
    var isBatched: Bool {
        fetchBatchSize > 0 && resultType == .managedObjectResultType && includesPropertyValues
    }

    /// Groups the fetched faults into batches of `fetchBatchSize`: firing any one of them loads its whole batch
    /// with one query (a Swift array cannot itself be lazy, so the array holds cheap faults).
    func registerFaultBatches(_ objects: [NSManagedObject]) {
        let faults = objects.filter(\._isFault)
        for start in stride(from: 0, to: faults.count, by: fetchBatchSize) {
            let batch = FaultBatch(ids: faults[start..<min(start + fetchBatchSize, faults.count)].map(\.objectID))
            for objectID in batch.ids { context.faultBatches[objectID] = batch }
        }
    }

    /// Loads, for every key path (`"country"`, `"country.continent"`, `"tags"`), the destinations of the
    /// fetched objects with one store call per relationship step: to-one destinations' rows by key, to-many
    /// members with their rows, installed as realized relationships.
    func prefetch(_ objects: [NSManagedObject]) throws {
        for keyPath in relationshipKeyPathsForPrefetching {
            var level = objects.filter { !$0._isDeleted }
            let names = keyPath.split(separator: ".").map(String.init)
            for (step, name) in names.enumerated() {
                guard !level.isEmpty else { break }
                level = try prefetchStep(name, of: level, collectingReached: step < names.count - 1)
            }
        }
    }

    /// One relationship step of a prefetch; returns the objects reached when `collect` (a step follows), else none
    /// (the last step's destinations are realized, not listed: listing and deduplicating 100,000 members was a
    /// tenth of a to-many prefetch).
    private func prefetchStep(_ name: String, of sources: [NSManagedObject], collectingReached collect: Bool) throws -> [NSManagedObject] {
        var reached: [NSManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        // Sources may be of several entities (sub-entities): group by the relationship description they share.
        for source in sources where source._isFault { loadFromCacheOrBatch(source) }
        let byRelationship = Dictionary(grouping: sources) { source -> ObjectIdentifier? in
            (source.entity.propertiesByName[name] as? NSRelationshipDescription).map(ObjectIdentifier.init)
        }
        for (key, group) in byRelationship {
            guard key != nil, let relationship = group[0].entity.propertiesByName[name] as? NSRelationshipDescription else { continue }
            let destinations = relationship.isToMany ? try prefetchToMany(relationship, of: group, collectingReached: collect)
                : try prefetchToOne(relationship, of: group)
            guard collect else { continue }
            for object in destinations where seen.insert(ObjectIdentifier(object)).inserted { reached.append(object) }
        }
        return reached
    }

    /// To-one: the destinations' rows, read by key in one query per store, then realized from the row cache.
    private func prefetchToOne(_ relationship: NSRelationshipDescription, of sources: [NSManagedObject]) throws -> [NSManagedObject] {
        guard case .toOne(let slot, _)? = sources[0].layout.slots[relationship.name] else { return [] }
        var destinationIDs: [NSManagedObjectID] = []
        var destinations: [NSManagedObject] = []
        for source in sources where !source._isFault {
            switch source.toOneValues[slot] {
            case .id(let objectID): destinationIDs.append(objectID)
            case .object(let object): destinations.append(object)
            case .none: break
            }
        }
        let rowCache = context.readRowCache(coordinator)   // a pinned query generation's own cache
        let missing = destinationIDs.filter { rowCache.snapshot(for: $0, maximumAge: context._stalenessInterval) == nil }
        try loadRows(Array(Set(missing)))
        destinations += destinationIDs.map { context.object(with: $0) }
        for object in destinations where object._isFault { loadFromCacheOrBatch(object) }
        return destinations
    }

    /// To-many: every source's members (and their rows) in one query per store, installed as each unchanged
    /// source's realized relationship; the members are realized. Returns them all when `collect`.
    private func prefetchToMany(_ relationship: NSRelationshipDescription, of sources: [NSManagedObject],
                                collectingReached collect: Bool) throws -> [NSManagedObject] {
        guard case .toMany(let slot, _)? = sources[0].layout.slots[relationship.name] else { return [] }
        var reached: [NSManagedObject] = []
        // Relationships already realized (an earlier key path, or changed in the context) are used as they are.
        var pending: [NSManagedObject] = []
        for source in sources where !source._isFault {
            if case .fault = source.toManyValues[slot], !source._isInserted {
                pending.append(source)
            } else {
                let members = source.realizedMembers(at: slot).objects
                for member in members where member._isFault { loadFromCacheOrBatch(member) }
                if collect { reached += members }
            }
        }
        let byStore = Dictionary(grouping: pending) { source in
            coordinator.store(for: source.objectID).map(ObjectIdentifier.init)
        }
        for (key, group) in byStore {
            guard key != nil, let store = coordinator.store(for: group[0].objectID) else { continue }
            // A store removed meanwhile (another thread) has no members to prefetch.
            guard var members = try coordinator.prefetchMembers(of: group.map(\.objectID), in: store, through: relationship,
                                                                for: context.storeReadContext, recordingIn: context.readRowCache(coordinator))
            else { continue }
            let count = members.reduce(0) { $0 + $1.count }
            if collect { reached.reserveCapacity(reached.count + count) }
            for (position, source) in group.enumerated() {
                // The source's members taken out of the list, so that each row moves into its object (a copy
                // retained the row's arrays, and freeing the list released them again).
                var sourceMembers = members[position]
                members[position] = []
                var objects: [NSManagedObject] = []
                objects.reserveCapacity(sourceMembers.count)
                for index in sourceMembers.indices {
                    let object = context.registeredObjectOrFault(for: sourceMembers[index].objectID)
                    if object._isFault {
                        // Realized from the row just read (as firing the fault would, without a cache look-up), or
                        // from the cache when the store left a cached row out.
                        if let snapshot = sourceMembers[index].snapshot.take() { context.realize(object, with: snapshot) } else { loadFromCacheOrBatch(object) }
                    }
                    objects.append(object)
                }
                if collect { reached += objects }
                // An unchanged relationship fault becomes the prefetched members; a changed one keeps its changes.
                if case .fault = source.toManyValues[slot] {
                    source.committedToMany[slot] = sourceMembers.map(\.objectID)
                    source.toManyValues[slot] = .members(RelationshipMembers(ordered: relationship.isOrdered, members: objects))
                }
            }
        }
        return reached
    }

    /// Reads rows into the row cache with one call per store.
    private func loadRows(_ objectIDs: [NSManagedObjectID]) throws {
        guard !objectIDs.isEmpty else { return }
        try coordinator.readSnapshots(of: objectIDs, for: context.storeReadContext, recordingIn: context.readRowCache(coordinator))
    }

    /// Realizes a fault whose row is cached (or in a pending batch); a fault whose row is gone stays a fault.
    private func loadFromCacheOrBatch(_ object: NSManagedObject) {
        _ = try? context.loadValues(into: object, failIfMissing: false)
    }
}

/// The object IDs of one batch of a batched fetch: firing any of them loads them all.
final class FaultBatch {
    var ids: [NSManagedObjectID]
    init(ids: [NSManagedObjectID]) { self.ids = ids }
}
