import Foundation
import Testing

import OpenCoreData
import OpenCoreDataCombine

/// Combine code written as it is on Apple platforms (`import Combine` becomes `import OpenCoreDataCombine`).
@Suite("Combine publishers for Core Data")
struct CombinePublisherTests {
    @Test("NotificationCenter publishers deliver Core Data's notifications until cancelled")
    func notificationPublishers() throws {
        let stack = try SongStack()
        let saves = Received<Int>()
        var cancellables = Set<AnyCancellable>()
        NotificationCenter.default.publisher(for: .NSManagedObjectContextDidSave, object: stack.context)
            .compactMap { $0.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> }
            .sink { saves.append($0.count) }
            .store(in: &cancellables)
        let changes = Received<Notification.Name>()
        let changeCancellable = NotificationCenter.default.publisher(for: NSManagedObjectContext.didChangeObjectsNotification, object: stack.context)
            .sink { changes.append($0.name) }
        try stack.insertSong("One", in: stack.context)
        #expect(saves.values == [1])
        #expect(changes.values.count >= 1)
        cancellables.removeAll()
        changeCancellable.cancel()
        let changesBefore = changes.values.count
        try stack.insertSong("Two", in: stack.context)
        #expect(saves.values == [1])
        #expect(changes.values.count == changesBefore)
    }

    @Test("objectWillChange fires before a setter's change and for a merged change, and stops when cancelled")
    func objectWillChange() throws {
        let stack = try SongStack()
        let song = try stack.insertSong("Before", in: stack.context)
        let seen = Received<String>()
        let cancellable = stack.context.performAndWait {
            song.objectWillChange.sink { seen.append(song.title) }   // runs before the change: the old title
        }
        stack.context.performAndWait { song.title = "After" }
        #expect(seen.values == ["Before"])

        // Another context saves a change; merging it into the song's context tells the song's observers.
        let other = stack.newContext()
        let id = song.objectID
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: other, queue: nil) { note in
            let box = UncheckedNotification(note)
            stack.context.performAndWait { stack.context.mergeChanges(fromContextDidSave: box.value) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try stack.context.performAndWait { try stack.context.save() }
        try other.performAndWait {
            (try other.existingObject(with: id) as? Song)?.plays = 9
            try other.save()
        }
        #expect(seen.values.count == 2)
        #expect(stack.context.performAndWait { song.plays } == 9)

        cancellable.cancel()
        stack.context.performAndWait { song.title = "Again" }
        #expect(seen.values.count == 2)
        #expect(stack.context.performAndWait { song.objectWillChange === song.objectWillChange })
    }

    @Test("publisher(for: \\.key) emits the current value, then each new one; .new alone skips the current value")
    func keyValuePublisher() throws {
        let stack = try SongStack()
        let song = try stack.insertSong("Tune", in: stack.context)
        let plays = Received<Int64>(), onlyNew = Received<Int64>()
        let cancellables = stack.context.performAndWait { () -> [AnyCancellable] in
            [song.publisher(for: \.plays).sink { plays.append($0) },
             song.publisher(for: \.plays, options: [.new]).sink { onlyNew.append($0) }]
        }
        stack.context.performAndWait {
            song.plays = 5
            song.plays += 1
        }
        #expect(plays.values == [0, 5, 6])
        #expect(onlyNew.values == [5, 6])
        cancellables.forEach { $0.cancel() }
        stack.context.performAndWait { song.plays = 7 }
        #expect(plays.values == [0, 5, 6])
    }

    @Test("a subscriber that asks for one value gets one")
    func keyValuePublisherRespectsDemand() throws {
        let stack = try SongStack()
        let song = try stack.insertSong("Tune", in: stack.context)
        let subscriber = OneValueSubscriber<Int64>()
        stack.context.performAndWait {
            song.publisher(for: \.plays).subscribe(subscriber)
            song.plays = 3
            song.plays = 4
        }
        #expect(subscriber.received.values == [0])
    }

    @Test("a fetched results publisher emits the results, then again after each change, until cancelled")
    func fetchedResultsPublisher() throws {
        let stack = try SongStack()
        try stack.insertSong("B", in: stack.context)
        let request = NSFetchRequest<Song>(entityName: "Song")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let titles = Received<[String]>()
        let cancellable = stack.context.publisher(for: request)
            .sink(receiveCompletion: { _ in }, receiveValue: { songs in titles.append(songs.map(\.title)) })
        stack.context.performAndWait {}   // the first fetch ran on the context's queue
        #expect(titles.values == [["B"]])
        try stack.insertSong("A", in: stack.context)
        #expect(titles.values.last == ["A", "B"])
        try stack.context.performAndWait {
            let songs = try stack.context.fetch(request)
            stack.context.delete(songs[1])
            try stack.context.save()
        }
        #expect(titles.values.last == ["A"])
        let count = titles.values.count
        cancellable.cancel()
        try stack.insertSong("C", in: stack.context)
        stack.context.performAndWait {}
        #expect(titles.values.count == count)
    }

    @Test("a request without sort descriptors, or for an unknown entity, completes the publisher with an error")
    func fetchedResultsPublisherFailures() throws {
        let stack = try SongStack()
        let failures = Received<Int>()
        let unsorted = NSFetchRequest<Song>(entityName: "Song")
        let unknown = NSFetchRequest<Song>(entityName: "Nope")
        unknown.sortDescriptors = []
        let cancellables = [unsorted, unknown].map { request in
            stack.context.publisher(for: request).sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { failures.append((error as NSError).code) }
            }, receiveValue: { _ in Issue.record("no value expected") })
        }
        stack.context.performAndWait {}
        #expect(failures.values.count == 2)
        #expect(failures.values.allSatisfy { $0 == NSCoreDataError })
        _ = cancellables
    }
}

/// A subscriber that requests exactly one value.
private final class OneValueSubscriber<Value>: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: `received` is locked; the subscription is kept only to hold it.
    typealias Input = Value
    typealias Failure = Never
    let received = Received<Value>()
    private var subscription: (any Subscription)?
    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }
    func receive(_ input: Value) -> Subscribers.Demand {
        received.append(input)
        return .none
    }
    func receive(completion: Subscribers.Completion<Never>) {}
}

/// A did-save notification handed to the merging context's queue.
private struct UncheckedNotification: @unchecked Sendable {
    // @unchecked Sendable: used once, on the merging context's queue.
    let value: Notification
    init(_ value: Notification) { self.value = value }
}
