// Watching managed objects and saves: key-value observing, and Apple's typed notification messages.
import OpenCoreData

final class Mood: NSManagedObject {
    @Managed var rating: Int16
}

// snippet.kvo
/// Key-value observing of a managed object, delivered on its context's queue; keep the token as long as you watch.
func watchRating(of mood: Mood) -> NSKeyValueObservation {
    mood.observe(\.rating, options: [.old, .new]) { mood, change in
        print("rating \(change.oldValue ?? 0) → \(change.newValue ?? 0)")
    }
}
// snippet.end

// snippet.messages
/// Main-actor messages from a main-queue context (the container's view context).
@MainActor func watchSaves(of viewContext: NSManagedObjectContext) -> NotificationCenter.ObservationToken {
    NotificationCenter.default.addObserver(of: viewContext, for: .didSave) { message in
        print(message.inserted.count, message.updated.count, message.deleted.count)
    }
}

/// Asynchronous messages from a coordinator: every write to its stores, by this process or another.
func followRemoteChanges(of coordinator: NSPersistentStoreCoordinator) async {
    for await change in NotificationCenter.default.messages(of: coordinator, for: .remoteChange) {
        print(change.storeURL, change.historyToken as Any)
    }
}
// snippet.end
