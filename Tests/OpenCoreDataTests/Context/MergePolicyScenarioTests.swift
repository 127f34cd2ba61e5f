import Foundation
import Testing

@testable import OpenCoreData

// Documented merge-policy behaviour that MergePolicyTests.swift does not cover: conflicts with the store itself
// (another coordinator — as another process — wrote the row), several conflicts in one save, what a save does to
// the objects that are not in conflict, Apple's recipe after an error-policy failure, subclassing, and the policies
// on uniqueness constraints besides object trump. Apple's NSMergePolicy/NSMergeConflict documentation:
//   "Between the cached state at the persistent store coordinator and the external store … the merge conflict has
//    a cached snapshot and a persisted snapshot."
//   "Snapshot dictionaries include values for all attributes and to-one relationships, but not to-many
//    relationships. Relationship values are NSManagedObjectID references."
//   NSRollbackMergePolicy "discards in-memory state changes for objects in conflict".
//   resolve(mergeConflicts:): "If you override this method in a subclass, you should typically invoke the
//    superclass's implementation".

/// Two coordinators on one SQLite file, as two processes have: moods 0…2 rated 1 with creator "seed" in France
/// (with continent Europe); `a` has read them all.
private struct TwoStacks {
    let url: URL
    let a: MoodyStack
    let b: MoodyStack
    let moodIDs: [NSManagedObjectID]
    let franceID: NSManagedObjectID
    let germanyID: NSManagedObjectID
    let aContext: NSManagedObjectContext
    let moodsInA: [Mood]

    init() throws {
        url = try TemporaryDirectory.make().appendingPathComponent("Moody.sqlite")
        a = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        b = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        let seed = a.context
        (moodIDs, franceID, germanyID) = try seed.performAndWait {
            let europe = Continent(context: seed)
            europe.numericISO3166Code = 150
            let france = Country(context: seed), germany = Country(context: seed)
            france.numericISO3166Code = 250
            france.continent = europe
            germany.numericISO3166Code = 276
            let moods = (0..<3).map { _ in
                let mood = Mood(context: seed)
                mood.rating = 1
                mood.creatorID = "seed"
                mood.latitude = 1
                mood.country = france
                return mood
            }
            try seed.save()
            return (moods.map(\.objectID), france.objectID, germany.objectID)
        }
        aContext = a.newContext()
        let (context, ids) = (aContext, moodIDs)
        moodsInA = try context.performAndWait { try ids.map { try context.existingObject(with: $0) as! Mood } }
    }

    /// B (the other "process") changes moods `indices`: rating 2, creator "b", country Germany.
    func bChanges(_ indices: [Int]) throws {
        let context = b.newContext()
        let (ids, germanyID) = (moodIDs, germanyID)
        try context.performAndWait {
            for index in indices {
                let mood = try context.existingObject(with: ids[index]) as! Mood
                mood.rating = 2
                mood.creatorID = "b"
                mood.country = (try context.existingObject(with: germanyID) as! Country)
            }
            try context.save()
        }
    }

    /// The stored moods, read through a third, fresh coordinator.
    func stored() throws -> [(rating: Int16, creatorID: String?, latitude: Double?, country: Int16?)] {
        let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: url)
        let context = stack.context
        let ids = try moodIDs.map { try #require(stack.coordinator.managedObjectID(forURIRepresentation: $0.uriRepresentation())) }
        return try context.performAndWait {
            try ids.map { id in
                let mood = try context.existingObject(with: id) as! Mood
                return (mood.rating, mood.creatorID, mood.latitude, mood.country?.numericISO3166Code)
            }
        }
    }
}

/// A policy subclass that records what it was asked to resolve and lets `super` resolve it.
private final class RecordingPolicy: NSMergePolicy, @unchecked Sendable {
    // @unchecked Sendable: `seen` is written only by the saving context's queue and read after the save returns.
    var seen: [NSManagedObjectID] = []
    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        seen += list.map(\.sourceObject.objectID)
        try super.resolve(optimisticLockingConflicts: list)
    }
}

