/// How the coordinator talks to a custom `NSIncrementalStore`: its internal snapshot contract translated into
/// Apple's incremental-store calls (managed objects, nodes and requests), with the context on whose behalf the
/// coordinator is working.
extension NSIncrementalStore: FetchingStore {
    /// The context a request is made for, as Apple's incremental-store calls take it (a request on behalf of no
    /// context gets a private one).
    private func requestingContext(_ requestContext: StoreRequestContext) -> NSManagedObjectContext {
        if let context = requestContext.asker as? NSManagedObjectContext { return context }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    func load(model: NSManagedObjectModel) throws {
        try loadMetadata()
        guard let metadata, metadata[NSStoreTypeKey] is String, metadata[NSStoreUUIDKey] is String else {
            throw CoreDataError.make(NSPersistentStoreOperationError,
                                     "\(Swift.type(of: self)).loadMetadata() must set metadata with NSStoreTypeKey and NSStoreUUIDKey")
        }
    }

    func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        throw CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) hands out permanent IDs through obtainPermanentIDs(for:) only")
    }

    func newObjectIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        try obtainPermanentIDs(for: objects)
    }

    /// A numeric reference object read back from a URI (`…/p42`) is an `Int`, as Apple's are `NSNumber`s.
    func objectID(for entity: NSEntityDescription, primaryKey: Int64) -> NSManagedObjectID {
        newObjectID(for: entity, referenceObject: Int(primaryKey))
    }

    func snapshot(for objectID: NSManagedObjectID, requestContext: StoreRequestContext) throws -> ObjectSnapshot? {
        let node: NSIncrementalStoreNode
        do {
            node = try newValuesForObject(with: objectID, with: requestingContext(requestContext))
        } catch let error as NSError where error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectReferentialIntegrityError {
            return nil   // Apple's way for a store to say the object no longer exists
        }
        let layout = objectID.entity.layout
        var snapshot = layout.emptySnapshot()
        for (slot, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            let value = node.value(for: attribute)
            if attribute.attributeType == .transformableAttributeType {
                snapshot.attributes[slot] = TransformableValues.storedValue(from: ValueConversion.isNull(value) ? nil : value, attribute: attribute)
            } else {
                snapshot.attributes[slot] = ValueConversion.storedValue(fromKVC: value, for: attribute) ?? .null
            }
        }
        for (slot, relationship) in layout.toOneRelationships.enumerated() where !relationship.isTransient {
            switch node.value(for: relationship) {
            case let id as NSManagedObjectID: snapshot.toOne[slot] = id
            case let object as NSManagedObject: snapshot.toOne[slot] = object.objectID
            default: snapshot.toOne[slot] = nil
            }
        }
        snapshot.version = Int64(truncatingIfNeeded: node.version)
        return snapshot
    }

    func relatedObjectIDs(of objectID: NSManagedObjectID, through relationship: NSRelationshipDescription, requestContext: StoreRequestContext) throws -> [NSManagedObjectID] {
        Self.objectIDs(in: try newValue(forRelationship: relationship, forObjectWith: objectID, with: requestingContext(requestContext)))
    }

    /// Saves through `execute(_:with:)` with an `NSSaveChangesRequest`. Optimistic locking is checked first against the
    /// versions of the store's nodes (`newValuesForObject(with:with:)`), so a store that bumps a node's version on
    /// every change gets Core Data's conflict detection and merge policies; afterwards the saved objects whose node
    /// version is not the one the context expects are reported, so the context reloads them.
    func save(_ changes: StoreSaveChanges, requestContext: StoreRequestContext) throws -> StoreSaveResult {
        var conflicts: [StoreSaveConflicts.Conflict] = []
        for update in changes.updates {
            let current = try snapshot(for: update.objectID, requestContext: requestContext)
            if current?.version != update.expectedVersion {
                conflicts.append(.init(objectID: update.objectID, expectedVersion: update.expectedVersion, persisted: current))
            }
        }
        for delete in changes.deletes {
            if let current = try snapshot(for: delete.objectID, requestContext: requestContext), current.version != delete.expectedVersion {
                conflicts.append(.init(objectID: delete.objectID, expectedVersion: delete.expectedVersion, persisted: current))
            }
        }
        if !conflicts.isEmpty { throw StoreSaveConflicts(conflicts: conflicts) }
        let context = requestingContext(requestContext)
        func objects(_ ids: [NSManagedObjectID]) -> Set<NSManagedObject>? {
            let found = Set(ids.compactMap { context.registeredObject(for: $0) })
            return found.isEmpty ? nil : found
        }
        let request = NSSaveChangesRequest(
            inserted: objects(changes.inserts.map(\.objectID)), updated: objects(changes.updates.map(\.objectID)),
            deleted: objects(changes.deletes.map(\.objectID)), locked: nil)
        let moved = (try execute(request, with: context) as? IncrementalStoreSaveResult)?.movedObjectIDs ?? [:]
        var changedByStore = Set<NSManagedObjectID>()
        for (objectID, expected) in changes.inserts.map({ (moved[$0.objectID] ?? $0.objectID, Int64(1)) })
            + changes.updates.map({ ($0.objectID, $0.expectedVersion + 1) }) {
            if let saved = try snapshot(for: objectID, requestContext: requestContext), saved.version != expected { changedByStore.insert(objectID) }
        }
        return StoreSaveResult(objectsChangedByStore: changedByStore, movedObjectIDs: moved)
    }

    func fetch(_ request: StoreFetchRequest, requestContext: StoreRequestContext) throws -> StoreFetchResult {
        let fetch = NSFetchRequest<NSFetchRequestResult>()
        fetch.entity = request.entity
        fetch.includesSubentities = request.includesSubentities
        // As Apple hands a store the fetch request it was given: constants are the context's objects, not IDs.
        let context = requestingContext(requestContext)
        fetch.predicate = request.predicate.map { predicate in
            PredicateRewriting.rewrite(predicate) { value in
                if let objectID = value as? NSManagedObjectID { return context.object(with: objectID) }
                return value
            }
        }
        fetch.sortDescriptors = request.sortDescriptors
        fetch.fetchLimit = request.fetchLimit
        fetch.fetchOffset = request.fetchOffset
        fetch.resultType = request.countOnly ? .countResultType : .managedObjectIDResultType
        let answer = try execute(fetch, with: context)
        if request.countOnly, let count = (answer as? [Any])?.first.flatMap({ ($0 as? NSNumber)?.intValue ?? ($0 as? Int) }) {
            return StoreFetchResult(objectIDs: [], snapshots: nil, count: count)
        }
        let ids = Self.objectIDs(in: answer)
        return StoreFetchResult(objectIDs: ids, snapshots: nil, count: ids.count)
    }

    /// The object IDs in what a custom store returned: IDs or objects, alone or in an array, set or ordered set.
    private static func objectIDs(in value: Any) -> [NSManagedObjectID] {
        func id(_ element: Any) -> NSManagedObjectID? {
            (element as? NSManagedObjectID) ?? (element as? NSManagedObject)?.objectID
        }
        switch value {
        case let single as NSManagedObjectID: return [single]
        case let object as NSManagedObject: return [object.objectID]
        case let array as [Any]: return array.compactMap(id)
        case let ordered as NSOrderedSet: return ordered.array.compactMap(id)
        case let array as NSArray: return array.compactMap(id)
        case let set as NSSet: return set.allObjects.compactMap(id)
        case let set as Set<NSManagedObjectID>: return Array(set)
        case let set as Set<NSManagedObject>: return set.map(\.objectID)
        default: return []
        }
    }
}
