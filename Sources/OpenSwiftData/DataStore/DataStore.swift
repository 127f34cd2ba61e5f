import Foundation

/// A store SwiftData reads and writes models through without knowing how it keeps them (SwiftData's `DataStore`):
/// implement one, give the container its ``DataStoreConfiguration``, and the app's models, contexts and fetches stay
/// as they are.
///
/// The container makes the store from its configuration. A context asks it for the models a fetch matches
/// (``fetch(_:)``, which answers with snapshots of their values) and hands it each save's inserted, updated and deleted
/// models as snapshots (``save(_:)``), which the store writes, giving each inserted model its permanent identifier.
/// A store may leave filtering and sorting to the context by throwing ``DataStoreError/preferInMemoryFilter`` or
/// ``DataStoreError/preferInMemorySort``.
///
/// ```swift
/// final class JSONStore: DataStore {
///     typealias Configuration = JSONStoreConfiguration
///     typealias Snapshot = DefaultSnapshot
///     let configuration: JSONStoreConfiguration, schema: Schema, identifier: String
///     init(_ configuration: JSONStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
///         self.configuration = configuration
///         schema = configuration.schema!
///         identifier = configuration.fileURL.lastPathComponent
///     }
///     func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
///         if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
///         if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
///         let all = try read()   // [PersistentIdentifier: DefaultSnapshot], decoded from the file
///         return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: Array(all.values), relatedSnapshots: all)
///     }
///     func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
///         var all = try read(), remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
///         for snapshot in request.inserted {
///             let id = try PersistentIdentifier.identifier(for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: UUID())
///             remapped[snapshot.persistentIdentifier] = id
///             all[id] = snapshot.copy(persistentIdentifier: id)
///         }
///         for snapshot in request.updated { all[snapshot.persistentIdentifier] = snapshot }
///         for snapshot in request.deleted { all[snapshot.persistentIdentifier] = nil }
///         try write(all.mapValues { $0.copy(persistentIdentifier: $0.persistentIdentifier, remappedIdentifiers: remapped) })
///         return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
///     }
/// }
/// ```
public protocol DataStore: AnyObject {
    /// The configuration type the store is made from.
    associatedtype Configuration: DataStoreConfiguration where Self == Self.Configuration.Store
    /// The snapshot type the store exchanges model values in.
    associatedtype Snapshot: DataStoreSnapshot

    /// The store's identifier: the ``PersistentIdentifier/storeIdentifier`` of the identifiers it makes.
    var identifier: String { get }
    /// The models the store keeps.
    var schema: Schema { get }
    /// The configuration the store was made from.
    var configuration: Configuration { get }

    /// Opens the store `configuration` describes.
    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws

    /// Deletes every model the store keeps (``ModelContainer/erase()``).
    func erase() throws
    /// The snapshots of the models `request` matches, and of any other models the store reads with them.
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>
    /// How many models `request` matches (by default, the count of ``fetch(_:)``'s snapshots).
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int
    /// The identifiers of the models `request` matches (by default, those of ``fetch(_:)``'s snapshots).
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]
    /// Writes a save's changes; the result maps each inserted snapshot's temporary identifier to the permanent one.
    func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot>
    /// Told when a context starts using the store (nothing by default).
    func initializeState(for editingState: EditingState)
    /// Told when a context that used the store goes away (nothing by default).
    func invalidateState(for editingState: EditingState)
    /// Snapshots the store holds in memory for these identifiers, for a context to use without a fetch (none by default).
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot]
}

extension DataStore {
    public func erase() throws {
        throw DataStoreError.unsupportedFeature
    }

    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try fetch(request).fetchedSnapshots.count
    }

    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try fetch(request).fetchedSnapshots.map(\.persistentIdentifier)
    }

    public func initializeState(for editingState: EditingState) {}

    public func invalidateState(for editingState: EditingState) {}

    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot] {
        [:]
    }
}

/// What a ``DataStore`` is made from (SwiftData's `DataStoreConfiguration`): pass one to `ModelContainer(for:configurations:)`
/// in place of a ``ModelConfiguration``.
///
/// ```swift
/// final class JSONStoreConfiguration: DataStoreConfiguration {
///     typealias Store = JSONStore
///     var name: String, schema: Schema?, fileURL: URL
///     init(name: String = "default", schema: Schema? = nil, fileURL: URL) { (self.name, self.schema, self.fileURL) = (name, schema, fileURL) }
///     static func == (lhs: JSONStoreConfiguration, rhs: JSONStoreConfiguration) -> Bool { lhs.name == rhs.name }
///     func hash(into hasher: inout Hasher) { hasher.combine(name) }
/// }
/// let container = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(fileURL: url))
/// ```
public protocol DataStoreConfiguration: Hashable {
    /// The store this configuration makes.
    associatedtype Store: DataStore where Self == Self.Store.Configuration
    /// The configuration's name.
    var name: String { get }
    /// The models of the store (the container sets its schema when nil).
    var schema: Schema? { get set }
    /// Throws when the configuration cannot make a store (nothing to check by default).
    func validate() throws
}

extension DataStoreConfiguration {
    public func validate() throws {}
}

/// Errors a ``DataStore`` throws (SwiftData's `DataStoreError`).
///
/// ```swift
/// if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
/// ```
public enum DataStoreError: Error, Hashable, Sendable {
    /// The store cannot do what was asked.
    case unsupportedFeature
    /// The store does not filter: the context fetches without the predicate and filters the models itself.
    case preferInMemoryFilter
    /// The store does not sort: the context fetches without the sort and sorts the models itself.
    case preferInMemorySort
    /// The predicate is not one the store can evaluate.
    case invalidPredicate
}
