import OpenCoreData
import Testing

// NSManagedObject's API: key-value coding on objects with and without a subclass, primitive accessors and
// change notifications, relationship proxies, faulting, lifecycle hooks and snapshot events.

@Suite("NSManagedObject API")
struct ObjectAPITests {
    @Test func keyValueCodingWorksWithoutASubclass() throws {
        let stack = try LibraryStack()
        let context = stack.context
        let bookID = try context.performAndWait {
            let bookEntity = try #require(NSEntityDescription.entity(forEntityName: "Book", in: context))
            let book = NSManagedObject(entity: bookEntity, insertInto: context)
            #expect(type(of: book) == NSManagedObject.self, "an entity without a class gets NSManagedObject")
            book.setValue("Dune", forKey: "title")
            let author = LibraryStack.insert("Author", into: context, ["name": "Herbert"])
            book.setValue(author, forKey: "author")
            #expect(book.value(forKey: "title") as? String == "Dune")
            #expect(book.value(forKeyPath: "author.name") as? String == "Herbert")
            #expect((author.value(forKey: "books") as? NSSet)?.contains(book) == true, "the inverse is maintained")
            #expect(author.value(forKeyPath: "books.@count") as? Int == 1)
            book.setValue("Frank Herbert", forKeyPath: "author.name")
            #expect(author.value(forKey: "name") as? String == "Frank Herbert")
            try context.save()
            return book.objectID
        }
        let other = stack.newContext()
        try other.performAndWait {
            let book = try other.existingObject(with: bookID)
            #expect(book.value(forKeyPath: "author.name") as? String == "Frank Herbert")
        }
    }

    @Test func customAccessorsThroughPrimitiveValuesAndChangeNotifications() throws {
        let stack = try LibraryStack()
        let context = stack.context
        context.undoManager = UndoManager()
        let note = try context.performAndWait {
            let note = LibraryStack.insert("Note", into: context, ["text": "first"]) as! LibraryNote
            try context.save()
            return note
        }
        context.performAndWait {
            // A custom setter, as Apple's documentation writes it.
            note.willChangeValue(forKey: "text")
            note.setPrimitiveValue("second", forKey: "text")
            note.didChangeValue(forKey: "text")
            #expect(note.isUpdated)
            #expect(note.changedValues()["text"] as? String == "second")
            // A custom getter.
            note.willAccessValue(forKey: "text")
            let text = note.primitiveValue(forKey: "text") as? String
            note.didAccessValue(forKey: "text")
            #expect(text == "second")
        }
        context.performAndWait { context.undo() }
        context.performAndWait {
            #expect(note.text == "first", "a change recorded through will/didChangeValue is undoable")
            #expect(note.snapshotEvents.contains(.undoUpdate))
        }
    }

    @Test func nestedAndInterleavedChangeNotificationsKeepTheOutermostOldValue() throws {
        let stack = try LibraryStack()
        let context = stack.context
        context.undoManager = UndoManager()
        let (first, second) = try context.performAndWait {
            let first = LibraryStack.insert("Note", into: context, ["text": "a"]) as! LibraryNote
            let second = LibraryStack.insert("Note", into: context, ["text": "b"]) as! LibraryNote
            try context.save()
            return (first, second)
        }
        context.performAndWait {
            // A custom setter that calls the KVC setter inside its own will/did pair: the inner pair is nested.
            first.willChangeValue(forKey: "text")
            first.setValue("a1", forKey: "text")
            first.setValue("a2", forKey: "text")
            // The other object's change begins and ends inside the first one's.
            second.willChangeValue(forKey: "text")
            second.setPrimitiveValue("b1", forKey: "text")
            first.didChangeValue(forKey: "text")
            second.didChangeValue(forKey: "text")
            #expect(first.changedValuesForCurrentEvent()["text"] as? String == "a")
            #expect(second.changedValuesForCurrentEvent()["text"] as? String == "b")
            #expect(context.updatedObjects == [first, second])
            // An unmatched didChangeValue changes nothing.
            first.didChangeValue(forKey: "text")
            #expect(first.changedValuesForCurrentEvent()["text"] as? String == "a")
        }
        context.performAndWait { context.undo() }
        context.performAndWait {
            #expect(first.text == "a" && second.text == "b", "one undo restores both values from before the event")
        }
    }

    @Test func objectsHashAndCompareByIdentity() throws {
        let stack = try LibraryStack()
        let context = stack.context
        context.performAndWait {
            let first = LibraryStack.insert("Note", into: context, ["text": "same"])
            let second = LibraryStack.insert("Note", into: context, ["text": "same"])
            #expect(first.hash == first.hash && first.hash != second.hash)
            #expect(first.isEqual(first) && !first.isEqual(second))
            #expect(Set([first, second, first]).count == 2, "equal values, two objects")
            let byObject: [NSManagedObject: String] = [first: "a", second: "b"]
            #expect(byObject[first] == "a" && byObject[second] == "b")
            #expect(NSSet(array: [first, first, second]).count == 2)
            // Anything that is not the object itself is unequal: nil, a value, another kind of object.
            #expect(!first.isEqual(nil) && !first.isEqual("same") && !first.isEqual(first.objectID) && !first.isEqual(NSString(string: "same")))
        }
    }

