import Foundation

/// An atomic store (the binary store, custom atomic stores) writes its next save at the new file location.
extension NSAtomicStore: RelocatableStore {
    func relocate(to url: URL, coordinator: NSPersistentStoreCoordinator) -> Bool {
        guard url.isFileURL else { return false }
        self.url = url
        return true
    }
}
