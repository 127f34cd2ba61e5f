import Foundation
import Testing

@testable import OpenCoreData

// History over richer models: inheritance (ZENTITY is the concrete sub-entity), many-to-many relationships,
// tombstones of non-string types, two stores in one coordinator, and saves that fail.

/// Item (name, uuid and when preserved, tags ↔ Tag.items many-to-many), SpecialItem: Item (level), Tag (label);
/// Log (text, preserved) in configuration "Side", the others in "Main".
enum ShapesModel {
    static let shared: NSManagedObjectModel = make()

    static func make() -> NSManagedObjectModel {
        let item = entity("Item"), special = entity("SpecialItem"), tag = entity("Tag"), log = entity("Log")
        let uuid = attribute("uuid", .UUIDAttributeType), when = attribute("when", .dateAttributeType)
        uuid.preservesValueInHistoryOnDeletion = true
        when.preservesValueInHistoryOnDeletion = true
        let text = attribute("text", .stringAttributeType)
        text.preservesValueInHistoryOnDeletion = true
        let tags = NSRelationshipDescription(), items = NSRelationshipDescription()
        tags.name = "tags"
        tags.destinationEntity = tag
        tags.maxCount = 0
        tags.isOptional = true
        items.name = "items"
        items.destinationEntity = item
        items.maxCount = 0
        items.isOptional = true
        tags.inverseRelationship = items
        items.inverseRelationship = tags
        item.properties = [attribute("name", .stringAttributeType), uuid, when, tags]
        special.properties = [attribute("level", .integer16AttributeType)]
        item.subentities = [special]
        tag.properties = [attribute("label", .stringAttributeType), items]
        log.properties = [text]
        let model = NSManagedObjectModel()
        model.entities = [item, special, tag, log]
        model.setEntities([item, special, tag], forConfigurationName: "Main")
        model.setEntities([log], forConfigurationName: "Side")
        return model
    }

    private static func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = "NSManagedObject"
        return entity
    }

    private static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = true
        return attribute
    }
}

@Suite("Persistent history: model shapes, several stores, failed saves", .timeLimit(.minutes(1)))
struct HistoryModelShapesTests {
    /// A coordinator with the Main and Side stores, both tracking history.
    struct TwoStores {
        let coordinator: NSPersistentStoreCoordinator
        let main: NSPersistentStore
        let side: NSPersistentStore
        let mainURL: URL

