import Foundation
import Testing

@testable import OpenCoreData

// Query generations: a context pinned with setQueryGenerationFrom(.current) keeps reading one generation of the
// store — fetches, counts, faults, relationship faults — while other contexts and coordinators save.

@Suite("Query generations", .timeLimit(.minutes(1)))
struct QueryGenerationTests {
    /// A store with notes a and b, folder F holding a; `writer` is a second context of the same coordinator.
    struct Fixture {
        let stack: HistoryStack
        let writer: NSManagedObjectContext
        let a: NSManagedObjectID
        let b: NSManagedObjectID
        let folder: NSManagedObjectID

        init() throws {
            stack = try HistoryStack()
            let writer = stack.context(author: "writer")
            self.writer = writer
            (a, b, folder) = try writer.performAndWait {
                let a = writer.insertNote("a"), b = writer.insertNote("b")
                let folder = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: writer)
                folder.setValue("F", forKey: "name")
                a.setValue(folder, forKey: "folder")
                try writer.save()
                return (a.objectID, b.objectID, folder.objectID)
            }
        }

        /// The writer renames b, puts b into the folder and inserts c; a second coordinator inserts d.
        func changeEverything() throws {
            try writer.performAndWait {
                let b = writer.object(with: b)
                b.setValue("B2", forKey: "title")
                b.setValue(writer.object(with: folder), forKey: "folder")
                writer.insertNote("c")
                try writer.save()
            }
            let other = try HistoryStack(url: stack.url)
            let otherContext = other.context()
            try otherContext.performAndWait {
                otherContext.insertNote("d")
                try otherContext.save()
            }
        }

