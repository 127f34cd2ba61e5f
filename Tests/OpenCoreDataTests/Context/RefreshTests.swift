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

    /// DEVIATIONS S26: a batch request's changed rows leave the coordinator's row cache, so a refresh reads them even
    /// with the default staleness interval (Apple's coordinator keeps serving its cached row until a merge or
    /// `stalenessInterval = 0`, which behave the same here).
    @Test func aRefreshAfterABatchUpdateReadsTheBatchsValues() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Moody.sqlite")
        let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        let context = stack.context
        try context.performAndWait {
            let mood = Mood(context: context)
            mood.creatorID = "FIAT"
            try context.save()
            let update = NSBatchUpdateRequest(entityName: "Mood")
            update.propertiesToUpdate = ["creatorID": "FCA"]
            _ = try context.execute(update)
            #expect(mood.creatorID == "FIAT", "a batch update does not change objects")
            context.refresh(mood, mergeChanges: true)
            #expect(mood.creatorID == "FCA")
            context.stalenessInterval = 0
            context.refresh(mood, mergeChanges: false)
            #expect(mood.creatorID == "FCA")
        }
    }
}
