// The typed notification messages of Apple's 2026 SDKs for coordinators (Foundation's message API, which Linux
// Foundation has too):
//
//     for await change in NotificationCenter.default.messages(of: coordinator, for: .remoteChange) {
//         print(change.storeURL, change.historyToken as Any)
//     }

import Foundation

extension NSPersistentStoreCoordinator {
    /// Posted when a store of the coordinator was written by another coordinator or process, or by this one's own
    /// saves, for stores added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey` (Apple's
    /// `NSPersistentStoreCoordinator.RemoteChangeMessage`).
    ///
    /// ```swift
    /// for await change in NotificationCenter.default.messages(of: coordinator, for: .remoteChange) {
    ///     await viewContext.perform { /* fetch history after change.historyToken's predecessor */ }
    /// }
    /// ```
    public struct RemoteChangeMessage: NotificationCenter.AsyncMessage, AsyncBridgedMessage {
        /// The subject is the coordinator whose store changed.
        public typealias Subject = NSPersistentStoreCoordinator
        /// `.NSPersistentStoreRemoteChange`.
        public static var name: Notification.Name { .NSPersistentStoreRemoteChange }
        /// The coordinator whose store changed.
        public let persistentStoreCoordinator: NSPersistentStoreCoordinator
        /// The URL of the store that changed.
        public let storeURL: URL
        /// The identifier (`NSStoreUUIDKey`) of the store that changed.
        public let storeUUID: String
        /// The persistent history token after the change (stores with `NSPersistentHistoryTrackingKey`; else nil).
        public let historyToken: NSPersistentHistoryToken?

        /// The message of a posted remote-change notification (nil for another notification, or one without a
        /// store URL and identifier).
        public static func makeMessage(_ notification: Notification) -> Self? {
            guard notification.name == name, let coordinator = notification.object as? NSPersistentStoreCoordinator,
                  let url = notification.userInfo?[NSPersistentStoreURLKey] as? URL,
                  let uuid = notification.userInfo?[NSStoreUUIDKey] as? String
            else { return nil }
            return Self(persistentStoreCoordinator: coordinator, storeURL: url, storeUUID: uuid,
                        historyToken: notification.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
        }

        /// The notification of this message.
        public static func makeNotification(_ message: Self) -> Notification {
            var info: [AnyHashable: Any] = [NSPersistentStoreURLKey: message.storeURL, NSStoreUUIDKey: message.storeUUID]
            if let token = message.historyToken { info[NSPersistentHistoryTokenKey] = token }
            return Notification(name: name, object: message.persistentStoreCoordinator, userInfo: info)
        }
    }

