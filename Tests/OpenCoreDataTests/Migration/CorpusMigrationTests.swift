import Foundation
import Testing

@testable import OpenCoreData

/// Real stores written by Apple's Core Data, migrated to their app's newest model version by inference
/// (automatic lightweight migration, in place). Values are compared with an independent reader of the
/// store layout before and after.
@Suite struct CorpusMigrationTests {
    static var automatic: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    /// An `.xcdatamodeld` of corpus model files (version name → file), current version `current`.
    static func package(_ name: String, versions: [String: String], current: String) throws -> URL {
        let package = try TemporaryDirectory.make().appendingPathComponent(name + ".xcdatamodeld")
        for (version, file) in versions {
            let folder = package.appendingPathComponent(version + ".xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Corpus.models.appendingPathComponent(file), to: folder.appendingPathComponent("contents"))
        }
        let marker = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": current + ".xcdatamodel"], format: .xml, options: 0)
        try marker.write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    static let wireVersions = ["1.27", "1.28", "2.3", "2.24", "2.24.1", "2.50.0", "2.80.0", "2.100.0", "2.101.0"]
    static let wireStores = ["store1-27", "store1-28", "store2-3", "store2-24-1", "store2-50-0", "store2-80-0", "store2-100-0", "store2-101-0"]

    @Test("Wire stores migrate to the 2.101.0 model by inference", arguments: wireStores)
    func wire(store: String) throws {
        try #require(Corpus.isAvailable, Corpus.missingMessage)
        let versions = Dictionary(uniqueKeysWithValues: Self.wireVersions.map { ("zmessaging\($0)", "wireapp__wire-ios-data-model__zmessaging__zmessaging\($0).xml") })
        let package = try Self.package("zmessaging", versions: versions, current: "zmessaging2.101.0")
        try Self.migrateAndCompare(store: "wireapp__wire-ios-data-model__\(store).wiredatabase", package: package)
    }

    @Test("CoreDataPlus SampleModel V1 → V2 renames an entity by its renaming identifier")
    func coreDataPlusRename() throws {
        try #require(Corpus.isAvailable, Corpus.missingMessage)
        let package = try Self.package("SampleModel", versions: ["SampleModel": "alemar11__CoreDataPlus__SampleModel__SampleModel.xml",
                                                                 "SampleModel2": "alemar11__CoreDataPlus__SampleModel__SampleModel2.xml"], current: "SampleModel2")
        let source = try NSManagedObjectModel(validatingContentsOf: package, versionName: "SampleModel")
        let destination = try NSManagedObjectModel(validatingContentsOf: package, versionName: "SampleModel2")
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let renames = (mapping.entityMappings ?? []).filter { $0.sourceEntityName != nil && $0.destinationEntityName != nil && $0.sourceEntityName != $0.destinationEntityName }
        #expect(!renames.isEmpty, "SampleModel2 renames an entity")
        for rename in renames {
            let entity = try #require(destination.entitiesByName[rename.destinationEntityName ?? ""])
            #expect(entity.renamingIdentifier == rename.sourceEntityName)
        }
        try Self.migrateAndCompare(store: "alemar11__CoreDataPlus__SampleModel_V1.sqlite", package: package)
    }

    /// Copies a corpus store, reads every row by hand, opens it with the package's current model (automatic
    /// migration), and checks every migrated row's attributes and to-one references against the old rows.
    static func migrateAndCompare(store: String, package: URL) throws {
        let url = try Corpus.storeCopy(store)
        let destination = try #require(NSManagedObjectModel(contentsOf: package))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let source = try #require(MigrationModelLookup.versions(of: package).first { $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) },
                                  "no version of \(package.lastPathComponent) wrote \(store)")
        let before = try RawStoreReader(url: url, model: source)
        var oldRows: [String: [Int64: RawRow]] = [:]
        for entity in source.entities where !entity.isAbstract {
            oldRows[entity.name ?? ""] = Dictionary(uniqueKeysWithValues: try before.rows(of: entity).map { ($0.primaryKey, $0) })
        }
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destination)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: automatic)
        try coordinator.remove(coordinator.persistentStores[0])
        let after = try RawStoreReader(url: url, model: destination)
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)[NSStoreUUIDKey] as? String == metadata[NSStoreUUIDKey] as? String)

        var compared = 0
        for entityMapping in mapping.entityMappings ?? [] {
            guard let sourceName = entityMapping.sourceEntityName, let destinationName = entityMapping.destinationEntityName,
                let sourceEntity = source.entitiesByName[sourceName], let entity = destination.entitiesByName[destinationName], !entity.isAbstract
            else { continue }
            let old = oldRows[sourceName] ?? [:]
            let new = try after.rows(of: entity)
            #expect(new.count == old.count, "\(store): \(sourceName) → \(destinationName) row count")
            for row in new {
                guard let previous = old[row.primaryKey] else {
                    Issue.record("\(store): \(destinationName) row \(row.primaryKey) has no source row")
                    continue
                }
                for property in entityMapping.attributeMappings ?? [] {
                    guard let name = property.name, let key = MappingInference.sourceKey(of: property.valueExpression),
                        let oldAttribute = sourceEntity.attributesByName[key], let newAttribute = entity.attributesByName[name],
                        oldAttribute.attributeType == newAttribute.attributeType, let oldValue = previous.attributes[key], let newValue = row.attributes[name]
                    else { continue }
                    if newValue != oldValue, !(oldValue == .null && !newAttribute.isOptional && newAttribute.defaultValue != nil) {
                        Issue.record("\(store): \(destinationName).\(name) of row \(row.primaryKey) was \(oldValue), is \(newValue)")
                    }
                    compared += 1
                }
                for property in entityMapping.relationshipMappings ?? [] {
                    guard let name = property.name, let key = MappingInference.sourceKey(of: property.valueExpression.flatMap { expression -> OpenCoreData.NSExpression? in
                        if case .function(_, _, let arguments) = expression.node, arguments.count == 2 { return arguments[1] }
                        return nil
                    }), let newRelationship = entity.relationshipsByName[name], !newRelationship.isToMany,
                        let oldRelationship = sourceEntity.relationshipsByName[key], !oldRelationship.isToMany,
                        let oldReference = previous.toOne[key], let newReference = row.toOne[name]
                    else { continue }
                    #expect(newReference?.primaryKey == oldReference?.primaryKey, "\(store): \(destinationName).\(name) of row \(row.primaryKey)")
                    compared += 1
                }
            }
        }
        #expect(compared > 0 || oldRows.values.allSatisfy(\.isEmpty), "\(store): nothing was compared")
        if store != "wireapp__wire-ios-data-model__store2-101-0.wiredatabase" {
            // A migrated store has the tables, columns, indexes and triggers of a new store of the model.
            let fresh = try TemporaryDirectory.make().appendingPathComponent("Fresh.sqlite")
            let freshCoordinator = NSPersistentStoreCoordinator(managedObjectModel: destination)
            try freshCoordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: fresh, options: nil)
            try freshCoordinator.remove(freshCoordinator.persistentStores[0])
            #expect(try schema(of: url) == schema(of: fresh), "\(store): schema after migration")
        }
        // The migrated store opens without migration and its rows fetch through the API.
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: destination)
        try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = reopened
        for entity in destination.entities where entity.superentity == nil {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
            #expect(try context.count(for: request) == after.rowCount(ofHierarchy: entity), "\(store): \(entity.name ?? "") fetch count")
        }
    }
}

extension CorpusMigrationTests {
    /// The DDL of the model's tables, indexes and triggers (`sqlite_master`, without Core Data's bookkeeping
    /// tables and without tables of other frameworks that a store may carry).
    static func schema(of url: URL) throws -> [String] {
        try RawDatabase(path: url.path).rows("""
            SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name LIKE 'Z%' \
            AND tbl_name NOT IN ('Z_METADATA', 'Z_PRIMARYKEY', 'Z_MODELCACHE') ORDER BY type, name
            """).map { "\($0)" }
    }
}

extension RawStoreReader {
    /// Rows of an entity and all its sub-entities.
    func rowCount(ofHierarchy entity: NSEntityDescription) -> Int {
        model.entities.filter { $0.isKindOf(entity: entity) }.reduce(0) { $0 + rowCount(of: $1) }
    }
}