@Suite("Merge policy scenarios")
struct MergePolicyScenarioTests {
    @Test func aConflictWithTheStoreCarriesACachedAndAPersistedSnapshot() throws {
        let stacks = try TwoStacks()
        try stacks.bChanges([0])
        let a = stacks.aContext
        let error = a.performAndWait {
            stacks.moodsInA[0].rating = 3
            return expectCocoaError(NSManagedObjectMergeError) { try a.save() }
        }
        let list = try #require(error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        try #require(list.count == 1)
        let conflict = list[0]
        a.performAndWait { #expect(conflict.sourceObject === stacks.moodsInA[0]) }
        #expect(conflict.oldVersionNumber == 1 && conflict.newVersionNumber == 2)
        // A's coordinator still caches the version A read; the store has B's.
        #expect((conflict.cachedSnapshot?["rating"] as? NSNumber)?.intValue == 1)
        #expect(conflict.cachedSnapshot?["creatorID"] as? String == "seed")
        #expect((conflict.persistedSnapshot?["rating"] as? NSNumber)?.intValue == 2)
        #expect(conflict.persistedSnapshot?["creatorID"] as? String == "b")
        let country = try #require(conflict.persistedSnapshot?["country"] as? NSManagedObjectID, "to-one values are object IDs")
        #expect(country.uriRepresentation() == stacks.germanyID.uriRepresentation())
        #expect(conflict.cachedSnapshot?["country"] as? NSManagedObjectID == stacks.franceID)
        #expect(conflict.persistedSnapshot?["moods"] == nil && conflict.persistedSnapshot?["colors"] != nil,
                "attributes and to-ones, no to-manys")
        #expect((conflict.objectSnapshot?["rating"] as? NSNumber)?.intValue == 3, "the object's own values")
    }

    @Test(arguments: BuiltInPolicy.allCases)
    func eachPolicyResolvesAConflictWithTheStoreAsDocumented(_ policy: BuiltInPolicy) throws {
        let stacks = try TwoStacks()
        try stacks.bChanges([0])
        let a = stacks.aContext
        try a.performAndWait {
            a.mergePolicy = policy.policy
            stacks.moodsInA[0].rating = 3
            stacks.moodsInA[0].latitude = 10
            try a.save()
        }
        let stored = try stacks.stored()[0]
        switch policy {
        case .objectTrump: #expect(stored.rating == 3 && stored.creatorID == "b" && stored.latitude == 10 && stored.country == 276)
        case .storeTrump: #expect(stored.rating == 2 && stored.creatorID == "b" && stored.latitude == 10 && stored.country == 276)
        case .overwrite: #expect(stored.rating == 3 && stored.creatorID == "seed" && stored.latitude == 10 && stored.country == 276)   // relationships as object trump: DEVIATIONS O19
        case .rollback: #expect(stored.rating == 2 && stored.creatorID == "b" && stored.latitude == 1 && stored.country == 276)
        }
        // A shows what it saved, and its next save does not conflict again.
        try a.performAndWait {
            #expect(stacks.moodsInA[0].rating == stored.rating && stacks.moodsInA[0].creatorID == stored.creatorID)
            #expect(!a.hasChanges)
            stacks.moodsInA[0].creatorID = "again"
            try a.save()
        }
        #expect(try stacks.stored()[0].creatorID == "again")
    }

