extension NSPersistentStoreCoordinator {
    /// Does all the work that deferred lightweight migrations (`NSPersistentStoreDeferredLightweightMigrationOptionKey`)
    /// left pending in this coordinator's stores — for the SQLite store, building the new model's indexes and dropping
    /// the old model's tables — and clears the stores' pending flag. Stores with nothing pending are left alone.
    ///
    /// For example:
    /// ```swift
    /// // at a quiet moment (a background task), after adding the store with the option:
    /// try coordinator.finishDeferredLightweightMigration()
    /// ```
    public func finishDeferredLightweightMigration() throws {
        try withLock {
            for case let store as DeferredMigrationStore in persistentStores where store.hasPendingDeferredMigrationWork {
                try store.finishDeferredMigration()
            }
        }
    }

    /// Does one pending task of a deferred lightweight migration (one index, or one old table dropped), so the work can
    /// be spread out ("incrementally"); after the last one the store's metadata no longer says work is pending.
    /// Does nothing when no store has pending work.
    ///
    /// For example:
    /// ```swift
    /// while coordinator.persistentStores.contains(where: {
    ///     coordinator.metadata(for: $0)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true
    /// }) {
    ///     try coordinator.finishDeferredLightweightMigrationTask()
    /// }
    /// ```
    public func finishDeferredLightweightMigrationTask() throws {
        try withLock {
            for case let store as DeferredMigrationStore in persistentStores where store.hasPendingDeferredMigrationWork {
                if try store.finishDeferredMigrationTask() { return }
            }
        }
    }
}
