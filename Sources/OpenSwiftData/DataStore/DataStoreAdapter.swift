import Foundation
@_spi(OpenSwiftData) import OpenCoreData

/// A custom ``DataStore`` as the Core Data store a container's coordinator holds: an `NSIncrementalStore` that asks
/// the data store for snapshots when contexts fetch, keeps them for faults, and hands it each save's snapshots — so
/// models, contexts, relationships, delete rules and observers work as they do on the SQLite store.
///
/// - Fetches pass the context's own ``FetchDescriptor`` (``ModelContext`` lends it for the call); a store that throws
///   ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort`` is asked again for every model
///   of the entity, which the adapter filters, sorts and pages with Core Data's in-memory evaluator over the stored
///   values.
/// - Inserted objects get provisional IDs before the save (Core Data's order) that read as temporary identifiers; the
///   store's remapped identifiers replace them once it has saved (`IncrementalStoreSaveResult`).
/// - Each kept snapshot has a version, raised when a save or a fetch changes it, so two contexts editing one model
///   meet Core Data's optimistic locking and merge policies.
final class DataStoreAdapter: NSIncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: the snapshots and versions are read and written under the coordinator's lock, as every
    // store's state is.

    static let storeType = "OpenSwiftData.DataStore"
    /// The option the container passes the data store under.
    static let dataStoreOption = "OpenSwiftData.DataStore.instance"

    /// Registers the adapter's store type once.
    static let registered: Void = {
        NSPersistentStoreCoordinator.registerStoreClass(DataStoreAdapter.self, forStoreType: storeType)
    }()

    /// What the container hands the adapter: the data store and the schema.
    struct Instance: @unchecked Sendable {
        // @unchecked Sendable: handed over once, before the store is added; the data store is then used under the
        // coordinator's lock only.
        let dataStore: any DataStore
        let schema: Schema
    }

    struct Kept {
        var snapshot: DefaultSnapshot
        var version: UInt64
    }

    let instance: Instance?
    var kept: [NSManagedObjectID: Kept] = [:]

    required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?, at url: URL, options: [AnyHashable: Any]?) {
        instance = options?[Self.dataStoreOption] as? Instance
        super.init(persistentStoreCoordinator: root, configurationName: name, at: url, options: options)
    }

    override var type: String { Self.storeType }

    var dataStore: any DataStore {
        guard let instance else { preconditionFailure("A data store adapter is made by ModelContainer, which passes it its data store.") }
        return instance.dataStore
    }

    /// The Core Data identifier of the store: the data store's, as a URI host spells it.
    static func coreDataIdentifier(of dataStore: any DataStore) -> String {
        dataStore.identifier.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed) ?? dataStore.identifier
    }

    override func loadMetadata() throws {
        guard instance != nil else {
            throw SwiftDataError(.loadIssueModelContainer, "A custom data store is opened through ModelContainer(for:configurations:) with its configuration.")
        }
        metadata = [NSStoreTypeKey: Self.storeType, NSStoreUUIDKey: Self.coreDataIdentifier(of: dataStore)]
    }

    // MARK: Identifiers

    /// The key of an inserted object's ID until the data store gives it its own.
    struct ProvisionalKey: Hashable, CustomStringConvertible {
        let uuid = UUID()
        var description: String { "t\(uuid.uuidString)" }
    }

    /// Whether `objectID` is an inserted object's provisional ID (its identifier reads as temporary).
    static func isProvisional(_ objectID: NSManagedObjectID) -> Bool {
        guard let adapter = objectID.persistentStore as? DataStoreAdapter else { return false }
        return adapter.referenceObject(for: objectID) is ProvisionalKey
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        array.map { newObjectID(for: $0.entity, referenceObject: ProvisionalKey()) }
    }

    /// The object ID of a data store's identifier (nil for one of another store or an unknown entity).
    func objectID(for identifier: PersistentIdentifier) -> NSManagedObjectID? {
        if let objectID = identifier.objectID { return objectID.persistentStore === self ? objectID : nil }
        return identifier.uriRepresentation.flatMap { persistentStoreCoordinator?.managedObjectID(forURIRepresentation: $0) }
    }

    // MARK: Kept snapshots

    /// Keeps snapshots a fetch or a save returned; one whose values changed gets a new version.
    func keep(_ snapshots: [DefaultSnapshot]) -> [NSManagedObjectID] {
        snapshots.compactMap { snapshot in
            guard let objectID = objectID(for: snapshot.persistentIdentifier) else { return nil }
            if let old = kept[objectID] {
                // A store's snapshot may carry only some properties: those it carries replace the kept ones.
                let merged = old.snapshot.merging(snapshot)
                if merged.values != old.snapshot.values { kept[objectID] = Kept(snapshot: merged, version: old.version + 1) }
            } else {
                kept[objectID] = Kept(snapshot: snapshot, version: 1)
            }
            return objectID
        }
    }

    /// The kept snapshot of `objectID`, fetched from the data store when it has none (nil when the model is gone).
    private func keptSnapshot(of objectID: NSManagedObjectID, context: NSManagedObjectContext?) throws -> Kept? {
        if let found = kept[objectID] { return found }
        guard let name = objectID.entity.name, let type = instance?.schema.modelTypes[name] else { return nil }
        let snapshots = try fetchSnapshots(of: type, matching: PersistentIdentifier(objectID), editingState: editingState(of: context))
        _ = keep(snapshots)
        return kept[objectID]
    }

    /// The snapshots of the model with `identifier` (one, or none), by a predicate on it, else from all of its entity.
    private func fetchSnapshots<T: PersistentModel>(of type: T.Type, matching identifier: PersistentIdentifier, editingState: EditingState) throws -> [DefaultSnapshot] {
        let descriptor = FetchDescriptor<T>(predicate: #Predicate<T> { $0.persistentModelID == identifier })
        let (snapshots, related, filtered) = try storeFetch(descriptor, editingState: editingState)
        _ = keep(related)
        return filtered ? snapshots : snapshots.filter { $0.persistentIdentifier == identifier }
    }

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        guard let found = try keptSnapshot(of: objectID, context: context) else {
            throw Self.referentialIntegrity(objectID)
        }
        var values: [String: Any] = [:]
        for (name, attribute) in objectID.entity.attributesByName where !attribute.isTransient {
            values[name] = found.snapshot.values[name]?.attributeValue(of: attribute) ?? NSNull()
        }
        for (name, relationship) in objectID.entity.relationshipsByName where !relationship.isToMany && !relationship.isTransient {
            let destination = found.snapshot.values[name]?.identifiers.first.flatMap(objectID(for:))
            values[name] = destination ?? NSNull()
        }
        return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: found.version)
    }

    override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                           with context: NSManagedObjectContext?) throws -> Any {
        guard let found = try keptSnapshot(of: objectID, context: context) else {
            throw Self.referentialIntegrity(objectID)
        }
        let ids = found.snapshot.values[relationship.name]?.identifiers.compactMap(objectID(for:)) ?? []
        return relationship.isToMany ? ids as Any : (ids.first as Any? ?? NSNull())
    }

    // MARK: Requests

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        switch request {
        case let fetch as NSFetchRequest<NSFetchRequestResult>:
            guard let entity = fetch.entity, let name = entity.name, let type = instance?.schema.modelTypes[name] else {
                throw Self.error(NSPersistentStoreOperationError, "The data store's schema has no model for the fetch's entity.")
            }
            return try self.fetch(type, fetch, context: context)
        case let save as NSSaveChangesRequest:
            return try self.save(save, context: context)
        default:
            throw Self.error(NSPersistentStoreOperationError, "A custom data store runs fetches and saves only (not \(Swift.type(of: request))).")
        }
    }

    /// Who asks, to the data store: the model context over `context` (`owner`, looked up when not given), else a
    /// one-time editing state with the Core Data context's author.
    func editingState(of context: NSManagedObjectContext?, owner: ModelContext? = nil) -> EditingState {
        (owner ?? context.flatMap(ModelContext.owning))?.editingState ?? EditingState(id: UUID(), author: context?.transactionAuthor)
    }
}

extension DataStoreAdapter {
    /// A Core Data error (Cocoa domain) with `message`.
    static func error(_ code: Int, _ message: String) -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: message])
    }

    /// Apple's way for a store to say an object no longer exists.
    static func referentialIntegrity(_ objectID: NSManagedObjectID) -> NSError {
        error(NSManagedObjectReferentialIntegrityError, "The data store has no model \(objectID.uriRepresentation().absoluteString)")
    }
}
