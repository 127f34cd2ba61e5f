import OpenCoreData
import Testing

/// A model with two configurations, built in code: `Library` holds `Author` and `Book`, `Archive` holds `Note`,
/// and `Tag` is in both. `Note.book` is a relationship the model allows but no save may persist (it would cross
/// stores).
enum TwoConfigurationModel {
    static let shared: NSManagedObjectModel = make()

    static func make() -> NSManagedObjectModel {
        func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            entity.properties = properties
            return entity
        }
        func attribute(_ name: String, _ type: NSAttributeType = .stringAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        func relationship(_ name: String, toMany: Bool) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.maxCount = toMany ? 0 : 1
            relationship.deleteRule = .nullifyDeleteRule
            relationship.isOptional = true
            return relationship
        }
        let books = relationship("books", toMany: true), author = relationship("author", toMany: false)
        let noteBook = relationship("book", toMany: false)
        let authorEntity = entity("Author", [attribute("name"), books])
        let bookEntity = entity("Book", [attribute("title"), attribute("year", .integer32AttributeType), author])
        let noteEntity = entity("Note", [attribute("text"), noteBook])
        let tagEntity = entity("Tag", [attribute("name")])
        books.destinationEntity = bookEntity
        author.destinationEntity = authorEntity
        books.inverseRelationship = author
        author.inverseRelationship = books
        noteBook.destinationEntity = bookEntity
        let model = NSManagedObjectModel()
        model.entities = [authorEntity, bookEntity, noteEntity, tagEntity]
        model.setEntities([authorEntity, bookEntity, tagEntity], forConfigurationName: "Library")
        model.setEntities([noteEntity, tagEntity], forConfigurationName: "Archive")
        return model
    }
}

/// A coordinator with a `Library` SQLite store and an `Archive` SQLite store.
final class TwoStoreStack {
    let directory: TemporaryStoreDirectory
    let coordinator: NSPersistentStoreCoordinator
    let library: NSPersistentStore
    let archive: NSPersistentStore

    init(directory: TemporaryStoreDirectory? = nil) throws {
        self.directory = try directory ?? TemporaryStoreDirectory()
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: TwoConfigurationModel.shared)
        library = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Library",
                                                     at: self.directory.url.appendingPathComponent("Library.sqlite"))
        archive = try coordinator.addPersistentStore(type: .sqlite, configuration: "Archive",
                                                     at: self.directory.url.appendingPathComponent("Archive.sqlite"))
    }

    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