    /// Posted on the main queue when stores were added to or removed from the coordinator (Apple's
    /// `NSPersistentStoreCoordinator.StoresDidChangeMessage`).
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: coordinator, for: .storesDidChange) { message in
    ///     print(message.addedStores.count)
    /// }
    /// ```
    public struct StoresDidChangeMessage: NotificationCenter.MainActorMessage, MainActorBridgedMessage, StoresChangeMessage {
        /// The subject is the coordinator whose stores changed.
        public typealias Subject = NSPersistentStoreCoordinator
        /// `.NSPersistentStoreCoordinatorStoresDidChange`.
        public static var name: Notification.Name { .NSPersistentStoreCoordinatorStoresDidChange }
        /// The coordinator whose stores changed.
        public let persistentStoreCoordinator: NSPersistentStoreCoordinator
        /// Stores added by the change.
        public var addedStores: [NSPersistentStore]
        /// Stores removed by the change.
        public var removedStores: [NSPersistentStore]
        /// After a migration (`migratePersistentStore`), the old store and the store that replaced it.
        public var uuidChangedStores: (oldValue: NSPersistentStore, newValue: NSPersistentStore)?

        /// The message of a posted stores-did-change notification (nil for another notification).
        @MainActor public static func makeMessage(_ notification: Notification) -> Self? { make(notification) }
        /// The notification of this message.
        @MainActor public static func makeNotification(_ message: Self) -> Notification { message.notification }
    }

    /// Posted off the main queue when stores were added to or removed from the coordinator (Apple's
    /// `NSPersistentStoreCoordinator.StoresDidChangeAsyncMessage`).
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: coordinator, for: .storesDidChangeAsync) { message in
    ///     print(message.addedStores.count)
    /// }
    /// ```
    public struct StoresDidChangeAsyncMessage: NotificationCenter.AsyncMessage, AsyncBridgedMessage, StoresChangeMessage {
        /// The subject is the coordinator whose stores changed.
        public typealias Subject = NSPersistentStoreCoordinator
        /// `.NSPersistentStoreCoordinatorStoresDidChange`.
        public static var name: Notification.Name { .NSPersistentStoreCoordinatorStoresDidChange }
        /// The coordinator whose stores changed.
        public let persistentStoreCoordinator: NSPersistentStoreCoordinator
        /// Stores added by the change.
        public var addedStores: [NSPersistentStore]
        /// Stores removed by the change.
        public var removedStores: [NSPersistentStore]
        /// After a migration (`migratePersistentStore`), the old store and the store that replaced it.
        public var uuidChangedStores: (oldValue: NSPersistentStore, newValue: NSPersistentStore)?

        /// The message of a posted stores-did-change notification (nil for another notification).
        public static func makeMessage(_ notification: Notification) -> Self? { make(notification) }
        /// The notification of this message.
        public static func makeNotification(_ message: Self) -> Notification { message.notification }
    }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSPersistentStoreCoordinator.RemoteChangeMessage> {
    /// ``NSPersistentStoreCoordinator/RemoteChangeMessage``: `messages(of: coordinator, for: .remoteChange)`.
    public static var remoteChange: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSPersistentStoreCoordinator.StoresDidChangeMessage> {
    /// ``NSPersistentStoreCoordinator/StoresDidChangeMessage``: `addObserver(of: coordinator, for: .storesDidChange)`.
    public static var storesDidChange: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSPersistentStoreCoordinator.StoresDidChangeAsyncMessage> {
    /// ``NSPersistentStoreCoordinator/StoresDidChangeAsyncMessage``: `addObserver(of: coordinator, for: .storesDidChangeAsync)`.
    public static var storesDidChangeAsync: Self { .init() }
}

/// The two stores-did-change messages: one way to read them from a notification and to write one.
protocol StoresChangeMessage {
    init(persistentStoreCoordinator: NSPersistentStoreCoordinator, addedStores: [NSPersistentStore], removedStores: [NSPersistentStore],
         uuidChangedStores: (oldValue: NSPersistentStore, newValue: NSPersistentStore)?)
    static var name: Notification.Name { get }
    var persistentStoreCoordinator: NSPersistentStoreCoordinator { get }
    var addedStores: [NSPersistentStore] { get }
    var removedStores: [NSPersistentStore] { get }
    var uuidChangedStores: (oldValue: NSPersistentStore, newValue: NSPersistentStore)? { get }
}

extension StoresChangeMessage {
    static func make(_ notification: Notification) -> Self? {
        guard notification.name == name, let coordinator = notification.object as? NSPersistentStoreCoordinator else { return nil }
        let info = notification.userInfo ?? [:]
        let changed = info[NSUUIDChangedPersistentStoresKey] as? [NSPersistentStore] ?? []
        return Self(persistentStoreCoordinator: coordinator, addedStores: info[NSAddedPersistentStoresKey] as? [NSPersistentStore] ?? [],
                    removedStores: info[NSRemovedPersistentStoresKey] as? [NSPersistentStore] ?? [],
                    uuidChangedStores: changed.count == 2 ? (changed[0], changed[1]) : nil)
    }

    var notification: Notification {
        var info: [AnyHashable: Any] = [:]
        if !addedStores.isEmpty { info[NSAddedPersistentStoresKey] = addedStores }
        if !removedStores.isEmpty { info[NSRemovedPersistentStoresKey] = removedStores }
        if let uuidChangedStores { info[NSUUIDChangedPersistentStoresKey] = [uuidChangedStores.oldValue, uuidChangedStores.newValue] }
        return Notification(name: Self.name, object: persistentStoreCoordinator, userInfo: info)
    }
}

extension NSPersistentStoreCoordinator {
    /// Posts a stores-did-change notification and its typed message: the main-actor form on the main queue, the
    /// asynchronous form elsewhere.
    func postStoresDidChangeNotification(userInfo: [AnyHashable: Any]) {
        let notification = Notification(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: userInfo)
        NotificationCenter.default.post(notification)
        if MainQueueMark.isRunning {
            TypedMessagePosting.postOnMainActor(StoresDidChangeMessage.self, from: notification, subject: self)
        } else {
            TypedMessagePosting.postAsync(StoresDidChangeAsyncMessage.self, from: notification, subject: self)
        }
    }

    /// Posts a remote-change notification (from any thread) and its ``RemoteChangeMessage``.
    func postRemoteChangeNotification(userInfo: [AnyHashable: Any]) {
        let notification = Notification(name: .NSPersistentStoreRemoteChange, object: self, userInfo: userInfo)
        NotificationCenter.default.post(notification)
        TypedMessagePosting.postAsync(RemoteChangeMessage.self, from: notification, subject: self)
    }
}
