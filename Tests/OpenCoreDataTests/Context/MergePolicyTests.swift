import OpenCoreData
import Testing

// Optimistic locking between two contexts of one coordinator, each built-in merge policy, and uniqueness
// constraints. Expected outcomes are Apple's documented policy semantics:
//   error            — "the default … the only policy that requires action to correct any conflicts"
//   object trump     — "merges conflicts … by individual property, with in-memory changes trumping external changes"
//   store trump      — "… by individual property, with external changes trumping in-memory changes"
//   overwrite        — "… by saving the entire in-memory object to the persistent store"
//   rollback         — "discards in-memory state changes for objects in conflict"

/// The built-in policies, as test arguments.
enum BuiltInPolicy: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case objectTrump, storeTrump, overwrite, rollback

    var policy: AnyObject {
        switch self {
        case .objectTrump: NSMergeByPropertyObjectTrumpMergePolicy
        case .storeTrump: NSMergeByPropertyStoreTrumpMergePolicy
        case .overwrite: NSOverwriteMergePolicy
        case .rollback: NSRollbackMergePolicy
        }
    }

    var testDescription: String { rawValue }
}

/// A mood saved as rating 1, creator "a", latitude 1, in France; contexts A and B both load it; B changes
/// creator → "b", rating → 2 and country → Germany and saves; A changes rating → 3 and latitude → 10.
private struct Conflict {
    let stack: MoodyStack
    let moodID: NSManagedObjectID
    let franceID: NSManagedObjectID
    let germanyID: NSManagedObjectID
    let a: NSManagedObjectContext
    let moodInA: Mood

    init() throws {
        stack = try MoodyStack()
        let seed = stack.context
        (moodID, franceID, germanyID) = try seed.performAndWait {
            let france = Country(context: seed), germany = Country(context: seed)
            france.numericISO3166Code = 250
            germany.numericISO3166Code = 276
            let mood = Mood(context: seed)
            mood.rating = 1
            mood.creatorID = "a"
            mood.latitude = 1
            mood.country = france
            try seed.save()
            return (mood.objectID, france.objectID, germany.objectID)
        }
        let a = stack.newContext(), b = stack.newContext()
        let (moodID, germanyID) = (self.moodID, self.germanyID)
        let moodInA = try a.performAndWait { try a.existingObject(with: moodID) as! Mood }
        self.a = a
        self.moodInA = moodInA
        try b.performAndWait {
            let mood = try b.existingObject(with: moodID) as! Mood
            mood.creatorID = "b"
            mood.rating = 2
            mood.country = (try b.existingObject(with: germanyID) as! Country)
            try b.save()
        }
        a.performAndWait {
            moodInA.rating = 3
            moodInA.latitude = 10
        }
    }

    /// The mood as the store has it (read in a fresh context): rating, creator, latitude, country code, and the
    /// codes of the countries whose `moods` contain it.
    func stored() throws -> (rating: Int16, creatorID: String?, latitude: Double?, country: Int16?, listedBy: Set<Int16>) {
        let fresh = stack.newContext()
        return try fresh.performAndWait {
            let mood = try fresh.existingObject(with: moodID) as! Mood
            let countries = try fresh.fetch(NSFetchRequest<Country>(entityName: "Country"))
            let listedBy = Set(countries.filter { $0.moods.contains(mood) }.map(\.numericISO3166Code))
            return (mood.rating, mood.creatorID, mood.latitude, mood.country?.numericISO3166Code, listedBy)
        }
    }
}

