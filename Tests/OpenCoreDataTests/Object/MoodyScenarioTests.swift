import OpenCoreData
import Testing

// Scenarios from the objc.io "Core Data" book's Moody app, written the way the book writes them. Expected
// values come from the book and Apple's documentation, never from running the implementation.

private func code(_ value: Int) -> NSPredicate {
    NSPredicate(format: "%K == %d", "numericISO3166Code", value)
}

@Suite("Moody scenarios (objc.io book)")
struct MoodyScenarioTests {
    // MARK: Find or create

    @Test func findOrCreateAnswersFromRegisteredObjectsBeforeFetching() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let franceID = try context.performAndWait {
            let france = try Country.findOrCreate(in: context, matching: code(250)) { $0.numericISO3166Code = 250 }
            #expect(france.isInserted)
            #expect(Country.fetchCount(in: context) == 1, "nothing registered matched, so the helper fetched once")

            // The inserted, unsaved country is registered and materialized: found without a fetch.
            let again = try Country.findOrCreate(in: context, matching: code(250)) { _ in Issue.record("must not create a second France") }
            #expect(again === france)
            #expect(Country.fetchCount(in: context) == 1)

            // An in-memory change that makes a registered object match is seen without fetching either.
            france.numericISO3166Code = 251
            #expect(try Country.findOrFetch(in: context, matching: code(251)) === france)
            #expect(Country.fetchCount(in: context) == 1)
            france.numericISO3166Code = 250
            try context.save()
            return france.objectID
        }

        // A fresh context has nothing registered: the saved country comes from a fetch.
        let fresh = stack.newContext()
        try fresh.performAndWait {
            #expect(fresh.registeredObjects.isEmpty)
            let found = try #require(try Country.findOrFetch(in: fresh, matching: code(250)))
            #expect(found.objectID == franceID)
            #expect(found.numericISO3166Code == 250)
            #expect(!found.isFault, "the helper fetches with returnsObjectsAsFaults = false")
            #expect(Country.fetchCount(in: fresh) == 1)
            #expect(try Country.findOrFetch(in: fresh, matching: code(250)) === found)
            #expect(Country.fetchCount(in: fresh) == 1, "the second lookup is answered by the materialized object")
            #expect(try Country.findOrFetch(in: fresh, matching: code(999)) == nil)
            #expect(Country.fetchCount(in: fresh) == 2)
        }

