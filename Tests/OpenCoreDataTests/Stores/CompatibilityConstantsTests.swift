import OpenCoreData
import Synchronization
import Testing

// Apple's version-number constants, store options accepted for compatibility, and small declarations iOS code uses:
// NSPersistentStoreAsynchronousFetchResultCompletionBlock, NSFetchRequestExpressionType,
// NSExpressionDescription.resultType, NSPersistentStore.migrationManagerClass().

@Suite struct CompatibilityConstantsTests {
    @Test func versionNumbersHaveApplesValuesAndTheCurrentVersionIsTheNewest() {
        // Values of Apple's CoreDataDefines.h.
        #expect(NSCoreDataVersionNumber10_4 == 46.0)
        #expect(NSCoreDataVersionNumber10_7_2 == 358.12)
        #expect(NSCoreDataVersionNumber10_11_3 == 641.3)
        #expect(NSCoreDataVersionNumber_iPhoneOS_3_0 == 241.0)
        #expect(NSCoreDataVersionNumber_iPhoneOS_4_1 == 320.11)
        #expect(NSCoreDataVersionNumber_iPhoneOS_8_0 == 526.0)
        #expect(NSCoreDataVersionNumber_iPhoneOS_9_3 == 641.6)
        let all = [NSCoreDataVersionNumber10_4, NSCoreDataVersionNumber10_4_3, NSCoreDataVersionNumber10_5, NSCoreDataVersionNumber10_5_3,
                   NSCoreDataVersionNumber10_6, NSCoreDataVersionNumber10_6_2, NSCoreDataVersionNumber10_6_3, NSCoreDataVersionNumber10_7,
                   NSCoreDataVersionNumber10_7_2, NSCoreDataVersionNumber10_7_3, NSCoreDataVersionNumber10_7_4, NSCoreDataVersionNumber10_8,
                   NSCoreDataVersionNumber10_8_2, NSCoreDataVersionNumber10_9, NSCoreDataVersionNumber10_9_2, NSCoreDataVersionNumber10_9_3,
                   NSCoreDataVersionNumber10_10, NSCoreDataVersionNumber10_10_2, NSCoreDataVersionNumber10_10_3, NSCoreDataVersionNumber10_11,
                   NSCoreDataVersionNumber10_11_3, NSCoreDataVersionNumber_iPhoneOS_3_0, NSCoreDataVersionNumber_iPhoneOS_3_1,
                   NSCoreDataVersionNumber_iPhoneOS_3_2, NSCoreDataVersionNumber_iPhoneOS_4_0, NSCoreDataVersionNumber_iPhoneOS_4_1,
                   NSCoreDataVersionNumber_iPhoneOS_4_2, NSCoreDataVersionNumber_iPhoneOS_4_3, NSCoreDataVersionNumber_iPhoneOS_5_0,
                   NSCoreDataVersionNumber_iPhoneOS_5_1, NSCoreDataVersionNumber_iPhoneOS_6_0, NSCoreDataVersionNumber_iPhoneOS_6_1,
                   NSCoreDataVersionNumber_iPhoneOS_7_0, NSCoreDataVersionNumber_iPhoneOS_7_1, NSCoreDataVersionNumber_iPhoneOS_8_0,
                   NSCoreDataVersionNumber_iPhoneOS_8_3, NSCoreDataVersionNumber_iPhoneOS_9_0, NSCoreDataVersionNumber_iPhoneOS_9_2,
                   NSCoreDataVersionNumber_iPhoneOS_9_3]
        #expect(all.count == 39)
        #expect(NSCoreDataVersionNumber == all.max())
        // The check old iOS code makes before using batch requests takes the modern branch.
        #expect(NSCoreDataVersionNumber >= NSCoreDataVersionNumber_iPhoneOS_8_0)
    }

