import OpenCoreData
import Synchronization
import Testing

// Context notifications: Apple's names, userInfo keys, and when they are posted.

/// What an ObjectsDidChange notification said, as object IDs.
private struct DidChange: Sendable {
    var inserted: Set<NSManagedObjectID>?
    var updated: Set<NSManagedObjectID>?
    var deleted: Set<NSManagedObjectID>?
    var refreshed: Set<NSManagedObjectID>?
    var keys: Set<String>

    init(_ note: Notification) {
        inserted = objectIDs(note, NSInsertedObjectsKey)
        updated = objectIDs(note, NSUpdatedObjectsKey)
        deleted = objectIDs(note, NSDeletedObjectsKey)
        refreshed = objectIDs(note, NSRefreshedObjectsKey)
        keys = Set((note.userInfo ?? [:]).keys.compactMap { $0 as? String })
    }
}

/// The order in which notifications of several names arrived.
private final class Arrivals: Sendable {
    private let names = Mutex<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
}

@Suite("Context notifications")
struct NotificationTests {
    @Test func namesAndKeysAreApples() {
        #expect(Notification.Name.NSManagedObjectContextObjectsDidChange.rawValue == "NSObjectsChangedInManagingContextNotification")
        #expect(Notification.Name.NSManagedObjectContextWillSave.rawValue == "NSManagingContextWillSaveChangesNotification")
        #expect(Notification.Name.NSManagedObjectContextDidSave.rawValue == "NSManagingContextDidSaveChangesNotification")
        #expect(Notification.Name.NSManagedObjectContextDidSaveObjectIDs.rawValue == "NSManagedObjectContextDidSaveObjectIDsNotification")
        #expect(NSManagedObjectContext.didChangeObjectsNotification == .NSManagedObjectContextObjectsDidChange)
        #expect(NSManagedObjectContext.didSaveObjectIDsNotification == .NSManagedObjectContextDidSaveObjectIDs)
        #expect([NSInsertedObjectsKey, NSUpdatedObjectsKey, NSDeletedObjectsKey, NSRefreshedObjectsKey, NSInvalidatedObjectsKey]
                    == ["inserted", "updated", "deleted", "refreshed", "invalidated"])
        #expect([NSInsertedObjectIDsKey, NSUpdatedObjectIDsKey, NSDeletedObjectIDsKey]
                    == ["inserted_objectIDs", "updated_objectIDs", "deleted_objectIDs"])
        #expect(NSManagedObjectContext.NotificationKey.insertedObjects.rawValue == NSInsertedObjectsKey)
        #expect(NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue == NSInsertedObjectIDsKey)
    }

    @Test func objectsDidChangeIsPostedOnceAtTheEndOfTheEvent() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let log = NotificationLog(.NSManagedObjectContextObjectsDidChange, object: context, DidChange.init)
        let id = context.performAndWait {
            let mood = Mood(context: context)
            mood.rating = 3  // inserted and changed in the same event: reported as inserted only
            let second = Mood(context: context)
            second.rating = 1
            #expect(log.count == 0, "nothing is posted in the middle of an event")
            return mood.objectID
        }
        #expect(log.count == 1)
        let change = try #require(log.all.first)
        #expect(change.inserted?.contains(id) == true)
        #expect(change.inserted?.count == 2)
        #expect(change.updated?.isEmpty ?? true)
        #expect(change.deleted == nil || change.deleted!.isEmpty)
    }

    /// An object inserted in an earlier event and not saved yet is reported as updated when it changes, also when it
    /// changes right after an object inserted in this event (which is reported as inserted only).
    @Test func anUnsavedObjectOfAnEarlierEventIsReportedAsUpdated() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let earlier = context.performAndWait { Mood(context: context) }
        let log = NotificationLog(.NSManagedObjectContextObjectsDidChange, object: context, DidChange.init)
        let fresh = context.performAndWait {
            let fresh = Mood(context: context)
            fresh.rating = 4
            earlier.rating = 2
            fresh.rating = 5
            return fresh
        }
        try #require(log.count == 1)
        let change = try #require(log.all.first)
        #expect(change.inserted == [fresh.objectID])
        #expect(change.updated == [earlier.objectID])
    }

    @Test func updatedDeletedAndRefreshedObjectsAreReported() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (changed, removed, refreshed) = try context.performAndWait {
            let moods = (0..<3).map { _ in Mood(context: context) }
            try context.save()
            return (moods[0], moods[1], moods[2])
        }
        let log = NotificationLog(.NSManagedObjectContextObjectsDidChange, object: context, DidChange.init)
        context.performAndWait {
            changed.rating = 2
            context.delete(removed)
        }
        context.performAndWait { context.refresh(refreshed, mergeChanges: true) }
        try #require(log.count == 2)
        let first = log.all[0], second = log.all[1]
        #expect(first.updated == [changed.objectID])
        #expect(first.deleted == [removed.objectID])
        #expect(first.keys.isSuperset(of: [NSUpdatedObjectsKey, NSDeletedObjectsKey]))
        #expect(second.refreshed == [refreshed.objectID])
    }

    @Test func fetchingDoesNotPostObjectsDidChange() throws {
        let stack = try MoodyStack()
        try stack.context.performAndWait {
            _ = Mood(context: stack.context)
            try stack.context.save()
        }
        let fresh = stack.newContext()
        let log = NotificationLog(.NSManagedObjectContextObjectsDidChange, object: fresh, DidChange.init)
        try fresh.performAndWait {
            let moods = try fresh.fetch(NSFetchRequest<Mood>(entityName: "Mood"))
            _ = moods.map(\.rating)
        }
        #expect(log.count == 0, "\"It doesn't post when a fetch adds managed objects to the context.\"")
    }

    @Test func saveNotificationsCarryTheSavedObjectsAndTheirIDs() throws {
        let stack = try MoodyStack()
        let context = stack.context
        let (updated, deleted) = try context.performAndWait {
            let updated = Mood(context: context), deleted = Mood(context: context)
            try context.save()
            return (updated, deleted)
        }
        let arrivals = Arrivals()
        let willSave = NotificationLog(.NSManagedObjectContextWillSave, object: context) { _ in arrivals.append("willSave") }
        let didSave = NotificationLog(.NSManagedObjectContextDidSave, object: context) { note in
            arrivals.append("didSave")
            return DidChange(note)
        }
        let didSaveIDs = NotificationLog(.NSManagedObjectContextDidSaveObjectIDs, object: context) { note in
            arrivals.append("didSaveObjectIDs")
            return [NSInsertedObjectIDsKey, NSUpdatedObjectIDsKey, NSDeletedObjectIDsKey].map {
                note.userInfo?[$0] as? Set<NSManagedObjectID> ?? []
            }
        }
        let inserted = try context.performAndWait {
            let inserted = Mood(context: context)
            updated.rating = 4
            context.delete(deleted)
            try context.save()
            return inserted
        }
        #expect(willSave.count == 1)
        #expect(arrivals.all.prefix(2) == ["willSave", "didSave"])
        #expect(Set(arrivals.all) == ["willSave", "didSave", "didSaveObjectIDs"])
        let saved = try #require(didSave.all.first)
        #expect(saved.inserted == [inserted.objectID])
        #expect(saved.updated == [updated.objectID])
        #expect(saved.deleted == [deleted.objectID])
        #expect(saved.inserted?.allSatisfy { !$0.isTemporaryID } == true, "saved objects carry their permanent IDs")
        let ids = try #require(didSaveIDs.all.first)
        #expect(ids == [[inserted.objectID], [updated.objectID], [deleted.objectID]])
    }
}
