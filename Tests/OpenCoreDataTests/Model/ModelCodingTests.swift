import OpenCoreData
import Testing

// NSCoding for NSManagedObjectModel, NSEntityDescription and NSManagedObjectContext through NSKeyedArchiver, as iOS
// code archives them.

/// Unarchives the root object as iOS code unarchives a class that adopts NSCoding but not NSSecureCoding.
private func unarchive<T>(_ data: Data, as type: T.Type) throws -> T? {
    let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    unarchiver.requiresSecureCoding = false
    defer { unarchiver.finishDecoding() }
    return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? T
}

@Suite struct ModelCodingTests {
    @Test func aModelRoundTripsThroughAKeyedArchive() throws {
        let model = MoodyModel.make()
        let data = try NSKeyedArchiver.archivedData(withRootObject: model, requiringSecureCoding: false)
        let decoded = try #require(try unarchive(data, as: NSManagedObjectModel.self))
        #expect(decoded !== model)
        #expect(decoded.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(Set(decoded.entitiesByName.keys) == ["GeographicRegion", "Country", "Continent", "Mood"])
        let mood = try #require(decoded.entitiesByName["Mood"])
        #expect(mood.relationshipsByName["country"]?.destinationEntity?.name == "Country")
        #expect(decoded.entitiesByName["Country"]?.superentity?.name == "GeographicRegion")
        #expect(mood.attributesByName["rating"]?.defaultValue as? Int16 == 0)
        // The decoded model runs a stack and opens a store the original wrote.
        let url = try TemporaryDirectory.make().appendingPathComponent("Moody.sqlite")
        let writer = NSPersistentStoreCoordinator(managedObjectModel: model)
        try writer.remove(try writer.addPersistentStore(type: .sqlite, at: url))
        let reader = NSPersistentStoreCoordinator(managedObjectModel: decoded)
        _ = try reader.addPersistentStore(type: .sqlite, at: url)
    }

    @Test func anEntityRoundTripsThroughAKeyedArchive() throws {
        let model = MoodyModel.make()
        let mood = try #require(model.entitiesByName["Mood"])
        let data = try NSKeyedArchiver.archivedData(withRootObject: mood, requiringSecureCoding: false)
        let decoded = try #require(try unarchive(data, as: NSEntityDescription.self))
        #expect(decoded.name == "Mood")
        #expect(decoded.versionHash == mood.versionHash)
        #expect(Set(decoded.propertiesByName.keys) == Set(mood.propertiesByName.keys))
        #expect(decoded.attributesByName["date"]?.attributeType == .dateAttributeType)
        // The relationship hash covers its destination and inverse names.
        #expect(decoded.relationshipsByName["country"]?.versionHash == mood.relationshipsByName["country"]?.versionHash)

        // An entity of no model archives too.
        let note = NSEntityDescription()
        note.name = "Note"
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        note.properties = [title]
        let noteData = try NSKeyedArchiver.archivedData(withRootObject: note, requiringSecureCoding: false)
        let decodedNote = try #require(try unarchive(noteData, as: NSEntityDescription.self))
        #expect(decodedNote.name == "Note" && decodedNote.attributesByName["title"]?.attributeType == .stringAttributeType)
    }

    @Test func anArchiveWithoutAModelOrWithADamagedOneDecodesToNil() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "not a model"), requiringSecureCoding: false)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        #expect(NSManagedObjectModel(coder: unarchiver) == nil)
        #expect(NSEntityDescription(coder: unarchiver) == nil)
        #expect(NSManagedObjectContext(coder: unarchiver) == nil)

        // Damaged model data under the model's key decodes to nil, without stopping the process.
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(Data("not a compiled model".utf8) as NSData, forKey: "NSCompiledModelArchive")
        archiver.encode(NSString(string: "Mood"), forKey: "NSEntityName")
        archiver.finishEncoding()
        let damaged = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        damaged.requiresSecureCoding = false
        #expect(NSManagedObjectModel(coder: damaged) == nil)
        #expect(NSEntityDescription(coder: damaged) == nil)
    }

    @Test func aContextArchivesItsConfigurationNotItsObjects() throws {
        let stack = try MoodyStack()
        let context = stack.newContext()
        context.name = "editor"
        context.transactionAuthor = "importer"
        context.stalenessInterval = 30
        context.propagatesDeletesAtEndOfEvent = false
        context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        context.performAndWait { _ = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: context) }
        let data = try NSKeyedArchiver.archivedData(withRootObject: context, requiringSecureCoding: false)
        let decoded = try #require(try unarchive(data, as: NSManagedObjectContext.self))
        #expect(decoded.concurrencyType == .privateQueueConcurrencyType)
        #expect(decoded.name == "editor")
        #expect(decoded.transactionAuthor == "importer")
        #expect(decoded.stalenessInterval == 30)
        #expect(decoded.propagatesDeletesAtEndOfEvent == false)
        #expect((decoded.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
        #expect(decoded.persistentStoreCoordinator == nil)
        decoded.performAndWait { #expect(decoded.registeredObjects.isEmpty && !decoded.hasChanges) }
    }
}
