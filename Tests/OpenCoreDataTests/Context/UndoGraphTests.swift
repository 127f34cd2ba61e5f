import Foundation
import OpenCoreData
import Testing

/// Undo and redo restore the whole state before an event — both sides of every relationship, order included —
/// as Apple's contexts do by registering an event's undo in `processPendingChanges`; deleting an unsaved object
/// that something still points at makes the save fail instead of writing a dangling reference; whole-list
/// operations of a relationship's mutable ordered set work. (Regression cases found by `RandomGraphTests`.)
@Suite("Undo of whole events, dangling references, ordered-set proxies")
struct UndoGraphTests {
    /// A context with an undo manager on an in-memory store of the random-graph model.
    static func makeContext() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: RandomGraphSchema.makeModel())
        _ = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.performAndWait { context.undoManager = UndoManager() }
        return context
    }

    static func insert(_ entity: String, _ context: NSManagedObjectContext) -> NSManagedObject {
        NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
    }

    static func members(_ object: NSManagedObject, _ key: String) -> [NSManagedObject] {
        if let ordered = object.value(forKey: key) as? NSOrderedSet { return ordered.array.map { $0 as! NSManagedObject } }
        return ((object.value(forKey: key) as? NSSet)?.allObjects ?? []).map { $0 as! NSManagedObject }
    }

    @Test("undo gives back a link that inverse maintenance took from another object")
    func undoRestoresAStolenLink() throws {
        let context = try Self.makeContext()
        context.performAndWait {
            let a1 = Self.insert("Author", context), a2 = Self.insert("Author", context), book = Self.insert("Book", context)
            book.setValue(a1, forKey: "author")
            context.processPendingChanges()
            a2.mutableSetValue(forKey: "books").add(book)   // the book moves from a1 to a2
            context.processPendingChanges()
            #expect(Self.members(a1, "books").isEmpty)
            context.undo()
            #expect(book.value(forKey: "author") as? NSManagedObject === a1)
            #expect(Self.members(a1, "books").map(ObjectIdentifier.init) == [ObjectIdentifier(book)])
            #expect(Self.members(a2, "books").isEmpty)
            context.redo()
            #expect(book.value(forKey: "author") as? NSManagedObject === a2)
            #expect(Self.members(a1, "books").isEmpty)

            // One-to-one, reflexive: t3.twin = t2 takes t2 from t1.
            let t1 = Self.insert("Tag", context), t2 = Self.insert("Tag", context), t3 = Self.insert("Tag", context)
            t1.setValue(t2, forKey: "twin")
            context.processPendingChanges()
            t3.setValue(t2, forKey: "twin")
            context.processPendingChanges()
            #expect(t1.value(forKey: "twin") == nil)
            context.undo()
            #expect(t1.value(forKey: "twin") as? NSManagedObject === t2)
            #expect(t2.value(forKey: "twin") as? NSManagedObject === t1)
            #expect(t3.value(forKey: "twin") == nil)
        }
    }

    @Test("undo puts an ordered member back at its old position")
    func undoRestoresOrder() throws {
        let context = try Self.makeContext()
        context.performAndWait {
            let author = Self.insert("Author", context)
            let a = Self.insert("Article", context), b = Self.insert("Article", context), c = Self.insert("Article", context)
            author.setValue(NSOrderedSet(array: [a, b, c]), forKey: "articles")
            context.processPendingChanges()
            b.setValue(nil, forKey: "author")
            context.processPendingChanges()
            #expect(Self.members(author, "articles") == [a, c])
            context.undo()
            #expect(Self.members(author, "articles") == [a, b, c])
        }
    }

    @Test("redo of an undone deletion deletes again")
    func redoDeletesAgain() throws {
        let context = try Self.makeContext()
        try context.performAndWait {
            let tag = Self.insert("Tag", context), twin = Self.insert("Tag", context)
            tag.setValue(twin, forKey: "twin")
            try context.save()
            context.delete(tag)
            context.processPendingChanges()
            #expect(twin.value(forKey: "twin") == nil, "nullified")
            context.undo()
            #expect(!tag.isDeleted)
            #expect(twin.value(forKey: "twin") as? NSManagedObject === tag)
            context.redo()
            #expect(tag.isDeleted)
            #expect(twin.value(forKey: "twin") == nil)
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) == 1)
        }
    }

    @Test("undoing a deletion that was saved brings back both sides of its relationships")
    func undoOfASavedDeletion() throws {
        let context = try Self.makeContext()
        try context.performAndWait {
            let t1 = Self.insert("Tag", context), t2 = Self.insert("Tag", context)
            t1.setValue(t2, forKey: "twin")
            try context.save()
            context.delete(t1)
            try context.save()
            context.undo()
            #expect(t1.managedObjectContext === context && t1.isInserted)
            #expect(t1.value(forKey: "twin") as? NSManagedObject === t2)
            #expect(t2.value(forKey: "twin") as? NSManagedObject === t1)
            try context.save()
            let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
            let tags = try fresh.performAndWait { try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")) }
            fresh.performAndWait {
                #expect(tags.count == 2)
                #expect(tags.allSatisfy { $0.value(forKey: "twin") != nil })
            }
        }
    }

    @Test("a save refuses a reference to an object inserted and deleted before any save (1550)")
    func danglingReferenceToAnUnsavedDeletedObject() throws {
        let context = try Self.makeContext()
        context.performAndWait {
            let author = Self.insert("Author", context), book = Self.insert("Book", context)
            book.setValue(author, forKey: "author")   // Author.books denies: deleting the author clears nothing
            context.delete(author)
            context.processPendingChanges()
            #expect(book.value(forKey: "author") as? NSManagedObject === author)
            #expect(throws: (any Error).self) { try context.save() }
            do {
                try context.save()
            } catch let error as NSError {
                let errors = (error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? [error]
                #expect(errors.contains { $0.code == NSManagedObjectValidationError && $0.userInfo[NSValidationKeyErrorKey] as? String == "author" })
            }
            // Repaired, the save succeeds.
            book.setValue(nil, forKey: "author")
            #expect(throws: Never.self) { try context.save() }
        }
    }

    @Test("whole-list operations of mutableOrderedSetValue(forKey:) change the relationship")
    func orderedSetProxyWholeListOperations() throws {
        let context = try Self.makeContext()
        context.performAndWait {
            let author = Self.insert("Author", context)
            let articles = (0..<4).map { index -> NSManagedObject in
                let article = Self.insert("Article", context)
                article.setValue(Int64(index), forKey: "value")
                return article
            }
            let proxy = author.mutableOrderedSetValue(forKey: "articles")
            proxy.addObjects(from: articles)
            proxy.exchangeObject(at: 0, withObjectAt: 3)
            #expect(Self.members(author, "articles") == [articles[3], articles[1], articles[2], articles[0]])
            proxy.sort { ($0 as! NSManagedObject).value(forKey: "value") as! Int64 > ($1 as! NSManagedObject).value(forKey: "value") as! Int64 ? .orderedAscending : .orderedDescending }
            #expect(Self.members(author, "articles") == articles.reversed())
            proxy.removeObjects(at: IndexSet([0, 1]))
            #expect(Self.members(author, "articles") == [articles[1], articles[0]])
            #expect(articles[3].value(forKey: "author") == nil, "inverse maintained")
            #expect(articles[0].value(forKey: "author") as? NSManagedObject === author)
        }
    }
}
