import OpenCoreData
import Testing

// `refresh(_:mergeChanges:)` and `stalenessInterval`, as Apple documents and as tests run against Apple's Core Data
// observe them.
//
// - "If the staleness interval (see stalenessInterval) has not been exceeded, any available cached data is reused
//   instead of executing a new fetch." (refreshObject:mergeChanges:)
// - "The staleness interval controls whether fulfilling a fault uses data previously fetched by the application, or
//   issues a new fetch." The default, a negative value, is infinite staleness; 0 accepts no staleness.
// - alemar11/CoreDataPlus's tests, which run against Apple's Core Data, observe that `refresh(_:mergeChanges: false)`
//   turns a newly inserted, unsaved object into a fault (`testFault`), and that after a change the coordinator did
//   not see, a refresh shows the cached row until `stalenessInterval = 0` (`testInvestigationStalenessInterval`).

/// Two coordinators on one SQLite file, as two processes have, and one mood both can read.
private struct TwoProcesses {
    let mine: MoodyStack
    let theirs: MoodyStack
    let moodID: NSManagedObjectID

    init() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Moody.sqlite")
        mine = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        theirs = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        let context = mine.context
        moodID = try context.performAndWait {
            let mood = Mood(context: context)
            mood.rating = 1
            mood.creatorID = "seed"
            try context.save()
            return mood.objectID
        }
    }

    /// The other process changes the mood's creator (its coordinator's save; mine does not hear of it).
    func theyRename(to creatorID: String) throws {
        let context = theirs.newContext()
        let id = try #require(theirs.coordinator.managedObjectID(forURIRepresentation: moodID.uriRepresentation()))
        try context.performAndWait {
            (try context.existingObject(with: id) as! Mood).creatorID = creatorID
            try context.save()
        }
    }
}

