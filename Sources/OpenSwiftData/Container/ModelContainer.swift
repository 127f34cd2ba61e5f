import Foundation
@_spi(OpenSwiftData) import OpenCoreData

/// The models' schema and the store that keeps them (SwiftData's `ModelContainer`): a Core Data persistent store
/// coordinator over a SQLite store in Core Data's format, migrated automatically (lightweight) when the models change.
///
/// `Sendable`: share one container between actors and make a ``ModelContext`` (or a `@ModelActor`) in each.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// let context = ModelContext(container)
/// context.insert(Trip(name: "Lisbon"))
/// try context.save()
/// ```
public final class ModelContainer: @unchecked Sendable {
    // @unchecked Sendable: the schema, configurations and coordinator are set once (the coordinator is thread-safe);
    // the main context is made and used on the main actor only.

    /// The models.
    public let schema: Schema
    /// The stores' configurations.
    public let configurations: Set<ModelConfiguration>
    /// The migration plan the stores were opened with, if any.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The Core Data stack the contexts work on.
    let coordinator: NSPersistentStoreCoordinator
    private let mainContextBox = MainContextBox()
    /// The inboxes of the live contexts, which each save posts to.
    let inboxes = SaveInboxes()
    /// The name of every context of the container (its saves' `contextName` in the history).
    let contextName = "OpenSwiftData.ModelContainer.\(UUID().uuidString)"
    /// Follows the saves of other containers and processes on the stores, to merge them into the contexts.
    private let otherWriters = Locked<HistoryFollower?>(nil)
    /// The custom data store the container was made with, if any (its models are kept there, not in a SQLite file).
    let dataStore: (any DataStore)?

