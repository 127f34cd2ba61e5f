import Foundation
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataFoundation

/// Compiled mapping models (`.cdm`): the keyed archive Xcode compiles an `.xcmappingmodel` into, with Apple's classes
/// and keys (`NSMappingModel` → `NSEntityMappings`; `NSEntityMapping` → `NSMappingName`, `NSMappingType`, …;
/// `NSPropertyMapping` → `NSDestinationPropertyName`, `NSValueExpression`, …). The corpus has no `.cdm`; these are
/// written here, from the corpus's Xcode mapping models and from inferred ones.
@Suite struct CompiledMappingModelTests {
    /// The keys of every object of class `className` in a keyed archive.
    static func keys(of className: String, in archive: KeyedArchive) -> [Set<String>] {
        archive.objects.indices.filter { archive.archivedClassName(ofObject: $0) == className }.compactMap { archive.fields(ofObject: $0).map { Set($0.keys) } }
    }

    @Test func theArchiveHasApplesClassesAndKeysAndReadsBackEqual() throws {
        let package = try MigrationTestModels.package()
        let source = try MigrationTestModels.model(package, version: 1), destination = try MigrationTestModels.model(package, version: 2)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        mapping.entityMappingsByName["TagToTag"]?.userInfo = ["note": "kept"]
        let data = try CompiledMappingModel.archive(mapping)
        let archive = try KeyedArchive(data: data)
        let root = try #require(archive.top["root"])
        #expect(archive.archivedClassName(ofObject: root) == "NSMappingModel")
        #expect(archive.fields(ofObject: root).map { Set($0.keys) } == ["$class", "NSEntityMappings", "NSEntityMappingsByName"])
        let appleKeys: Set<String> = ["$class", "NSMappingName", "NSMappingType", "NSSourceEntityName", "NSSourceEntityVersionHash", "NSDestinationEntityName",
                                      "NSDestinationEntityVersionHash", "NSSourceExpression", "NSUserInfo", "NSEntityMigrationPolicyClassName",
                                      "NSAttributeMappings", "NSRelationshipMappings"]
        #expect(Self.keys(of: "NSEntityMapping", in: archive) == Array(repeating: appleKeys, count: mapping.entityMappings.count))
        let propertyKeys = Self.keys(of: "NSPropertyMapping", in: archive)
        #expect(!propertyKeys.isEmpty && propertyKeys.allSatisfy { $0 == ["$class", "NSDestinationPropertyName", "NSValueExpression", "NSUserInfo", "NSPropertyTransforms"] })
        #expect(Self.keys(of: "NSFetchRequestExpression", in: archive).first == ["$class", "NSExpressionType", "NSFRExpression", "NSMOCExpression", "NSCountOnlyFlag"],
                "the source expressions are FETCH expressions")

        let read = try CompiledMappingModel.mappingModel(fromArchive: data)
        #expect(read.archiveSummary == mapping.archiveSummary)
        #expect(read.entityMappingsByName["TagToTag"]?.userInfo?["note"] as? String == "kept")