@Suite("Merge policies and constraints")
struct MergePolicyTests {
    @Test func theErrorPolicyReportsTheConflict() throws {
        let conflict = try Conflict()
        let a = conflict.a
        let error = a.performAndWait { expectCocoaError(NSManagedObjectMergeError) { try a.save() } }
        let list = try #require(error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        try #require(list.count == 1)
        let mergeConflict = list[0]
        a.performAndWait {
            #expect(mergeConflict.sourceObject === conflict.moodInA)
            // Apple logs this case as "… with oldVersion = 1 and newVersion = 2 and old object snapshot = {…} and
            // new cached row = {…}": the version A read, and the version the coordinator has now.
            #expect(mergeConflict.oldVersionNumber == 1)
            #expect(mergeConflict.newVersionNumber == 2, "the coordinator's current version, not the version the save would write")
            // "Between the managed object context and its in-memory cached state at the persistent store coordinator
            // layer. In this case, the merge conflict has a source object and a cached snapshot but no persisted
            // snapshot." B saved through the same coordinator, so its row is the cached one.
            #expect(mergeConflict.cachedSnapshot?["creatorID"] as? String == "b")
            #expect((mergeConflict.cachedSnapshot?["rating"] as? NSNumber)?.intValue == 2)
            #expect(mergeConflict.cachedSnapshot?["country"] as? NSManagedObjectID == conflict.germanyID,
                    "to-one values are object IDs")
            #expect(mergeConflict.persistedSnapshot == nil)
            #expect(a.hasChanges && conflict.moodInA.rating == 3, "a failed save leaves the context's changes")
        }
        let stored = try conflict.stored()
        #expect(stored.rating == 2 && stored.creatorID == "b" && stored.latitude == 1 && stored.country == 276)
    }

    @Test func theErrorPolicyReportsADeletedRowWithVersionZero() throws {
        let conflict = try Conflict()
        let deleter = conflict.stack.newContext()
        let moodID = conflict.moodID
        try deleter.performAndWait {
            deleter.delete(try deleter.existingObject(with: moodID))
            try deleter.save()
        }
        let a = conflict.a
        let error = a.performAndWait { expectCocoaError(NSManagedObjectMergeError) { try a.save() } }
        let list = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
        // "A new version number of 0 means the object was deleted and the corresponding snapshot is nil."
        #expect(list?.first?.newVersionNumber == 0)
        #expect(list?.first?.cachedSnapshot == nil && list?.first?.persistedSnapshot == nil)
    }

    @Test(arguments: BuiltInPolicy.allCases)
    func eachBuiltInPolicyResolvesTheConflictAsDocumented(_ policy: BuiltInPolicy) throws {
        let conflict = try Conflict()
        let a = conflict.a
        try a.performAndWait {
            a.mergePolicy = policy.policy
            try a.save()
            #expect(!a.hasChanges)
        }
        let stored = try conflict.stored()
        switch policy {
        case .objectTrump:
            // Changed by both → A's value; changed only by B → B's; changed only by A → A's.
            #expect(stored.rating == 3)
            #expect(stored.creatorID == "b")
            #expect(stored.latitude == 10)
            #expect(stored.country == 276)
        case .storeTrump:
            #expect(stored.rating == 2)
            #expect(stored.creatorID == "b")
            #expect(stored.latitude == 10, "A's change to a property B did not touch is kept")
            #expect(stored.country == 276)
        case .overwrite:
            // Every attribute of the in-memory object: A never saw B's changes. Its relationships as object trump
            // (DEVIATIONS O19): A never changed the country, so B's move to Germany stands.
            #expect(stored.rating == 3)
            #expect(stored.creatorID == "a")
            #expect(stored.latitude == 10)
            #expect(stored.country == 276)
        case .rollback:
            // A's changes to the object in conflict are discarded; the store's version stands.
            #expect(stored.rating == 2)
            #expect(stored.creatorID == "b")
            #expect(stored.latitude == 1)
            #expect(stored.country == 276)
        }
        if let country = stored.country {
            #expect(stored.listedBy == [country], "the inverse to-many agrees with the to-one in the store")
        }
        // The merged object in A shows the merged values, and A can keep saving without new conflicts.
        try a.performAndWait {
            #expect(conflict.moodInA.rating == stored.rating)
            #expect(conflict.moodInA.creatorID == stored.creatorID)
            conflict.moodInA.creatorID = "later"
            try a.save()
        }
        #expect(try conflict.stored().creatorID == "later")
    }

    // MARK: Uniqueness constraints (GeographicRegion is unique by numericISO3166Code)

    @Test func duplicateInsertsViolateTheConstraint() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.performAndWait {
            let first = Country(context: context), second = Country(context: context)
            first.numericISO3166Code = 250
            second.numericISO3166Code = 250
            let error = expectCocoaError(NSManagedObjectConstraintMergeError) { try context.save() }
            let conflicts = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict]
            #expect(conflicts?.first?.constraint == ["numericISO3166Code"])
            #expect(Set(conflicts?.first?.conflictingObjects ?? []) == [first, second])
            #expect(conflicts?.first?.databaseObject == nil)
            #expect(context.insertedObjects == [first, second], "nothing was saved")
        }
        #expect(try storedCount("Country", stack.coordinator) == 0)
    }

    @Test func anInsertCollidingWithAStoredRowViolatesTheConstraint() throws {
        let stack = try MoodyStack()
        let seed = stack.context
        let storedID = try seed.performAndWait {
            let france = Country(context: seed)
            france.numericISO3166Code = 250
            try seed.save()
            return france.objectID
        }
        let context = stack.newContext()
        context.performAndWait {
            let duplicate = Country(context: context)
            duplicate.numericISO3166Code = 250
            let error = expectCocoaError(NSManagedObjectConstraintMergeError) { try context.save() }
            let conflicts = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict]
            #expect(conflicts?.first?.databaseObject?.objectID == storedID)
            #expect(conflicts?.first?.conflictingObjects == [duplicate])
        }
        #expect(try storedCount("Country", stack.coordinator) == 1)
    }

    @Test func objectTrumpTurnsADuplicateInsertIntoAnUpdate() throws {
        let stack = try MoodyStack()
        let seed = stack.context
        try seed.performAndWait {
            let france = Country(context: seed)
            france.numericISO3166Code = 250
            try seed.save()
        }
        let context = stack.newContext()
        try context.performAndWait {
            context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
            let duplicate = Country(context: context)
            duplicate.numericISO3166Code = 250
            let mood = Mood(context: context)
            mood.country = duplicate
            try context.save()
        }
        #expect(try storedCount("Country", stack.coordinator) == 1)
        #expect(try storedCount("Mood", stack.coordinator, predicate: NSPredicate(format: "country.numericISO3166Code == 250")) == 1,
                "the mood ends up related to the one France")
    }
}
