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
/// The store is migrated in place, stage by stage (see `migrateStore(at:…)` for the rules); each lightweight step runs
/// in one transaction, so a failure leaves the store at the last completed model version (openable with that version).
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

    /// Migrates the SQLite store at `url`, written by the model with version checksum `current`, to
    /// `destination`, stage by stage in the order given, as Apple's staged migration does:
    ///
    /// - a lightweight stage lists the versions it migrates *from*: a store at one of them is migrated, with an
    ///   inferred mapping, straight to the next custom stage's current model (or, when no custom stage follows, to
    ///   the destination) — `NSLightweightMigrationStage([v1Checksum])` followed by a custom stage from v2 is the
    ///   "v1 to v2" step of Apple's WWDC23 example;
    /// - a custom stage runs when the store is at its current model: `willMigrateHandler`, a lightweight migration
    ///   to its next model, `didMigrateHandler`;
    /// - stages the store is not at are passed over; a store not at the destination after the last stage is
    ///   migrated to it lightweight.
    ///
    /// Each stage runs at most once, so the migration always ends: with the store at `destination`, or with an
    /// error — `NSMigrationError` for checksums listed twice, `NSStagedMigrationBackwardMigrationError`,
    /// `NSManagedObjectModelReferenceNotFoundError` (134504) for a store at a version no stage names (Apple's
    /// "Cannot use staged migration with an unknown model version") or no model has, `NSMigrationMissingMappingModelError`
    /// when a step cannot be inferred, or what a handler throws. Every step runs in one transaction, so the store is
    /// left at the last version reached.
    func migrateStore(at url: URL, currentChecksum current: String, to destination: NSManagedObjectModel, candidates: [NSManagedObjectModel],
                      options: [AnyHashable: Any]? = nil) throws {
        var models: [String: NSManagedObjectModel] = [:]
        for model in [destination] + candidates { models[model.versionChecksum] = models[model.versionChecksum] ?? model }
        var order: [String] = []
        var customModels: [ObjectIdentifier: (current: NSManagedObjectModel, next: NSManagedObjectModel)] = [:]
        var lightweightChecksums = Set<String>()
        for stage in stages {
            switch stage {
            case let custom as NSCustomMigrationStage:
                let from = try custom.currentModel.resolvedModelThrowing(), to = try custom.nextModel.resolvedModelThrowing()
                guard from.versionChecksum != to.versionChecksum else {
                    throw CoreDataError.make(NSMigrationError, "The custom migration stage \(custom.label ?? "") migrates from a model version to the same version (checksum \(from.versionChecksum))")
                }
                models[from.versionChecksum] = from
                models[to.versionChecksum] = to
                customModels[ObjectIdentifier(custom)] = (from, to)
                order += [from.versionChecksum, to.versionChecksum]
            case let lightweight as NSLightweightMigrationStage:
                for checksum in lightweight.versionChecksums {
                    guard lightweightChecksums.insert(checksum).inserted else {
                        throw CoreDataError.make(NSMigrationError, "Duplicate version checksums across stages detected (\(checksum))")
                    }
                }
                order += lightweight.versionChecksums
            default:
                throw CoreDataError.make(NSMigrationError, "Unknown migration stage \(type(of: stage))")
            }
        }
        guard order.contains(current) else {
            throw CoreDataError.make(NSManagedObjectModelReferenceNotFoundError, "Cannot use staged migration with an unknown model version: no stage names the store's model version (checksum \(current))")
        }
        if let storeIndex = order.firstIndex(of: current), let destinationIndex = order.lastIndex(of: destination.versionChecksum), storeIndex > destinationIndex {
            throw CoreDataError.make(NSStagedMigrationBackwardMigrationError, "A store file cannot be migrated backwards with staged migration: the store's model version (\(current)) comes after the destination's (\(destination.versionChecksum)) in the stages")
        }
        func model(_ checksum: String) throws -> NSManagedObjectModel {
            guard let model = models[checksum] else {
                throw CoreDataError.make(NSManagedObjectModelReferenceNotFoundError, "No model with the version checksum \(checksum) was found (among the stages' models, the model versions at hand and the store's own model)")
            }
            return model
        }
        var checksum = current
        for (index, stage) in stages.enumerated() where checksum != destination.versionChecksum {
            switch stage {
            case let custom as NSCustomMigrationStage:
                guard let (from, to) = customModels[ObjectIdentifier(custom)], checksum == from.versionChecksum else { continue }
                if let handler = custom.willMigrateHandler {
                    try withContainer(url: url, model: from, options: options) { try handler(self, custom) }
                }
                try Self.lightweightMigrate(url: url, from: from, to: to)
                checksum = to.versionChecksum
                if let handler = custom.didMigrateHandler {
                    try withContainer(url: url, model: to, options: options) { try handler(self, custom) }
                }
            case let lightweight as NSLightweightMigrationStage:
                guard lightweight.versionChecksums.contains(checksum) else { continue }
                let nextCustom = stages[(index + 1)...].lazy.compactMap { $0 as? NSCustomMigrationStage }.first
                let target = nextCustom.flatMap { customModels[ObjectIdentifier($0)]?.current } ?? destination
                guard target.versionChecksum != checksum else { continue }
                try Self.lightweightMigrate(url: url, from: try model(checksum), to: target)
                checksum = target.versionChecksum
            default:
                continue
            }
        }
        if checksum != destination.versionChecksum {
            try Self.lightweightMigrate(url: url, from: try model(checksum), to: destination)
        }
    }

    /// Runs `body` with `container` loaded on the store at `model`, with the store's own options (history tracking
    /// and the like) but no migration.
    private func withContainer(url: URL, model: NSManagedObjectModel, options: [AnyHashable: Any]?, _ body: () throws -> Void) throws {
        let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        for (key, value) in options ?? [:] {
            guard let key = key.base as? String,
                ![NSPersistentStoreStagedMigrationManagerOptionKey, NSMigratePersistentStoresAutomaticallyOption, NSInferMappingModelAutomaticallyOption].contains(key)
            else { continue }
            switch value {
            case let flag as Bool: description.setOption(NSNumber(value: flag), forKey: key)
            case let number as Int: description.setOption(NSNumber(value: number), forKey: key)
            case let text as String: description.setOption(NSString(string: text), forKey: key)
            default: if let object = value as? NSObject { description.setOption(object, forKey: key) }
            }
        }
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
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

    /// One inferred lightweight migration of the SQLite store at `url`, in place and in one transaction; a mapping
    /// that cannot be inferred is `NSMigrationMissingMappingModelError` (134140, Apple's "missing mapping model")
    /// with the reason as the underlying error.
    static func lightweightMigrate(url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel) throws {
        let mapping: NSMappingModel
        do {
            mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        } catch {
            throw CoreDataError.make(NSMigrationMissingMappingModelError, "Persistent store migration failed, missing mapping model: \((error as NSError).localizedDescription)",
                                     userInfo: [NSUnderlyingErrorKey: error, "sourceModel": source, "destinationModel": destination])
        }
        let connection = try SQLiteConnection(path: url.path, configuration: .init(mode: .readWrite))
        defer { connection.close() }
        try SQLiteLightweightMigration(connection: connection, sourceModel: source, destinationModel: destination, mapping: mapping).run()
    }
}