        // Through the public API, from a file.
        let url = try TemporaryDirectory.make().appendingPathComponent("Library1ToLibrary2.cdm")
        try data.write(to: url)
        let loaded = try #require(NSMappingModel(contentsOf: url))
        #expect(loaded.archiveSummary == mapping.archiveSummary)
        // A compiled inferred mapping migrates like the inferred one (in place, through the SQL path).
        let store = try LightweightMigrationTests.makeVersion1Store(package)
        let target = store.deletingLastPathComponent().appendingPathComponent("Migrated.sqlite")
        try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
            from: store, sourceType: NSSQLiteStoreType, options: nil, with: loaded, toDestinationURL: target, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        let context = try HierarchyMigrationModels.context(target, model: destination)
        #expect(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Writer")).compactMap { $0.value(forKey: "fullName") as? String }.sorted() == ["Ada", "Bob"])
    }

    @Test func aDamagedArchiveIsACoderError() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Broken.cdm")
        let package = try MigrationTestModels.package()
        var data = try CompiledMappingModel.archive(NSMappingModel.inferredMappingModel(forSourceModel: MigrationTestModels.model(package, version: 1),
                                                                                         destinationModel: MigrationTestModels.model(package, version: 2)))
        data.replaceSubrange(data.count / 2..<data.count / 2 + 64, with: Data(repeating: 0xEE, count: 64))
        try data.write(to: url)
        #expect(NSMappingModel(contentsOf: url) == nil)
        let error = #expect(throws: NSError.self) { _ = try NSMappingModel(validatingContentsOf: url) }
        #expect(error?.code == CocoaError.coderReadCorrupt.rawValue)
    }

    /// The Moody app's Xcode mapping models, compiled to `.cdm` files in a resources folder of their own.
    static func compiledMoodyMappings() throws -> (resources: URL, package: URL) {
        let folder = try MoodyMigrationChainTests.migrationsFolder()
        let resources = try TemporaryDirectory.make().appendingPathComponent("Resources")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        for step in 2...5 {
            let name = "Moody\(step)ToMoody\(step + 1)"
            try ModelCompiler.compile(folder.appendingPathComponent(name + ".xcmappingmodel"), to: resources.appendingPathComponent(name + ".cdm"))
        }
        return (resources, folder.appendingPathComponent("Moody.xcdatamodeld"))
    }

    @Test func compiledXcodeMappingsAreFoundInABundleByTheirModels() throws {
        try #require(Corpus.isAvailable, Corpus.missingMessage)
        let (resources, package) = try Self.compiledMoodyMappings()
        let models = try MoodyMigrationChainTests.versionNames.map { try NSManagedObjectModel(validatingContentsOf: package, versionName: $0) }
        let bundle = try #require(Bundle(url: resources))
        for step in 2...5 {
            let found = try #require(NSMappingModel(from: [bundle], forSourceModel: models[step - 1], destinationModel: models[step]), "Moody \(step) → \(step + 1)")
            let xcode = try NSMappingModel(validatingContentsOf: package.deletingLastPathComponent().appendingPathComponent("Moody\(step)ToMoody\(step + 1).xcmappingmodel"))
            xcode.synthesizeExpressions(source: models[step - 1], destination: models[step])
            #expect(found.archiveSummary == xcode.archiveSummary, "Moody \(step) → \(step + 1)")
        }
        #expect(NSMappingModel(from: [bundle], forSourceModel: models[0], destinationModel: models[1]) == nil, "no mapping was compiled for 1 → 2")
    }

    @Test func automaticMigrationUsesACompiledMappingNextToTheModel() throws {
        try #require(Corpus.isAvailable, Corpus.missingMessage)
        NSEntityMigrationPolicy.register(MoodyMigrationChainTests.Country5ToCountry6Policy.self, forClassName: "Migrations.Country5ToCountry6Policy")
        ValueTransformer.setValueTransformer(ColorsTransformer(), forName: NSValueTransformerName("ColorsTransformer"))
        let (resources, package) = try Self.compiledMoodyMappings()
        // Only the compiled mappings are next to the model now.
        for step in 2...5 { try FileManager.default.removeItem(at: package.deletingLastPathComponent().appendingPathComponent("Moody\(step)ToMoody\(step + 1).xcmappingmodel")) }
        for file in try FileManager.default.contentsOfDirectory(atPath: resources.path) {
            try FileManager.default.copyItem(at: resources.appendingPathComponent(file), to: package.deletingLastPathComponent().appendingPathComponent(file))
        }
        let five = try NSManagedObjectModel(validatingContentsOf: package, versionName: "Moody 5")
        let url = try Corpus.storeCopy("objcio__core-data__Moody_5.moody")
        let original = try MoodyMigrationChainTests.facts(of: url, model: five)
        let six = try #require(NSManagedObjectModel(contentsOf: package))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: six)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: LightweightMigrationTests.automatic)
        try coordinator.remove(coordinator.persistentStores[0])
        let migrated = try MoodyMigrationChainTests.facts(of: url, model: six)
        #expect(migrated.countries == original.countries, "the compiled mapping's policy gave every country its continent")
        #expect(migrated.moods == original.moods)
    }
}
