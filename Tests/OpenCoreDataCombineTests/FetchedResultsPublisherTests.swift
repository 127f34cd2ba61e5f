import Testing

import OpenCoreData
import OpenCoreDataCombine

/// A subscriber that asks for one value at a time, when the test says so.
private final class OneAtATime: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: `subscription` is set once at subscription, before the test uses it; `received` is locked.
    typealias Input = [CombineNote]
    typealias Failure = any Error

    let received = Received<[String]>()
    private(set) var subscription: (any Subscription)?

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: [CombineNote]) -> Subscribers.Demand {
        received.append(input.map(\.title))
        return .none
    }

    func receive(completion: Subscribers.Completion<any Error>) {
        received.complete("\(completion)")
    }
}

/// `context.fetchedResultsPublisher(for:)`, OpenCoreData's Combine publisher of a fetch request's results.
@Suite("Combine: fetched results publisher")
struct FetchedResultsPublisherTests {
    private func notesByRank() -> NSFetchRequest<CombineNote> {
        let request = NSFetchRequest<CombineNote>(entityName: "CombineNote")
        request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        return request
    }

    @Test("emits the results at subscription, again after insert, edit and delete (on the context's queue); cancel stops it")
    func followsChangesUntilCancelled() throws {
        let stack = try NotesStack()
        let context = stack.context
        try stack.insertNote("b", rank: 2)
        let received = Received<[String]>()
        let cancellable = context.fetchedResultsPublisher(for: notesByRank())
            .sink(receiveCompletion: { received.complete("\($0)") },
                  receiveValue: { notes in received.append(notes.map(\.title)) })   // reads the objects: on the queue
        drain(context)
        #expect(received.values == [["b"]])

        // An insert, saved: delivered during the save, before performAndWait returns.
        try stack.insertNote("a", rank: 1)
        #expect(received.values.last == ["a", "b"])

        // An unsaved edit that reorders, at the end of the event.
        let count = received.values.count
        try context.performAndWait {
            let notes = try context.fetch(notesByRank())
            notes[0].rank = 3
            context.processPendingChanges()
        }
        #expect(received.values.count == count + 1)
        #expect(received.values.last == ["b", "a"])

        // A delete, saved.
        try context.performAndWait {
            let notes = try context.fetch(notesByRank())
            context.delete(notes.first { $0.title == "b" }!)
            try context.save()
        }
        #expect(received.values.last == ["a"])

        cancellable.cancel()
        let delivered = received.values.count
        try stack.insertNote("c", rank: 0)
        drain(context)
        #expect(received.values.count == delivered)
        #expect(received.completions.isEmpty)
    }

    @Test("with a predicate, an edit that leaves or enters the predicate updates the results")
    func predicateMembership() throws {
        let stack = try NotesStack()
        let context = stack.context
        try stack.insertNote("low", rank: 1)
        try stack.insertNote("high", rank: 5)
        let request = notesByRank()
        let predicate: NSPredicate = NSPredicate(format: "rank >= %d", 3)   // OpenCoreData's NSPredicate, unambiguous
        request.predicate = predicate
        let received = Received<[String]>()
        let cancellable = context.fetchedResultsPublisher(for: request)
            .sink(receiveCompletion: { _ in }, receiveValue: { received.append($0.map(\.title)) })
        drain(context)
        #expect(received.values == [["high"]])
        try context.performAndWait {
            let notes = try context.fetch(notesByRank())
            notes.first { $0.title == "low" }?.rank = 4
            notes.first { $0.title == "high" }?.rank = 2
            try context.save()
        }
        #expect(received.values.last == ["low"])
        cancellable.cancel()
    }

    @Test("a change saved by another context and merged into this one updates the results")
    func mergedChangesUpdate() throws {
        let stack = try NotesStack()
        let context = stack.context
        let other = stack.newContext()
        let received = Received<[String]>()
        let saves = NotificationCenter.default.publisher(for: .NSManagedObjectContextDidSave, object: other)
            .sink { note in context.perform { context.mergeChanges(fromContextDidSave: note) } }
        let results = context.fetchedResultsPublisher(for: notesByRank())
            .sink(receiveCompletion: { _ in }, receiveValue: { notes in received.append(notes.map(\.title)) })
        drain(context)
        #expect(received.values == [[]])
        try stack.insertNote("from elsewhere", rank: 1, in: other)
        drain(context)
        #expect(received.values.last == ["from elsewhere"])
        saves.cancel()
        results.cancel()
    }

    @Test("a request whose fetch throws completes with the error")
    func badRequestFails() throws {
        let stack = try NotesStack()
        let request = NSFetchRequest<CombineNote>(entityName: "NoSuchEntity")
        request.sortDescriptors = []
        let received = Received<[CombineNote]>()
        let errors = Received<NSError>()
        let cancellable = stack.context.fetchedResultsPublisher(for: request)
            .sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { errors.append(error as NSError) } else { received.complete("finished") }
            }, receiveValue: { received.append($0) })
        drain(stack.context)
        #expect(received.values.isEmpty)
        #expect(received.completions.isEmpty)
        #expect(errors.values.count == 1)
        #expect(errors.values.first?.domain == NSCocoaErrorDomain)
        _ = cancellable
    }

    @Test("while nothing is demanded the latest results wait; the next demand gets them")
    func demandGetsLatestResults() throws {
        let stack = try NotesStack()
        let context = stack.context
        let subscriber = OneAtATime()
        context.fetchedResultsPublisher(for: notesByRank()).subscribe(subscriber)
        drain(context)
        #expect(subscriber.received.values == [[]])
        try stack.insertNote("a", rank: 1)
        try stack.insertNote("b", rank: 2)
        #expect(subscriber.received.values == [[]])
        subscriber.subscription?.request(.max(1))
        drain(context)
        #expect(subscriber.received.values == [[], ["a", "b"]])
        subscriber.subscription?.cancel()
    }

    @Test("cancelling releases the subscription and its controller")
    func cancelReleases() throws {
        let stack = try NotesStack()
        let context = stack.context
        weak var weakSubscription: AnyObject?
        do {
            let subscriber = OneAtATime()
            context.fetchedResultsPublisher(for: notesByRank()).subscribe(subscriber)
            drain(context)
            weakSubscription = subscriber.subscription.map { $0 as AnyObject }
            #expect(weakSubscription != nil)
            subscriber.subscription?.cancel()
        }
        drain(context)
        #expect(weakSubscription == nil)
    }

    @Test("a request without sort descriptors completes with an error (NSFetchedResultsController would stop the program)")
    func missingSortDescriptorsFail() throws {
        let stack = try NotesStack()
        let errors = Received<NSError>()
        let cancellable = stack.context.fetchedResultsPublisher(for: NSFetchRequest<CombineNote>(entityName: "CombineNote"))
            .sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { errors.append(error as NSError) }
            }, receiveValue: { _ in Issue.record("no results expected") })
        drain(stack.context)
        #expect(errors.values.map(\.code) == [NSCoreDataError])
        _ = cancellable
    }
}
