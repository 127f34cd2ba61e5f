/// What the SQLite store tells about each of its write transactions — a context's save or a batch request — to the
/// observers registered with it (GRDB's `TransactionObserver` is the model): persistent history writes its rows in
/// the transaction before it commits, and announces the write after (the remote-change notification). The store's
/// own save and batch code knows nothing of history.
///
/// ```swift
/// store.transactionObservers.append(PersistentHistoryWriter(state: history))
/// ```
protocol SQLiteTransactionObserver: AnyObject {
    /// A write transaction began on the store's connection.
    func storeDidBeginTransaction(_ store: SQLiteStore)
    /// The transaction's own writes are done and it is about to commit: the observer may write in it too (throwing
    /// rolls it back). `changes` is a context's save (nil for a batch request).
    func storeWillCommit(_ store: SQLiteStore, changes: StoreSaveChanges?, requestContext: StoreRequestContext) throws
    /// The transaction committed.
    func storeDidCommit(_ store: SQLiteStore)
}

extension SQLiteStore {
    /// Tells the observers a write transaction began.
    func transactionDidBegin() {
        for observer in transactionObservers { observer.storeDidBeginTransaction(self) }
    }

    /// Tells the observers the transaction is about to commit.
    func transactionWillCommit(_ changes: StoreSaveChanges?, requestContext: StoreRequestContext) throws {
        for observer in transactionObservers { try observer.storeWillCommit(self, changes: changes, requestContext: requestContext) }
    }

    /// Tells the observers the transaction committed.
    func transactionDidCommit() {
        for observer in transactionObservers { observer.storeDidCommit(self) }
    }
}
