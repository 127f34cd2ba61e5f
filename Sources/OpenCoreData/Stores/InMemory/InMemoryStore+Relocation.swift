import Foundation

/// An in-memory store has no location to move to.
extension InMemoryStore: RelocatableStore {
    func relocate(to url: URL, coordinator: NSPersistentStoreCoordinator) -> Bool {
        false
    }
}
