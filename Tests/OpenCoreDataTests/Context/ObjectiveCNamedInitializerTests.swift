import OpenCoreData
import Testing

// Initializers in the spelling Swift derives from Apple's Objective-C selectors, used as iOS code uses them.

@Suite struct ObjectiveCNamedInitializerTests {
    @Test func aMergePolicyMadeWithMergeTypeResolvesAsItsType() throws {
        let policy = NSMergePolicy(mergeType: .mergeByPropertyObjectTrumpMergePolicyType)
        #expect(policy.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
        #expect(NSMergePolicyType(rawValue: 2) == .mergeByPropertyObjectTrumpMergePolicyType)
        #expect(NSMergePolicyType(rawValue: 99) == nil)
        // Two contexts change the same mood; the second saves with object trump and wins.
        let stack = try MoodyStack()
        let id = try stack.context.performAndWait {
            let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: stack.context)
            mood.setValue(Date(), forKey: "date")
            mood.setValue(Int16(1), forKey: "rating")
            try stack.context.save()
            return mood.objectID
        }
        let other = stack.newContext()
        other.mergePolicy = policy
        try other.performAndWait {
            let mood = try other.existingObject(with: id)
            mood.setValue(Int16(3), forKey: "rating")
        }
        try stack.context.performAndWait {
            try stack.context.existingObject(with: id).setValue(Int16(2), forKey: "rating")
            try stack.context.save()
        }
        try other.performAndWait { try other.save() }
        let fresh = stack.newContext()
        let rating = try fresh.performAndWait { try fresh.existingObject(with: id).value(forKey: "rating") as? Int16 }
        #expect(rating == 3)
    }

    @Test func aConstraintConflictMadeWithObjectiveCLabelsHoldsWhatItWasGiven() throws {
        let stack = try MoodyStack()
        stack.context.performAndWait {
            let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: stack.context)
            country.setValue(Int16(250), forKey: "numericISO3166Code")
            let conflict = NSConstraintConflict(constraint: ["numericISO3166Code"], databaseObject: nil,
                                                databaseSnapshot: ["numericISO3166Code" as AnyHashable: 250],
                                                conflictingObjects: [country], conflictingSnapshots: [])
            #expect(conflict.constraint == ["numericISO3166Code"])
            #expect(conflict.databaseObject == nil)
            #expect(conflict.databaseSnapshot?["numericISO3166Code"] as? Int == 250)
            #expect(conflict.conflictingObjects == [country])
            #expect(conflict.constraintValues["numericISO3166Code"] as? Int16 == 250)
        }
    }

    @Test func aStoreDescriptionMadeWithURLIsTheOneMadeWithUrl() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Moody.sqlite")
        let description = NSPersistentStoreDescription(URL: url)
        #expect(description.url == url)
        #expect(description.type == NSSQLiteStoreType)
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically)
        let container = NSPersistentContainer(name: "Moody", managedObjectModel: MoodyModel.shared)
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.first?.url == url)
    }
}