    /// A container for `types` (and the models their relationships reach).
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self, Stop.self)
    /// ```
    public convenience init(for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for `schema`.
    public convenience init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for `schema`, with its stores as `configurations` say (the default store when empty). A store
    /// written by an earlier version of the models is migrated: by `migrationPlan`'s stages when given, else
    /// lightweight (inferred) straight to `schema`.
    ///
    /// Throws ``SwiftDataError/loadIssueModelContainer`` (the Core Data error under it) when a store cannot be opened
    /// or migrated, or a model has a property type that cannot be stored; ``SwiftDataError/backwardMigration`` for a
    /// store written by a later version, ``SwiftDataError/unknownSchema`` for one no version of the plan wrote.
    public init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]) throws {
        schema = givenSchema
        for entity in givenSchema.entities {
            if let property = entity.unsupported.first {
                throw SwiftDataError(.loadIssueModelContainer, "\(entity.name).\(property.name) has the type \(property.type), which is neither a model, an array of models, a stored scalar nor Codable.")
            }
            for attribute in entity.attributes {
                guard let name = attribute.options.lazy.compactMap(\.transformerName).first,
                      ValueTransformer(forName: NSValueTransformerName(name)) == nil else { continue }
                throw SwiftDataError(.loadIssueModelContainer, "\(entity.name).\(attribute.name) is transformed by '\(name)', which no value transformer is registered under: call ValueTransformer.setValueTransformer(_:forName:) with NSValueTransformerName(\"\(name)\") before making the container.")
            }
        }
        let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        if let synced = configurations.first(where: { if case .privateDatabase = $0.cloudKitDatabase.kind { true } else { false } }) {
            throw SwiftDataError(.loadIssueModelContainer, "The configuration \(synced.name) syncs with a CloudKit database; there is no CloudKit on Linux (DEVIATIONS.md SD11).")
        }
        let layout = try StoreLayout(configurations: configurations, schema: givenSchema, migrates: migrationPlan != nil)
        self.configurations = Set(configurations)
        dataStore = nil
        self.migrationPlan = migrationPlan
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: layout.managedObjectModel)
        for configuration in configurations {
            // History is kept, as SwiftData keeps it: `fetchHistory` reads it, and other processes' saves are found in it.
            var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                                               NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true]
            if !configuration.allowsSave { options[NSReadOnlyPersistentStoreOption] = true }
            if let migrationPlan {
                options[NSPersistentStoreStagedMigrationManagerOptionKey] = NSStagedMigrationManager(migrationPlan.stages.map { $0.coreDataStage() })
            }
            do {
                if !configuration.isStoredInMemoryOnly {
                    try FileManager.default.createDirectory(at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
                }
                _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: layout.configurationName(of: configuration),
                                                       at: configuration.url, options: options)
            } catch {
                let code: SwiftDataError.Code = switch (error as NSError).code {
                case NSStagedMigrationBackwardMigrationError: .backwardMigration
                case NSManagedObjectModelReferenceNotFoundError: .unknownSchema
                default: .loadIssueModelContainer
                }
                throw SwiftDataError(code, "The store at \(configuration.url.path) could not be opened: \(error)", underlying: error)
            }
        }
        StoreDirectory.shared.add(coordinator)
        try followOtherWriters()
    }

    /// Deletes every model of every store: each store is destroyed and made again, empty (contexts still holding
    /// models must not use them afterwards); a custom data store is told to ``DataStore/erase()``. Throws the first
    /// error; a store that cannot be made again (its directory gone, the disk full) is left out, and saves then throw
    /// Core Data's "no store" error (134070) rather than losing data silently.
    ///
    /// ```swift
    /// try container.erase()
    /// ```
    public func erase() throws {
        if let dataStore {
            try dataStore.erase()
            coordinator.withLock { (coordinator.persistentStores.first as? DataStoreAdapter)?.kept = [:] }
            return
        }
        var firstError: (any Error)?
        for store in coordinator.persistentStores {
            guard let url = store.url else { continue }
            let type = store.type, options = store.options
            do {
                try coordinator.destroyPersistentStore(at: url, ofType: type, options: options)
                let configuration = store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : store.configurationName
                _ = try coordinator.addPersistentStore(ofType: type, configurationName: configuration, at: url, options: options)
            } catch {
                firstError = firstError ?? error
            }
        }
        StoreDirectory.shared.add(coordinator)   // the new stores have new identifiers
        if let firstError { throw firstError }
    }

    /// Deletes every model of every store, as ``erase()`` does, ignoring errors (SwiftData's older name).
    ///
    /// ```swift
    /// container.deleteAllData()
    /// ```
    public func deleteAllData() {
        try? erase()
    }

    /// A container over a custom data store: its coordinator holds the store's adapter (``DataStoreAdapter``).
    init(for givenSchema: Schema, dataStore: any DataStore) throws {
        schema = givenSchema
        configurations = []
        migrationPlan = nil
        self.dataStore = dataStore
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: givenSchema.managedObjectModel)
        DataStoreAdapter.registered
        let identifier = DataStoreAdapter.coreDataIdentifier(of: dataStore)
        do {
            _ = try coordinator.addPersistentStore(ofType: DataStoreAdapter.storeType, configurationName: nil,
                                                   at: URL(string: "openswiftdata-datastore://\(identifier)") ?? URL(fileURLWithPath: "/"),
                                                   options: [DataStoreAdapter.dataStoreOption: DataStoreAdapter.Instance(dataStore: dataStore, schema: givenSchema)])
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "The data store '\(dataStore.identifier)' could not be added: \(error)", underlying: error)
        }
        StoreDirectory.shared.add(coordinator)
    }

    /// A container over a coordinator whose store is already loaded (a migration stage's handlers).
    init(schema: Schema, coordinator: NSPersistentStoreCoordinator) {
        self.schema = schema
        configurations = []
        migrationPlan = nil
        self.coordinator = coordinator
        dataStore = nil
    }

    /// The context of the main actor, made on first use.
    ///
    /// ```swift
    /// @MainActor func show() throws { print(try container.mainContext.fetchCount(FetchDescriptor<Trip>())) }
    /// ```
    @MainActor public var mainContext: ModelContext {
        if let context = mainContextBox.context { return context }
        let context = ModelContext(self)
        context.autosaveRunner = .mainActor
        context.autosaveEnabled = true
        mainContextBox.context = context
        return context
    }
}

extension ModelContainer {
    /// Has the main context (if made) catch up with a save right away, on the main actor, as SwiftData's main context
    /// shows other contexts' saves without waiting to be used.
    func mainContextCatchUp() {
        Task { @MainActor [mainContextBox] in mainContextBox.context?.catchUp() }
    }

    /// Merges other writers' saves (other containers and processes on the same store files, which Core Data's
    /// remote-change notifications announce) into every context of the container, as its own contexts' saves are.
    private func followOtherWriters() throws {
        let follower = try HistoryFollower(coordinator: coordinator, after: .now) { [inboxes, mainContextBox, contextName] transactions in
            var changes: SavedChanges?
            for transaction in transactions where transaction.contextName != contextName {
                let saved = SavedChanges(transaction)
                changes = changes.map { $0.merged(with: saved) } ?? saved
            }
            guard let changes else { return }
            inboxes.post(changes, from: nil)
            Task { @MainActor in mainContextBox.context?.catchUp() }
        }
        otherWriters.withLock { $0 = follower }
    }

}

/// Holds the main context (main actor only).
@MainActor private final class MainContextBox {
    var context: ModelContext?
    nonisolated init() {}
}