@Suite("Refreshing objects")
struct RefreshTests {
    @Test func refreshingAnInsertedObjectWithoutMergingTurnsItIntoAFault() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            let mood = Mood(context: context)
            mood.creatorID = "unsaved"
            context.refresh(mood, mergeChanges: false)
            #expect(mood.isFault, "as Apple's: the object becomes a fault")
            #expect(context.insertedObjects.contains(mood), "it is still an insertion of the context")
            // It has no row to fulfil it: an inaccessible fault, which `shouldDeleteInaccessibleFaults` (the default)
            // turns into an empty object marked deleted; the save leaves it out.
            #expect(mood.creatorID == nil)
            #expect(mood.isDeleted)
            try context.save()
            #expect(!context.hasChanges)
        }
        #expect(try storedCount("Mood", stack.coordinator) == 0)
    }

    @Test func aSaveFirstResolvesInsertedObjectsThatWereRefreshedIntoFaults() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            let kept = Mood(context: context)
            kept.creatorID = "kept"
            let dropped = Mood(context: context)
            context.refresh(dropped, mergeChanges: false)
            try context.save()   // validating `dropped` with its values gone would fail: it is left out instead
            #expect(kept.objectID.isTemporaryID == false)
        }
        #expect(try storedCount("Mood", stack.coordinator) == 1)
    }

    @Test func refreshingAnInsertedObjectMergingChangesKeepsItsValues() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.performAndWait {
            let mood = Mood(context: context)
            mood.creatorID = "unsaved"
            context.refresh(mood, mergeChanges: true)
            #expect(!mood.isFault && mood.creatorID == "unsaved" && mood.isInserted)
        }
    }

    @Test func withTheDefaultStalenessARefreshReusesTheCoordinatorsCachedRow() throws {
        let processes = try TwoProcesses()
        let context = processes.mine.newContext()
        let mood = try context.performAndWait { try context.existingObject(with: processes.moodID) as! Mood }
        try processes.theyRename(to: "theirs")
        context.performAndWait {
            #expect(context.stalenessInterval < 0, "the default is infinite staleness")
            context.refresh(mood, mergeChanges: false)
            #expect(mood.creatorID == "seed", "the cached row fulfils the fault, as Apple's does")
            context.refreshAllObjects()
            #expect(mood.creatorID == "seed")
            context.stalenessInterval = 0
            context.refresh(mood, mergeChanges: false)
            #expect(mood.creatorID == "theirs", "no staleness accepted: the store is read")
        }
        // The row read then replaced the cached one: every context of the coordinator sees it.
        let other = processes.mine.newContext()
        other.performAndWait {
            #expect((other.object(with: processes.moodID) as! Mood).creatorID == "theirs")
        }
    }

    @Test func aRefreshThatMergesChangesReadsTheStoreWhenNoStalenessIsAccepted() throws {
        let processes = try TwoProcesses()
        let context = processes.mine.newContext()
        let mood = try context.performAndWait { try context.existingObject(with: processes.moodID) as! Mood }
        try processes.theyRename(to: "theirs")
        context.performAndWait {
            mood.rating = 5
            context.refresh(mood, mergeChanges: true)
            #expect(mood.creatorID == "seed" && mood.rating == 5, "the cached row, with the change on top")
            context.stalenessInterval = 0
            context.refresh(mood, mergeChanges: true)
            #expect(mood.creatorID == "theirs" && mood.rating == 5, "the store's row, with the change on top")
            #expect(mood.hasChanges)
        }
    }

    @Test func aPositiveStalenessIntervalReusesRowsYoungerThanIt() throws {
        let processes = try TwoProcesses()
        let context = processes.mine.newContext()
        let mood = try context.performAndWait { try context.existingObject(with: processes.moodID) as! Mood }
        try processes.theyRename(to: "theirs")
        context.performAndWait {
            context.stalenessInterval = 3600
            context.refresh(mood, mergeChanges: false)
            #expect(mood.creatorID == "seed", "read less than an hour ago: reused")
        }
        Thread.sleep(forTimeInterval: 0.2)
        context.performAndWait {
            context.stalenessInterval = 0.1
            context.refresh(mood, mergeChanges: false)
            #expect(mood.creatorID == "theirs", "read more than 0.1 s ago: read again")
        }
    }

    @Test func faultsFireFromTheStoreWhenNoStalenessIsAccepted() throws {
        let processes = try TwoProcesses()
        let warm = processes.mine.newContext()
        warm.performAndWait { _ = (warm.object(with: processes.moodID) as! Mood).creatorID }   // the row is cached
        try processes.theyRename(to: "theirs")
        let cached = processes.mine.newContext()
        cached.performAndWait {
            #expect((cached.object(with: processes.moodID) as! Mood).creatorID == "seed")
        }
        let fresh = processes.mine.newContext()
        fresh.stalenessInterval = 0
        fresh.performAndWait {
            #expect((fresh.object(with: processes.moodID) as! Mood).creatorID == "theirs")
        }
    }

    /// On a new SQLite Moody store: saves a mood created by "FIAT", batch-updates every mood's creator to "FCA"
    /// (asking for the updated IDs), and hands the context, the mood and the request's result to `body`, on the
    /// context's queue.
    private static func withSavedMoodAndBatchUpdate(_ body: (NSManagedObjectContext, Mood, NSBatchUpdateResult) throws -> Void) throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Moody.sqlite")
        let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        let context = stack.context
        try context.performAndWait {
            let mood = Mood(context: context)
            mood.creatorID = "FIAT"
            try context.save()
            let update = NSBatchUpdateRequest(entityName: "Mood")
            update.propertiesToUpdate = ["creatorID": "FCA"]
            update.resultType = .updatedObjectIDsResultType
            let result = try #require(try context.execute(update) as? NSBatchUpdateResult)
            try body(context, mood, result)
        }
    }

    /// As alemar11/CoreDataPlus's `testInvestigationStalenessInterval` observes on Apple's: the coordinator is not
    /// told of a batch update, so a refresh serves its cached row until `stalenessInterval = 0`; merging the
    /// request's object IDs (Apple's documented way to show a batch request's changes) shows them.
    @Test func aRefreshAfterABatchUpdateServesTheCachedRowUntilNoStalenessIsAccepted() throws {
        try Self.withSavedMoodAndBatchUpdate { context, mood, _ in
            #expect(mood.creatorID == "FIAT", "a batch update does not change objects")
            context.refresh(mood, mergeChanges: true)
            #expect(mood.creatorID == "FIAT", "the coordinator's cached row, as Apple's")
            context.stalenessInterval = 0
            context.refresh(mood, mergeChanges: false)
            #expect(mood.creatorID == "FCA")
        }
    }

    @Test func mergingABatchUpdatesObjectIDsShowsItsValues() throws {
        try Self.withSavedMoodAndBatchUpdate { context, mood, result in
            let ids = try #require(result.result as? [NSManagedObjectID])
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [context])
            #expect(mood.creatorID == "FCA")
        }
    }

    /// Persistent history of another process's save, merged with `objectIDNotification()`: the merge must not
    /// refresh the object from the row this coordinator cached before that save.
    @Test func mergingHistoryOfAnotherProcessShowsItsValuesWithTheDefaultStaleness() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Moody.sqlite")
        _ = try MoodyStack()   // registers the Moody classes and transformer
        func coordinator() throws -> NSPersistentStoreCoordinator {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
            _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                   options: [NSPersistentHistoryTrackingKey: true])
            return coordinator
        }
        let mine = try coordinator(), theirs = try coordinator()
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = mine
        let (mood, token) = try context.performAndWait {
            let mood = Mood(context: context)
            mood.creatorID = "seed"
            try context.save()
            let history = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
            let token = (history?.result as? [NSPersistentHistoryTransaction])?.last?.token
            return (mood, token)
        }
        let theirContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        theirContext.persistentStoreCoordinator = theirs
        try theirContext.performAndWait {
            let id = try #require(theirs.managedObjectID(forURIRepresentation: mood.objectID.uriRepresentation()))
            (try theirContext.existingObject(with: id) as! Mood).creatorID = "theirs"
            try theirContext.save()
        }
        try context.performAndWait {
            let history = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult
            let transactions = try #require(history?.result as? [NSPersistentHistoryTransaction])
            #expect(transactions.count == 1)
            for transaction in transactions { context.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
            #expect(mood.creatorID == "theirs")
        }
    }

    /// A did-save notification of a context on another coordinator (the usual way to merge between two stacks of one
    /// process) lists rows this coordinator cached in an older version: merging it shows the saved values.
    @Test func mergingTheSaveOfAContextOnAnotherCoordinatorShowsItsValues() throws {
        let processes = try TwoProcesses()
        let context = processes.mine.newContext()
        let mood = try context.performAndWait { try context.existingObject(with: processes.moodID) as! Mood }
        let theirs = processes.theirs.newContext()
        let id = try #require(processes.theirs.coordinator.managedObjectID(forURIRepresentation: processes.moodID.uriRepresentation()))
        let notification = try didSaveNotification(of: theirs) { theirs in
            (try theirs.existingObject(with: id) as! Mood).creatorID = "theirs"
        }
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: notification)
            #expect(mood.creatorID == "theirs")
        }
    }
}