    @Test func objectIDsCompareByWhatTheyName() throws {
        let stack = try LibraryStack()
        let context = stack.context
        try context.performAndWait {
            let first = LibraryStack.insert("Note", into: context, ["text": "a"])
            let second = LibraryStack.insert("Note", into: context, ["text": "b"])
            try context.save()
            // Another instance naming the same row, read back from the URI.
            let again = try #require(stack.coordinator.managedObjectID(forURIRepresentation: first.objectID.uriRepresentation()))
            #expect(first.objectID.isEqual(again) && first.objectID == again && first.objectID.hash == again.hash)
            #expect(!first.objectID.isEqual(second.objectID) && first.objectID != second.objectID)
            #expect(!first.objectID.isEqual(nil) && !first.objectID.isEqual(first) && !first.objectID.isEqual(first.objectID.uriRepresentation()))
            #expect(first.objectID.isEqual(AnyHashable(again)), "an ID inside AnyHashable is the ID")
            #expect(Set([first.objectID, again, second.objectID]).count == 2)
        }
    }

    @Test func willAccessValueFiresAFault() throws {
        let stack = try LibraryStack()
        let id = try stack.context.performAndWait {
            let note = LibraryStack.insert("Note", into: stack.context, ["text": "x"])
            try stack.context.save()
            return note.objectID
        }
        let other = stack.newContext()
        other.performAndWait {
            let fault = other.object(with: id)
            #expect(fault.isFault && fault.faultingState != 0)
            fault.willAccessValue(forKey: nil)
            #expect(!fault.isFault && fault.faultingState == 0)
        }
    }

    @Test func mutableOrderedSetValueKeepsOrderAndInverses() throws {
        let stack = try LibraryStack()
        let context = stack.context
        let (shelfID, titles) = try context.performAndWait {
            let shelf = LibraryStack.insert("Shelf", into: context, ["label": "SF"])
            let books = ["A", "B", "C"].map { LibraryStack.insert("Book", into: context, ["title": $0]) }
            let ordered = shelf.mutableOrderedSetValue(forKey: "books")
            ordered.add(books[0])
            ordered.add(books[1])
            ordered.insert(books[2], at: 0)
            #expect(books.allSatisfy { $0.value(forKey: "shelf") as? NSManagedObject === shelf })
            #expect((shelf.value(forKey: "books") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String } == ["C", "A", "B"])
            ordered.removeObject(at: 1)
            #expect(books[0].value(forKey: "shelf") == nil)
            ordered.add(books[0])
            try context.save()
            return (shelf.objectID, ["C", "B", "A"])
        }
        let other = stack.newContext()
        try other.performAndWait {
            let shelf = try other.existingObject(with: shelfID)
            let stored = (shelf.value(forKey: "books") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }
            #expect(stored == titles, "the order is saved")
        }
    }

    @Test func entityAndFetchRequestOfASubclass() throws {
        let stack = try LibraryStack()
        let context = stack.context
        try context.performAndWait { () throws -> Void in
            #expect(LibraryNote.entity().name == "Note")
            #expect(LibraryNote.fetchRequest().entityName == "Note")
            let note = LibraryNote(context: context)
            #expect(note.entity.name == "Note")
            #expect(note.managedObjectContext === context)
            #expect(note.objectID.entity.name == "Note")
            #expect(try context.fetch(LibraryNote.fetchRequest()).count == 1)
            #expect(note.pinned == false, "the model's default value")
        }
    }

