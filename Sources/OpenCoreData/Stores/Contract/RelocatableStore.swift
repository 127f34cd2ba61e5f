import Foundation

/// Stores that can move to another location (`NSPersistentStoreCoordinator.setURL(_:for:)`); the coordinator calls
/// them with its lock held, after checking that no other store of it uses `url`. A store that does not conform
/// takes the new URL as it is (a custom store); the in-memory store refuses.
///
/// ```swift
/// guard let store = store as? RelocatableStore else { store.url = url; return true }
/// return store.relocate(to: url, coordinator: self)
/// ```
protocol RelocatableStore: NSPersistentStore {
    /// Moves the store to `url`; false (the store unchanged) when it cannot.
    func relocate(to url: URL, coordinator: NSPersistentStoreCoordinator) -> Bool
}
