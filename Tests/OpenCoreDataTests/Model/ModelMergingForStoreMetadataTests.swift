import OpenCoreData
import Testing

// NSManagedObjectModel(byMerging:forStoreMetadata:): the merged model, only when it is the model of the store.

private func model(_ entityName: String, attributes: [String]) -> NSManagedObjectModel {
    let entity = NSEntityDescription()
    entity.name = entityName
    entity.properties = attributes.map { name in
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = .stringAttributeType
        attribute.isOptional = true
        return attribute
    }
    let model = NSManagedObjectModel()
    model.entities = [entity]
    return model
}

@Suite struct ModelMergingForStoreMetadataTests {
    @Test func theMergedModelIsReturnedOnlyWhenItMatchesTheStore() throws {
        let notes = model("Note", attributes: ["title"]), tags = model("Tag", attributes: ["name"])
        let url = try TemporaryDirectory.make().appendingPathComponent("Notes.sqlite")
        let storeModel = try #require(NSManagedObjectModel(byMerging: [notes, tags]))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: storeModel)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        try coordinator.remove(store)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)

        let merged = try #require(NSManagedObjectModel(byMerging: [notes, tags], forStoreMetadata: metadata))
        #expect(Set(merged.entitiesByName.keys) == ["Note", "Tag"])
        #expect(merged.entityVersionHashesByName == storeModel.entityVersionHashesByName)
        let objcSpelled = NSManagedObjectModel(byMergingModels: [notes, tags], forStoreMetadata: metadata)
        #expect(objcSpelled?.entityVersionHashesByName == storeModel.entityVersionHashesByName)
        // The merged model opens the store.
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: merged)
        _ = try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)

        // A model of another version (Tag gained an attribute) is not the store's: nil.
        let newerTags = model("Tag", attributes: ["name", "color"])
        #expect(NSManagedObjectModel(byMerging: [notes, newerTags], forStoreMetadata: metadata) == nil)
        #expect(NSManagedObjectModel(byMergingModels: [notes, newerTags], forStoreMetadata: metadata) == nil)
        // Models that cannot be merged (both define Note): nil.
        #expect(NSManagedObjectModel(byMerging: [notes, model("Note", attributes: ["title"])], forStoreMetadata: metadata) == nil)
        // Metadata without version hashes matches nothing.
        #expect(NSManagedObjectModel(byMerging: [notes, tags], forStoreMetadata: [NSStoreTypeKey: NSSQLiteStoreType]) == nil)
    }
}