        // A registered fault is skipped by the materialized search; the fetch returns that same instance.
        let third = stack.newContext()
        try third.performAndWait {
            let fault = third.object(with: franceID)
            #expect(fault.isFault)
            let found = try Country.findOrFetch(in: third, matching: code(250))
            #expect(Country.fetchCount(in: third) == 1)
            #expect(found === fault, "uniquing: one object per ID in a context")
        }
    }

    // MARK: Relationships and inverses

    @Test func inversesAreMaintainedOnBothSides() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (moodID, franceID) = try context.performAndWait {
            let france = Country(context: context), germany = Country(context: context)
            france.numericISO3166Code = 250
            germany.numericISO3166Code = 276
            let mood = Mood(context: context)

            mood.country = france
            #expect(france.moods == [mood])
            mood.country = germany
            #expect(france.moods.isEmpty)
            #expect(germany.moods == [mood])

            france.addToMoods(mood)
            #expect(mood.country === france)
            #expect(germany.moods.isEmpty, "moving the mood removes it from its previous country")
            france.removeFromMoods(mood)
            #expect(mood.country == nil)
            #expect(france.moods.isEmpty)

            germany.mutableSetValue(forKey: "moods").add(mood)
            #expect(mood.country === germany)

            let second = Mood(context: context), third = Mood(context: context)
            france.addToMoods(NSSet(array: [second, third]))
            #expect(second.country === france && third.country === france)
            france.moods = [mood]
            #expect(second.country == nil && third.country == nil, "members left out of the new set lose their inverse")
            #expect(mood.country === france)
            #expect(germany.moods.isEmpty)

            let europe = Continent(context: context)
            europe.numericISO3166Code = 150
            france.continent = europe
            germany.setValue(europe, forKey: "continent")
            #expect(europe.countries == [france, germany])
            europe.mutableSetValue(forKey: "countries").remove(france)
            #expect(france.continent == nil)
            #expect(europe.countries == [germany])

            context.delete(second)
            context.delete(third)
            try context.save()
            return (mood.objectID, france.objectID)
        }
        // The store has both sides.
        let fresh = stack.newContext()
        try fresh.performAndWait {
            let mood = try #require(try fresh.existingObject(with: moodID) as? Mood)
            #expect(mood.country?.objectID == franceID)
            #expect(mood.country?.moods.map(\.objectID) == [moodID])
            let countries = try fresh.fetch(NSFetchRequest<Country>(entityName: "Country"))
            let germany = try #require(countries.first { $0.numericISO3166Code == 276 })
            #expect(germany.continent?.countries == [germany])
        }
    }

    // MARK: Delete rules

    @Test func nullifyRuleRemovesTheDeletedObjectFromTheInverse() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (france, kept, deleted) = context.performAndWait {
            let france = Country(context: context)
            france.numericISO3166Code = 250
            let kept = Mood(context: context), deleted = Mood(context: context)
            kept.country = france
            deleted.country = france
            return (france, kept, deleted)
        }
        try context.performAndWait {
            try context.save()
            context.delete(deleted)
        }
        // Delete rules run at the end of the event that deleted the object.
        try context.performAndWait {
            #expect(france.moods == [kept])
            #expect(!france.isDeleted, "France still has a mood")
            #expect(context.deletedObjects == [deleted])
            try context.save()
        }
        #expect(try storedCount("Mood", stack.coordinator) == 1)
        #expect(try storedCount("Country", stack.coordinator) == 1)
    }

    @Test func cascadeRuleDeletesTheDestinations() throws {
        let stack = try LibraryStack()
        let context = stack.context
        try context.performAndWait {
            let author = LibraryStack.insert("Author", into: context, ["name": "Ursula"])
            for title in ["Earthsea", "Lathe"] {
                LibraryStack.insert("Book", into: context, ["title": title, "author": author])
            }
            try context.save()
            context.delete(author)
            context.processPendingChanges()
            #expect(context.deletedObjects.count == 3)
            #expect(context.deletedObjects.allSatisfy { $0.isDeleted })
            try context.save()
        }
        #expect(try storedCount("Book", stack.coordinator) == 0)
        #expect(try storedCount("Author", stack.coordinator) == 0)
    }

    @Test func denyRuleRefusesToDeleteAnObjectWithDestinations() throws {
        let stack = try LibraryStack()
        let context = stack.context
        try context.performAndWait {
            let publisher = LibraryStack.insert("Publisher", into: context, ["name": "Ace"])
            let book = LibraryStack.insert("Book", into: context, ["title": "Dune", "publisher": publisher])
            try context.save()

            context.delete(publisher)
            let error = expectCocoaError(NSValidationRelationshipDeniedDeleteError) { try context.save() }
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "books")
            #expect(error?.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === publisher)
            #expect(expectCocoaError(NSValidationRelationshipDeniedDeleteError) { try publisher.validateForDelete() } != nil)

            // Once the relationship is empty the deletion goes through.
            context.rollback()
            context.delete(book)
            context.delete(publisher)
            try context.save()
        }
        #expect(try storedCount("Publisher", stack.coordinator) == 0)
    }

    // MARK: prepareForDeletion (the book's rule: empty countries and continents go away)

    @Test func prepareForDeletionRemovesCountriesAndContinentsLeftEmpty() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (europe, france, germany, inFrance, inGermany, alsoInGermany) = try context.performAndWait {
            let europe = Continent(context: context)
            europe.numericISO3166Code = 150
            let france = Country(context: context), germany = Country(context: context)
            france.numericISO3166Code = 250
            germany.numericISO3166Code = 276
            france.continent = europe
            germany.continent = europe
            let inFrance = Mood(context: context), inGermany = Mood(context: context), alsoInGermany = Mood(context: context)
            inFrance.country = france
            inGermany.country = germany
            alsoInGermany.country = germany
            try context.save()
            return (europe, france, germany, inFrance, inGermany, alsoInGermany)
        }
        context.performAndWait { context.delete(inFrance) }
        context.performAndWait {
            #expect(france.isDeleted, "France lost its only mood")
            #expect(!europe.isDeleted, "Europe still has Germany")
            #expect(europe.countries == [germany])
        }
        context.performAndWait { context.delete(inGermany) }
        context.performAndWait {
            #expect(!germany.isDeleted, "Germany still has a mood")
            context.delete(alsoInGermany)
        }
        try context.performAndWait {
            #expect(germany.isDeleted)
            #expect(europe.isDeleted, "the last country of Europe went, so Europe goes")
            try context.save()
        }
        for entity in ["Mood", "Country", "Continent"] {
            #expect(try storedCount(entity, stack.coordinator) == 0, "\(entity)")
        }
    }

    // MARK: awakeFromInsert

    @Test func awakeFromInsertSetsDefaultsOnce() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let noteStack = try LibraryStack()
        context.performAndWait {
            let mood = Mood(context: context)
            #expect(mood.date == Date(timeIntervalSinceReferenceDate: 700_000_000))
            #expect(mood.changedValues()["date"] as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000))
            let country = Country(context: context)
            #expect(country.updatedAt == Date(timeIntervalSinceReferenceDate: 700_000_000))
        }
        // "This method is invoked only once in the object's lifetime" — not again on redo or in other contexts.
        let notes = noteStack.context
        notes.undoManager = UndoManager()
        let note = notes.performAndWait { LibraryStack.insert("Note", into: notes) as! LibraryNote }
        notes.performAndWait { notes.undo() }
        notes.performAndWait { notes.redo() }
        try notes.performAndWait {
            #expect(note.managedObjectContext === notes)
            #expect(note.hooks.filter { $0 == "awakeFromInsert" }.count == 1, "\(note.hooks)")
            try notes.save()
        }
        let other = noteStack.newContext()
        try other.performAndWait {
            let fetched = try #require(try other.existingObject(with: note.objectID) as? LibraryNote)
            #expect(fetched.hooks == ["awakeFromFetch"])
        }
    }

    // MARK: Undo and redo

    @Test func undoAndRedoASequenceOfEvents() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.undoManager = UndoManager()
        // Each performAndWait block is one event, and so one undo group.
        let (france, mood) = context.performAndWait {
            let france = Country(context: context)
            france.numericISO3166Code = 250
            let mood = Mood(context: context)
            mood.rating = 1
            return (france, mood)
        }
        context.performAndWait { mood.rating = 3 }
        context.performAndWait { mood.country = france }
        context.performAndWait { context.delete(mood) }  // the book's rule deletes France with its last mood
        context.performAndWait {
            #expect(mood.isDeleted && france.isDeleted)
            #expect(context.undoManager?.canUndo == true)
        }

        context.performAndWait { context.undo() }
        context.performAndWait {
            #expect(!mood.isDeleted && !france.isDeleted)
            #expect(mood.country === france)
            #expect(france.moods == [mood])
            #expect(context.deletedObjects.isEmpty)
        }
        context.performAndWait { context.undo() }
        context.performAndWait {
            #expect(mood.country == nil)
            #expect(france.moods.isEmpty)
        }
        context.performAndWait { context.undo() }
        context.performAndWait { #expect(mood.rating == 1) }
        context.performAndWait { context.undo() }
        context.performAndWait {
            #expect(context.insertedObjects.isEmpty)
            #expect(!context.hasChanges)
            #expect(context.undoManager?.canUndo == false)
            #expect(context.undoManager?.canRedo == true)
        }

        context.performAndWait { context.redo() }
        context.performAndWait {
            #expect(context.insertedObjects == [france, mood])
            #expect(mood.rating == 1)
            #expect(france.numericISO3166Code == 250)
        }
        context.performAndWait { context.redo() }
        context.performAndWait { #expect(mood.rating == 3) }
        context.performAndWait { context.redo() }
        context.performAndWait { #expect(france.moods == [mood]) }
        context.performAndWait { context.redo() }
        try context.performAndWait {
            #expect(mood.isDeleted && france.isDeleted, "redo re-applies the deletions the last undo reversed")
            #expect(context.undoManager?.canRedo == false)
            try context.save()
        }
        #expect(try storedCount("Mood", stack.coordinator) == 0)
    }

    // MARK: Rollback

    @Test func rollbackDiscardsInsertsUpdatesAndDeletes() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.undoManager = UndoManager()
        let (france, germany, mood, other) = try context.performAndWait {
            let france = Country(context: context), germany = Country(context: context)
            france.numericISO3166Code = 250
            germany.numericISO3166Code = 276
            let mood = Mood(context: context), other = Mood(context: context)
            mood.rating = 2
            mood.country = france
            other.country = france
            try context.save()
            return (france, germany, mood, other)
        }
        let inserted = context.performAndWait {
            mood.rating = 5
            mood.country = germany
            context.delete(other)
            let inserted = Mood(context: context)
            inserted.country = france
            return inserted
        }
        context.performAndWait {
            #expect(context.hasChanges)
            context.rollback()
            #expect(!context.hasChanges)
            #expect(mood.rating == 2)
            #expect(mood.country === france)
            #expect(!other.isDeleted)
            #expect(france.moods == [mood, other])
            #expect(germany.moods.isEmpty)
            #expect(inserted.managedObjectContext == nil)
            #expect(!context.registeredObjects.contains(inserted))
            #expect(context.undoManager?.canUndo == false, "rollback removes everything from the undo stack")
        }
    }

    // MARK: Validation

    @Test func missingMandatoryPropertyFailsWith1570() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.performAndWait {
            let mood = Mood(context: context)
            mood.setValue(nil, forKey: "date")
            let error = expectCocoaError(NSValidationMissingMandatoryPropertyError) { try context.save() }
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "date")
            #expect(error?.userInfo[NSValidationObjectErrorKey] as? Mood === mood)
            #expect(mood.objectID.isTemporaryID, "a failed save changes nothing")
            #expect(context.insertedObjects == [mood])
            #expect(expectCocoaError(NSValidationMissingMandatoryPropertyError) { try mood.validateForInsert() } != nil)
            // The same rule guards updates.
            mood.date = Date(timeIntervalSinceReferenceDate: 0)
            #expect(throws: Never.self) { try context.save() }
            mood.setValue(nil, forKey: "date")
            let update = expectCocoaError(NSValidationMissingMandatoryPropertyError) { try context.save() }
            #expect(update?.userInfo[NSValidationKeyErrorKey] as? String == "date")
            #expect(mood.isUpdated)
        }
    }

    @Test func validationPredicateFailureCarriesItsWarning() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.performAndWait {
            let mood = Mood(context: context)
            mood.rating = 7
            let error = expectCocoaError(NSManagedObjectValidationError) { try context.save() }
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "rating")
            #expect(error?.userInfo[NSValidationObjectErrorKey] as? Mood === mood)
            #expect((error?.userInfo[NSValidationValueErrorKey] as? NSNumber)?.intValue == 7)
            #expect((error?.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)?.predicateFormat == "SELF <= 5")
            #expect(error?.localizedDescription.contains("rating too large") == true, "\(error?.localizedDescription ?? "")")
            mood.rating = 5
            #expect(throws: Never.self) { try mood.validateForInsert() }
        }
    }

    @Test func relationshipCountsFailWith1580And1590() throws {
        let stack = try LibraryStack()
        let context = stack.context
        context.performAndWait {
            let shelf = LibraryStack.insert("Shelf", into: context, ["label": "A"])
            let books = (0..<4).map { LibraryStack.insert("Book", into: context, ["title": "B\($0)"]) }
            shelf.mutableOrderedSetValue(forKey: "books").add(books[0])
            var error = expectCocoaError(NSValidationRelationshipLacksMinimumCountError) { try context.save() }
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "books")
            #expect(error?.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === shelf)
            shelf.mutableOrderedSetValue(forKey: "books").addObjects(from: Array(books[1...]))
            error = expectCocoaError(NSValidationRelationshipExceedsMaximumCountError) { try context.save() }
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "books")
            shelf.mutableOrderedSetValue(forKey: "books").removeObject(at: 3)
            #expect(throws: Never.self) { try context.save() }
        }
    }

    @Test func severalFailuresAreReportedTogetherWith1560() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.performAndWait {
            let mood = Mood(context: context)
            mood.setValue(nil, forKey: "date")
            mood.rating = 9
            let error = expectCocoaError(NSValidationMultipleErrorsError) { try context.save() }
            let details = error?.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            #expect(Set(details.map(\.code)) == [NSValidationMissingMandatoryPropertyError, NSManagedObjectValidationError])
            #expect(Set(details.compactMap { $0.userInfo[NSValidationKeyErrorKey] as? String }) == ["date", "rating"])
            #expect(details.allSatisfy { $0.domain == NSCocoaErrorDomain && $0.userInfo[NSValidationObjectErrorKey] as? Mood === mood })
        }
    }

    @Test func aSubclassAddsAPerKeyRuleThroughValidateValue() throws {
        let stack = try LibraryStack()
        let context = stack.context
        context.performAndWait {
            let author = LibraryStack.insert("Author", into: context, ["name": "   "])
            #expect(author is LibraryAuthor)
            var value: Any? = "   "
            let direct = expectCocoaError(LibraryAuthor.emptyNameCode) { try author.validateValue(&value, forKey: "name") }
            #expect(direct?.userInfo[NSValidationKeyErrorKey] as? String == "name")
            let error = expectCocoaError(LibraryAuthor.emptyNameCode) { try context.save() }
            #expect(error?.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === author)
            author.setValue("Le Guin", forKey: "name")
            #expect(throws: Never.self) { try context.save() }
        }
    }
}