    @Test func compatibilityOptionsHaveApplesKeysAndAreAcceptedWhenAddingAStore() throws {
        #expect(NSIgnorePersistentStoreVersioningOption == "NSIgnorePersistentStoreVersioningOption")
        #expect(NSPersistentStoreOSCompatibility == "NSPersistentStoreOSCompatibility")
        #expect(NSBinaryStoreSecureDecodingClasses == "NSBinaryStoreSecureDecodingClasses")
        #expect(NSBinaryStoreInsecureDecodingCompatibilityOption == "NSBinaryStoreInsecureDecodingCompatibilityOption")
        let directory = try TemporaryDirectory.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        let binary = try coordinator.addPersistentStore(
            ofType: NSBinaryStoreType, configurationName: nil, at: directory.appendingPathComponent("Moody.binary"),
            options: [NSBinaryStoreSecureDecodingClasses: NSSet(array: ["NSString"]), NSBinaryStoreInsecureDecodingCompatibilityOption: true,
                      NSPersistentStoreOSCompatibility: 101_500])
        #expect(binary.type == NSBinaryStoreType)
        let sqlite = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.appendingPathComponent("Moody.sqlite"),
                                                        options: [NSIgnorePersistentStoreVersioningOption: true])
        #expect(sqlite.type == NSSQLiteStoreType)
    }

    @Test func theAsynchronousFetchCompletionBlockTypeIsTheRequestsBlock() throws {
        let stack = try MoodyStack()
        let finished = Mutex(0)
        let completion: NSPersistentStoreAsynchronousFetchResultCompletionBlock = { result in
            finished.withLock { $0 = result.finalResult?.count ?? -1 }
        }
        try stack.context.performAndWait {
            for rating in 1...3 {
                let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: stack.context)
                mood.setValue(Date(), forKey: "date")
                mood.setValue(Int16(rating), forKey: "rating")
            }
            try stack.context.save()
            let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Mood"), completionBlock: completion)
            _ = try stack.context.execute(request)
        }
        stack.context.performAndWait {}   // the completion runs on the context's queue
        #expect(finished.withLock { $0 } == 3)
    }

    @Test func fetchRequestExpressionsReportTheirExpressionType() throws {
        let stack = try MoodyStack()
        let fetch = NSFetchRequestExpression.expression(forFetch: NSExpression(forConstantValue: NSFetchRequest<NSFetchRequestResult>(entityName: "Mood")),
                                                        context: NSExpression(forConstantValue: stack.context), countOnly: true)
        #expect(fetch.expressionType == NSFetchRequestExpressionType)
        #expect(NSFetchRequestExpressionType.rawValue == 50)
        #expect(NSExpression(forKeyPath: "rating").expressionType != NSFetchRequestExpressionType)
    }

    @Test func expressionDescriptionResultTypeIsTheSwiftSpellingOfTheExpressionResultType() throws {
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "rating")])
        total.resultType = .integer64
        #expect(total.expressionResultType == .integer64AttributeType)
        total.expressionResultType = .doubleAttributeType
        #expect(total.resultType == .double)
        // Used in a dictionary fetch, as iOS code does.
        let stack = try MoodyStack()
        let sum = try stack.context.performAndWait {
            for rating in [2, 3] {
                let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: stack.context)
                mood.setValue(Date(), forKey: "date")
                mood.setValue(Int16(rating), forKey: "rating")
            }
            try stack.context.save()
            total.resultType = .integer64
            let request = NSFetchRequest<NSDictionary>(entityName: "Mood")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [total]
            return try stack.context.fetch(request).first?["total"] as? Int64
        }
        #expect(sum == 5)
    }

    @Test func storesMigrateWithNSMigrationManager() {
        #expect(ObjectIdentifier(NSPersistentStore.migrationManagerClass()) == ObjectIdentifier(NSMigrationManager.self))
        #expect(ObjectIdentifier(NSIncrementalStore.migrationManagerClass()) == ObjectIdentifier(NSMigrationManager.self))
    }
}
