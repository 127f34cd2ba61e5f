import Foundation
import Testing

@testable import OpenCoreData

/// Runs `change` on `context`'s queue, saves it there, and returns the `NSManagedObjectContextDidSave` notification
/// the save posted (to merge into another context).
func didSaveNotification(of context: NSManagedObjectContext, saving change: (NSManagedObjectContext) throws -> Void) throws -> Notification {
    let saved = LockedBox<Notification?>(nil)
    let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
        saved.mutate { $0 = note }
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    try context.performAndWait {
        try change(context)
        try context.save()
    }
    return try #require(saved.value)
}
