import Foundation

/// An SQLite store moves by reopening on the existing store file at the new location (which must exist); the
/// coordinator's cached rows are dropped, as they were read from the old file.
extension SQLiteStore: RelocatableStore {
    func relocate(to url: URL, coordinator: NSPersistentStoreCoordinator) -> Bool {
        guard url.isFileURL, FileManager.default.fileExists(atPath: url.path) else { return false }
        let model = coordinator.managedObjectModel
        let previous = self.url
        willRemove(from: coordinator)
        self.url = url
        do {
            try load(model: model)
        } catch {
            self.url = previous
            _ = try? load(model: model)
            return false
        }
        coordinator.rowCache.removeAll()
        return true
    }
}
