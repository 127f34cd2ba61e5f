/// Stores whose content lives in memory only (the in-memory store): the fetched results controller keeps its caches
/// of their results in memory, and tells their content apart by a fingerprint of the rows (called with the
/// coordinator's lock held).
///
/// ```swift
/// if let store = store as? MemoryResidentStore { parts.append(store.contentFingerprint()) }
/// ```
protocol MemoryResidentStore: NSPersistentStore {
    /// A value that changes whenever a row, its version or a to-many's members change.
    func contentFingerprint() -> String
}
