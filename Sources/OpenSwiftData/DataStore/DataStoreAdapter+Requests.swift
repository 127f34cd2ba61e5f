import Foundation
@_spi(OpenSwiftData) import OpenCoreData

extension DataStoreAdapter {
    // MARK: Fetch

    /// Runs a Core Data fetch of `T`'s entity through the data store: with the descriptor the context lent, else (a
    /// fetch Core Data makes itself) for every model of the entity, filtered, sorted and paged here.
    func fetch<T: PersistentModel>(_ type: T.Type, _ request: NSFetchRequest<NSFetchRequestResult>, context: NSManagedObjectContext?) throws -> Any {
        let modelContext = context.flatMap(ModelContext.owning)
        let editingState = self.editingState(of: context, owner: modelContext)
        let lent = modelContext?.takeLentDescriptor() as? FetchDescriptor<T>
        if request.resultType == .countResultType, let lent {
            do {
                return [try count(lent, editingState: editingState)]
            } catch let error as DataStoreError where error == .preferInMemoryFilter || error == .preferInMemorySort {
                // counted below, over every model of the entity
            }
        }
        let (snapshots, related, handled) = try storeFetch(lent ?? FetchDescriptor<T>(), editingState: editingState)
        _ = keep(related)
        let entities = Set(Self.entityNames(request.entity, includingSubentities: request.includesSubentities))
        var objectIDs = keep(snapshots.filter { entities.contains($0.persistentIdentifier.entityName) })
        if lent == nil || !handled {
            objectIDs = try filteredInMemory(objectIDs, by: request, context: context)
        }
        return request.resultType == .countResultType ? [objectIDs.count] : objectIDs
    }

