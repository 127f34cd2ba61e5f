import Foundation
import Testing

@testable import OpenCoreData

// What progressive-migration code written for Apple's Core Data (JSQCoreDataKit's `Migrate.swift`, for one) relies on:
// `NSMappingModel(from:forSourceModel:destinationModel:)` finds a mapping only for the pair of versions it was made
// for, and the mapping it finds equals the same file loaded with `NSMappingModel(contentsOf:)` (Apple's mapping
// models compare by content; JSQCoreDataKit's tests, which pass on Apple's Core Data, compare them with `==`).
@Suite struct MappingModelLookupTests {
    @Test func twoLoadsOfOneCompiledMappingModelAreEqualAndEqualTheOneFoundInABundle() throws {
        let package = try MigrationTestModels.package()
        let source = try MigrationTestModels.model(package, version: 1), destination = try MigrationTestModels.model(package, version: 2)
        let inferred = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let resources = try TemporaryDirectory.make()
        let url = resources.appendingPathComponent("Library1ToLibrary2.cdm")
        try CompiledMappingModel.archive(inferred).write(to: url)

        let first = try #require(NSMappingModel(contentsOf: url)), second = try #require(NSMappingModel(contentsOf: url))
        #expect(first !== second)
        #expect(first == second)
        #expect(first.hash == second.hash)
        let bundle = try #require(Bundle(url: resources))
        let found = try #require(NSMappingModel(from: [bundle], forSourceModel: source, destinationModel: destination))
        #expect(found == first)

        // A change anywhere in one entity mapping makes them differ.
        let edited = try #require(NSMappingModel(contentsOf: url))
        let mapping = try #require(edited.entityMappings.first)
        mapping.attributeMappings = (mapping.attributeMappings ?? []) + [NSPropertyMapping(name: "extra", valueExpression: NSExpression(forConstantValue: 1))]
        #expect(edited != first)
        #expect(NSPropertyMapping(name: "a", valueExpression: NSExpression(format: "$source.a")) == NSPropertyMapping(name: "a", valueExpression: NSExpression(format: "$source.a")))
        #expect(NSPropertyMapping(name: "a", valueExpression: NSExpression(format: "$source.a")) != NSPropertyMapping(name: "a", valueExpression: NSExpression(format: "$source.b")))
    }

    /// Xcode mapping models shipped beside the compiled model (`Moody.momd`, as Xcode compiles the `.xcdatamodeld`)
    /// match only the two versions they name; one whose models cannot be found matches nothing.
    @Test func xcodeMappingModelsInABundleMatchOnlyTheVersionsTheyName() throws {
        try #require(Corpus.isAvailable, Corpus.missingMessage)
        let folder = try MoodyMigrationChainTests.migrationsFolder()
        let models = try MoodyMigrationChainTests.versionNames.map {
            try NSManagedObjectModel(validatingContentsOf: folder.appendingPathComponent("Moody.xcdatamodeld"), versionName: $0)
        }
        let resources = try TemporaryDirectory.make().appendingPathComponent("Resources")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: folder.appendingPathComponent("Moody4ToMoody5.xcmappingmodel"), to: resources.appendingPathComponent("Moody4ToMoody5.xcmappingmodel"))
        let bundle = try #require(Bundle(url: resources))
        #expect(NSMappingModel(from: [bundle], forSourceModel: models[3], destinationModel: models[4]) == nil, "the models it names are not in the bundle")

        try ModelCompiler.compile(folder.appendingPathComponent("Moody.xcdatamodeld"), to: resources.appendingPathComponent("Moody.momd"))
        let compiled = try #require(Bundle(url: resources))
        let found = try #require(NSMappingModel(from: [compiled], forSourceModel: models[3], destinationModel: models[4]))
        #expect(found == NSMappingModel(contentsOf: resources.appendingPathComponent("Moody4ToMoody5.xcmappingmodel")))
        for (source, destination) in [(4, 3), (2, 3), (3, 5), (4, 4)] {
            #expect(NSMappingModel(from: [compiled], forSourceModel: models[source], destinationModel: models[destination]) == nil, "Moody \(source + 1) → \(destination + 1)")
        }
    }
}
