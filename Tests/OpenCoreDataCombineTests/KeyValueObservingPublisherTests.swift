import Testing

import OpenCoreData
import OpenCoreDataCombine

/// `object.publisher(for: \.keyPath, options:)` on managed objects, as Apple code writes it with Combine's
/// `NSObject.KeyValueObservingPublisher`.
@Suite("Combine: key-value observing publisher")
struct KeyValueObservingPublisherTests {
    @Test("by default ([.initial, .new]) emits the current value, then each new one; cancel stops it")
    func defaultOptions() throws {
        let stack = try NotesStack()
        let context = stack.context
        let id = try stack.insertNote("draft", rank: 1)
        try context.performAndWait {
            let note = try #require(context.existingObject(with: id) as? CombineNote)
            var titles: [String] = []
            let cancellable = note.publisher(for: \.title).sink { titles.append($0) }
            #expect(titles == ["draft"])
            note.title = "final"
            note.setValue("by key", forKey: "title")
            #expect(titles == ["draft", "final", "by key"])
            note.rank = 5   // another property: nothing
            #expect(titles.count == 3)
            cancellable.cancel()
            note.title = "after cancel"
            #expect(titles.count == 3)
        }
    }

    @Test("options [] emit only changes; .prior emits the value before each change too")
    func optionsShapeTheValues() throws {
        let stack = try NotesStack()
        let context = stack.context
        let id = try stack.insertNote("n", rank: 1)
        try context.performAndWait {
            let note = try #require(context.existingObject(with: id) as? CombineNote)
            var changesOnly: [Int64] = [], withPrior: [Int64] = []
            let a = note.publisher(for: \.rank, options: []).sink { changesOnly.append($0) }
            let b = note.publisher(for: \.rank, options: [.prior, .new]).sink { withPrior.append($0) }
            #expect(changesOnly.isEmpty && withPrior.isEmpty)
            note.rank = 2
            note.rank = 7
            #expect(changesOnly == [2, 7])
            #expect(withPrior == [1, 2, 2, 7])
            a.cancel()
            b.cancel()
        }
    }

    @Test("a change merged from another context's save is emitted when the merge's event ends")
    func mergedChange() throws {
        let stack = try NotesStack()
        let context = stack.context, other = stack.newContext()
        let id = try stack.insertNote("old", rank: 1)
        let titles = Received<String>()
        let cancellable = try context.performAndWait {
            let note = try #require(context.existingObject(with: id) as? CombineNote)
            return note.publisher(for: \.title).sink { titles.append($0) }
        }
        let saved = Received<Notification>()
        let saves = NotificationCenter.default.publisher(for: .NSManagedObjectContextDidSave, object: other).sink { saved.append($0) }
        try other.performAndWait {
            let note = try #require(other.existingObject(with: id) as? CombineNote)
            note.title = "new"
            try other.save()
        }
        let didSave = try #require(saved.values.first)
        context.performAndWait { context.mergeChanges(fromContextDidSave: didSave) }
        #expect(titles.values == ["old", "new"])
        saves.cancel()
        cancellable.cancel()
    }

    @Test("a to-one relationship and a dotted key path are published; didChange() emits on change")
    func relationshipsAndDidChange() throws {
        let stack = try NotesStack()
        let context = stack.context
        context.performAndWait {
            let note = CombineNote(context: context), folder = CombineFolder(context: context)
            folder.name = "Inbox"
            var folders: [String?] = [], names: [String?] = [], didChanges = 0
            let a = note.publisher(for: \.folder).sink { folders.append($0?.name) }
            let b = note.publisher(for: \.folder?.name).sink { names.append($0) }
            let c = note.publisher(for: \.title, options: []).didChange().sink { didChanges += 1 }
            note.folder = folder
            #expect(folders == [nil, "Inbox"])
            note.title = "x"
            #expect(didChanges == 1)
            folder.name = "Archive"
            context.processPendingChanges()
            #expect(names.last == "Archive")
            #expect(names.first == .some(nil))
            a.cancel(); b.cancel(); c.cancel()
        }
    }

    @Test("the inverse side of a relationship change is published when the event ends")
    func inverseRelationship() throws {
        let stack = try NotesStack()
        let context = stack.context
        context.performAndWait {
            let note = CombineNote(context: context), folder = CombineFolder(context: context)
            var counts: [Int] = []
            let cancellable = folder.publisher(for: \.notes).sink { counts.append($0.count) }
            note.folder = folder
            context.processPendingChanges()
            #expect(counts == [0, 1])
            cancellable.cancel()
        }
    }

    @Test("the subscription keeps the object alive (a context alone does not keep an unchanged object)")
    func keepsObjectAlive() throws {
        let stack = try NotesStack()
        let context = stack.context
        let observedID = try stack.insertNote("observed", rank: 1), otherID = try stack.insertNote("not observed", rank: 2)
        weak var observed: CombineNote?, notObserved: CombineNote?
        let titles = Received<String>()
        let cancellable = try context.performAndWait {
            let note = try #require(context.existingObject(with: observedID) as? CombineNote)
            observed = note
            notObserved = try #require(context.existingObject(with: otherID) as? CombineNote)
            return note.publisher(for: \.title).sink { titles.append($0) }
        }
        context.performAndWait {
            #expect(notObserved == nil)   // the context alone does not keep an unchanged object
            #expect(observed != nil)
        }
        #expect(titles.values == ["observed"])
        cancellable.cancel()
    }

    @Test("publishers of the same object, key path and options are equal; the type is NSObject.KeyValueObservingPublisher")
    func equatableAndTyped() throws {
        let stack = try NotesStack()
        let context = stack.context
        context.performAndWait {
            let note = CombineNote(context: context), another = CombineNote(context: context)
            let publisher: NSObject.KeyValueObservingPublisher<CombineNote, Int64> = note.publisher(for: \.rank)
            #expect(publisher == note.publisher(for: \.rank, options: [.initial, .new]))
            #expect(publisher != note.publisher(for: \.rank, options: []))
            #expect(publisher != another.publisher(for: \.rank))
            #expect(publisher.object === note && publisher.keyPath == \CombineNote.rank)
        }
    }

    @Test("values are emitted only as demanded: without demand they are dropped")
    func demand() throws {
        let stack = try NotesStack()
        let context = stack.context
        context.performAndWait {
            let note = CombineNote(context: context)
            var ranks: [Int64] = []
            var subscription: (any Subscription)?
            note.publisher(for: \.rank, options: []).subscribe(AnySubscriber<Int64, Never>(
                receiveSubscription: { subscription = $0; $0.request(.max(1)) },
                receiveValue: { ranks.append($0); return .none },
                receiveCompletion: nil))
            note.rank = 1
            note.rank = 2   // no demand: dropped
            subscription?.request(.max(1))
            note.rank = 3
            #expect(ranks == [1, 3])
            subscription?.cancel()
        }
    }
}