    @Test func theErrorPolicyListsEveryConflictAndSavesNothing() throws {
        let stacks = try TwoStacks()
        try stacks.bChanges([0, 2])
        let a = stacks.aContext
        let error = a.performAndWait {
            for mood in stacks.moodsInA { mood.latitude = 20 }
            return expectCocoaError(NSManagedObjectMergeError) { try a.save() }
        }
        let list = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] ?? []
        #expect(Set(list.map(\.sourceObject.objectID)) == [stacks.moodIDs[0], stacks.moodIDs[2]])
        #expect(try stacks.stored().map(\.latitude) == [1, 1, 1], "a failed save writes nothing, not even the mood without a conflict")
    }

    @Test func refreshingAfterAnErrorPutsTheChangesOnTopOfTheStoresAndTheSaveSucceeds() throws {
        let stacks = try TwoStacks()
        try stacks.bChanges([0])
        let a = stacks.aContext
        try a.performAndWait {
            let mood = stacks.moodsInA[0]
            mood.latitude = 30
            _ = expectCocoaError(NSManagedObjectMergeError) { try a.save() }
            // Apple's advice: refetch (refresh) the objects in conflict, then save again.
            a.refresh(mood, mergeChanges: true)
            #expect(mood.latitude == 30 && mood.rating == 2 && mood.creatorID == "b")
            try a.save()
        }
        let stored = try stacks.stored()[0]
        #expect(stored.latitude == 30 && stored.rating == 2 && stored.creatorID == "b" && stored.country == 276)
    }

    @Test(arguments: BuiltInPolicy.allCases)
    func objectsNotInConflictAreSavedAsTheyAre(_ policy: BuiltInPolicy) throws {
        let stacks = try TwoStacks()
        try stacks.bChanges([0])
        let a = stacks.aContext
        try a.performAndWait {
            a.mergePolicy = policy.policy
            stacks.moodsInA[0].rating = 3
            stacks.moodsInA[1].rating = 4
            try a.save()
        }
        let stored = try stacks.stored()
        #expect(stored[1].rating == 4 && stored[1].creatorID == "seed" && stored[1].country == 250)
        #expect(stored[0].rating == (policy == .rollback || policy == .storeTrump ? 2 : 3))
    }

    @Test func rollingBackAMovedObjectPutsItBackInTheInverseRelationships() throws {
        let stacks = try TwoStacks()
        let a = stacks.aContext
        let (franceID, germanyID) = (stacks.franceID, stacks.germanyID)
        let (france, germany) = try a.performAndWait {
            let france = try a.existingObject(with: franceID) as! Country
            let germany = try a.existingObject(with: germanyID) as! Country
            #expect(france.moods.count == 3 && germany.moods.isEmpty)
            return (france, germany)
        }
        try stacks.bChanges([0])   // B moves mood 0 to Germany
        try a.performAndWait {
            let mood = stacks.moodsInA[0]
            a.mergePolicy = NSRollbackMergePolicy
            mood.country = nil     // A takes mood 0 out of France
            mood.rating = 3
            #expect(!france.moods.contains(mood))
            try a.save()
            // A's change to the mood in conflict is discarded: the store's Germany stands, in both directions.
            #expect(mood.country === germany)
            #expect(!france.moods.contains(mood), "France does not list the mood")
            #expect(germany.moods.contains(mood), "Germany lists it")
        }
        let stored = try stacks.stored()[0]
        #expect(stored.rating == 2 && stored.country == 276)
    }

    @Test func aToManyRealizedWhileResolvingKeepsTheContextsUnsavedMoves() throws {
        let stacks = try TwoStacks()
        let a = stacks.aContext
        let (franceID, germanyID, moodIDs) = (stacks.franceID, stacks.germanyID, stacks.moodIDs)
        let germany = try a.performAndWait {
            let germany = try a.existingObject(with: germanyID) as! Country
            #expect(germany.moods.isEmpty)
            return germany
        }
        // B changes Germany itself and moves mood 1 there; A moves mood 0 there and takes mood 1 out of France.
        let b = stacks.b.newContext()
        try b.performAndWait {
            let germanyInB = try b.existingObject(with: germanyID) as! Country
            germanyInB.updatedAt = Date(timeIntervalSince1970: 5)
            (try b.existingObject(with: moodIDs[1]) as! Mood).country = germanyInB
            try b.save()
        }
        try a.performAndWait {
            a.mergePolicy = NSRollbackMergePolicy
            stacks.moodsInA[0].country = germany
            stacks.moodsInA[1].country = nil
            _ = try a.existingObject(with: franceID)
            try a.save()
            // Germany and mood 1 were in conflict (their changes are discarded); mood 0 was not, so its move stands.
            #expect(stacks.moodsInA[0].country === germany && stacks.moodsInA[1].country === germany)
            #expect(Set(germany.moods) == [stacks.moodsInA[0], stacks.moodsInA[1]], "Germany lists both moods, as the store does")
        }
        #expect(try stacks.stored().map(\.country) == [276, 276, 250])
    }

    @Test func aSubclassCallingSuperSeesTheConflictsAndGetsTheBuiltInResolution() throws {
        let stacks = try TwoStacks()
        try stacks.bChanges([1])
        let policy = RecordingPolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        let a = stacks.aContext
        try a.performAndWait {
            a.mergePolicy = policy
            stacks.moodsInA[1].rating = 5
            try a.save()
        }
        #expect(policy.seen == [stacks.moodIDs[1]])
        let stored = try stacks.stored()[1]
        #expect(stored.rating == 5 && stored.creatorID == "b")
    }

    @Test func theGlobalPoliciesHaveTheirTypes() {
        #expect((NSErrorMergePolicy as? NSMergePolicy)?.mergeType == .errorMergePolicyType)
        #expect((NSMergeByPropertyStoreTrumpMergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyStoreTrumpMergePolicyType)
        #expect((NSMergeByPropertyObjectTrumpMergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
        #expect((NSOverwriteMergePolicy as? NSMergePolicy)?.mergeType == .overwriteMergePolicyType)
        #expect((NSRollbackMergePolicy as? NSMergePolicy)?.mergeType == .rollbackMergePolicyType)
        #expect((NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType).mergePolicy as? NSMergePolicy)?.mergeType == .errorMergePolicyType,
                "the default is the error policy")
    }

    // MARK: Uniqueness constraints under the other policies

    /// A stored France (code 250, continent Europe, updated at 0) and an inserted duplicate (code 250, no
    /// continent, updated at 1000) saved under `policy`: what the store keeps.
    private func saveDuplicateFrance(_ policy: BuiltInPolicy) throws -> (count: Int, updatedAt: Date?, continent: Int16?) {
        let stack = try MoodyStack(storeType: NSSQLiteStoreType, url: TemporaryDirectory.make().appendingPathComponent("Moody.sqlite"))
        let seed = stack.context
        try seed.performAndWait {
            let europe = Continent(context: seed)
            europe.numericISO3166Code = 150
            let france = Country(context: seed)
            france.numericISO3166Code = 250
            france.updatedAt = Date(timeIntervalSince1970: 0)
            france.continent = europe
            try seed.save()
        }
        let context = stack.newContext()
        try context.performAndWait {
            context.mergePolicy = policy.policy
            let duplicate = Country(context: context)
            duplicate.numericISO3166Code = 250
            duplicate.updatedAt = Date(timeIntervalSince1970: 1000)
            try context.save()
            #expect(!context.hasChanges)
        }
        let check = stack.newContext()
        return try check.performAndWait {
            let countries = try check.fetch(NSFetchRequest<Country>(entityName: "Country"))
            return (countries.count, countries.first?.updatedAt, countries.first?.continent?.numericISO3166Code)
        }
    }

    @Test(arguments: BuiltInPolicy.allCases)
    func aDuplicateInsertIsResolvedAsThePolicySays(_ policy: BuiltInPolicy) throws {
        let stored = try saveDuplicateFrance(policy)
        #expect(stored.count == 1, "one France either way")
        switch policy {
        case .objectTrump:
            // In-memory changes trump: the inserted values replace the stored ones property by property;
            // properties the insert did not set keep the stored values.
            #expect(stored.updatedAt == Date(timeIntervalSince1970: 1000) && stored.continent == 150)
        case .overwrite:
            // The entire in-memory object is saved.
            #expect(stored.updatedAt == Date(timeIntervalSince1970: 1000) && stored.continent == nil)
        case .storeTrump, .rollback:
            // External (stored) state trumps / in-memory changes are discarded.
            #expect(stored.updatedAt == Date(timeIntervalSince1970: 0) && stored.continent == 150)
        }
    }
}
