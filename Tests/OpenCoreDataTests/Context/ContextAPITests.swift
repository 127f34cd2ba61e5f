import OpenCoreData
import Testing

// NSManagedObjectContext: object IDs, uniquing, change sets, reset/refresh, memory management, settings.
// Each expectation cites what Apple documents for the API it checks.

@Suite("NSManagedObjectContext API")
struct ContextAPITests {
    // MARK: Object IDs

    @Test func temporaryIDsBecomePermanentOnSaveOrOnRequest() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let store = try #require(stack.coordinator.persistentStores.first)
        let storeUUID = try #require(store.metadata?[NSStoreUUIDKey] as? String)
        #expect(store.identifier == storeUUID)
        try context.performAndWait {
            let mood = Mood(context: context)
            let temporary = mood.objectID
            #expect(temporary.isTemporaryID)
            #expect(temporary.entity.name == "Mood")
            // x-coredata:///Mood/t<UUID>
            let temporaryURI = temporary.uriRepresentation().absoluteString
            #expect(temporaryURI.hasPrefix("x-coredata:///Mood/t"))
            #expect(UUID(uuidString: String(temporaryURI.dropFirst("x-coredata:///Mood/t".count))) != nil, "\(temporaryURI)")

            try context.obtainPermanentIDs(for: [mood])
            let permanent = mood.objectID
            #expect(!permanent.isTemporaryID)
            #expect(permanent != temporary)
            #expect(permanent.persistentStore === store)
            #expect(mood.isInserted, "a permanent ID does not save the object")
            #expect(context.registeredObject(for: permanent) === mood)

            let other = Mood(context: context)
            try context.save()
            #expect(mood.objectID == permanent, "saving keeps an ID obtained earlier")
            #expect(!other.objectID.isTemporaryID)

            // x-coredata://<store UUID>/Mood/p<primary key>
            for objectID in [permanent, other.objectID] {
                let uri = objectID.uriRepresentation()
                #expect(uri.scheme == "x-coredata")
                #expect(uri.host == storeUUID)
                let path = uri.path.split(separator: "/")
                #expect(path.count == 2 && path[0] == "Mood")
                #expect(path.last.map { $0.first == "p" && Int64($0.dropFirst()).map { $0 > 0 } == true } == true, "\(uri)")
                #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == objectID)
            }
            #expect(permanent.uriRepresentation() != other.objectID.uriRepresentation())
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://\(storeUUID)/Nope/p1")!) == nil)
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "https://example.com/Mood/p1")!) == nil)
        }
    }

    @Test func objectIDsAreHashableValuesThatCrossTasksAndContexts() async throws {
        let stack = try MoodyStack()
        let context = stack.context
        let id = try context.performAndWait {
            let mood = Mood(context: context)
            try context.save()
            return mood.objectID
        }
        let carried = await Task.detached { id }.value
        #expect(carried == id && carried.hashValue == id.hashValue)
        let otherContext = stack.newContext()
        let seenThere = otherContext.performAndWait { otherContext.object(with: id).objectID }
        #expect(Set([id, carried, seenThere]).count == 1)
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: carried.uriRepresentation()) == id)
    }

    // MARK: Uniquing and lookups

    @Test func oneObjectPerIDPerContext() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let mine = try context.performAndWait {
            let mood = Mood(context: context)
            try context.save()
            return mood
        }
        let id = mine.objectID
        let other = stack.newContext()
        try other.performAndWait {
            #expect(other.registeredObject(for: id) == nil, "nothing is registered before it is fetched or faulted")
            let fault = other.object(with: id)
            #expect(fault.isFault)
            #expect(other.registeredObject(for: id) === fault)
            #expect(other.object(with: id) === fault)
            let fetched = try other.fetch(NSFetchRequest<Mood>(entityName: "Mood"))
            #expect(fetched.count == 1 && fetched[0] === fault)
            #expect(try other.existingObject(with: id) === fault)
            #expect(!fault.isFault, "existingObject(with:) fetches the values")
        }
        let theirs = other.performAndWait { other.object(with: id) }
        context.performAndWait {
            #expect(context.registeredObject(for: id) === mine)
            #expect(theirs !== mine, "each context has its own instance of an object")
            #expect(theirs.objectID == mine.objectID)
        }
    }

    @Test func lookupsFindAnInsertedObjectByItsTemporaryID() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait { () throws -> Void in
            let mood = Mood(context: context)
            #expect(context.registeredObject(for: mood.objectID) === mood)
            #expect(context.object(with: mood.objectID) === mood)
            #expect(try context.existingObject(with: mood.objectID) === mood)
        }
    }

    @Test func existingObjectThrows133000ForAnObjectThatIsNotInTheStore() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (deletedID, neverSavedID) = try context.performAndWait {
            let mood = Mood(context: context)
            try context.save()
            let unsaved = Mood(context: context)
            try context.obtainPermanentIDs(for: [unsaved])
            return (mood.objectID, unsaved.objectID)
        }
        let deleter = stack.newContext()
        try deleter.performAndWait {
            deleter.delete(try deleter.existingObject(with: deletedID))
            try deleter.save()
        }
        let fresh = stack.newContext()
        fresh.performAndWait {
            for id in [deletedID, neverSavedID] {
                let error = expectCocoaError(NSManagedObjectReferentialIntegrityError) { _ = try fresh.existingObject(with: id) }
                #expect(error != nil, "\(id)")
            }
        }
    }

    // MARK: Change sets and object state

    @Test func changeSetsAndObjectFlagsFollowTheObjectsThroughASave() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (kept, doomed) = try context.performAndWait {
            #expect(!context.hasChanges)
            let kept = Mood(context: context), doomed = Mood(context: context)
            #expect(context.insertedObjects == [kept, doomed])
            #expect(kept.isInserted && kept.hasChanges && !kept.isUpdated && !kept.isDeleted)
            #expect(kept.hasPersistentChangedValues)
            #expect(context.hasChanges)
            try context.save()
            #expect(context.insertedObjects.isEmpty && !context.hasChanges)
            #expect(!kept.isInserted && !kept.hasChanges && !kept.hasPersistentChangedValues)
            return (kept, doomed)
        }
        try context.performAndWait {
            kept.rating = 4
            context.delete(doomed)
            #expect(context.updatedObjects == [kept])
            #expect(context.deletedObjects == [doomed])
            #expect(kept.isUpdated && kept.hasChanges && kept.hasPersistentChangedValues)
            #expect(doomed.isDeleted && doomed.hasChanges && !doomed.isUpdated)
            try context.save()
            #expect(context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)
            #expect(!kept.isUpdated && !doomed.isDeleted)
            #expect(doomed.managedObjectContext == nil, "a deleted object leaves its context once the deletion is saved")
        }
        // Changing a value and changing it back: still updated, but no persistent value differs.
        context.performAndWait {
            kept.rating = 1
            kept.rating = 4
            #expect(kept.isUpdated)
            #expect(!kept.hasPersistentChangedValues)
            #expect(kept.changedValues().isEmpty)
        }
    }

    @Test func changedAndCommittedValues() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (mood, france) = try context.performAndWait {
            let france = Country(context: context)
            france.numericISO3166Code = 250
            let mood = Mood(context: context)
            mood.rating = 2
            try context.save()
            return (mood, france)
        }
        context.performAndWait {
            mood.rating = 4
            mood.rating = 5
            mood.country = france
            let changes = mood.changedValues()
            #expect(Set(changes.keys) == ["rating", "country"])
            #expect((france.changedValues()["moods"] as? NSSet)?.contains(mood) == true, "the inverse to-many changed too")
            #expect(context.updatedObjects == [mood, france])
            #expect((changes["rating"] as? NSNumber)?.intValue == 5)
            #expect(changes["country"] as? Country === france)
            // "keys and old values … changed since the last posting of NSManagedObjectContextObjectsDidChange"
            let current = mood.changedValuesForCurrentEvent()
            #expect((current["rating"] as? NSNumber)?.intValue == 2)
            #expect(current["country"] is NSNull)
            #expect(Set(mood.committedValues(forKeys: ["rating", "country"]).keys) == ["rating", "country"])
            #expect((mood.committedValues(forKeys: ["rating"])["rating"] as? NSNumber)?.intValue == 2)
            #expect(mood.committedValues(forKeys: ["country"])["country"] is NSNull, "nil values are NSNull")
            #expect(mood.committedValues(forKeys: nil)["date"] as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000))
        }
        context.performAndWait {
            #expect(mood.changedValuesForCurrentEvent().isEmpty, "a new event began")
            #expect(Set(mood.changedValues().keys) == ["rating", "country"], "changes since the last save remain")
            mood.rating = 1
            #expect((mood.changedValuesForCurrentEvent()["rating"] as? NSNumber)?.intValue == 5)
        }
    }

    @Test func eventOldValuesOfEveryKindOfPropertyAreTheFirstOfTheEvent() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (mood, france, spain) = try context.performAndWait {
            let france = Country(context: context)
            france.numericISO3166Code = 250
            let spain = Country(context: context)
            spain.numericISO3166Code = 724
            let mood = Mood(context: context)
            mood.country = france
            try context.save()
            return (mood, france, spain)
        }
        context.performAndWait {
            // A value set in awakeFromInsert with a primitive setter is the old value of an inserted object.
            let fresh = Mood(context: context)
            fresh.date = Date(timeIntervalSinceReferenceDate: 1)
            fresh.date = Date(timeIntervalSinceReferenceDate: 2)
            #expect(fresh.changedValuesForCurrentEvent()["date"] as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000))
            mood.country = spain
            mood.creatorID = "me"
            let old = mood.changedValuesForCurrentEvent()
            #expect(Set(old.keys) == ["country", "creatorID"])
            #expect(old["country"] as? Country === france, "a to-one's old destination")
            #expect(old["creatorID"] is NSNull)
            // Inverse maintenance records the to-many sides' members from before the event.
            #expect((france.changedValuesForCurrentEvent()["moods"] as? NSSet)?.contains(mood) == true)
            #expect((spain.changedValuesForCurrentEvent()["moods"] as? NSSet)?.count == 0)
            #expect(france.changedValuesForCurrentEvent().count == 1)
        }
        context.performAndWait {
            #expect(mood.changedValuesForCurrentEvent().isEmpty && france.changedValuesForCurrentEvent().isEmpty)
        }
    }

    @Test func resetFreesObjectsHeldOnlyThroughFreedObjectsAndFaultsTheOnesStillHeld() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let countryID = try context.performAndWait {
            let country = Country(context: context)
            country.numericISO3166Code = 250
            for rating in 1...3 { Mood(context: context).country = country; _ = rating }
            try context.save()
            return country.objectID
        }
        context.performAndWait { context.reset() }
        weak var country: Country?
        weak var dropped: Mood?
        let kept: Mood = context.performAndWait {
            let kept: Mood = {
                let fetched = context.object(with: countryID) as! Country
                country = fetched
                let moods = Array(fetched.moods)
                dropped = moods[0]
                return moods[1]
            }()
            #expect(country != nil && dropped != nil, "the country holds its moods; the context holds the country")
            context.reset()
            #expect(country == nil, "held by the context alone")
            #expect(dropped == nil, "held only by the freed country's relationship")
            return kept
        }
        #expect(kept.isFault && kept.managedObjectContext == nil, "a mood still held is turned into a fault")
    }

    @Test func anObjectInsertedAndDeletedBeforeASaveNeverReachesTheStore() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let kept = context.performAndWait { Mood(context: context) }
        let dropped = context.performAndWait {
            let mood = Mood(context: context)
            context.delete(mood)
            return mood
        }
        let didSave = NotificationLog(.NSManagedObjectContextDidSave, object: context) { note in
            (objectIDs(note, NSInsertedObjectsKey) ?? [], objectIDs(note, NSDeletedObjectsKey) ?? [])
        }
        try context.performAndWait { try context.save() }
        // "the set of deleted objects given for an NSManagedObjectContextDidSave does not include objects that were
        // inserted and deleted without an intervening save operation"
        let saved = try #require(didSave.all.first)
        #expect(saved.0 == [kept.objectID])
        #expect(saved.1.isEmpty)
        #expect(dropped.managedObjectContext == nil || dropped.isDeleted)
        #expect(try storedCount("Mood", stack.coordinator) == 1)
    }

    // MARK: reset, refresh

    @Test func resetForgetsEveryObject() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let saved = try context.performAndWait {
            let mood = Mood(context: context)
            mood.rating = 3
            try context.save()
            mood.rating = 5
            _ = Mood(context: context)
            return mood
        }
        try context.performAndWait {
            context.reset()
            #expect(context.registeredObjects.isEmpty)
            #expect(!context.hasChanges && context.insertedObjects.isEmpty && context.updatedObjects.isEmpty)
            let moods = try context.fetch(NSFetchRequest<Mood>(entityName: "Mood"))
            #expect(moods.count == 1, "the unsaved insert is gone")
            #expect(moods[0] !== saved, "the fetch makes a new instance")
            #expect(moods[0].objectID == saved.objectID)
            #expect(moods[0].rating == 3, "the unsaved change is gone")
        }
    }

    @Test func refreshWithoutMergingTurnsTheObjectIntoAFault() throws {
        let stack = try LibraryStack()
        let context = stack.context
        let note = try context.performAndWait {
            let note = LibraryStack.insert("Note", into: context, ["text": "saved"]) as! LibraryNote
            try context.save()
            note.setValue("unsaved", forKey: "text")
            note.clearHooks()
            return note
        }
        context.performAndWait {
            context.refresh(note, mergeChanges: false)
            #expect(note.isFault)
            #expect(!note.hasChanges && context.updatedObjects.isEmpty, "pending changes are discarded")
            #expect(Array(note.hooks.prefix(2)) == ["willTurnIntoFault", "didTurnIntoFault"], "\(note.hooks)")
            #expect(note.text == "saved")
            #expect(!note.isFault)
        }
    }

    @Test func refreshWithMergingReappliesLocalChangesOverNewValues() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let mood = try context.performAndWait {
            let mood = Mood(context: context)
            mood.rating = 1
            mood.creatorID = "a"
            try context.save()
            return mood
        }
        let other = stack.newContext()
        try other.performAndWait {
            let theirs = try #require(try other.existingObject(with: mood.objectID) as? Mood)
            theirs.creatorID = "b"
            try other.save()
        }
        try context.performAndWait {
            mood.rating = 3
            context.refresh(mood, mergeChanges: true)
            #expect(mood.creatorID == "b", "reloaded from the store")
            #expect(mood.rating == 3, "the local change is applied over it")
            #expect(mood.hasChanges)
            try context.save()
        }
        let check = stack.newContext()
        try check.performAndWait {
            let stored = try #require(try check.existingObject(with: mood.objectID) as? Mood)
            #expect(stored.rating == 3 && stored.creatorID == "b")
        }
    }

    @Test func refreshAllObjectsKeepsUnsavedChanges() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (changed, unchanged) = try context.performAndWait {
            let changed = Mood(context: context), unchanged = Mood(context: context)
            changed.creatorID = "a"
            unchanged.creatorID = "a"
            try context.save()
            return (changed, unchanged)
        }
        let other = stack.newContext()
        try other.performAndWait {
            for id in [changed.objectID, unchanged.objectID] {
                (try other.existingObject(with: id) as! Mood).rating = 4
            }
            try other.save()
        }
        context.performAndWait {
            changed.creatorID = "mine"
            context.refreshAllObjects()
            #expect(unchanged.rating == 4, "an unchanged object shows the store's values")
            #expect(changed.creatorID == "mine", "unsaved changes are preserved")
            #expect(changed.rating == 4)
            #expect(context.updatedObjects == [changed])
        }
    }

    // MARK: Memory: weak registration

    @Test func unchangedObjectsAreHeldWeaklyUnlessTheContextRetainsThem() throws {
        let stack = try MoodyStack()
        let seedContext = stack.context
        let ids = try seedContext.performAndWait {
            let moods = (0..<2).map { _ in Mood(context: seedContext) }
            try seedContext.save()
            return moods.map(\.objectID)
        }
        /// Fetches the object in a scope that ends, so only the context could keep it alive.
        func fetchAndDrop(_ context: NSManagedObjectContext, _ id: NSManagedObjectID, change: Bool = false) throws {
            try context.performAndWait {
                let object = try context.existingObject(with: id) as! Mood
                if change { object.rating = 5 }
            }
        }
        let weakContext = stack.newContext()
        try fetchAndDrop(weakContext, ids[0])
        try fetchAndDrop(weakContext, ids[1], change: true)
        weakContext.performAndWait {
            #expect(weakContext.registeredObject(for: ids[0]) == nil, "an unchanged object is released with its last reference")
            #expect(weakContext.registeredObject(for: ids[1]) != nil, "a changed object is kept until saved or discarded")
        }

        let retaining = stack.newContext()
        retaining.performAndWait { retaining.retainsRegisteredObjects = true }
        try fetchAndDrop(retaining, ids[0])
        retaining.performAndWait {
            #expect(retaining.retainsRegisteredObjects)
            #expect(retaining.registeredObject(for: ids[0]) != nil)
        }
    }

    // MARK: Settings and policies

    @Test func settingsHaveApplesDefaultsAndCanBeSet() throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.performAndWait {
            #expect(context.concurrencyType == .privateQueueConcurrencyType)
            #expect(context.stalenessInterval < 0, "negative: infinite staleness allowed")
            #expect(context.undoManager == nil, "on iOS a context has no undo manager by default")
            #expect(context.shouldDeleteInaccessibleFaults)
            #expect(context.propagatesDeletesAtEndOfEvent)
            #expect(!context.retainsRegisteredObjects)
            #expect(context.name == nil && context.transactionAuthor == nil)
            #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .errorMergePolicyType)
            context.stalenessInterval = 0
            context.name = "importer"
            context.transactionAuthor = "sync"
            let undoManager = UndoManager()
            context.undoManager = undoManager
            #expect(context.stalenessInterval == 0)
            #expect(context.name == "importer" && context.transactionAuthor == "sync")
            #expect(context.undoManager === undoManager)
        }
    }

    /// "false if it propagates deletes only during a save operation" (propagatesDeletesAtEndOfEvent).
    @Test func deletesPropagateOnlyAtSaveWhenAskedTo() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (france, mood) = try context.performAndWait {
            context.propagatesDeletesAtEndOfEvent = false
            let france = Country(context: context)
            france.numericISO3166Code = 250
            let mood = Mood(context: context)
            mood.country = france
            try context.save()
            return (france, mood)
        }
        context.performAndWait { context.delete(mood) }
        try context.performAndWait {
            #expect(france.moods.contains(mood), "not yet propagated at the end of the event")
            #expect(!france.isDeleted)
            try context.save()
        }
        #expect(try storedCount("Mood", stack.coordinator) == 0)
        #expect(try storedCount("Country", stack.coordinator) == 0, "propagated (and the book's rule applied) at save")
    }

    @Test func inaccessibleFaultsFireAsDeletedObjects() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let id = try context.performAndWait {
            let mood = Mood(context: context)
            mood.rating = 3
            try context.save()
            return mood.objectID
        }
        let holder = stack.newContext()
        let fault = holder.performAndWait { holder.object(with: id) as! Mood }
        try context.performAndWait {
            context.delete(context.object(with: id))
            try context.save()
        }
        holder.performAndWait {
            #expect(fault.isFault)
            let rating = fault.value(forKey: "rating")
            #expect(rating == nil || (rating as? NSNumber)?.intValue == 0, "the fault fires with nil/0 values")
            #expect(fault.isDeleted)
        }
    }

    /// The same, read through the scalar `@Managed` accessor (Apple's scalar accessors read nil as 0).
    @Test func anInaccessibleFaultsScalarPropertyReadsAsZero() async {
        await #expect(processExitsWith: .success) {
            let stack = try! MoodyStack()
            let context = stack.context, holder = stack.newContext()
            let id = context.performAndWait {
                let mood = Mood(context: context)
                mood.rating = 3
                try! context.save()
                return mood.objectID
            }
            let fault = holder.performAndWait { holder.object(with: id) as! Mood }
            context.performAndWait {
                context.delete(context.object(with: id))
                try! context.save()
            }
            holder.performAndWait { precondition(fault.rating == 0) }
        }
    }

    @Test func detectConflictsMakesAnUnchangedObjectCheckTheStore() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let mood = try context.performAndWait {
            let mood = Mood(context: context)
            try context.save()
            return mood
        }
        let other = stack.newContext()
        try other.performAndWait {
            (try other.existingObject(with: mood.objectID) as! Mood).rating = 2
            try other.save()
        }
        context.performAndWait {
            context.detectConflicts(for: mood)
            let error = expectCocoaError(NSManagedObjectMergeError) { try context.save() }
            let conflicts = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
            #expect(conflicts?.first?.sourceObject === mood)
        }
    }
}