    @Test func relationshipFaultsAndObjectIDsForRelationship() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (franceID, moodIDs) = try context.performAndWait {
            let france = Country(context: context)
            france.numericISO3166Code = 250
            let moods = (0..<2).map { _ in Mood(context: context) }
            for mood in moods { mood.country = france }
            try context.save()
            return (france.objectID, Set(moods.map(\.objectID)))
        }
        let other = stack.newContext()
        try other.performAndWait {
            let france = try other.existingObject(with: franceID)
            #expect(france.hasFault(forRelationshipNamed: "moods"))
            #expect(Set(france.objectIDs(forRelationshipNamed: "moods")) == moodIDs)
            #expect((france as! Country).moods.count == 2)
            #expect(!france.hasFault(forRelationshipNamed: "moods"))
        }
    }

    @Test func transformableValuesRoundTripAndTrackChanges() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let red = MoodColor(red: 255, green: 0, blue: 0), blue = MoodColor(red: 0, green: 0, blue: 255)
        let mood = try context.performAndWait {
            let mood = Mood(context: context)
            mood.colors = [red]
            try context.save()
            return mood
        }
        try context.performAndWait {
            mood.colors = [red, blue]
            #expect(mood.isUpdated)
            #expect(mood.changedValues()["colors"] as? [MoodColor] == [red, blue])
            #expect(mood.committedValues(forKeys: ["colors"])["colors"] as? [MoodColor] == [red])
            try context.save()
        }
        let other = stack.newContext()
        try other.performAndWait {
            let stored = try other.existingObject(with: mood.objectID) as! Mood
            #expect(stored.colors == [red, blue])
            #expect(stored.value(forKey: "colors") as? [MoodColor] == [red, blue])
        }
    }

    // MARK: Lifecycle hooks

    @Test func lifecycleHooksAreCalledInOrder() throws {
        let stack = try LibraryStack()
        let context = stack.context
        let note = try context.performAndWait {
            let note = LibraryStack.insert("Note", into: context, ["text": "hello"]) as! LibraryNote
            #expect(note.hooks == ["awakeFromInsert"])
            try context.save()
            #expect(note.hooks == ["awakeFromInsert", "willSave", "didSave"])
            return note
        }
        let other = stack.newContext()
        let theirs = try other.performAndWait {
            let theirs = other.object(with: note.objectID) as! LibraryNote
            #expect(theirs.hooks.isEmpty, "a fault has not been awakened")
            _ = theirs.text
            #expect(theirs.hooks == ["awakeFromFetch"])
            theirs.clearHooks()
            other.delete(theirs)
            #expect(theirs.hooks.isEmpty, "prepareForDeletion runs when deletes propagate")
            other.processPendingChanges()
            #expect(theirs.hooks == ["prepareForDeletion"])
            try other.save()
            #expect(Array(theirs.hooks.prefix(3)) == ["prepareForDeletion", "willSave", "didSave"], "deleted objects are saved too")
            return theirs
        }
        #expect(theirs.managedObjectContext == nil, "a deleted object leaves its context when the deletion is saved")
        context.performAndWait {
            note.clearHooks()
            context.refresh(note, mergeChanges: false)
            #expect(Array(note.hooks.prefix(2)) == ["willTurnIntoFault", "didTurnIntoFault"], "\(note.hooks)")
        }
    }

    /// "The managed object context's change processing is explicitly disabled around this method so that you can
    /// use public setters to establish transient values and other caches without dirtying the object or its
    /// context." (awakeFromFetch())
    @Test func settersInAwakeFromFetchDoNotDirtyTheObject() throws {
        let stack = try LibraryStack()
        let id = try stack.context.performAndWait {
            let note = LibraryStack.insert("Note", into: stack.context, ["text": "pin on fetch"])
            try stack.context.save()
            return note.objectID
        }
        let other = stack.newContext()
        let log = NotificationLog(.NSManagedObjectContextObjectsDidChange, object: other) { _ in true }
        other.performAndWait {
            let note = other.object(with: id) as! LibraryNote
            #expect(note.pinned, "set in awakeFromFetch")
            #expect(!note.hasChanges && !note.isUpdated)
            #expect(!other.hasChanges)
        }
        #expect(log.count == 0)
    }

    @Test func snapshotEventsForUndoAndRollback() throws {
        let stack = try LibraryStack()
        let context = stack.context
        context.undoManager = UndoManager()
        let note = try context.performAndWait {
            let note = LibraryStack.insert("Note", into: context, ["text": "a"]) as! LibraryNote
            try context.save()
            note.clearHooks()
            return note
        }
        context.performAndWait { note.text = "b" }
        context.performAndWait { context.undo() }
        context.performAndWait {
            #expect(note.text == "a")
            #expect(note.snapshotEvents.contains(.undoUpdate), "\(note.snapshotEvents.map(\.rawValue))")
            note.clearHooks()
            note.text = "c"
            context.rollback()
            #expect(note.text == "a")
            #expect(note.snapshotEvents.contains(.rollback), "\(note.snapshotEvents.map(\.rawValue))")
        }
    }

    @Test func validationMethodsCanBeCalledDirectly() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            let mood = Mood(context: context)
            try mood.validateForInsert()
            try context.save()
            mood.rating = -1
            let error = expectCocoaError(NSManagedObjectValidationError) { try mood.validateForUpdate() }
            #expect(error?.localizedDescription.contains("rating too small") == true)
            var value: Any? = NSNumber(value: 3)
            try mood.validateValue(&value, forKey: "rating")
            value = nil
            expectCocoaError(NSValidationMissingMandatoryPropertyError) { try mood.validateValue(&value, forKey: "date") }
            try mood.validateForDelete()
        }
    }

    // MARK: Programmer errors stop the program (Apple raises)

    @Test func anUnknownKeyStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let stack = try! MoodyStack()
            stack.context.performAndWait {
                let mood = Mood(context: stack.context)
                _ = mood.value(forKey: "noSuchKey")
            }
        }
    }

    @Test func aValueOfTheWrongTypeStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let stack = try! MoodyStack()
            stack.context.performAndWait {
                let mood = Mood(context: stack.context)
                mood.setValue("five", forKey: "rating")
            }
        }
    }
}