    private func count<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, editingState: EditingState) throws -> Int {
        func run<S: DataStore>(_ store: S) throws -> Int {
            try store.fetchCount(DataStoreFetchRequest(descriptor: descriptor, editingState: editingState))
        }
        return try run(dataStore)
    }

    /// The data store's answer to `descriptor`, as default snapshots, and whether it filtered and sorted (false when it
    /// preferred the context to, and was asked again for every model of the entity).
    func storeFetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, editingState: EditingState) throws
        -> (fetched: [DefaultSnapshot], related: [DefaultSnapshot], handled: Bool) {
        guard let schema = instance?.schema, let model = persistentStoreCoordinator?.managedObjectModel else { return ([], [], true) }
        func run<S: DataStore>(_ store: S) throws -> (fetched: [DefaultSnapshot], related: [DefaultSnapshot], handled: Bool) {
            func read(_ result: DataStoreFetchResult<T, S.Snapshot>, handled: Bool) throws -> (fetched: [DefaultSnapshot], related: [DefaultSnapshot], handled: Bool) {
                (try result.fetchedSnapshots.map { try SnapshotReader.read($0, schema: schema, model: model) },
                 try result.relatedSnapshots.values.map { try SnapshotReader.read($0, schema: schema, model: model) }, handled)
            }
            do {
                return try read(store.fetch(DataStoreFetchRequest(descriptor: descriptor, editingState: editingState)), handled: true)
            } catch let error as DataStoreError where error == .preferInMemoryFilter || error == .preferInMemorySort {
                return try read(store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>(), editingState: editingState)), handled: false)
            }
        }
        return try run(dataStore)
    }

    /// `objectIDs` filtered by the request's predicate, sorted and paged, in memory over the asking context's objects
    /// (their current values, as SwiftData filters in memory over the context's models).
    private func filteredInMemory(_ objectIDs: [NSManagedObjectID], by request: NSFetchRequest<NSFetchRequestResult>,
                                  context: NSManagedObjectContext?) throws -> [NSManagedObjectID] {
        let context = context ?? {
            let scratch = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            scratch.persistentStoreCoordinator = persistentStoreCoordinator
            return scratch
        }()
        var objects = objectIDs.map { context.object(with: $0) }
        if let predicate = request.predicate { objects = objects.filter { predicate.evaluate(with: $0) } }
        if let sort = request.sortDescriptors, !sort.isEmpty { objects = objects.sorted(using: sort) }
        if request.fetchOffset > 0 { objects = Array(objects.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { objects = Array(objects.prefix(request.fetchLimit)) }
        return objects.map(\.objectID)
    }

    /// The names of `entity` and, when asked, of every entity inheriting from it.
    private static func entityNames(_ entity: NSEntityDescription?, includingSubentities: Bool) -> [String] {
        guard let entity else { return [] }
        guard includingSubentities else { return [entity.name ?? ""] }
        return [entity.name ?? ""] + entity.subentities.flatMap { entityNames($0, includingSubentities: true) }
    }

    // MARK: Save

    /// The backing data of a model of any class.
    static func backingData(of model: any PersistentModel) -> any BackingData {
        func open<M: PersistentModel>(_ model: M) -> any BackingData { model.persistentBackingData }
        return open(model)
    }

    /// Hands the data store the save's snapshots; keeps what it saved, and moves inserted objects to the identifiers
    /// it gave them.
    func save(_ request: NSSaveChangesRequest, context: NSManagedObjectContext?) throws -> Any {
        guard let context, let modelContext = ModelContext.owning(context),
              let schema = instance?.schema, let model = persistentStoreCoordinator?.managedObjectModel else {
            throw Self.error(NSPersistentStoreSaveError, "A custom data store saves the changes of a ModelContext only.")
        }
        let inserted = Array(request.insertedObjects ?? []), updated = Array(request.updatedObjects ?? []), deleted = Array(request.deletedObjects ?? [])
        func run<S: DataStore>(_ store: S) throws -> IncrementalStoreSaveResult {
            var related: [PersistentIdentifier: any BackingData] = [:]
            func snapshots(_ objects: [NSManagedObject]) -> [S.Snapshot] {
                objects.map { S.Snapshot(from: Self.backingData(of: modelContext.model(for: $0)), relatedBackingDatas: &related) }
            }
            let saving = (inserted: snapshots(inserted), updated: snapshots(updated), deleted: snapshots(deleted))
            let result = try store.save(DataStoreSaveChangesRequest(editingState: modelContext.editingState, inserted: saving.inserted,
                                                                    updated: saving.updated, deleted: saving.deleted))
            let remapped = result.remappedIdentifiers
            var moved: [NSManagedObjectID: NSManagedObjectID] = [:]
            // What was saved is each object's values (a store's own snapshot type may carry fewer), under its new
            // identifier, its references to other inserted objects remapped.
            for (object, snapshot) in zip(inserted, saving.inserted) {
                let identifier = remapped[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier
                let objectID = objectID(for: identifier) ?? object.objectID
                if objectID != object.objectID { moved[object.objectID] = objectID }
                kept[objectID] = Kept(snapshot: DefaultSnapshot(object).copy(persistentIdentifier: identifier, remappedIdentifiers: remapped), version: 1)
            }
            for object in updated {
                let version = (kept[object.objectID]?.version ?? 0) + 1
                let snapshot = DefaultSnapshot(object)
                kept[object.objectID] = Kept(snapshot: snapshot.copy(persistentIdentifier: snapshot.persistentIdentifier, remappedIdentifiers: remapped), version: version)
            }
            for object in deleted { kept[object.objectID] = nil }
            // Values the store changed while saving replace those it returns, over the saved ones.
            for snapshot in try result.snapshotsToReregister.values.map({ try SnapshotReader.read($0, schema: schema, model: model) }) {
                guard let objectID = objectID(for: snapshot.persistentIdentifier), let saved = kept[objectID] else { continue }
                kept[objectID] = Kept(snapshot: saved.snapshot.merging(snapshot), version: saved.version + 1)
            }
            return IncrementalStoreSaveResult(movedObjectIDs: moved)
        }
        return try run(dataStore)
    }
}
