import Foundation
import OpenCoreData

/// How a store moves from one version of the models to the next (SwiftData's `SchemaMigrationPlan`): the versions in
/// order, and a stage between each two. The container runs it when it opens a store written by an earlier version,
/// as Core Data's staged migration.
///
/// ```swift
/// enum TripsMigrationPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
///     static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)] }
/// }
/// let container = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsMigrationPlan.self,
///                                    configurations: [configuration])
/// ```
public protocol SchemaMigrationPlan {
    /// The versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages from each version to the next.
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan (SwiftData's `MigrationStage`).
///
/// ```swift
/// .custom(fromVersion: TripsV2.self, toVersion: TripsV3.self,
///         willMigrate: { context in
///             // V2's models: remove duplicates before V3 makes `name` unique
///             try context.save()
///         },
///         didMigrate: nil)
/// ```
public enum MigrationStage: Sendable {
    /// An inferred migration (renames from `originalName:`, added and removed properties, new defaults).
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// An inferred migration with your code before it (a context of the old version's models, on the store at that
    /// version) and after it (the new version's models, on the migrated store); save in them what you change.
    case custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                willMigrate: (@Sendable (ModelContext) throws -> Void)?, didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    /// The Core Data stage: each SwiftData stage goes from exactly its `fromVersion` to its `toVersion`.
    func coreDataStage() -> NSMigrationStage {
        switch self {
        case .lightweight(let from, let to):
            let stage = NSCustomMigrationStage(migratingFrom: Self.reference(from), to: Self.reference(to))
            stage.label = "lightweight \(from.versionIdentifier) → \(to.versionIdentifier)"
            return stage
        case .custom(let from, let to, let willMigrate, let didMigrate):
            let stage = NSCustomMigrationStage(migratingFrom: Self.reference(from), to: Self.reference(to))
            stage.label = "custom \(from.versionIdentifier) → \(to.versionIdentifier)"
            if let willMigrate {
                stage.willMigrateHandler = { manager, _ in try Self.run(willMigrate, schema: Schema(versionedSchema: from), manager: manager) }
            }
            if let didMigrate {
                stage.didMigrateHandler = { manager, _ in try Self.run(didMigrate, schema: Schema(versionedSchema: to), manager: manager) }
            }
            return stage
        }
    }

    private static func reference(_ version: any VersionedSchema.Type) -> NSManagedObjectModelReference {
        let model = Schema(versionedSchema: version).managedObjectModel
        return NSManagedObjectModelReference(model: model, versionChecksum: model.versionChecksum)
    }

    /// Runs a stage's handler with a context of `schema`'s models on the store the migration has open.
    private static func run(_ handler: (ModelContext) throws -> Void, schema: Schema, manager: NSStagedMigrationManager) throws {
        guard let coordinator = manager.container?.persistentStoreCoordinator else { return }
        let context = ModelContext(ModelContainer(schema: schema, coordinator: coordinator))
        try handler(context)
    }
}
