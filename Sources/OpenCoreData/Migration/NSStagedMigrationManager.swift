/// Store option: the `NSStagedMigrationManager` that migrates the store when it is added.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

/// Migrates a store through a sequence of stages, each a lightweight migration or your own code around one,
/// from whatever version wrote the store to the coordinator's model. Pass it in the store options:
/// ```swift
/// let manager = NSStagedMigrationManager([
///     NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum]),
///     NSCustomMigrationStage(migratingFrom: v2Reference, to: v3Reference),
/// ])
/// description.setOption(manager, forKey: NSPersistentStoreStagedMigrationManagerOptionKey)
/// ```
/// The store is migrated in place, stage by stage; each lightweight step runs in one transaction, so a failure
/// leaves the store at the last completed model version (openable with that version).
open class NSStagedMigrationManager: NSObject, @unchecked Sendable {
    // @unchecked Sendable: used by the one coordinator that adds the store, under its lock.

    /// The stages, in order.
    public let stages: [NSMigrationStage]
    /// During a custom stage's handlers: a container with the store loaded at the stage's current (in
    /// `willMigrateHandler`) or next (in `didMigrateHandler`) model.
    open private(set) var container: NSPersistentContainer?

    /// A manager for these stages.
    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
        super.init()
    }

    /// One lightweight or custom step between two model versions.
    private struct Step {
        let from: String
        let to: String
        let custom: NSCustomMigrationStage?
    }

    /// Migrates the SQLite store at `url`, written by the model with version checksum `current`, to
    /// `destination`.
    func migrateStore(at url: URL, currentChecksum current: String, to destination: NSManagedObjectModel, candidates: [NSManagedObjectModel]) throws {
        var models: [String: NSManagedObjectModel] = [:]
        for model in candidates + [destination] { models[model.versionChecksum] = models[model.versionChecksum] ?? model }
        var steps: [Step] = []
        for stage in stages {
            switch stage {
            case let custom as NSCustomMigrationStage:
                let from = try custom.currentModel.resolvedModelThrowing(), to = try custom.nextModel.resolvedModelThrowing()
                models[from.versionChecksum] = from
                models[to.versionChecksum] = to
                steps.append(Step(from: from.versionChecksum, to: to.versionChecksum, custom: custom))
            case let lightweight as NSLightweightMigrationStage:
                for (from, to) in zip(lightweight.versionChecksums, lightweight.versionChecksums.dropFirst()) {
                    steps.append(Step(from: from, to: to, custom: nil))
                }
            default:
                throw CoreDataError.make(NSMigrationError, "Unknown migration stage \(type(of: stage))")
            }
        }
        let order = steps.flatMap { [$0.from, $0.to] }
        if let currentIndex = order.firstIndex(of: current), let destinationIndex = order.lastIndex(of: destination.versionChecksum), currentIndex > destinationIndex {
            throw CoreDataError.make(NSStagedMigrationBackwardMigrationError, "The store's model version (\(current)) comes after the destination's (\(destination.versionChecksum)) in the stages")
        }
        var checksum = current
        while checksum != destination.versionChecksum {
            guard let step = steps.first(where: { $0.from == checksum }) else {
                throw CoreDataError.make(NSMigrationMissingSourceModelError, "No migration stage starts at the store's model version (checksum \(checksum))")
            }
            guard let source = models[step.from], let target = models[step.to] else {
                throw CoreDataError.make(NSManagedObjectModelReferenceNotFoundError, "No model with the version checksum \(models[step.from] == nil ? step.from : step.to) was found")
            }
            if let custom = step.custom, let handler = custom.willMigrateHandler {
                try withContainer(url: url, model: source) { try handler(self, custom) }
            }
            try Self.lightweightMigrate(url: url, from: source, to: target)
            if let custom = step.custom, let handler = custom.didMigrateHandler {
                try withContainer(url: url, model: target) { try handler(self, custom) }
            }
            checksum = step.to
        }
    }

    /// Runs `body` with `container` loaded on the store at `model`.
    private func withContainer(url: URL, model: NSManagedObjectModel, _ body: () throws -> Void) throws {
        let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = false
        description.shouldAddStoreAsynchronously = false
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        self.container = container
        defer {
            self.container = nil
            for store in container.persistentStoreCoordinator.persistentStores { try? container.persistentStoreCoordinator.remove(store) }
        }
        try body()
    }

    /// One inferred lightweight migration of the SQLite store at `url`, in place and in one transaction.
    static func lightweightMigrate(url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel) throws {
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let connection = try SQLiteConnection(path: url.path, configuration: .init(mode: .readWrite))
        defer { connection.close() }
        try SQLiteLightweightMigration(connection: connection, sourceModel: source, destinationModel: destination, mapping: mapping).run()
    }
}
