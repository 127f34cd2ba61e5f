import Foundation
import Testing

@testable import OpenCoreData

/// Persistent history written before an in-place lightweight migration that renumbers the entities still reads
/// with the right entities, object IDs, updated properties and tombstones afterwards.
///
/// Version 1: `Beta` (name, score), `Gamma` (code — kept in tombstones —, label), `Zeta` (note): numbered 1, 2, 3.
/// Version 2 adds `Alpha` and `Beta.bio`, renames `Gamma` to `Delta` (renaming identifier) with a second preserved
/// attribute `alias`, and removes `Zeta`: `Alpha` 1, `Beta` 2, `Delta` 3.
@Suite struct HistoryMigrationTests {
    static func version(_ number: Int) -> String {
        let entities = number == 1 ? """
            <entity name="Beta" representedClassName="Beta" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="score" optional="YES" attributeType="Integer 32" usesScalarValueType="NO"/>
            </entity>
            <entity name="Gamma" representedClassName="Gamma" syncable="YES">
                <attribute name="code" optional="YES" attributeType="String" preserveAfterDeletion="YES"/>
                <attribute name="label" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Zeta" representedClassName="Zeta" syncable="YES">
                <attribute name="note" optional="YES" attributeType="String"/>
            </entity>
            """ : """
            <entity name="Alpha" representedClassName="Alpha" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Beta" representedClassName="Beta" syncable="YES">
                <attribute name="bio" optional="YES" attributeType="String"/>
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="score" optional="YES" attributeType="Integer 32" usesScalarValueType="NO"/>
            </entity>
            <entity name="Delta" representedClassName="Delta" elementID="Gamma" syncable="YES">
                <attribute name="alias" optional="YES" attributeType="String" preserveAfterDeletion="YES"/>
                <attribute name="code" optional="YES" attributeType="String" preserveAfterDeletion="YES"/>
                <attribute name="label" optional="YES" attributeType="String"/>
            </entity>
            """
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            \(entities)
            </model>
            """
    }

    static func package() throws -> URL {
        let package = try TemporaryDirectory.make().appendingPathComponent("Journal.xcdatamodeld")
        for number in [1, 2] {
            let folder = package.appendingPathComponent("Journal \(number).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(version(number).utf8).write(to: folder.appendingPathComponent("contents"))
        }
        let current = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Journal 2.xcdatamodel"], format: .xml, options: 0)
        try current.write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    static var tracking: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }
    static var trackingAndMigrating: [AnyHashable: Any] {
        [NSPersistentHistoryTrackingKey: true, NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
    }

    /// The version-1 store with three transactions: T1 inserts Betas b1 b2, Gammas g1 g2 (codes G1 G2) and Zeta z1;
    /// T2 sets b1's score; T3 deletes g2 and changes z1. Returns the primary keys by name.
    static func makeStore(_ package: URL) throws -> (url: URL, keys: [String: Int64]) {
        let url = try TemporaryDirectory.make().appendingPathComponent("Journal.sqlite")
        let context = try HierarchyMigrationModels.context(url, model: NSManagedObjectModel(validatingContentsOf: package, versionName: "Journal 1"), options: tracking)
        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        let b1 = insert("Beta", ["name": "b1"]), b2 = insert("Beta", ["name": "b2"])
        let g1 = insert("Gamma", ["code": "G1", "label": "one"]), g2 = insert("Gamma", ["code": "G2", "label": "two"])
        let z1 = insert("Zeta", ["note": "z"])
        try context.save()
        b1.setValue(5, forKey: "score")
        try context.save()
        context.delete(g2)
        z1.setValue("zz", forKey: "note")
        try context.save()
        var keys: [String: Int64] = [:]
        for (name, object) in [("b1", b1), ("b2", b2), ("g1", g1), ("g2", g2), ("z1", z1)] {
            keys[name] = Int64(object.objectID.uriRepresentation().lastPathComponent.dropFirst()) ?? -1
        }
        try context.persistentStoreCoordinator?.remove(context.persistentStoreCoordinator!.persistentStores[0])
        return (url, keys)
    }

    @Test func historyReadsWithTheRenumberedEntitiesAfterAnInPlaceMigration() throws {
        let package = try Self.package()
        let (url, keys) = try Self.makeStore(package)
        let rawBefore = try RawDatabase(path: url.path).rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT").map { "\($0[0]) \($0[1])" }
        #expect(rawBefore == ["1 'Beta'", "2 'Gamma'", "3 'Zeta'"])

        let model = try #require(NSManagedObjectModel(contentsOf: package))
        let context = try HierarchyMigrationModels.context(url, model: model, options: Self.trackingAndMigrating)
        let numbers = try RawDatabase(path: url.path).rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT").map { "\($0[0]) \($0[1])" }
        #expect(numbers == ["1 'Alpha'", "2 'Beta'", "3 'Delta'"], "the migration renumbers the entities")

        let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
        let transactions = try #require(result?.result as? [NSPersistentHistoryTransaction])
        #expect(transactions.count == 3)
        func describe(_ change: NSPersistentHistoryChange) -> String {
            let id = change.changedObjectID
            return "\(change.changeType.rawValue) \(id.entity.name ?? "?") \(id.uriRepresentation().lastPathComponent)"
        }
        let expected = [
            ["0 Beta p\(keys["b1"]!)", "0 Beta p\(keys["b2"]!)", "0 Delta p\(keys["g1"]!)", "0 Delta p\(keys["g2"]!)"],
            ["1 Beta p\(keys["b1"]!)"],
            ["2 Delta p\(keys["g2"]!)"],
        ]
        #expect(transactions.map { ($0.changes ?? []).map(describe).sorted() } == expected, "changes of the removed Zeta are left out")

        // The object IDs are those of the migrated objects.
        let b1 = try #require(try context.fetch(Self.request("Beta", "name == 'b1'")).first)
        #expect(transactions[1].changes?.first?.changedObjectID == b1.objectID)
        #expect(transactions[1].changes?.first?.updatedProperties.map { Set($0.map(\.name)) } == ["score"])
        let g2 = try #require(transactions[2].changes?.first)
        #expect(g2.tombstone as? [String: String] == ["code": "G2"])

        // Filtering by the changed entity.
        let betas = try #require(NSPersistentHistoryChange.fetchRequest)
        betas.predicate = NSPredicate(format: "changedEntity == %@", try #require(model.entitiesByName["Beta"]))
        let filtered = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: betas)
        filtered.resultType = .changesOnly
        let betaChanges = try #require((try context.execute(filtered) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryChange])
        #expect(betaChanges.map(describe).sorted() == ["0 Beta p\(keys["b1"]!)", "0 Beta p\(keys["b2"]!)", "1 Beta p\(keys["b1"]!)"])

        // Merging the history into a context reaches the migrated objects.
        let merging = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        merging.persistentStoreCoordinator = context.persistentStoreCoordinator
        let watched = try merging.existingObject(with: b1.objectID)
        for transaction in transactions { merging.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
        #expect(watched.value(forKey: "score") as? Int == 5)
        let changes = transactions.flatMap { $0.changes ?? [] }
        let deleted = Set(changes.filter { $0.changeType == .delete }.map(\.changedObjectID))
        for change in changes where !deleted.contains(change.changedObjectID) {
            let object = try merging.existingObject(with: change.changedObjectID)
            #expect(object.entity === change.changedObjectID.entity)
            #expect(object.value(forKey: object.entity.name == "Beta" ? "name" : "code") != nil)
        }
    }

    @Test func transactionNumbersAreNotReusedAfterAMigration() throws {
        let package = try Self.package()
        let (url, _) = try Self.makeStore(package)
        do {
            // Delete all history: the next transaction number must still come after the deleted ones.
            let context = try HierarchyMigrationModels.context(url, model: NSManagedObjectModel(validatingContentsOf: package, versionName: "Journal 1"), options: Self.tracking)
            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date.distantFuture))
            try context.persistentStoreCoordinator?.remove(context.persistentStoreCoordinator!.persistentStores[0])
        }
        let model = try #require(NSManagedObjectModel(contentsOf: package))
        let context = try HierarchyMigrationModels.context(url, model: model, options: Self.trackingAndMigrating)
        NSEntityDescription.insertNewObject(forEntityName: "Alpha", into: context).setValue("new", forKey: "title")
        try context.save()
        let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
        let transactions = try #require(result?.result as? [NSPersistentHistoryTransaction])
        #expect(transactions.map(\.transactionNumber) == [4])
        #expect(transactions.first?.changes?.first?.changedObjectID.entity.name == "Alpha")
    }

    static func request(_ entity: String, _ predicate: String) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: predicate)
        return request
    }
}
