import Foundation
import Testing

@testable import OpenCoreData

/// Inferred migrations over an entity hierarchy keep what every sub-entity inherits: the abstract `Item`'s
/// required to-one `owner`, its many-to-many `tags` (at least one) and its one-to-many `notes`, on `Book` and `Film`.
@Suite struct HierarchyMigrationTests {
    @Test func inPlaceLightweightMigrationKeepsInheritedRelationships() throws {
        let package = try HierarchyMigrationModels.package()
        let url = try HierarchyMigrationModels.makeVersion1Store(package)
        let context = try HierarchyMigrationModels.context(url, model: HierarchyMigrationModels.model(package, version: 2), options: LightweightMigrationTests.automatic)
        #expect(try HierarchyMigrationModels.summary(of: context) == HierarchyMigrationModels.expectedSummary)
        #expect(try HierarchyMigrationModels.inverseSummary(of: context) == HierarchyMigrationModels.expectedInverses)
    }

    @Test func objectByObjectMigrationKeepsInheritedRelationships() throws {
        let package = try HierarchyMigrationModels.package()
        let url = try HierarchyMigrationModels.makeVersion1Store(package)
        let source = try HierarchyMigrationModels.model(package, version: 1), destination = try HierarchyMigrationModels.model(package, version: 2)
        let target = url.deletingLastPathComponent().appendingPathComponent("Migrated.sqlite")
        try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStore(
            from: url, sourceType: NSSQLiteStoreType, options: nil, with: nil, toDestinationURL: target, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        let context = try HierarchyMigrationModels.context(target, model: destination)
        #expect(try HierarchyMigrationModels.summary(of: context) == HierarchyMigrationModels.expectedSummary)
        #expect(try HierarchyMigrationModels.inverseSummary(of: context) == HierarchyMigrationModels.expectedInverses)
        // The same primary keys are not promised object by object, but every row is there.
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) == 3)
    }

    @Test func inferredRelationshipMappingsNameTheSourceRelationship() throws {
        // Apple's inferred mappings (`_NSMappingModelBuilder`) find a relationship's members through
        // `destinationInstancesForSourceRelationshipNamed:sourceInstances:`, whichever mapping migrated them
        // (the destination of `Item.owner`'s inverse is the abstract `Item`, whose instances are Books and Films).
        let package = try HierarchyMigrationModels.package()
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: HierarchyMigrationModels.model(package, version: 1),
                                                              destinationModel: HierarchyMigrationModels.model(package, version: 2))
        let person = try #require(mapping.entityMappingsByName["PersonToPerson"]?.relationshipMappings?.first { $0.name == "items" })
        #expect(person.valueExpression?.description == #"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "items", $source.items)"#)
        let book = try #require(mapping.entityMappingsByName["BookToBook"])
        #expect(Set((book.relationshipMappings ?? []).compactMap(\.name)) == ["notes", "owner", "tags"])
        #expect(Set((book.attributeMappings ?? []).compactMap(\.name)) == ["pages", "title"])
    }
}
