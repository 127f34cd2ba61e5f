/// Store option: record every change saved to an SQLite store in its persistent history (Apple's `ACHANGE`,
/// `ATRANSACTION` and `ATRANSACTIONSTRING` tables). Pass `true` (a `Bool` or `NSNumber`).
///
/// For example:
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL,
///                                    options: [NSPersistentHistoryTrackingKey: true])
/// ```
///
/// As on Apple platforms, a store that has history tables and is opened without this option is opened read-only
/// (a gap in the history would be silent), with Apple's log message.
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"

/// Store option: post `NSPersistentStoreRemoteChange` for every write to the store, including writes by other
/// processes. Pass `true`.
///
/// For example:
/// ```swift
/// let options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true,
///                                    NSPersistentStoreRemoteChangeNotificationPostOptionKey: true]
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: options)
/// ```
///
/// Linux has no Darwin notifications: writes by other processes (or other coordinators) are noticed by polling the
/// store's `PRAGMA data_version` every 0.1 s (`OPENCOREDATA_REMOTE_CHANGE_INTERVAL` changes it; see DEVIATIONS.md).
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"

/// The userInfo key of `NSPersistentStoreRemoteChange` that holds the store's current `NSPersistentHistoryToken`
/// (present when the store tracks history).
///
/// For example:
/// ```swift
/// let token = notification.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken
/// ```
public let NSPersistentHistoryTokenKey = "historyToken"

/// The userInfo key of `NSPersistentStoreRemoteChange` that holds the changed store's URL.
///
/// For example:
/// ```swift
/// let url = notification.userInfo?[NSPersistentStoreURLKey] as? URL
/// ```
public let NSPersistentStoreURLKey = "storeURL"

/// How often (seconds) a store opened with `NSPersistentStoreRemoteChangeNotificationPostOptionKey` looks for writes
/// made by other processes (Apple's stores are told by Darwin notifications, which Linux lacks): 0.1 by default, or
/// the value of the environment variable `OPENCOREDATA_REMOTE_CHANGE_INTERVAL` (read when the store is added).
enum RemoteChangePolling {
    static var interval: TimeInterval {
        if let text = ProcessInfo.processInfo.environment["OPENCOREDATA_REMOTE_CHANGE_INTERVAL"], let value = TimeInterval(text), value > 0 {
            return min(max(value, 0.001), 60)
        }
        return 0.1
    }
}

extension Notification.Name {
    /// Posted after a write to a store opened with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`, whether
    /// this process or another one wrote it. The object is the store's coordinator; the userInfo holds
    /// `NSPersistentStoreURLKey`, `NSStoreUUIDKey` and, for stores that track history, `NSPersistentHistoryTokenKey`.
    /// It is posted on a private queue: move to your context's queue before working.
    ///
    /// For example:
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { note in
    ///     viewContext.perform { mergeNewHistory(into: viewContext) }
    /// }
    /// ```
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// What a persistent history change did to its object.
///
/// For example:
/// ```swift
/// if change.changeType == .delete { print("deleted", change.changedObjectID) }
/// ```
public enum NSPersistentHistoryChangeType: Int, Sendable, Hashable {
    /// The object was inserted.
    case insert = 0
    /// Properties of the object changed (see `updatedProperties`).
    case update = 1
    /// The object was deleted (see `tombstone`).
    case delete = 2
}
