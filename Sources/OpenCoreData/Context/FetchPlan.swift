/// How a context runs one fetch request: ask the stores, then merge the context's unsaved changes (when
/// `includesPendingChanges`), sort and limit in memory if the merge changed anything, and build the results in
/// the requested form.
struct FetchPlan {
    let context: NSManagedObjectContext
    let coordinator: NSPersistentStoreCoordinator
    let entity: NSEntityDescription
    let predicate: NSPredicate?
    let sortDescriptors: [NSSortDescriptor]
    let fetchLimit: Int
    let fetchOffset: Int
    let includesSubentities: Bool
    let includesPendingChanges: Bool
    let returnsObjectsAsFaults: Bool
    let includesPropertyValues: Bool
    let shouldRefreshRefetchedObjects: Bool
    let resultType: NSFetchRequestResultType
    let propertiesToFetch: [Any]?
    let returnsDistinctResults: Bool
    let fetchBatchSize: Int
    let relationshipKeyPathsForPrefetching: [String]
    let propertiesToGroupBy: [Any]?
    let havingPredicate: NSPredicate?
    let affectedStores: [NSPersistentStore]?

    init<T>(request: NSFetchRequest<T>, context: NSManagedObjectContext) throws {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The context has no persistent store coordinator, so it cannot fetch.")
        }
        let model = coordinator.managedObjectModel
        guard let entity = request.entity.flatMap({ $0.owningModel === model ? $0 : model.entitiesByName[$0.name ?? ""] })
            ?? request.entityName.flatMap({ model.entitiesByName[$0] })
        else {
            throw CoreDataError.make(NSCoreDataError, "The fetch request has no entity, or its entity '\(request.entityName ?? "")' is not in the coordinator's model.")
        }
        self.context = context
        self.coordinator = coordinator
        self.entity = entity
        predicate = try request.predicate.map(PredicateRewriting.evaluatingFetchRequestExpressions)
        sortDescriptors = request.sortDescriptors ?? []
        fetchLimit = max(0, request.fetchLimit)
        fetchOffset = max(0, request.fetchOffset)
        includesSubentities = request.includesSubentities
        includesPendingChanges = request.includesPendingChanges
        returnsObjectsAsFaults = request.returnsObjectsAsFaults
        includesPropertyValues = request.includesPropertyValues
        shouldRefreshRefetchedObjects = request.shouldRefreshRefetchedObjects
        resultType = request.resultType
        propertiesToFetch = request.propertiesToFetch
        returnsDistinctResults = request.returnsDistinctResults
        fetchBatchSize = max(0, request.fetchBatchSize)
        relationshipKeyPathsForPrefetching = request.relationshipKeyPathsForPrefetching ?? []
        propertiesToGroupBy = request.propertiesToGroupBy
        havingPredicate = request.havingPredicate
        affectedStores = request.affectedStores
        try FetchKeyPathValidation.validate(predicate: predicate, sortDescriptors: sortDescriptors, entity: entity)
    }

    /// Whether an object belongs to the fetched entity.
    func matchesEntity(_ object: NSManagedObject) -> Bool {
        includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
    }

    /// The context's changed objects that may affect the result.
    func pendingObjects() -> (changed: [NSManagedObject], deleted: Set<NSManagedObject>) {
        guard includesPendingChanges else { return ([], []) }
        context.processPendingChangesInternal()
        var changed = (context.insertedSet.array + context.updatedSet.array).filter { !$0._isDeleted && matchesEntity($0) }
        if let affectedStores {
            changed = changed.filter { object in
                let store = context.destinationStore(for: object, coordinator)
                return affectedStores.contains { $0 === store }
            }
        }
        let deleted = Set(context.deletedSet.array.filter { matchesEntity($0) })
        return (changed, deleted)
    }

    /// Whether the stores' rows alone answer the fetch: the context has no parent (whose unsaved changes would count)
    /// and no unsaved change that may affect the result.
    func storesAnswerAlone() -> Bool {
        guard context._parent == nil else { return false }
        let (changed, deleted) = pendingObjects()
        return changed.isEmpty && deleted.isEmpty
    }

    /// The predicate a store evaluates: managed objects replaced by their IDs.
    var storePredicate: NSPredicate? {
        predicate.map { PredicateRewriting.rewrite($0) { ($0 as? NSManagedObject)?.objectID ?? $0 } }
    }

    /// The predicate evaluated on managed objects in memory: object IDs replaced by the context's objects.
    private var memoryPredicate: NSPredicate? {
        predicate.map { predicate in
            PredicateRewriting.rewrite(predicate) { value in
                if let objectID = value as? NSManagedObjectID { return context.object(with: objectID) }
                return value
            }
        }
    }

    /// Fetches from the stores.
    private func storeResults(limitInStore: Bool, countOnly: Bool) throws -> FetchedRows {
        if let parent = context._parent {
            // A child fetches through its parent, whose unsaved changes count; rows come as faults that fire there.
            let (entity, predicate, sortDescriptors, includesSubentities) = (self.entity, storePredicate, self.sortDescriptors, self.includesSubentities)
            let (limit, offset) = limitInStore ? (fetchLimit, fetchOffset) : (0, 0)
            let affectedStores = self.affectedStores
            let ids = try parent.performAndWait {
                try parent.objectIDsForChild(entity: entity, predicate: predicate, sortDescriptors: sortDescriptors,
                                             includesSubentities: includesSubentities, fetchLimit: limit, fetchOffset: offset,
                                             affectedStores: affectedStores)
            }
            return FetchedRows(objectIDs: ids, snapshots: nil)
        }
        let request = StoreFetchRequest(
            entity: entity, includesSubentities: includesSubentities, predicate: storePredicate, sortDescriptors: sortDescriptors,
            fetchLimit: limitInStore ? fetchLimit : 0, fetchOffset: limitInStore ? fetchOffset : 0,
            wantsSnapshots: !countOnly && includesPropertyValues && !isBatched, countOnly: false,
            reusableRows: context.readRowCache(coordinator))
        var rows: FetchedRows?
        for store in stores() {
            let result = try fetch(request, from: store)
            guard var combined = rows else {
                // One store: its arrays as they are.
                rows = FetchedRows(objectIDs: result.objectIDs, snapshots: result.snapshots, notInRowCache: result.rowsNotInRowCache)
                continue
            }
            combined.notInRowCache = combined.notInRowCache || result.rowsNotInRowCache
            combined.objectIDs += result.objectIDs
            if let snapshots = result.snapshots, combined.snapshots != nil { combined.snapshots! += snapshots } else { combined.snapshots = nil }
            rows = combined
        }
        return rows ?? FetchedRows(objectIDs: [], snapshots: nil)
    }

    /// Runs a store fetch through the coordinator, for this plan's context.
    private func fetch(_ request: StoreFetchRequest, from store: FetchingStore) throws -> StoreFetchResult {
        try coordinator.fetch(request, from: store, for: context.storeReadContext)
    }

    /// The stores that hold the entity (of the request's `affectedStores`, when it names some).
    func stores() -> [FetchingStore] {
        let model = coordinator.managedObjectModel
        let candidates = affectedStores.map { affected in coordinator.persistentStores.filter { store in affected.contains { $0 === store } } }
            ?? coordinator.persistentStores
        return candidates.compactMap { $0 as? FetchingStore }.filter { store in
            let members = model.entities(forConfigurationName: store.configurationName) ?? []
            return members.contains { $0 === entity || entity.isKindOf(entity: $0) || $0.isKindOf(entity: entity) }
        }
    }

    /// The matching objects, in order, limited. With `realizing`, objects that are faults take the values the
    /// fetch read (as firing them would, without a second look-up in the row cache), or are fired when the store
    /// returned no values.
    func matchingObjects(limited: Bool = true, realizing: Bool = false) throws -> [NSManagedObject] {
        let (changed, deleted) = pendingObjects()
        let merging = !changed.isEmpty || !deleted.isEmpty
        let multipleStores = stores().count > 1
        var rows = try storeResults(limitInStore: limited && !merging && !multipleStores, countOnly: false)
        let inMemoryPredicate = merging ? memoryPredicate : nil
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(rows.objectIDs.count)
        // One store's rows are distinct objects; only merged or multi-store results need de-duplicating.
        let deduplicating = merging || multipleStores || context._parent != nil || !context.replacedTemporaryIDs.isEmpty
        var included = Set<ObjectIdentifier>()
        // The rows, taken out of the result so that each moves into its object (a copy retained a row's arrays, and
        // freeing the result released them again).
        var snapshots = rows.snapshots.take()
        for (index, objectID) in rows.objectIDs.enumerated() {
            var snapshot = snapshots == nil ? nil : ObjectSnapshot.take(&snapshots![index])
            let object = context.registeredObjectOrFault(for: objectID)
            if realizing || rows.notInRowCache, object._isFault, let row = snapshot.take() { context.realize(object, with: row) }
            if !deleted.isEmpty, deleted.contains(object) { continue }
            if merging, object.hasChanges, !object._isFault {
                guard try matchesInMemory(object, inMemoryPredicate) else { continue }
            }
            if shouldRefreshRefetchedObjects, !object._isFault, !object.hasChanges, let row = snapshot.take() {
                object.applyKeepingTransients(row)
                context.eventChanges.refreshed.insert(object)
            }
            if !deduplicating || included.insert(ObjectIdentifier(object)).inserted {
                // A row the store returned without its values (a fault) is read now.
                if realizing, object._isFault { context.fireFault(object) }
                objects.append(object)
            }
        }
        if merging {
            for object in changed where !included.contains(ObjectIdentifier(object)) {
                if try matchesInMemory(object, inMemoryPredicate) {
                    included.insert(ObjectIdentifier(object))
                    objects.append(object)
                }
            }
        }
        if merging || multipleStores {
            if !sortDescriptors.isEmpty { objects = try sortInMemory(objects) }
            if limited && fetchOffset > 0 { objects = Array(objects.dropFirst(fetchOffset)) }
            if limited && fetchLimit > 0 { objects = Array(objects.prefix(fetchLimit)) }
        }
        return objects
    }

    private func matchesInMemory(_ object: NSManagedObject, _ predicate: NSPredicate?) throws -> Bool {
        guard let predicate else { return true }
        return try predicate.evaluateThrowing(with: object)
    }

    private func sortInMemory(_ objects: [NSManagedObject]) throws -> [NSManagedObject] {
        try NSSortDescriptor.sorted(objects, using: sortDescriptors)
    }

    /// The results in the requested form.
    func results() throws -> [Any] {
        if resultType.contains(.countResultType) { return [NSNumber(value: try count())] }
        if resultType.contains(.dictionaryResultType) { return try dictionaryResults() }
        if resultType.contains(.managedObjectIDResultType) { return try matchingObjects(realizing: false).map(\.objectID) }
        return try objectResults()
    }

    /// The managed objects of a request whose result type is `.managedObjectResultType`: faults or realized,
    /// batched and prefetched as the request says.
    func objectResults() throws -> [NSManagedObject] {
        let realizing = !isBatched && !returnsObjectsAsFaults && includesPropertyValues
        let objects = try matchingObjects(realizing: realizing)
        if isBatched { registerFaultBatches(objects) }
        if !relationshipKeyPathsForPrefetching.isEmpty { try prefetch(objects) }
        return objects
    }

    /// The number of matching objects.
    func count() throws -> Int {
        guard storesAnswerAlone() else { return try matchingObjects().count }
        // Nothing unsaved can change the answer: the stores count, no objects are made.
        let stores = self.stores()
        let single = stores.count == 1
        let request = StoreFetchRequest(
            entity: entity, includesSubentities: includesSubentities, predicate: storePredicate, sortDescriptors: [],
            fetchLimit: single ? fetchLimit : 0, fetchOffset: single ? fetchOffset : 0, wantsSnapshots: false, countOnly: true)
        var total = 0
        for store in stores { total += try fetch(request, from: store).count }
        if single { return total }
        let afterOffset = max(0, total - fetchOffset)
        return fetchLimit > 0 ? min(afterOffset, fetchLimit) : afterOffset
    }
}

/// The rows of a fetch from the stores: object IDs in order, with their rows when every store returned them.
struct FetchedRows {
    var objectIDs: [NSManagedObjectID]
    var snapshots: [ObjectSnapshot]?
    /// Whether some rows are in no row cache (``StoreFetchResult/rowsNotInRowCache``): faults take them at once.
    var notInRowCache = false
}
