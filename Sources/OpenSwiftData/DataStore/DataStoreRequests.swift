import Foundation

/// Which context is asking a ``DataStore`` (SwiftData's `EditingState`): each ``ModelContext`` has one, with a
/// stable `id` and the context's ``ModelContext/author``.
///
/// ```swift
/// func initializeState(for editingState: EditingState) { caches[editingState.id] = [:] }
/// ```
public struct EditingState: Identifiable, Sendable {
    public typealias ID = UUID
    /// The context's identity, the same for every request it makes.
    public let id: UUID
    /// The author the context's saves are recorded under, if any.
    public var author: String?

    init(id: UUID, author: String?) {
        self.id = id
        self.author = author
    }
}

/// A fetch a context asks a ``DataStore`` for (SwiftData's `DataStoreFetchRequest`): the app's descriptor, and who
/// asks.
///
/// ```swift
/// let limit = request.descriptor.fetchLimit
/// ```
public struct DataStoreFetchRequest<T: PersistentModel>: Sendable {
    /// The context asking.
    public let editingState: EditingState
    /// What to fetch: predicate, sort, limit and offset.
    public let descriptor: FetchDescriptor<T>

    init(descriptor: FetchDescriptor<T>, editingState: EditingState) {
        self.descriptor = descriptor
        self.editingState = editingState
    }
}

/// What a ``DataStore`` answers a fetch with (SwiftData's `DataStoreFetchResult`): the matching models' snapshots, in
/// order, and the snapshots of other models it read along (the destinations of their relationships, say), which the
/// context keeps so those models need no fetch of their own.
///
/// ```swift
/// return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: matching, relatedSnapshots: related)
/// ```
public struct DataStoreFetchResult<ModelType: PersistentModel, SnapshotType: DataStoreSnapshot>: Sendable {
    /// The descriptor the store answered.
    public let descriptor: FetchDescriptor<ModelType>
    /// The snapshots of the matching models, in the descriptor's order.
    public let fetchedSnapshots: [SnapshotType]
    /// Snapshots of other models read along, by identifier.
    public let relatedSnapshots: [PersistentIdentifier: SnapshotType]

    public init(descriptor: FetchDescriptor<ModelType>, fetchedSnapshots: [SnapshotType], relatedSnapshots: [PersistentIdentifier: SnapshotType] = [:]) {
        self.descriptor = descriptor
        self.fetchedSnapshots = fetchedSnapshots
        self.relatedSnapshots = relatedSnapshots
    }
}

/// A save a context hands a ``DataStore`` (SwiftData's `DataStoreSaveChangesRequest`): snapshots of the inserted
/// models (with temporary identifiers), the updated ones and the deleted ones (their last values).
///
/// ```swift
/// for snapshot in request.inserted { … }
/// ```
public struct DataStoreSaveChangesRequest<SnapshotType: DataStoreSnapshot>: Sendable {
    /// The context saving.
    public let editingState: EditingState
    /// The inserted models; their identifiers are temporary.
    public let inserted: [SnapshotType]
    /// The changed models.
    public let updated: [SnapshotType]
    /// The deleted models.
    public let deleted: [SnapshotType]

    init(editingState: EditingState, inserted: [SnapshotType], updated: [SnapshotType], deleted: [SnapshotType]) {
        self.editingState = editingState
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

/// What a ``DataStore`` answers a save with (SwiftData's `DataStoreSaveChangesResult`): the permanent identifier of
/// each inserted model, by its temporary one, and snapshots of saved models whose values the store changed itself,
/// which the context reads again.
///
/// ```swift
/// return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
/// ```
public final class DataStoreSaveChangesResult<T: DataStoreSnapshot>: Sendable {
    /// The store that saved.
    public let storeIdentifier: String
    /// The permanent identifier of each inserted model, by its temporary identifier.
    public let remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]
    /// Saved models whose values the store changed (a value it computed, say), by identifier: the context takes these
    /// values.
    public let snapshotsToReregister: [PersistentIdentifier: T]
    /// The store's history token after the save, when it keeps history.
    public let historyToken: (any HistoryToken)?

    public init(for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:],
                snapshotsToReregister: [PersistentIdentifier: T] = [:]) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
        historyToken = nil
    }

    public init(for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:],
                snapshotsToReregister: [PersistentIdentifier: T] = [:], historyToken: (any HistoryToken)?) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
        self.historyToken = historyToken
    }
}

/// A ``DataStore`` that deletes many models in one request (SwiftData's `DataStoreBatching`):
/// ``ModelContext/delete(model:where:includeSubclasses:)`` hands it the predicate instead of deleting model by model.
///
/// ```swift
/// func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
///     if request.predicate != nil { throw DataStoreError.preferInMemoryFilter }
///     try removeAll(ofEntity: Schema.entityName(for: T.self))
/// }
/// ```
public protocol DataStoreBatching: DataStore {
    /// Deletes the models `request` matches. Throwing ``DataStoreError/preferInMemoryFilter`` (or
    /// ``DataStoreError/unsupportedFeature``) has the context delete them one by one instead.
    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws
}

/// A batch delete a context hands a ``DataStoreBatching`` store (SwiftData's `DataStoreBatchDeleteRequest`).
public struct DataStoreBatchDeleteRequest<T: PersistentModel>: Sendable {
    /// The context deleting.
    public let editingState: EditingState
    /// Which models to delete (all when nil).
    public let predicate: Predicate<T>?
    /// Whether models of subclasses of `T` are deleted too.
    public let includeSubclasses: Bool

    init(editingState: EditingState, predicate: Predicate<T>?, includeSubclasses: Bool) {
        self.editingState = editingState
        self.predicate = predicate
        self.includeSubclasses = includeSubclasses
    }
}
