/// How the coordinator talks to an `NSAtomicStore`: its internal snapshot contract answered from the cache nodes,
/// saves translated into Apple's atomic-store calls (`newCacheNode(for:)`, `updateCacheNode(_:from:)`,
/// `willRemoveCacheNodes(_:)`, then `save()`), with optimistic locking and uniqueness constraints checked here, so a
/// subclass only reads and writes its file. A save that fails (a conflict, a constraint, or `save()` throwing) leaves
/// the nodes as they were.
extension NSAtomicStore: FetchingStore {
    func load(model: NSManagedObjectModel) throws {
        self.model = model
        removeAllCacheNodes()
        try load()
        var metadata = self.metadata ?? [:]
        if metadata[NSStoreTypeKey] == nil { metadata[NSStoreTypeKey] = type }
        if metadata[NSStoreUUIDKey] == nil { metadata[NSStoreUUIDKey] = UUID().uuidString }
        if metadata[NSStoreModelVersionHashesKey] == nil {
            metadata[NSStoreModelVersionHashesKey] = model.entityVersionHashesByName
            metadata[NSStoreModelVersionIdentifiersKey] = Array(model.versionIdentifiers.compactMap { $0.base as? String })
        } else {
            let configuration = configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : configurationName
            if !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) {
                throw CoreDataError.make(
                    NSPersistentStoreIncompatibleVersionHashError,
                    "The model used to open the store is incompatible with the one used to create the store",
                    userInfo: ["metadata": metadata, NSFilePathErrorKey: url?.path ?? ""])
            }
        }
        self.metadata = metadata
        try didLoad()
    }

    func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        throw CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) hands out IDs for managed objects only (newReferenceObject(for:))")
    }

    func newObjectIDs(for objects: [NSManagedObject]) throws -> [NSManagedObjectID] {
        objects.map { objectID(for: $0.entity, withReferenceObject: newReferenceObject(for: $0)) }
    }

    /// A numeric reference object read back from a URI (`…/p42`) is an `Int`.
    func objectID(for entity: NSEntityDescription, primaryKey: Int64) -> NSManagedObjectID {
        objectID(for: entity, withReferenceObject: Int(primaryKey))
    }

    // MARK: Reading

    func snapshot(for objectID: NSManagedObjectID, requestContext: StoreRequestContext) throws -> ObjectSnapshot? {
        if let cached = snapshotCache[objectID] { return cached }
        guard let node = nodesByID[objectID] else { return nil }
        let layout = objectID.entity.layout
        var snapshot = layout.emptySnapshot()
        for (slot, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            let value = node.value(forKey: attribute.name)
            if attribute.attributeType == .transformableAttributeType {
                snapshot.attributes[slot] = TransformableValues.storedValue(from: value, attribute: attribute)
            } else {
                snapshot.attributes[slot] = ValueConversion.storedValue(fromKVC: value, for: attribute) ?? .null
            }
        }
        for (slot, relationship) in layout.toOneRelationships.enumerated() where !relationship.isTransient {
            snapshot.toOne[slot] = Self.objectID(of: node.value(forKey: relationship.name))
        }
        snapshot.version = versions[objectID] ?? 1
        snapshotCache[objectID] = snapshot
        return snapshot
    }

    func relatedObjectIDs(of objectID: NSManagedObjectID, through relationship: NSRelationshipDescription, requestContext: StoreRequestContext) throws -> [NSManagedObjectID] {
        switch nodesByID[objectID]?.value(forKey: relationship.name) {
        case let ordered as NSOrderedSet: return ordered.array.compactMap(Self.objectID(of:))
        case let set as NSSet: return set.allObjects.compactMap(Self.objectID(of:)).sorted { order(of: $0) < order(of: $1) }
        case let array as [Any]: return array.compactMap(Self.objectID(of:))
        default: return []
        }
    }

    /// The object ID a node value refers to (a node, an object ID, or a managed object).
    private static func objectID(of value: Any?) -> NSManagedObjectID? {
        switch value {
        case let node as NSAtomicStoreCacheNode: return node.objectID
        case let objectID as NSManagedObjectID: return objectID
        case let object as NSManagedObject: return object.objectID
        default: return nil
        }
    }

    private func order(of objectID: NSManagedObjectID) -> Int { nodeOrder[objectID] ?? Int.max }

    /// Evaluates the fetch over the nodes with the predicate layer, as the in-memory store does over its rows.
    func fetch(_ request: StoreFetchRequest, requestContext: StoreRequestContext) throws -> StoreFetchResult {
        let views = RowViews(store: self, requestContext: requestContext)
        let predicate = request.predicate.map { predicate in
            PredicateRewriting.rewrite(predicate) { value in
                if let objectID = value as? NSManagedObjectID { return views.view(for: objectID) }
                return value
            }
        }
        var matches: [RowView] = []
        for objectID in nodesByID.keys.sorted(by: { order(of: $0) < order(of: $1) }) {
            let entity = objectID.entity
            guard request.includesSubentities ? entity.isKindOf(entity: request.entity) : entity === request.entity else { continue }
            let view = views.view(for: objectID)
            if let predicate, try !predicate.evaluateThrowing(with: view) { continue }
            matches.append(view)
        }
        matches = try NSSortDescriptor.sorted(matches, using: request.sortDescriptors)
        if request.fetchOffset > 0 { matches = Array(matches.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { matches = Array(matches.prefix(request.fetchLimit)) }
        var result = StoreFetchResult(objectIDs: matches.map(\.objectID), count: matches.count)
        if request.wantsSnapshots { result.snapshots = try matches.map { try snapshot(for: $0.objectID, requestContext: requestContext) ?? $0.objectID.entity.layout.emptySnapshot() } }
        return result
    }

    // MARK: Saving

    func save(_ changes: StoreSaveChanges, requestContext: StoreRequestContext) throws -> StoreSaveResult {
        try checkVersions(changes)
        guard let context = requestContext.asker as? NSManagedObjectContext else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "\(Swift.type(of: self)) can only save the objects of a context")
        }
        func object(_ objectID: NSManagedObjectID) throws -> NSManagedObject {
            guard let object = context.registeredObject(for: objectID) else {
                throw CoreDataError.make(NSPersistentStoreSaveError, "The object \(objectID) being saved is not registered in the saving context")
            }
            return object
        }
        // Everything needed to put the store back if the save fails.
        let previousNodes = nodesByID, previousOrder = nodeOrder, previousNextOrder = nextNodeOrder, previousVersions = versions
        var previousCaches: [(NSAtomicStoreCacheNode, NSMutableDictionary?)] = []
        do {
            let inserted = try changes.inserts.map { try newCacheNode(for: object($0.objectID)) }
            addCacheNodes(Set(inserted))
            for insert in changes.inserts { versions[insert.objectID] = 1 }
            for update in changes.updates {
                guard let node = nodesByID[update.objectID] else { continue }
                previousCaches.append((node, node.propertyCache?.mutableCopy() as? NSMutableDictionary))
                updateCacheNode(node, from: try object(update.objectID))
                versions[update.objectID] = update.expectedVersion + 1
                snapshotCache[update.objectID] = nil
            }
            let removed = Set(changes.deletes.compactMap { nodesByID[$0.objectID] })
            if !removed.isEmpty { willRemoveCacheNodes(removed) }
            for node in removed {
                nodesByID[node.objectID] = nil
                nodeOrder[node.objectID] = nil
                versions[node.objectID] = nil
                snapshotCache[node.objectID] = nil
            }
            try checkUniqueness(touched: changes.inserts.map(\.objectID) + changes.updates.map(\.objectID))
            // `save()` writes the whole store, metadata included (cleared first: metadata set meanwhile sets it again).
            let metadataWasPending = metadataNeedsWriting
            metadataNeedsWriting = false
            do { try save() } catch {
                if metadataWasPending { metadataNeedsWriting = true }
                throw error
            }
        } catch {
            nodesByID = previousNodes
            nodeOrder = previousOrder
            nextNodeOrder = previousNextOrder
            versions = previousVersions
            for (node, cache) in previousCaches { node.propertyCache = cache }
            snapshotCache = [:]
            throw error
        }
        return StoreSaveResult()
    }

    /// Writes the store, for its metadata alone (a context saved with no changes): an atomic store's `save()` writes
    /// everything, its metadata included.
    func saveMetadata() throws {
        guard metadataNeedsWriting, !isReadOnly else { return }
        metadataNeedsWriting = false   // before writing: metadata set meanwhile sets it again
        do { try save() } catch {
            metadataNeedsWriting = true
            throw error
        }
    }

    /// Optimistic locking: every updated or deleted object must still have the version the context saw.
    private func checkVersions(_ changes: StoreSaveChanges) throws {
        var conflicts: [StoreSaveConflicts.Conflict] = []
        for update in changes.updates where versions[update.objectID] != update.expectedVersion {
            conflicts.append(.init(objectID: update.objectID, expectedVersion: update.expectedVersion, persisted: try snapshot(for: update.objectID, requestContext: .unattributed)))
        }
        for delete in changes.deletes {
            if let current = versions[delete.objectID], current != delete.expectedVersion {
                conflicts.append(.init(objectID: delete.objectID, expectedVersion: delete.expectedVersion, persisted: try snapshot(for: delete.objectID, requestContext: .unattributed)))
            }
        }
        if !conflicts.isEmpty { throw StoreSaveConflicts(conflicts: conflicts) }
    }

    /// Uniqueness constraints, checked over the rows of the constrained entities as the in-memory store checks them.
    private func checkUniqueness(touched: [NSManagedObjectID]) throws {
        func constrained(_ entity: NSEntityDescription) -> Bool {
            var current: NSEntityDescription? = entity
            while let entity = current {
                if entity.uniquenessConstraintNames.contains(where: { !$0.isEmpty }) { return true }
                current = entity.superentity
            }
            return false
        }
        guard touched.contains(where: { constrained($0.entity) }) else { return }
        var rows: [NSManagedObjectID: InMemoryStore.Row] = [:]
        for objectID in nodesByID.keys where constrained(objectID.entity) {
            if let snapshot = try snapshot(for: objectID, requestContext: .unattributed) {
                rows[objectID] = InMemoryStore.Row(objectID: objectID, snapshot: snapshot, toMany: [:])
            }
        }
        try UniquenessChecker.check(touched, in: rows)
    }
}
