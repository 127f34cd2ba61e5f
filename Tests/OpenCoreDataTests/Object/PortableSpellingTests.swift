import OpenCoreData
import Testing

// Snippets spelled exactly as Apple's Core Data documentation, the objc.io book and everyday iOS code spell
// them. The point is that they compile unchanged against OpenCoreData (`import OpenCoreData` instead of
// `import CoreData`) and do what they do on Apple platforms.

private struct Boom: Error {}

@Suite("Portable Core Data spellings")
struct PortableSpellingTests {
    /// A saved France with two moods (ratings 2 and 4, a day apart), returned as object IDs.
    private func seed(_ stack: MoodyStack) throws -> (france: NSManagedObjectID, early: NSManagedObjectID, late: NSManagedObjectID) {
        let context = stack.context
        return try context.performAndWait {
            let france = NSEntityDescription.insertNewObject(forEntityName: "Country", into: context) as! Country
            france.numericISO3166Code = 250
            let early = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: context) as! Mood
            early.date = Date(timeIntervalSinceReferenceDate: 0)
            early.rating = 2
            early.country = france
            let late = Mood(context: context)
            late.date = Date(timeIntervalSinceReferenceDate: 86_400)
            late.rating = 4
            late.country = france
            try context.save()
            return (france.objectID, early.objectID, late.objectID)
        }
    }

    @Test func untypedFetchRequestAndCastResults() throws {
        let stack = try MoodyStack()
        let ids = try seed(stack)
        let context = stack.newContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Mood")
            request.sortDescriptors = [NSSortDescriptor(key: "date", ascending: true)]
            let moods = try context.fetch(request) as? [Mood]
            #expect(moods?.map(\.objectID) == [ids.early, ids.late])

            let typed = NSFetchRequest<Mood>(entityName: "Mood")
            typed.predicate = NSPredicate(format: "rating >= %d", 3)
            #expect(try context.fetch(typed).map(\.objectID) == [ids.late])

            let generated = Mood.fetchRequest()
            #expect(generated.entityName == "Mood")
            #expect(try context.fetch(generated).count == 2)
            #expect(try context.count(for: Mood.fetchRequest()) == 2)
        }
    }

    @Test func predicatesWithObjectsAndDates() throws {
        let stack = try MoodyStack()
        let ids = try seed(stack)
        let context = stack.newContext()
        try context.performAndWait { () throws -> Void in
            let country = context.object(with: ids.france) as! Country
            let byCountry = NSFetchRequest<Mood>(entityName: "Mood")
            byCountry.predicate = NSPredicate(format: "country == %@", country)
            #expect(try context.fetch(byCountry).count == 2)

            let someDate = Date(timeIntervalSinceReferenceDate: 3_600)
            let afterNSDate = NSFetchRequest<Mood>(entityName: "Mood")
            afterNSDate.predicate = NSPredicate(format: "date > %@", someDate as NSDate)
            #expect(try context.fetch(afterNSDate).map(\.objectID) == [ids.late])

            let afterDate = NSFetchRequest<Mood>(entityName: "Mood")
            afterDate.predicate = NSPredicate(format: "date > %@", someDate as CVarArg)
            #expect(try context.fetch(afterDate).map(\.objectID) == [ids.late])

            // A plain `Date` (Apple needs `as NSDate` or `as CVarArg`; here `Date` is a `CVarArg` too).
            let plain = NSFetchRequest<Mood>(entityName: "Mood")
            plain.predicate = NSPredicate(format: "date > %@", someDate)
            #expect(try context.fetch(plain).map(\.objectID) == [ids.late])

            let byKeyPath = NSFetchRequest<Mood>(entityName: "Mood")
            byKeyPath.predicate = NSPredicate(format: "%K == %d", "country.numericISO3166Code", 250)
            #expect(try context.fetch(byKeyPath).count == 2)
        }
    }

    @Test func keyValueCodingCasts() throws {
        let stack = try MoodyStack()
        let ids = try seed(stack)
        let context = stack.newContext()
        context.performAndWait {
            let mood = context.object(with: ids.late) as! Mood
            #expect(mood.value(forKey: "rating") as? Int == 4)
            #expect(mood.value(forKey: "rating") as? Int16 == 4)
            #expect(mood.value(forKey: "date") as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
            #expect(mood.value(forKeyPath: "country.numericISO3166Code") as? Int == 250)
            let country = mood.value(forKey: "country") as? Country
            #expect(country?.objectID == ids.france)
            let moods = country?.value(forKey: "moods") as? Set<Mood>
            #expect(moods.map { Set($0.map(\.objectID)) } == [ids.early, ids.late])
            #expect((country?.value(forKey: "moods") as? NSSet)?.count == 2)
            mood.setValue(5, forKey: "rating")
            #expect(mood.rating == 5)
            mood.setValue(nil, forKey: "country")
            #expect(mood.country == nil)
        }
    }

    @Test func entityDescriptionsAndInitializers() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            let entity = NSEntityDescription.entity(forEntityName: "Mood", in: context)
            #expect(entity?.name == "Mood")
            #expect(NSEntityDescription.entity(forEntityName: "Nope", in: context) == nil)
            let moodEntity = try #require(entity)

            let inserted = Mood(entity: moodEntity, insertInto: context)
            #expect(inserted.isInserted && inserted.managedObjectContext === context)
            #expect(inserted.entity === moodEntity)

            let detached = Mood(entity: moodEntity, insertInto: nil)
            #expect(detached.managedObjectContext == nil && !detached.isInserted)
            context.insert(detached)
            #expect(detached.isInserted && context.insertedObjects.contains(detached))

            let byName = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: context) as! Mood
            #expect(byName.entity.name == "Mood")
            #expect(Mood.entity().name == "Mood")
            #expect(Mood(context: context).entity === moodEntity)
            #expect(context.insertedObjects.count == 4)
        }
    }

    @Test func sortDescriptorFromAKeyPath() throws {
        let stack = try MoodyStack()
        let ids = try seed(stack)
        let context = stack.newContext()
        try context.performAndWait { () throws -> Void in
            let descriptor = NSSortDescriptor(keyPath: \Mood.date, ascending: false)
            #expect(descriptor.key == "date")
            let request = NSFetchRequest<Mood>(entityName: "Mood")
            request.sortDescriptors = [descriptor]
            #expect(try context.fetch(request).map(\.objectID) == [ids.late, ids.early])
            let byCountryCode = NSSortDescriptor(keyPath: \Mood.country?.numericISO3166Code, ascending: true)
            #expect(byCountryCode.key == "country.numericISO3166Code")
        }
    }

    @Test func performInItsThreeForms() async throws {
        let stack = try MoodyStack()
        let context = stack.context

        // perform { } runs later, on the context's queue.
        let insertedID: NSManagedObjectID = await withCheckedContinuation { continuation in
            context.perform {
                let mood = Mood(context: context)
                mood.rating = 1
                try? context.obtainPermanentIDs(for: [mood])
                continuation.resume(returning: mood.objectID)
            }
        }
        #expect(!insertedID.isTemporaryID)

        // performAndWait returns the block's value and rethrows its error.
        let count = context.performAndWait { context.insertedObjects.count }
        #expect(count == 1)
        #expect(throws: Boom.self) {
            try context.performAndWait { () throws -> Void in throw Boom() }
        }

        // try await perform { } (iOS 15+).
        let saved: Int = try await context.perform {
            try context.save()
            return try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Mood"))
        }
        #expect(saved == 1)
        let enqueued = await context.perform(schedule: .enqueued) { context.hasChanges }
        #expect(!enqueued)
        await #expect(throws: Boom.self) {
            try await context.perform { () throws -> Void in throw Boom() }
        }

        // NSFetchRequest.execute() inside a perform block.
        let executed = try context.performAndWait { try Mood.fetchRequest().execute() }
        #expect(executed.count == 1)
    }

    @Test func contextSettingsInApplesSpelling() throws {
        let context = NSManagedObjectContext(.privateQueue)
        #expect(context.concurrencyType == .privateQueueConcurrencyType)
        #expect(NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType).concurrencyType == .mainQueueConcurrencyType)
        context.performAndWait {
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
            context.mergePolicy = NSMergePolicy.mergeByPropertyStoreTrump
            #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyStoreTrumpMergePolicyType)
            #expect((NSErrorMergePolicy as? NSMergePolicy)?.mergeType == .errorMergePolicyType)
            #expect((NSOverwriteMergePolicy as? NSMergePolicy)?.mergeType == .overwriteMergePolicyType)
            #expect((NSRollbackMergePolicy as? NSMergePolicy)?.mergeType == .rollbackMergePolicyType)
            context.name = "background"
            context.transactionAuthor = "importer"
            context.automaticallyMergesChangesFromParent = true
            #expect(context.name == "background" && context.transactionAuthor == "importer")
        }
    }
}
