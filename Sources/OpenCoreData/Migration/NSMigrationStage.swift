/// One step of a staged migration (`NSStagedMigrationManager`).
open class NSMigrationStage: NSObject, @unchecked Sendable {
    // @unchecked Sendable: stages are configured before the migration and only read during it.

    /// A name for logs and errors.
    open var label: String!

    public override init() { super.init() }
}

/// A stage of lightweight migration from the model versions it lists by version checksum: a store at one of them
/// is migrated, with an inferred mapping, to the current model of the next custom stage — or to the destination model
/// when no custom stage follows. Each version is found by its checksum among the stages' models, the model versions at
/// hand and the store's own model.
///
/// For example (Apple's "V1 to V2, then V2 to V3 by hand"):
/// ```swift
/// let lightweight = NSLightweightMigrationStage([v1.versionChecksum])
/// let custom = NSCustomMigrationStage(migratingFrom: v2Reference, to: v3Reference)
/// let manager = NSStagedMigrationManager([lightweight, custom])
/// ```
open class NSLightweightMigrationStage: NSMigrationStage, @unchecked Sendable {
    /// The model versions the stage migrates from.
    public let versionChecksums: [String]

    /// A stage from the versions with these checksums.
    public init(_ checksums: [String]) {
        versionChecksums = checksums
        super.init()
    }
}

/// A stage from one model version to the next with your own code around a lightweight migration:
/// `willMigrateHandler` runs with the store open at the current model (prepare the data), then the store is
/// migrated, then `didMigrateHandler` runs with it open at the next model (fill in new data).
///
/// For example:
/// ```swift
/// let stage = NSCustomMigrationStage(migratingFrom: v2Reference, to: v3Reference)
/// stage.didMigrateHandler = { manager, _ in
///     let context = manager.container!.newBackgroundContext()
///     try context.performAndWait { /* … */ try context.save() }
/// }
/// ```
open class NSCustomMigrationStage: NSMigrationStage, @unchecked Sendable {
    /// The model the stage starts from.
    public let currentModel: NSManagedObjectModelReference
    /// The model the stage ends at.
    public let nextModel: NSManagedObjectModelReference
    /// Runs before the store is migrated, with `manager.container` open at `currentModel`.
    open var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    /// Runs after the store is migrated, with `manager.container` open at `nextModel`.
    open var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    /// A stage from `currentModel` to `nextModel`.
    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }
}