@Suite("Several stores behind one coordinator")
struct MultipleStoresTests {
    @Test("entities are saved to the store of their configuration and fetched back from it")
    func entitiesRouteByConfiguration() throws {
        let stack = try TwoStoreStack()
        let context = stack.newContext()
        try context.performAndWait {
            let author = context.insertObject("Author", ["name": "Le Guin"])
            for (title, year) in [("Earthsea", 1968), ("The Dispossessed", 1974)] {
                context.insertObject("Book", ["title": title, "year": year, "author": author])
            }
            for text in ["first", "second", "third"] { context.insertObject("Note", ["text": text]) }
            try context.save()
            #expect(author.objectID.persistentStore === stack.library)
            #expect(try context.objects("Note").allSatisfy { $0.objectID.persistentStore === stack.archive })
            #expect(try context.objects("Book").allSatisfy { $0.objectID.persistentStore === stack.library })
        }
        // Each file holds only its configuration's objects: open each one alone.
        for (configuration, file, entity, expected) in [("Library", "Library.sqlite", "Book", 2), ("Archive", "Archive.sqlite", "Note", 3)] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TwoConfigurationModel.shared)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: configuration,
                                               at: stack.directory.url.appendingPathComponent(file))
            let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            reader.persistentStoreCoordinator = coordinator
            try reader.performAndWait { () throws in
                #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: entity)) == expected, "\(entity) in \(file)")
            }
        }
        // A new coordinator with both stores reads the whole graph.
        let reopened = try TwoStoreStack(directory: stack.directory).newContext()
        try reopened.performAndWait {
            let author = try reopened.only("Author", "name", "Le Guin")
            #expect(author.memberStrings("books", "title") == ["Earthsea", "The Dispossessed"])
            #expect(Set(strings(try reopened.objects("Note"), "text")) == ["first", "second", "third"])
        }
    }

    @Test("a fetch of an entity in both stores merges, sorts, offsets and limits across them")
    func fetchesSpanStores() throws {
        let stack = try TwoStoreStack()
        let context = stack.newContext()
        let names = ["kiwi", "apple", "mango", "fig", "banana", "cherry", "date", "lemon"]
        try context.performAndWait {
            for (index, name) in names.enumerated() {
                let tag = context.insertObject("Tag", ["name": name])
                if index % 2 == 1 { context.assign(tag, to: stack.archive) }
            }
            try context.save()
        }
        let reader = try TwoStoreStack(directory: stack.directory).newContext()
        try reader.performAndWait {
            let sorted = names.sorted()   // apple banana cherry date fig kiwi lemon mango
            #expect(strings(try reader.objects("Tag", sortedBy: ["name"])) == sorted)
            #expect(strings(try reader.objects("Tag", sortedBy: ["-name"])) == sorted.reversed())
            let page = try reader.objects("Tag", sortedBy: ["name"]) { $0.fetchOffset = 2; $0.fetchLimit = 3 }
            #expect(strings(page) == ["cherry", "date", "fig"])
            #expect(strings(try reader.objects("Tag", "name BEGINSWITH 'c' OR name ENDSWITH 'n'", sortedBy: ["name"])) == ["cherry", "lemon"])
            let counted = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            #expect(try reader.count(for: counted) == 8)
            counted.fetchLimit = 5
            #expect(try reader.count(for: counted) == 5)

            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Tag")
            ids.resultType = .managedObjectIDResultType
            ids.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            ids.fetchLimit = 4
            let fetchedIDs = try reader.fetch(ids)
            #expect(fetchedIDs.map { reader.object(with: $0).string("name") } == ["apple", "banana", "cherry", "date"])
            #expect(Set(fetchedIDs.compactMap { $0.persistentStore.map(ObjectIdentifier.init) }).count == 2, "from both stores")

            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Tag")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["name"]
            dictionaries.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
            dictionaries.fetchOffset = 1
            dictionaries.fetchLimit = 2
            #expect(try reader.fetch(dictionaries).map { $0["name"] as? String } == ["lemon", "kiwi"])

            let archived = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            archived.affectedStores = [reader.persistentStoreCoordinator!.persistentStores[1]]
            archived.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            // Odd positions of `names` (apple, fig, cherry, lemon) went to the archive.
            #expect(strings(try reader.fetch(archived)) == ["apple", "cherry", "fig", "lemon"])
            #expect(try reader.count(for: archived) == 4)
        }
    }

    @Test("assign(_:to:) chooses the store of a new object; unassigned objects go to the first store that holds the entity")
    func assignChoosesTheStore() throws {
        let stack = try TwoStoreStack()
        let context = stack.newContext()
        try context.performAndWait {
            let archived = context.insertObject("Tag", ["name": "archived"])
            let kept = context.insertObject("Tag", ["name": "kept"])
            context.assign(archived, to: stack.archive)
            // The pending object obeys affectedStores before it is saved too.
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.affectedStores = [stack.archive]
            #expect(strings(try context.fetch(request)) == ["archived"])
            try context.save()
            #expect(archived.objectID.persistentStore === stack.archive)
            #expect(kept.objectID.persistentStore === stack.library)
            // Assigning a saved object to the store it is in is allowed (and changes nothing).
            context.assign(archived, to: stack.archive)
        }
    }

    @Test("a child context's assign(_:to:) holds through the parent's save; its fetches honour affectedStores")
    func childContexts() throws {
        let stack = try TwoStoreStack()
        let parent = stack.newContext()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            let archived = child.insertObject("Tag", ["name": "archived"])
            child.insertObject("Tag", ["name": "kept"])
            child.assign(archived, to: stack.archive)
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        try child.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.affectedStores = [stack.archive]
            let archived = try child.fetch(request)
            #expect(strings(archived) == ["archived"])
            #expect(archived.first?.objectID.persistentStore === stack.archive)
            #expect(try child.only("Tag", "name", "kept").objectID.persistentStore === stack.library)
        }
    }

    @Test("a relationship between objects of different stores is refused at save with Apple's error, and nothing is saved")
    func crossStoreRelationshipsAreRefused() throws {
        let stack = try TwoStoreStack()
        let context = stack.newContext()
        context.performAndWait {
            let book = context.insertObject("Book", ["title": "Earthsea"])
            let note = context.insertObject("Note", ["text": "margin note"])
            note.setValue(book, forKey: "book")
            let error = expectCocoaError(NSPersistentStoreIncompatibleSchemaError) { try context.save() }
            #expect(error?.userInfo["NSUnderlyingException"] as? String == "CoreData does not support persistent cross-store relationships")
            let affected = error?.userInfo[NSAffectedObjectsErrorKey] as? [NSManagedObject] ?? []
            #expect(Set(affected.map { $0.entity.name ?? "" }) == ["Note", "Book"])
        }
        let reader = try TwoStoreStack(directory: stack.directory).newContext()
        try reader.performAndWait { () throws in
            #expect(try reader.objects("Book").isEmpty && reader.objects("Note").isEmpty, "the refused save wrote nothing to either store")
        }
        // Without the cross-store link the same objects save.
        try context.performAndWait {
            let note = try #require(context.insertedObjects.first { $0.entity.name == "Note" })
            note.setValue(nil, forKey: "book")
            try context.save()
        }
    }

    @Test("a conflict in the second store of a save is resolved without sending the first store its changes again")
    func conflictInOneOfTwoStores() throws {
        let stack = try TwoStoreStack()
        let seed = stack.newContext()
        let noteID = try seed.performAndWait {
            let note = seed.insertObject("Note", ["text": "original"])
            try seed.save()
            return note.objectID
        }
        let a = stack.newContext(), b = stack.newContext()
        a.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        a.performAndWait {
            a.object(with: noteID).setValue("from a", forKey: "text")
            a.insertObject("Book", ["title": "new in the library"])   // the first store's part of the save
        }
        try b.performAndWait {
            try b.existingObject(with: noteID).setValue("from b", forKey: "text")
            try b.save()
        }
        try a.performAndWait { try a.save() }   // library insert applies, the note conflicts, the policy resolves, retry
        let reader = try TwoStoreStack(directory: stack.directory).newContext()
        try reader.performAndWait { () throws in
            #expect(strings(try reader.objects("Book"), "title") == ["new in the library"], "inserted once")
            #expect(strings(try reader.objects("Note"), "text") == ["from a"], "object trump: a's value wins")
        }
    }

    @Test("an object ID made by another coordinator on the same store files is not another store")
    func idsFromAnotherCoordinatorOfTheSameFilesAreTheSameStore() throws {
        let stack = try TwoStoreStack()
        let writer = stack.newContext()
        let bookID = try writer.performAndWait {
            let book = writer.insertObject("Book", ["title": "Earthsea"])
            try writer.save()
            return book.objectID
        }
        let other = try TwoStoreStack(directory: stack.directory)
        let context = other.newContext()
        try context.performAndWait {
            let book = context.object(with: bookID)   // an ID of the first coordinator's store object
            #expect(bookID.persistentStore !== other.library)
            let author = context.insertObject("Author", ["name": "Le Guin"])
            book.setValue(author, forKey: "author")
            try context.save()
        }
        let reader = try TwoStoreStack(directory: stack.directory).newContext()
        try reader.performAndWait { () throws in
            #expect(try reader.only("Book", "title", "Earthsea").value(forKeyPath: "author.name") as? String == "Le Guin")
        }
    }

    @Test("the coordinator finds stores by URL, moves them with setURL(_:for:), and posts Apple's store notifications")
    func storeLookupAndNotifications() throws {
        let stack = try TwoStoreStack()
        let coordinator = stack.coordinator
        #expect(coordinator.persistentStore(for: stack.directory.url.appendingPathComponent("Archive.sqlite")) === stack.archive)
        #expect(coordinator.url(for: stack.library) == stack.directory.url.appendingPathComponent("Library.sqlite"))
        #expect(coordinator.persistentStore(for: stack.directory.url.appendingPathComponent("Nothing.sqlite")) == nil)

        let received = LockedBox<[(String, [AnyHashable: Any])]>([])
        var observers: [NSObjectProtocol] = []
        for name in [NSNotification.Name.NSPersistentStoreCoordinatorStoresWillChange, .NSPersistentStoreCoordinatorStoresDidChange] {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: coordinator, queue: nil) { note in
                let info = note.userInfo ?? [:]
                received.mutate { $0.append((note.name.rawValue, info)) }
            })
        }
        let removedStore = LockedBox<NSPersistentStore?>(nil)
        observers.append(NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorWillRemoveStore, object: stack.archive, queue: nil) { note in
            removedStore.mutate { $0 = note.object as? NSPersistentStore }
        })
        defer { observers.forEach(NotificationCenter.default.removeObserver) }

        let binaryURL = stack.directory.url.appendingPathComponent("Extra.binarystore")
        let added = try coordinator.addPersistentStore(type: .binary, configuration: "Archive", at: binaryURL)
        try coordinator.remove(stack.archive)
        let events = received.value
        #expect(events.map(\.0) == ["NSPersistentStoreCoordinatorStoresDidChangeNotification", "NSPersistentStoreCoordinatorStoresWillChangeNotification",
                                    "NSPersistentStoreCoordinatorStoresDidChangeNotification"])
        #expect((events[0].1[NSAddedPersistentStoresKey] as? [NSPersistentStore])?.first === added)
        #expect((events[2].1[NSRemovedPersistentStoresKey] as? [NSPersistentStore])?.first === stack.archive)
        #expect(removedStore.value === stack.archive)

        // An atomic store saves to its new URL after setURL(_:for:).
        let moved = stack.directory.url.appendingPathComponent("Moved.binarystore")
        #expect(coordinator.setURL(moved, for: added))
        #expect(coordinator.url(for: added) == moved)
        #expect(!coordinator.setURL(stack.directory.url.appendingPathComponent("Library.sqlite"), for: added), "a URL another store uses")
        let context = stack.newContext()
        try context.performAndWait {
            context.insertObject("Note", ["text": "moved"])
            try context.save()
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: moved)
        #expect(metadata[NSStoreUUIDKey] as? String == added.identifier)

        // An SQLite store reopens on a copy of its file.
        let copy = stack.directory.url.appendingPathComponent("LibraryCopy.sqlite")
        try FileManager.default.copyItem(at: stack.directory.url.appendingPathComponent("Library.sqlite"), to: copy)
        #expect(coordinator.setURL(copy, for: stack.library))
        #expect(!coordinator.setURL(stack.directory.url.appendingPathComponent("Missing.sqlite"), for: stack.library), "an SQLite store moves only onto an existing file")
        try context.performAndWait {
            context.insertObject("Book", ["title": "in the copy"])
            try context.save()
        }
        let reader = NSPersistentStoreCoordinator(managedObjectModel: TwoConfigurationModel.shared)
        try reader.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Library", at: copy)
        let readerContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        readerContext.persistentStoreCoordinator = reader
        try readerContext.performAndWait { () throws in #expect(strings(try readerContext.objects("Book"), "title") == ["in the copy"]) }
    }
}