        init() throws {
            let directory = try TemporaryDirectory.make()
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: ShapesModel.shared)
            mainURL = directory.appendingPathComponent("Main.sqlite")
            main = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Main", at: mainURL, options: HistoryStack.tracking)
            side = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Side",
                                                      at: directory.appendingPathComponent("Side.sqlite"), options: HistoryStack.tracking)
        }

        func context(author: String? = nil) -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.transactionAuthor = author
            return context
        }
    }

    @Test("a sub-entity's changes carry its own entity number; typed tombstones come back typed")
    func inheritanceAndTypedTombstones() throws {
        let stores = try TwoStores()
        let context = stores.context()
        let id = UUID(), when = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
        let special = try context.performAndWait {
            let special = NSEntityDescription.insertNewObject(forEntityName: "SpecialItem", into: context)
            special.setValue("s", forKey: "name")
            special.setValue(id, forKey: "uuid")
            special.setValue(when, forKey: "when")
            special.setValue(NSNumber(value: 3), forKey: "level")
            try context.save()
            special.setValue(NSNumber(value: 4), forKey: "level")
            try context.save()
            context.delete(special)
            try context.save()
            return special.objectID
        }
        let specialNumber = try #require(try RawSQL.value(stores.mainURL, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'SpecialItem'")?.int)
        #expect(try RawSQL.rows(stores.mainURL, "SELECT DISTINCT ZENTITY FROM ACHANGE") == [[.integer(specialNumber)]])
        let history = try context.performAndWait { try context.transactions(after: nil) }
        #expect(history.count == 3)
        let changes = history.flatMap { $0.changes ?? [] }
        #expect(changes.map(\.changedObjectID) == [special, special, special])
        #expect(changes.allSatisfy { $0.changedObjectID.entity.name == "SpecialItem" })
        #expect(changes[1].updatedProperties.map { Set($0.map(\.name)) } == ["level"])
        let tombstone = try #require(changes[2].tombstone)
        #expect(tombstone["uuid"] as? UUID == id)
        #expect(tombstone["when"] as? Date == when)
        #expect(tombstone["name"] == nil)
    }

    @Test("a many-to-many change is an update of both objects, naming their relationships")
    func manyToMany() throws {
        let stores = try TwoStores()
        let context = stores.context()
        let (item, tag) = try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            try context.save()
            item.mutableSetValue(forKey: "tags").add(tag)
            try context.save()
            return (item.objectID, tag.objectID)
        }
        let last = try #require(try context.performAndWait { try context.transactions(after: nil) }.last)
        let byID = Dictionary(uniqueKeysWithValues: (last.changes ?? []).map { ($0.changedObjectID, $0) })
        #expect(byID.count == 2)
        #expect(byID[item]?.changeType == .update && byID[tag]?.changeType == .update)
        #expect(byID[item]?.updatedProperties.map { Set($0.map(\.name)) } == ["tags"])
        #expect(byID[tag]?.updatedProperties.map { Set($0.map(\.name)) } == ["items"])
    }

    @Test("two stores: one transaction per store per save, a token covering both, fetches and deletes per store")
    func twoStores() throws {
        let stores = try TwoStores()
        let context = stores.context(author: "both")
        let empty = stores.coordinator.currentPersistentHistoryToken(fromStores: nil)
        try context.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            NSEntityDescription.insertNewObject(forEntityName: "Log", into: context).setValue("l1", forKey: "text")
            try context.save()
        }
        let first = try #require(stores.coordinator.currentPersistentHistoryToken(fromStores: nil))
        #expect(first != empty)
        let all = try context.performAndWait { try context.transactions(after: nil) }
        #expect(all.count == 2)
        #expect(Set(all.map(\.storeID)) == Set([stores.main.identifier, stores.side.identifier].compactMap { $0 }))
        #expect(all.allSatisfy { $0.author == "both" && $0.changes?.count == 1 })
        // A token of one store only.
        let mainOnly = stores.coordinator.currentPersistentHistoryToken(fromStores: [stores.main])
        #expect(mainOnly != first)
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Log", into: context).setValue("l2", forKey: "text")
            try context.save()
        }
        let later = try context.performAndWait { try context.transactions(after: first) }
        #expect(later.map(\.storeID) == [stores.side.identifier])
        // affectedStores limits a request to some stores.
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        request.affectedStores = [stores.main]
        let mainHistory = try context.performAndWait { try context.history(request) as? [NSPersistentHistoryTransaction] }
        #expect(mainHistory?.map(\.storeID) == [stores.main.identifier].compactMap { $0 })
        // Deleting before the combined token leaves each store's last covered transaction.
        _ = try context.performAndWait { try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: first)) }
        #expect(try context.performAndWait { try context.transactions(after: nil) }.count == 3)
        _ = try context.performAndWait { try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: stores.coordinator.currentPersistentHistoryToken(fromStores: nil))) }
        #expect(try context.performAndWait { try context.transactions(after: nil) }.count == 2)
    }

    @Test("a save that fails records no history, and the next save records only its own changes")
    func failedSave() throws {
        let stack = try HistoryStack()
        let first = stack.context(author: "first"), second = stack.context(author: "second")
        let id = try first.performAndWait {
            let note = first.insertNote("n")
            try first.save()
            return note.objectID
        }
        let stale = try second.performAndWait { () throws in
            let note = second.object(with: id)
            _ = note.value(forKey: "title")
            return note
        }
        try first.performAndWait {
            first.object(with: id).setValue("first", forKey: "title")
            try first.save()
        }
        let error = second.performAndWait {
            thrownError {
                stale.setValue("second", forKey: "title")
                second.insertNote("extra")
                try second.save()
            }
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSManagedObjectMergeError)
        #expect(try RawSQL.value(stack.url, "SELECT count(*) FROM ATRANSACTION") == .integer(2))
        try second.performAndWait {
            second.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
            try second.save()
        }
        let history = try second.performAndWait { try second.transactions(after: nil) }
        #expect(history.map(\.author) == ["first", "first", "second"])
        #expect(history.last?.changes.map { Set($0.map(\.changeType)) } == [.insert, .update])
        #expect(history.last?.changes?.count == 2)
    }
}
