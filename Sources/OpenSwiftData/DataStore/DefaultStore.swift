import Foundation
import OpenCoreData

/// The data store of a ``ModelConfiguration`` (SwiftData's `DefaultStore`): Core Data's SQLite store, used through
/// the ``DataStore`` interface — fetches answer with ``DefaultSnapshot``s, saves take them.
///
/// A ``ModelContainer`` made with ``ModelConfiguration``s uses Core Data directly, not through this class; make one
/// to read or write a store the way a custom store's code does (to copy a store into another, say).
///
/// ```swift
/// let store = try DefaultStore(ModelConfiguration(schema: Schema([Trip.self]), url: url))
/// let trips = try store.fetch(request).fetchedSnapshots
/// ```
public final class DefaultStore: DataStore, DataStoreBatching {
    public typealias Configuration = ModelConfiguration
    public typealias Snapshot = DefaultSnapshot

    /// The configuration's name.
    public let name: String
    public let schema: Schema
    public let configuration: ModelConfiguration
    private let container: ModelContainer

    /// Opens (or makes) the SQLite store `configuration` describes, migrated by `migrationPlan` when given.
    public init(_ configuration: ModelConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws {
        guard let schema = configuration.schema else {
            throw SwiftDataError(.loadIssueModelContainer, "A DefaultStore is made from a configuration with a schema.")
        }
        self.configuration = configuration
        self.schema = schema
        name = configuration.name
        container = try ModelContainer(for: schema, migrationPlan: migrationPlan, configurations: [configuration])
    }

    /// The identifier of the SQLite store (its `NSStoreUUIDKey`).
    public var identifier: String {
        container.coordinator.persistentStores.first?.identifier ?? ""
    }

    public func erase() throws {
        try container.erase()
    }

    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let context = ModelContext(container)
        let models = try context.fetch(request.descriptor)
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: models.map { DefaultSnapshot(context.managedObject(for: $0)) })
    }

    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try ModelContext(container).fetchCount(request.descriptor)
    }

    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try ModelContext(container).fetchIdentifiers(request.descriptor)
    }

    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        let context = ModelContext(container)
        try context.delete(model: T.self, where: request.predicate, includeSubclasses: request.includeSubclasses)
        try context.save()
    }

    /// Writes the snapshots in one Core Data save; inserted snapshots' identifiers map to their rows'.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let context = ModelContext(container)
        let objects = context.managedObjectContext
        context.author = request.editingState.author
        var inserted: [PersistentIdentifier: NSManagedObject] = [:]
        func object(for identifier: PersistentIdentifier) throws -> NSManagedObject {
            if let object = inserted[identifier] { return object }
            guard let objectID = identifier.objectID ?? identifier.uriRepresentation.flatMap(container.coordinator.managedObjectID(forURIRepresentation:)) else {
                throw SwiftDataError(.loadIssueModelContainer, "\(identifier) names no row of this store.")
            }
            return try objects.existingObject(with: objectID)
        }
        for snapshot in request.inserted {
            guard let entity = container.coordinator.managedObjectModel.entitiesByName[snapshot.persistentIdentifier.entityName] else {
                throw SwiftDataError(.loadIssueModelContainer, "The schema has no model named \(snapshot.persistentIdentifier.entityName).")
            }
            inserted[snapshot.persistentIdentifier] = NSManagedObject(entity: entity, insertInto: objects)
        }
        for snapshot in request.inserted + request.updated {
            let target = try object(for: snapshot.persistentIdentifier)
            for (name, value) in snapshot.values {
                if let attribute = target.entity.attributesByName[name] {
                    target.setValue(value.attributeValue(of: attribute), forKey: name)
                } else if let relationship = target.entity.relationshipsByName[name] {
                    let related = try value.identifiers.map(object(for:))
                    target.setValue(relationship.isToMany ? NSSet(array: related) : related.first, forKey: name)
                }
            }
        }
        for snapshot in request.deleted {
            objects.delete(try object(for: snapshot.persistentIdentifier))
        }
        try objects.save()
        let remapped = inserted.mapValues { PersistentIdentifier($0.objectID) }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }
}

extension ModelConfiguration: DataStoreConfiguration {
    public typealias Store = DefaultStore
}
