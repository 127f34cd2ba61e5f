import Testing

import OpenCoreData
import OpenCoreDataCombine

/// Core Data's notifications through `NotificationCenter.default.publisher(for:object:)`, spelled as Apple code spells
/// it (`import OpenCoreDataCombine` in place of `import Combine`).
@Suite("Combine: notification publishers")
struct NotificationPublisherTests {
    @Test("a save publishes NSManagedObjectContextDidSave to the sink, on the context's queue; cancel stops delivery")
    func didSaveReachesSinkUntilCancelled() throws {
        let stack = try NotesStack()
        let context = stack.context
        let received = Received<Notification>()
        let onQueue = Received<Bool>()
        let cancellable = NotificationCenter.default.publisher(for: .NSManagedObjectContextDidSave, object: context)
            .sink { notification in
                received.append(notification)
                // The save posts on the context's queue, where the objects of the notification may be read.
                let inserted = notification.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []
                onQueue.append(inserted.allSatisfy { ($0 as? CombineNote)?.title == "first" })
            }
        try stack.insertNote("first", rank: 1)
        #expect(received.values.count == 1)
        #expect(received.values.first?.name == .NSManagedObjectContextDidSave)
        #expect((received.values.first?.object as AnyObject?) === context)
        #expect(onQueue.values == [true])

        cancellable.cancel()
        try stack.insertNote("second", rank: 2)
        #expect(received.values.count == 1)
    }

    @Test("the publisher filters by object: another context's save is not delivered")
    func objectFilters() throws {
        let stack = try NotesStack()
        let other = stack.newContext()
        let received = Received<Notification>()
        let cancellable = NotificationCenter.default.publisher(for: .NSManagedObjectContextDidSave, object: stack.context)
            .sink { received.append($0) }
        try stack.insertNote("elsewhere", rank: 1, in: other)
        #expect(received.values.isEmpty)
        try stack.insertNote("here", rank: 2)
        #expect(received.values.count == 1)
        cancellable.cancel()
    }

    @Test("NSManagedObjectContext.didSaveObjectsNotification and .didChangeObjectsNotification publish too; the type is NotificationCenter.Publisher")
    func appleAliasesAndPublisherType() throws {
        let stack = try NotesStack()
        let context = stack.context
        let saves: NotificationCenter.Publisher = NotificationCenter.default.publisher(for: NSManagedObjectContext.didSaveObjectsNotification,
                                                                                      object: context)
        let changes = NotificationCenter.default.publisher(for: NSManagedObjectContext.didChangeObjectsNotification, object: context)
        let saved = Received<Notification>(), changed = Received<Set<String>>()
        let saveCancellable = saves.sink { saved.append($0) }
        let changeCancellable = changes.sink { note in
            let inserted = note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []
            changed.append(Set(inserted.compactMap { ($0 as? CombineNote)?.title }))
        }
        try context.performAndWait {
            let note = CombineNote(context: context)
            note.title = "pending"
            context.processPendingChanges()
            #expect(changed.values == [["pending"]])
            #expect(saved.values.isEmpty)
            try context.save()
        }
        #expect(saved.values.count == 1)
        let inserted = saved.values.first?.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>
        #expect(inserted?.count == 1)
        saveCancellable.cancel()
        changeCancellable.cancel()
    }

    @Test("NSManagedObjectContextWillSave publishes before the save, ObjectsDidChange after processPendingChanges")
    func willSaveAndObjectsDidChange() throws {
        let stack = try NotesStack()
        let context = stack.context
        let order = Received<String>()
        let cancellables = [
            NotificationCenter.default.publisher(for: .NSManagedObjectContextWillSave, object: context).sink { _ in order.append("willSave") },
            NotificationCenter.default.publisher(for: .NSManagedObjectContextObjectsDidChange, object: context).sink { _ in order.append("objectsDidChange") },
            NotificationCenter.default.publisher(for: .NSManagedObjectContextDidSave, object: context).sink { _ in order.append("didSave") },
        ]
        try stack.insertNote("note", rank: 1)
        #expect(order.values.first == "objectsDidChange" || order.values.first == "willSave")
        #expect(order.values.contains("willSave") && order.values.last == "didSave")
        #expect(order.values.firstIndex(of: "willSave")! < order.values.firstIndex(of: "didSave")!)
        for cancellable in cancellables { cancellable.cancel() }
    }

    @Test("NSPersistentStoreRemoteChange from a store opened with the remote-change option reaches the sink")
    func remoteChange() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("combine-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = try NotesStack(storeType: NSSQLiteStoreType, url: directory.appendingPathComponent("Notes.sqlite"),
                                   options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true,
                                             NSPersistentHistoryTrackingKey: true])
        let received = Received<Notification>()
        let cancellable = NotificationCenter.default.publisher(for: .NSPersistentStoreRemoteChange, object: stack.coordinator)
            .sink { received.append($0) }
        try stack.insertNote("remote", rank: 1)
        #expect(eventually { !received.values.isEmpty })
        #expect(received.values.first?.userInfo?[NSPersistentHistoryTokenKey] is NSPersistentHistoryToken)
        cancellable.cancel()
    }
}
