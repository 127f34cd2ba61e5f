import Foundation
import Testing

@testable import OpenCoreData

/// Persistent history across an automatic migration that runs object by object (an explicit mapping model whose
/// expressions the in-place migration cannot run, DEVIATIONS.md M8): the migrated store starts a new history, and a
/// token from before the migration is refused with `NSPersistentHistoryTokenExpiredError`, so a client that
/// follows history refetches instead of silently missing changes.
@Suite struct HistoryObjectByObjectMigrationTests {
    @Test func aTokenFromBeforeAnObjectByObjectMigrationHasExpired() throws {
        let package = try HistoryMigrationTests.package()
        let (url, _) = try HistoryMigrationTests.makeStore(package)
        let version1 = try NSManagedObjectModel(validatingContentsOf: package, versionName: "Journal 1")
        let version2 = try #require(NSManagedObjectModel(contentsOf: package))

        // The last token before the migration.
        let token: NSPersistentHistoryToken = try {
            let context = try HierarchyMigrationModels.context(url, model: version1, options: HistoryMigrationTests.tracking)
            defer { try? context.persistentStoreCoordinator?.remove(context.persistentStoreCoordinator!.persistentStores[0]) }
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
            let transactions = try #require(result?.result as? [NSPersistentHistoryTransaction])
            #expect(transactions.count == 3)
            return try #require(transactions.last?.token)
        }()

        // A mapping model beside the model package: the inferred one, with a constant for Beta.bio.
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
        let beta = try #require(mapping.entityMappings?.first { $0.destinationEntityName == "Beta" })
        beta.attributeMappings = (beta.attributeMappings ?? []).filter { $0.name != "bio" }
            + [NSPropertyMapping(name: "bio", valueExpression: NSExpression(forConstantValue: "migrated"))]
        try CompiledMappingModel.archive(mapping).write(to: package.deletingLastPathComponent().appendingPathComponent("Journal1to2.cdm"))

        let context = try HierarchyMigrationModels.context(url, model: version2, options: HistoryMigrationTests.trackingAndMigrating)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Beta")
        #expect(try context.fetch(request).compactMap { $0.value(forKey: "bio") as? String } == ["migrated", "migrated"],
                "the explicit mapping ran, object by object")

        func history(after token: NSPersistentHistoryToken?) throws -> [Int64] {
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult
            return try #require(result?.result as? [NSPersistentHistoryTransaction]).map(\.transactionNumber)
        }
        #expect(try history(after: nil) == [], "the migrated store starts a new history")
        #expect(expectCocoaError(NSPersistentHistoryTokenExpiredError) { _ = try history(after: token) } != nil,
                "a token from before the migration is expired: the objects it saw have new IDs")

        NSEntityDescription.insertNewObject(forEntityName: "Alpha", into: context).setValue("new", forKey: "title")
        try context.save()
        let numbers = try history(after: nil)
        #expect(numbers == [5], "numbered after the old history (3), one number left out")
        #expect(expectCocoaError(NSPersistentHistoryTokenExpiredError) { _ = try history(after: token) } != nil,
                "still expired: without the gap, the old token (3) would silently skip the new transactions 1–3")
    }
}
