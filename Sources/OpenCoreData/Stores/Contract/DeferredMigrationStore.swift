/// Stores whose lightweight migrations can leave work for later (`NSPersistentStoreDeferredLightweightMigrationOptionKey`):
/// the SQLite store. The coordinator calls them with its lock held.
protocol DeferredMigrationStore: NSPersistentStore {
    /// Whether the store's metadata says deferred migration work is pending.
    var hasPendingDeferredMigrationWork: Bool { get }
    /// Does one unit of the pending work, atomically; false when there was none.
    @discardableResult func finishDeferredMigrationTask() throws -> Bool
    /// Does all the pending work.
    func finishDeferredMigration() throws
}
