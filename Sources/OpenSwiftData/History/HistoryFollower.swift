import Foundation
import OpenCoreData

/// Follows a coordinator's persistent history: after each of its remote-change notifications (every save of any
/// context, container or process on its stores: Core Data's `NSPersistentStoreRemoteChange`), reads the transactions
/// committed since the last ones it read and hands them to `handler`, one notification at a time, on the
/// notification's thread (never a context's or the main actor's).
///
/// ```swift
/// let follower = HistoryFollower(coordinator: coordinator, after: nil) { transactions in print(transactions.count) }
/// ```
final class HistoryFollower: @unchecked Sendable {
    // @unchecked Sendable: `position` is read and written only inside `reader.performAndWait`, which runs one block
    // at a time; the notification token only in `init` and `deinit`.

    private let reader: NSManagedObjectContext
    private var position: NSPersistentHistoryToken?
    private var token: (any NSObjectProtocol)?

    /// Follows `coordinator`'s history after `start` (the current end of the history when nil: only later saves).
    init(coordinator: NSPersistentStoreCoordinator, after start: StartingPoint,
         handler: @escaping @Sendable ([NSPersistentHistoryTransaction]) -> Void) throws {
        reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        position = try Self.position(for: start, coordinator: coordinator, reader: reader)
        token = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { [weak self] _ in
            self?.readNewTransactions(handler)
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }

    /// Where following starts.
    enum StartingPoint {
        /// After the transactions committed so far.
        case now
        /// After the transaction numbered `number` (from the beginning of the history kept, if it is gone).
        case after(transactionNumber: Int64)
    }

    private static func position(for start: StartingPoint, coordinator: NSPersistentStoreCoordinator,
                                 reader: NSManagedObjectContext) throws -> NSPersistentHistoryToken? {
        switch start {
        case .now:
            return coordinator.currentPersistentHistoryToken(fromStores: nil)
        case .after(let number):
            guard let request = NSPersistentHistoryTransaction.fetchRequest else { return nil }
            request.predicate = OpenCoreData.NSPredicate(format: "transactionNumber == %lld", number)
            return try reader.performAndWait {
                let result = try reader.execute(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: request))
                return ((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])?.first?.token
            }
        }
    }

    private func readNewTransactions(_ handler: ([NSPersistentHistoryTransaction]) -> Void) {
        reader.performAndWait {
            guard let result = try? reader.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: position)),
                  let transactions = (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction],
                  let last = transactions.last
            else { return }
            position = last.token
            handler(transactions)
            reader.reset()
        }
    }
}
