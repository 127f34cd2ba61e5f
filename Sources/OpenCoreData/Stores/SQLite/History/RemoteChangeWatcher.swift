import Dispatch

/// Posts `NSPersistentStoreRemoteChange` for a store opened with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`.
///
/// Apple's Core Data learns of other processes' writes through Darwin notifications, which Linux does not have.
/// Here a timer on a private queue reads the store connection's `PRAGMA data_version` every
/// ``RemoteChangePolling/interval`` seconds (0.1 by default): SQLite changes that number when another connection — of
/// another process, or another coordinator of this one — has committed to the file since the last read, and never
/// for the connection's own commits. The store's own writes are announced right after they commit. So every write
/// is announced, as Apple documents ("for every write to the store, including writes by other processes"); several
/// writes by others within one interval are announced once, with the token of the latest.
///
/// The timer takes the coordinator's lock only if it is free (`tryLock`), so a busy coordinator delays the next
/// check instead of being blocked by it.
final class RemoteChangeWatcher: @unchecked Sendable {
    // @unchecked Sendable: `lastDataVersion` and `timer` are used only on `queue`; the store only under the coordinator's lock.

    private weak var store: SQLiteStore?
    private let pollsOtherWriters: Bool
    private let queue = DispatchQueue(label: "OpenCoreData.RemoteChangeWatcher")
    private var timer: DispatchSourceTimer?
    private var lastDataVersion: Int64?

    init(store: SQLiteStore, pollsOtherWriters: Bool) {
        self.store = store
        self.pollsOtherWriters = pollsOtherWriters
    }

    /// Starts polling (reading the current data version first, so only later writes are announced).
    func start() {
        guard pollsOtherWriters else { return }
        let initial = store.flatMap { store in (try? store.connection.fetchValue("PRAGMA data_version")).flatMap(Self.integer) }
        let interval = RemoteChangePolling.interval
        queue.sync {
            lastDataVersion = initial
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(Int(max(1, interval * 100))))
            timer.setEventHandler { [weak self] in self?.poll() }
            self.timer = timer
            timer.resume()
        }
    }

    /// Stops polling.
    func stop() {
        queue.async { [self] in
            timer?.cancel()
            timer = nil
        }
    }

    deinit { timer?.cancel() }

    /// The store itself committed a write (under the coordinator's lock): announce it on the private queue.
    func noteOwnWrite(transaction: Int64?) {
        guard let store, let coordinator = store.persistentStoreCoordinator else { return }
        let info = Self.userInfo(store: store, transaction: transaction)
        queue.async {
            coordinator.postRemoteChangeNotification(userInfo: info.value)
        }
    }

    /// One check for other writers' commits.
    private func poll() {
        guard let store, let coordinator = store.persistentStoreCoordinator else {
            timer?.cancel()
            timer = nil
            return
        }
        guard coordinator.tryLock() else { return }
        var info: UncheckedSendableBox<[AnyHashable: Any]>?
        do {
            defer { coordinator.unlock() }
            guard let connection = store.connection, !connection.isClosed,
                let version = (try? connection.fetchValue("PRAGMA data_version")).flatMap(Self.integer)
            else { return }
            if let last = lastDataVersion, last != version {
                let transaction = store.history?.hasTables == true ? try? store.currentHistoryTransactionNumber() : nil
                info = Self.userInfo(store: store, transaction: transaction)
            }
            lastDataVersion = version
        }
        if let info {
            coordinator.postRemoteChangeNotification(userInfo: info.value)
        }
    }

    /// The notification's userInfo: the store's URL and UUID, and the history token when the store has history.
    private static func userInfo(store: SQLiteStore, transaction: Int64?) -> UncheckedSendableBox<[AnyHashable: Any]> {
        var info: [AnyHashable: Any] = [:]
        if let url = store.url { info[NSPersistentStoreURLKey] = url }
        if let identifier = store.identifier {
            info[NSStoreUUIDKey] = identifier
            if let transaction { info[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(transactionNumbers: [identifier: transaction]) }
        }
        return UncheckedSendableBox(info)
    }

    private static func integer(_ value: SQLiteValue?) -> Int64? {
        if case .integer(let number)? = value { return number }
        return nil
    }
}