        static var allNotes: NSFetchRequest<NSManagedObject> { NSFetchRequest<NSManagedObject>(entityName: "Note") }
    }

    @Test("a pinned context keeps its generation for fetches, counts, faults and relationship faults")
    func pinnedReads() throws {
        let f = try Fixture()
        let reader = f.stack.context(name: "reader")
        try reader.performAndWait {
            #expect(reader.queryGenerationToken == nil)   // unpinned by default
            try reader.setQueryGenerationFrom(.current)
            // The generation is fixed by the first read: a count, so that nothing is registered yet.
            #expect(try reader.count(for: Fixture.allNotes) == 2)
            #expect(reader.queryGenerationToken != nil)
            #expect(reader.queryGenerationToken != NSQueryGenerationToken.current)
        }
        try f.changeEverything()
        try reader.performAndWait { () throws in
            #expect(try reader.noteTitles() == ["a", "b"])
            #expect(try reader.count(for: Fixture.allNotes) == 2)
            #expect(try reader.notes("title == 'B2'").isEmpty)
            // An object the reader had not realized faults in with the pinned values.
            let b = reader.object(with: f.b)
            #expect(b.value(forKey: "title") as? String == "b")
            #expect(b.value(forKey: "folder") == nil)
            // The folder's to-many relationship fault: still only a.
            let folder = reader.object(with: f.folder)
            let members = (folder.value(forKey: "notes") as? Set<NSManagedObject>)?.map(\.objectID)
            #expect(members == [f.a])
            // Refreshing re-reads the pinned generation, not the latest data.
            reader.refresh(b, mergeChanges: false)
            #expect(b.value(forKey: "title") as? String == "b")
        }
        // An unpinned context of the same coordinator sees everything.
        let fresh = f.stack.context()
        try fresh.performAndWait { () throws in
            #expect(try fresh.noteTitles() == ["B2", "a", "c", "d"])
            #expect((fresh.object(with: f.folder).value(forKey: "notes") as? Set<NSManagedObject>)?.count == 2)
        }
        // Unpinning: the next reads see the latest generation.
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(nil)
            #expect(reader.queryGenerationToken == nil)
            #expect(try reader.count(for: Fixture.allNotes) == 4)
            reader.refreshAllObjects()
            #expect(reader.object(with: f.b).value(forKey: "title") as? String == "B2")
        }
    }

    @Test("pinned batched fetches, prefetching and faults of objects deleted since keep the generation")
    func batchesPrefetchAndDeleted() throws {
        let f = try Fixture()
        let reader = f.stack.context()
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            #expect(try reader.count(for: Fixture.allNotes) == 2)
        }
        try f.changeEverything()
        try f.writer.performAndWait {
            f.writer.delete(f.writer.object(with: f.a))
            try f.writer.save()
        }
        try reader.performAndWait {
            let batched = Fixture.allNotes
            batched.fetchBatchSize = 1
            batched.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            #expect(try reader.fetch(batched).map { $0.value(forKey: "title") as? String } == ["a", "b"])
            let prefetching = Fixture.allNotes
            prefetching.relationshipKeyPathsForPrefetching = ["folder"]
            prefetching.predicate = NSPredicate(format: "folder != nil")
            let inFolder = try reader.fetch(prefetching)
            #expect(inFolder.map(\.objectID) == [f.a])
            #expect((inFolder.first?.value(forKey: "folder") as? NSManagedObject)?.value(forKey: "name") as? String == "F")
            // a was deleted after the generation: it still faults in with its values.
            reader.refreshAllObjects()
            #expect(reader.object(with: f.a).value(forKey: "title") as? String == "a")
            #expect(try reader.existingObject(with: f.a).value(forKey: "title") as? String == "a")
            // Dictionary and count results come from the generation too.
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Note")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["title"]
            dictionaries.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            #expect(try reader.fetch(dictionaries).map { $0["title"] as? String } == ["a", "b"])
            let counting = NSFetchRequest<NSNumber>(entityName: "Note")
            counting.resultType = .countResultType
            #expect(try reader.fetch(counting).first?.intValue == 2)
            // A predicate that uses the store's SQL functions and collations ([cd]).
            #expect(try reader.notes("title CONTAINS[cd] 'B'").count == 1)
        }
        let fresh = f.stack.context()
        try fresh.performAndWait { () throws in
            #expect(try fresh.noteTitles() == ["B2", "c", "d"])
        }
    }

    @Test("a pinned reader stays constant while a writer saves concurrently (100 saves)")
    func concurrentWriter() async throws {
        let f = try Fixture()
        let reader = f.stack.context()
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            #expect(try reader.count(for: Fixture.allNotes) == 2)
        }
        let writer = f.writer
        async let writes: Void = writer.perform {
            for index in 0..<100 {
                writer.insertNote("w\(index)")
                try writer.save()
            }
        }
        var observed = Set<[String]>()
        for _ in 0..<100 {
            let titles = try reader.performAndWait { () throws in
                reader.refreshAllObjects()
                return try reader.noteTitles() + ["\(try reader.count(for: Fixture.allNotes))"]
            }
            observed.insert(titles)
        }
        try await writes
        #expect(observed == [["a", "b", "2"]])
        let fresh = f.stack.context()
        #expect(try fresh.performAndWait { try fresh.count(for: Fixture.allNotes) } == 102)
    }

    @Test("setQueryGenerationFrom(.current) again moves a pinned context to the latest generation")
    func repin() throws {
        let f = try Fixture()
        let reader = f.stack.context()
        let first = try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            #expect(try reader.noteTitles() == ["a", "b"])
            return reader.queryGenerationToken
        }
        try f.changeEverything()
        try reader.performAndWait {
            #expect(try reader.noteTitles() == ["a", "b"])
            try reader.setQueryGenerationFrom(.current)
            #expect(try reader.count(for: Fixture.allNotes) == 4)
            #expect(reader.queryGenerationToken != first)
        }
    }

    @Test("merging a save or saving moves a pinned context forward; a token pins another context to the same generation")
    func mergeSaveAndShare() throws {
        let f = try Fixture()
        let reader = f.stack.context()
        let token = try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            _ = try reader.noteTitles()
            return reader.queryGenerationToken
        }
        // A second context pinned to the reader's token reads the same generation.
        let twin = f.stack.context()
        try twin.performAndWait { try twin.setQueryGenerationFrom(token) }

        let saved = LockedBox<Notification?>(nil)
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: f.writer, queue: nil) { note in
            saved.mutate { $0 = note }
        }
        try f.writer.performAndWait {
            f.writer.insertNote("e")
            try f.writer.save()
        }
        NotificationCenter.default.removeObserver(observer)
        let notification = try #require(saved.value)
        try twin.performAndWait { () throws in #expect(try twin.noteTitles() == ["a", "b"]) }
        try reader.performAndWait { () throws in
            #expect(try reader.noteTitles() == ["a", "b"])
            reader.mergeChanges(fromContextDidSave: notification)
            #expect(try reader.noteTitles() == ["a", "b", "e"])
            #expect(reader.queryGenerationToken != nil)   // still pinned, to a later generation
        }
        // The twin saves: that moves it to the latest generation too.
        try twin.performAndWait {
            twin.insertNote("f")
            try twin.save()
            #expect(try twin.noteTitles() == ["a", "b", "e", "f"])
        }
        // reset() moves a pinned context as well.
        try reader.performAndWait { () throws in
            #expect(try reader.noteTitles() == ["a", "b", "e"])
            reader.reset()
            #expect(try reader.noteTitles() == ["a", "b", "e", "f"])
        }
    }

    @Test("a child context reads through its pinned parent's generation")
    func childContext() throws {
        let f = try Fixture()
        let parent = f.stack.context()
        try parent.performAndWait {
            try parent.setQueryGenerationFrom(.current)
            _ = try parent.count(for: Fixture.allNotes)
        }
        try f.changeEverything()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            #expect(try child.noteTitles() == ["a", "b"])
            #expect(child.object(with: f.b).value(forKey: "title") as? String == "b")
            #expect(child.queryGenerationToken == nil)   // DEVIATIONS.md H5: the parent holds the generation
            try child.setQueryGenerationFrom(nil)   // allowed: a no-op on a child
            // Pinning a child is refused with an error (not a crash); the child keeps reading through its parent.
            let error = thrownError { try child.setQueryGenerationFrom(.current) }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSCoreDataError)
            #expect(try child.noteTitles() == ["a", "b"])
        }
    }

    @Test("a token of another coordinator is refused with a Core Data error; an archived token can only be .current")
    func foreignToken() throws {
        let f = try Fixture()
        let reader = f.stack.context()
        let token = try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            return reader.queryGenerationToken
        }
        let other = try HistoryStack(url: f.stack.url)
        let foreign = other.context()
        let error = foreign.performAndWait { thrownError { try foreign.setQueryGenerationFrom(token) } }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSCoreDataError)
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSQueryGenerationToken.current, requiringSecureCoding: true)
        let restored = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSQueryGenerationToken.self, from: data)
        #expect(restored == NSQueryGenerationToken.current)
    }

    @Test("stores that cannot pin (in-memory, rollback journal) read unpinned, as Apple documents")
    func unsupportedStores() throws {
        let memory = try HistoryStack(options: nil, type: NSInMemoryStoreType)
        let context = memory.context()
        try context.performAndWait {
            try context.setQueryGenerationFrom(.current)
            context.insertNote("x")
            try context.save()
            #expect(context.queryGenerationToken == nil)
            #expect(try context.noteTitles() == ["x"])
        }
        let url = try TemporaryDirectory.make().appendingPathComponent("Delete.sqlite")
        let journal = try HistoryStack(url: url, options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
        let reader = journal.context()
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            #expect(try reader.count(for: Fixture.allNotes) == 0)
            #expect(reader.queryGenerationToken == nil)
        }
    }

    @Test("a pinned generation holds back WAL checkpoints until it is released (DEVIATIONS.md H3)")
    func checkpointCost() throws {
        let f = try Fixture()
        let reader = f.stack.context()
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            _ = try reader.count(for: Fixture.allNotes)
        }
        try f.writer.performAndWait {
            for index in 0..<200 { f.writer.insertNote("bulk \(index)") }
            try f.writer.save()
        }
        // A full checkpoint by another connection cannot copy the frames after the pinned snapshot.
        let pinned = try RawSQL.checkpoint(f.stack.url)
        #expect(pinned.log > 0 && pinned.checkpointed < pinned.log)
        try reader.performAndWait { try reader.setQueryGenerationFrom(nil) }
        let released = try RawSQL.checkpoint(f.stack.url)
        #expect(released.log == released.checkpointed)
    }
}
