/// Several stores behind one coordinator, as the context sees them: choosing the store of a new object whose
/// entity is in more than one store (`assign(_:to:)`), and refusing relationships between objects of different
/// stores when saving.
extension NSManagedObjectContext {
    /// Puts a newly inserted object into `store` (when its entity is in several of the coordinator's stores, an
    /// unassigned object goes to the first one). The object must not have been saved yet, and the store's
    /// configuration must hold its entity.
    ///
    /// For example:
    /// ```swift
    /// let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
    /// context.assign(note, to: archiveStore)
    /// try context.save()   // note.objectID.persistentStore === archiveStore
    /// ```
    public func assign(_ object: Any, to store: NSPersistentStore) {
        checkConfinement()
        guard let object = object as? NSManagedObject else {
            preconditionFailure("assign(_:to:) takes a managed object, not \(ValueConversion.typeName(object))")
        }
        precondition(object.managedObjectContext === self, "assign(_:to:): the object \(object.objectID) is not in this context")
        guard object.objectID.isTemporaryID else {
            precondition(object.objectID.persistentStore === store || object.objectID.storeIdentifier == store.identifier,
                         "Can't reassign an object to a different store once it has been saved (\(object.objectID))")
            return
        }
        guard let coordinator = persistentStoreCoordinator, coordinator.persistentStores.contains(where: { $0 === store }) else {
            preconditionFailure("assign(_:to:): the store \(store) is not a store of this context's coordinator")
        }
        precondition(coordinator.configuration(of: store, holds: object.entity),
                     "assign(_:to:): the store's configuration '\(store.configurationName)' does not hold the entity \(object.entity.name ?? "?")")
        storeAssignments[object.objectID] = store
    }

    /// The store a new object will be saved to: the one it was assigned to, else the first that holds its entity.
    func destinationStore(for object: NSManagedObject, _ coordinator: NSPersistentStoreCoordinator) -> SnapshotStore? {
        var stores = DestinationStores(context: self, coordinator: coordinator)
        return stores.store(for: object)
    }

    /// Tells custom incremental stores that this context registered objects of theirs (only IDs made from reference
    /// objects can belong to one, so other IDs cost nothing).
    func noteRegistered(_ objectIDs: [NSManagedObjectID]) {
        notifyIncrementalStores(objectIDs) { $0.managedObjectContextDidRegisterObjects(with: $1) }
    }

    /// Follows objects that left the registry: they leave their fault batches, and custom incremental stores learn
    /// that this context no longer has objects of theirs.
    func noteUnregistered(_ objectIDs: [NSManagedObjectID]) {
        leaveFaultBatches(objectIDs)
        notifyIncrementalStores(objectIDs) { $0.managedObjectContextDidUnregisterObjects(with: $1) }
    }

    /// (Nothing to do unless the coordinator has an incremental store.)
    private func notifyIncrementalStores(_ objectIDs: [NSManagedObjectID], _ call: (NSIncrementalStore, [NSManagedObjectID]) -> Void) {
        guard let coordinator = persistentStoreCoordinator, coordinator.persistentStores.contains(where: { $0 is NSIncrementalStore }) else { return }
        var byStore: [ObjectIdentifier: (NSIncrementalStore, [NSManagedObjectID])] = [:]
        for objectID in objectIDs {
            guard case .reference = objectID.key, let store = objectID.persistentStore as? NSIncrementalStore else { continue }
            byStore[ObjectIdentifier(store), default: (store, [])].1.append(objectID)
        }
        guard !byStore.isEmpty else { return }
        coordinator.withLock {
            for (store, ids) in byStore.values { call(store, ids) }
        }
    }

    /// Core Data keeps no relationship across stores: a save whose objects (with permanent IDs by now) refer to an
    /// object of another store fails with `NSPersistentStoreIncompatibleSchemaError` (134020), as Apple's does, with
    /// the underlying reason "CoreData does not support persistent cross-store relationships".
    ///
    /// Stores are compared by identifier (an ID made by another coordinator on the same file names the same store),
    /// and a coordinator with one store skips the check.
    func refuseCrossStoreRelationships(_ objects: [NSManagedObject]) throws {
        guard let coordinator = persistentStoreCoordinator, coordinator.persistentStores.count > 1 else { return }
        func store(_ object: NSManagedObject) -> String? {
            let identifier = object.objectID.storeIdentifier
            return identifier.isEmpty ? nil : identifier
        }
        for object in objects {
            guard let own = store(object) else { continue }
            var offending: (NSRelationshipDescription, NSManagedObject)?
            for (index, relationship) in object.layout.toOneRelationships.enumerated() where !relationship.isTransient && offending == nil {
                if index < object.toOneValues.count, case .object(let destination) = object.toOneValues[index],
                    let other = store(destination), other != own
                {
                    offending = (relationship, destination)
                }
            }
            for (index, relationship) in object.layout.toManyRelationships.enumerated() where !relationship.isTransient && offending == nil {
                guard index < object.toManyValues.count, case .members(let members) = object.toManyValues[index] else { continue }
                if let destination = members.objects.first(where: { store($0).map { $0 != own } ?? false }) {
                    offending = (relationship, destination)
                }
            }
            if let (relationship, destination) = offending {
                let reason = "CoreData does not support persistent cross-store relationships"
                throw CoreDataError.make(
                    NSPersistentStoreIncompatibleSchemaError,
                    "\(reason): \(object.entity.name ?? "?").\(relationship.name) of \(object.objectID) leads to \(destination.objectID) in another store",
                    userInfo: ["NSUnderlyingException": reason, NSAffectedObjectsErrorKey: [object, destination],
                               NSAffectedStoresErrorKey: [object.objectID, destination.objectID].compactMap { coordinator.store(for: $0) }])
            }
        }
    }
}


/// The destination stores of a context's new objects during one save: an assigned store, else the first store that
/// holds the entity (looked up once per entity, not once per object).
struct DestinationStores {
    let context: NSManagedObjectContext
    let coordinator: NSPersistentStoreCoordinator
    private var byEntity: [ObjectIdentifier: SnapshotStore?] = [:]

    init(context: NSManagedObjectContext, coordinator: NSPersistentStoreCoordinator) {
        self.context = context
        self.coordinator = coordinator
    }

    mutating func store(for object: NSManagedObject) -> SnapshotStore? {
        if !context.storeAssignments.isEmpty, let assigned = context.storeAssignments[object.objectID] as? SnapshotStore,
            coordinator.persistentStores.contains(where: { $0 === assigned })
        {
            return assigned
        }
        if !object.objectID.isTemporaryID { return coordinator.store(for: object.objectID) }
        let key = ObjectIdentifier(object.entity)
        if let known = byEntity[key] { return known }
        let store = coordinator.store(for: object.entity)
        byEntity[key] = .some(store)
        return store
    }
}
