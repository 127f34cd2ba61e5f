import Foundation
import Testing

import OpenCoreData

/// What main-actor observers received (read by the test on the main actor after the save returns).
@MainActor
private final class Received {
    var events: [String] = []
}

/// Apple's typed Core Data messages of the 2026 SDKs (`NotificationCenter.addObserver(of:for:)`,
/// `messages(of:for:)`), written the way an iOS developer writes them.
@Suite("Typed Core Data notification messages", .timeLimit(.minutes(1)))
struct TypedMessagesTests {
    @MainActor
    @Test("a main-queue context posts will-save, did-save, did-save-object-IDs and objects-did-change messages")
    func mainQueueContextMessages() throws {
        let stack = try MoodyStack()
        let viewContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        viewContext.persistentStoreCoordinator = stack.coordinator
        let received = Received()
        let center = NotificationCenter.default
        let tokens = [
            center.addObserver(of: viewContext, for: .willSave) { message in
                received.events.append("willSave \(message.context.insertedObjects.count)")
            },
            center.addObserver(of: viewContext, for: .didSave) { message in
                received.events.append("didSave \(message.inserted.count)/\(message.updated.count)/\(message.deleted.count)")
                #expect(message.inserted.allSatisfy { !$0.objectID.isTemporaryID })
            },
            center.addObserver(of: viewContext, for: .didSaveObjectIDs) { message in
                received.events.append("didSaveObjectIDs \(message.insertedIDs.count)")
            },
            center.addObserver(of: viewContext, for: .objectsDidChange) { message in
                received.events.append("objectsDidChange +\(message.inserted.count) ~\(message.updated.count)")
            },
        ]
        let mood = Mood(context: viewContext)
        mood.date = Date(timeIntervalSinceReferenceDate: 0)
        viewContext.processPendingChanges()
        #expect(received.events == ["objectsDidChange +1 ~0"])
        try viewContext.save()
        #expect(received.events == ["objectsDidChange +1 ~0", "willSave 1", "didSave 1/0/0", "didSaveObjectIDs 1"])

        // (The order of the event's objects-did-change and the will-save is not asserted: only that both come.)
        mood.rating = 4
        try viewContext.save()
        #expect(Set(received.events.suffix(4)) == ["objectsDidChange +0 ~1", "willSave 0", "didSave 0/1/0", "didSaveObjectIDs 0"])
        #expect(received.events.suffix(2) == ["didSave 0/1/0", "didSaveObjectIDs 0"])
        for token in tokens { center.removeObserver(token) }
        mood.rating = 5
        try viewContext.save()
        #expect(received.events.count == 8)
    }

    @MainActor
    @Test("a message's notification is the one Core Data posts: mergeChanges(fromContextDidSave:) takes it")
    func messageRoundTripsToItsNotification() throws {
        let stack = try MoodyStack()
        let viewContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        viewContext.persistentStoreCoordinator = stack.coordinator
        var saved: NSManagedObjectContext.DidSaveMessage?
        let token = NotificationCenter.default.addObserver(of: viewContext, for: .didSave) { saved = $0 }
        let mood = Mood(context: viewContext)
        mood.date = Date(timeIntervalSinceReferenceDate: 0)
        try viewContext.save()
        let message = try #require(saved)
        let notification = NSManagedObjectContext.DidSaveMessage.makeNotification(message)
        #expect(notification.name == .NSManagedObjectContextDidSave)
        #expect((notification.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.contains(mood) == true)
        #expect(NSManagedObjectContext.DidSaveMessage.makeMessage(notification)?.inserted == [mood])
        #expect(NSManagedObjectContext.WillSaveMessage.makeMessage(notification) == nil)
        NotificationCenter.default.removeObserver(token)
    }

    @Test("a private-queue context's saves and merges arrive as asynchronous messages, in an AsyncSequence")
    func privateQueueContextMessages() async throws {
        let stack = try HistoryStack()
        let background = stack.context(author: "importer")
        let listener = stack.context()
        var saves = NotificationCenter.default.messages(of: background, for: .didSaveObjectIDsAsync).makeAsyncIterator()
        var merges = NotificationCenter.default.messages(of: listener, for: .didMergeChangesAsync).makeAsyncIterator()
        var objectID: NSManagedObjectID?
        let didSave = try didSaveNotification(of: background) { context in
            let note = context.insertNote("first")
            try context.obtainPermanentIDs(for: [note])
            objectID = note.objectID
        }
        let save = try #require(await saves.next())
        #expect(save.context === background)
        #expect(save.insertedIDs == [objectID])
        #expect(save.updatedIDs.isEmpty && save.deletedIDs.isEmpty)
        // The store keeps history: the message carries the token of the save's transaction.
        #expect(save.historyToken != nil)
        #expect(save.historyToken == stack.coordinator.currentPersistentHistoryToken(fromStores: nil))

        listener.performAndWait { listener.mergeChanges(fromContextDidSave: didSave) }
        let merge = try #require(await merges.next())
        #expect(merge.context === listener)
        #expect(merge.insertedIDs == [objectID])
    }

    @Test("a store written by another coordinator sends a remote-change message with the store's URL, UUID and token")
    func remoteChangeMessage() async throws {
        let watched = try HistoryStack(options: HistoryStack.trackingAndRemoteChanges)
        var changes = NotificationCenter.default.messages(of: watched.coordinator, for: .remoteChange).makeAsyncIterator()
        let writer = try HistoryStack(url: watched.url, options: HistoryStack.trackingAndRemoteChanges)
        let context = writer.context(author: "other process")
        try await context.perform {
            context.insertNote("from elsewhere")
            try context.save()
        }
        let token = writer.coordinator.currentPersistentHistoryToken(fromStores: nil)
        var change = try #require(await changes.next())
        while change.historyToken != token { change = try #require(await changes.next()) }
        #expect(change.persistentStoreCoordinator === watched.coordinator)
        #expect(change.storeURL.standardizedFileURL.path == watched.url.standardizedFileURL.path)
        #expect(change.storeUUID == watched.store.identifier)
    }

    @MainActor
    @Test("adding a store on the main queue sends a stores-did-change message with the added store")
    func storesDidChangeMessage() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        var added: [[NSPersistentStore]] = []
        let token = NotificationCenter.default.addObserver(of: coordinator, for: .storesDidChange) { message in
            added.append(message.addedStores)
        }
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        #expect(added.count == 1)
        #expect(added.first?.first === store)
        NotificationCenter.default.removeObserver(token)
    }
}

