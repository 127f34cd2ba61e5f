// The typed notification messages of Apple's 2026 SDKs for contexts (Foundation's `NotificationCenter.MainActorMessage`
// and `AsyncMessage`, which Linux Foundation has too):
//
//     let token = NotificationCenter.default.addObserver(of: viewContext, for: .didSave) { message in
//         print(message.inserted.count)
//     }
//     for await message in NotificationCenter.default.messages(of: background, for: .didSaveObjectIDsAsync) { … }
//
// Main-queue contexts post the main-actor messages, private-queue contexts the asynchronous ones, next to the
// `Notification`s of the same names (TypedMessagePosting says why both are posted).

import Foundation

extension NSManagedObjectContext {
    /// Posted before a main-queue context saves (Apple's `NSManagedObjectContext.WillSaveMessage`).
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: viewContext, for: .willSave) { message in
    ///     print("saving", message.context.insertedObjects.count)
    /// }
    /// ```
    public struct WillSaveMessage: NotificationCenter.MainActorMessage, MainActorBridgedMessage {
        /// The subject is the saving context.
        public typealias Subject = NSManagedObjectContext
        /// `.NSManagedObjectContextWillSave`.
        public static var name: Notification.Name { .NSManagedObjectContextWillSave }
        /// The context about to save.
        public let context: NSManagedObjectContext

        /// The message of a posted will-save notification (nil for another notification).
        @MainActor public static func makeMessage(_ notification: Notification) -> Self? {
            guard notification.name == name, let context = notification.object as? NSManagedObjectContext else { return nil }
            return Self(context: context)
        }

        /// The notification of this message.
        @MainActor public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context)
        }
    }

    /// Posted after a main-queue context saved, with the saved objects (Apple's `NSManagedObjectContext.DidSaveMessage`).
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: viewContext, for: .didSave) { message in
    ///     print(message.inserted.count, message.updated.count, message.deleted.count)
    /// }
    /// ```
    public struct DidSaveMessage: NotificationCenter.MainActorMessage, MainActorBridgedMessage {
        /// The subject is the context that saved.
        public typealias Subject = NSManagedObjectContext
        /// `.NSManagedObjectContextDidSave`.
        public static var name: Notification.Name { .NSManagedObjectContextDidSave }
        /// The context that saved.
        public let context: NSManagedObjectContext
        /// Managed objects inserted by the save.
        public var inserted: Set<NSManagedObject>
        /// Managed objects updated by the save.
        public var updated: Set<NSManagedObject>
        /// Managed objects deleted by the save.
        public var deleted: Set<NSManagedObject>
        /// The persistent history token after the save (stores with `NSPersistentHistoryTrackingKey`; else nil).
        public let historyToken: NSPersistentHistoryToken?
        /// The query generation of the context after the save (nil when it is not pinned to one).
        public let queryGeneration: NSQueryGenerationToken?

        /// The message of a posted did-save notification (nil for another notification).
        @MainActor public static func makeMessage(_ notification: Notification) -> Self? {
            guard notification.name == name, let context = notification.object as? NSManagedObjectContext else { return nil }
            let info = ContextNotificationInfo(notification)
            return Self(context: context, inserted: info.objects(NSInsertedObjectsKey), updated: info.objects(NSUpdatedObjectsKey),
                        deleted: info.objects(NSDeletedObjectsKey), historyToken: info.historyToken, queryGeneration: info.queryGeneration)
        }

        /// The notification of this message (what `mergeChanges(fromContextDidSave:)` takes).
        @MainActor public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context, userInfo: ContextNotificationInfo.userInfo(
                objects: [NSInsertedObjectsKey: message.inserted, NSUpdatedObjectsKey: message.updated, NSDeletedObjectsKey: message.deleted],
                historyToken: message.historyToken, queryGeneration: message.queryGeneration))
        }
    }

    /// Posted after a main-queue context saved, with the saved objects' IDs (Apple's
    /// `NSManagedObjectContext.DidSaveObjectIDsMessage`).
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: viewContext, for: .didSaveObjectIDs) { message in
    ///     print(message.insertedIDs)
    /// }
    /// ```
    public struct DidSaveObjectIDsMessage: NotificationCenter.MainActorMessage, MainActorBridgedMessage, ObjectIDsMessage {
        /// The subject is the context that saved.
        public typealias Subject = NSManagedObjectContext
        /// `.NSManagedObjectContextDidSaveObjectIDs`.
        public static var name: Notification.Name { .NSManagedObjectContextDidSaveObjectIDs }
        /// The context that saved.
        public let context: NSManagedObjectContext
        /// IDs of the objects inserted by the save.
        public let insertedIDs: Set<NSManagedObjectID>
        /// IDs of the objects updated by the save.
        public let updatedIDs: Set<NSManagedObjectID>
        /// IDs of the objects deleted by the save.
        public let deletedIDs: Set<NSManagedObjectID>
        /// IDs of the objects refreshed by the save.
        public let refreshedIDs: Set<NSManagedObjectID>
        /// IDs of the objects invalidated by the save.
        public let invalidatedIDs: Set<NSManagedObjectID>
        /// The persistent history token after the save (stores with `NSPersistentHistoryTrackingKey`; else nil).
        public let historyToken: NSPersistentHistoryToken?
        /// The query generation of the context after the save (nil when it is not pinned to one).
        public let queryGeneration: NSQueryGenerationToken?

        /// The message of a posted did-save-object-IDs notification (nil for another notification).
        @MainActor public static func makeMessage(_ notification: Notification) -> Self? { make(notification) }
        /// The notification of this message.
        @MainActor public static func makeNotification(_ message: Self) -> Notification { message.notification }
    }

    /// Posted after a private-queue context saved, with the saved objects' IDs (Apple's
    /// `NSManagedObjectContext.DidSaveObjectIDsAsyncMessage`).
    ///
    /// ```swift
    /// for await message in NotificationCenter.default.messages(of: background, for: .didSaveObjectIDsAsync) {
    ///     print(message.insertedIDs)
    /// }
    /// ```
    public struct DidSaveObjectIDsAsyncMessage: NotificationCenter.AsyncMessage, AsyncBridgedMessage, ObjectIDsMessage {
        /// The subject is the context that saved.
        public typealias Subject = NSManagedObjectContext
        /// `.NSManagedObjectContextDidSaveObjectIDs`.
        public static var name: Notification.Name { .NSManagedObjectContextDidSaveObjectIDs }
        /// The context that saved.
        public let context: NSManagedObjectContext
        /// IDs of the objects inserted by the save.
        public let insertedIDs: Set<NSManagedObjectID>
        /// IDs of the objects updated by the save.
        public let updatedIDs: Set<NSManagedObjectID>
        /// IDs of the objects deleted by the save.
        public let deletedIDs: Set<NSManagedObjectID>
        /// IDs of the objects refreshed by the save.
        public let refreshedIDs: Set<NSManagedObjectID>
        /// IDs of the objects invalidated by the save.
        public let invalidatedIDs: Set<NSManagedObjectID>
        /// The persistent history token after the save (stores with `NSPersistentHistoryTrackingKey`; else nil).
        public let historyToken: NSPersistentHistoryToken?
        /// The query generation of the context after the save (nil when it is not pinned to one).
        public let queryGeneration: NSQueryGenerationToken?

        /// The message of a posted did-save-object-IDs notification (nil for another notification).
        public static func makeMessage(_ notification: Notification) -> Self? { make(notification) }
        /// The notification of this message.
        public static func makeNotification(_ message: Self) -> Notification { message.notification }
    }

    /// Posted at the end of an event in which objects of a main-queue context were inserted, updated, deleted,
    /// refreshed or invalidated (Apple's `NSManagedObjectContext.ObjectsDidChangeMessage`).
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: viewContext, for: .objectsDidChange) { message in
    ///     print(message.updated.count)
    /// }
    /// ```
    public struct ObjectsDidChangeMessage: NotificationCenter.MainActorMessage, MainActorBridgedMessage {
        /// The subject is the context whose objects changed.
        public typealias Subject = NSManagedObjectContext
        /// `.NSManagedObjectContextObjectsDidChange`.
        public static var name: Notification.Name { .NSManagedObjectContextObjectsDidChange }
        /// The context whose objects changed.
        public let context: NSManagedObjectContext
        /// Objects inserted.
        public var inserted: Set<NSManagedObject>
        /// Objects updated.
        public var updated: Set<NSManagedObject>
        /// Objects deleted.
        public var deleted: Set<NSManagedObject>
        /// Objects refreshed (by a merge, `refresh(_:mergeChanges:)` or rollback).
        public var refreshed: Set<NSManagedObject>
        /// Objects invalidated (their rows are gone, or the context was reset).
        public var invalidated: Set<NSManagedObject>
        /// True when every object of the context was invalidated (`reset()`); nil otherwise.
        public let invalidatedAll: Bool?

        /// The message of a posted objects-did-change notification (nil for another notification).
        @MainActor public static func makeMessage(_ notification: Notification) -> Self? {
            guard notification.name == name, let context = notification.object as? NSManagedObjectContext else { return nil }
            let info = ContextNotificationInfo(notification)
            let all = notification.userInfo?[NSInvalidatedAllObjectsKey] != nil
            return Self(context: context, inserted: info.objects(NSInsertedObjectsKey), updated: info.objects(NSUpdatedObjectsKey),
                        deleted: info.objects(NSDeletedObjectsKey), refreshed: info.objects(NSRefreshedObjectsKey),
                        invalidated: info.objects(NSInvalidatedObjectsKey).union(info.objects(NSInvalidatedAllObjectsKey)),
                        invalidatedAll: all ? true : nil)
        }

        /// The notification of this message.
        @MainActor public static func makeNotification(_ message: Self) -> Notification {
            var info = ContextNotificationInfo.userInfo(objects: [
                NSInsertedObjectsKey: message.inserted, NSUpdatedObjectsKey: message.updated, NSDeletedObjectsKey: message.deleted,
                NSRefreshedObjectsKey: message.refreshed, NSInvalidatedObjectsKey: message.invalidated,
            ], historyToken: nil, queryGeneration: nil)
            if message.invalidatedAll == true { info[NSInvalidatedAllObjectsKey] = message.invalidated }
            return Notification(name: name, object: message.context, userInfo: info)
        }
    }

    /// Posted after a main-queue context merged changes, with the merged objects' IDs (Apple's
    /// `NSManagedObjectContext.DidMergeChangesMessage`).
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: viewContext, for: .didMergeChanges) { message in
    ///     print(message.updatedIDs)
    /// }
    /// ```
    public struct DidMergeChangesMessage: NotificationCenter.MainActorMessage, MainActorBridgedMessage, ObjectIDsMessage {
        /// The subject is the context that merged.
        public typealias Subject = NSManagedObjectContext
        /// `.NSManagedObjectContextDidMergeChangesObjectIDs`.
        public static var name: Notification.Name { .NSManagedObjectContextDidMergeChangesObjectIDs }
        /// The context that merged.
        public let context: NSManagedObjectContext
        /// IDs of the objects the merge inserted.
        public let insertedIDs: Set<NSManagedObjectID>
        /// IDs of the objects the merge updated.
        public let updatedIDs: Set<NSManagedObjectID>
        /// IDs of the objects the merge deleted.
        public let deletedIDs: Set<NSManagedObjectID>
        /// IDs of the objects the merge refreshed.
        public let refreshedIDs: Set<NSManagedObjectID>
        /// IDs of the objects the merge invalidated.
        public let invalidatedIDs: Set<NSManagedObjectID>
        /// The persistent history token of the merged changes, when known.
        public let historyToken: NSPersistentHistoryToken?
        /// The query generation of the context after the merge (nil when it is not pinned to one).
        public let queryGeneration: NSQueryGenerationToken?

        /// The message of a posted did-merge notification (nil for another notification).
        @MainActor public static func makeMessage(_ notification: Notification) -> Self? { make(notification) }
        /// The notification of this message.
        @MainActor public static func makeNotification(_ message: Self) -> Notification { message.notification }
    }

    /// Posted after a private-queue context merged changes, with the merged objects' IDs (Apple's
    /// `NSManagedObjectContext.DidMergeChangesAsyncMessage`).
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: background, for: .didMergeChangesAsync) { message in
    ///     print(message.updatedIDs)
    /// }
    /// ```
    public struct DidMergeChangesAsyncMessage: NotificationCenter.AsyncMessage, AsyncBridgedMessage, ObjectIDsMessage {
        /// The subject is the context that merged.
        public typealias Subject = NSManagedObjectContext
        /// `.NSManagedObjectContextDidMergeChangesObjectIDs`.
        public static var name: Notification.Name { .NSManagedObjectContextDidMergeChangesObjectIDs }
        /// The context that merged.
        public let context: NSManagedObjectContext
        /// IDs of the objects the merge inserted.
        public let insertedIDs: Set<NSManagedObjectID>
        /// IDs of the objects the merge updated.
        public let updatedIDs: Set<NSManagedObjectID>
        /// IDs of the objects the merge deleted.
        public let deletedIDs: Set<NSManagedObjectID>
        /// IDs of the objects the merge refreshed.
        public let refreshedIDs: Set<NSManagedObjectID>
        /// IDs of the objects the merge invalidated.
        public let invalidatedIDs: Set<NSManagedObjectID>
        /// The persistent history token of the merged changes, when known.
        public let historyToken: NSPersistentHistoryToken?
        /// The query generation of the context after the merge (nil when it is not pinned to one).
        public let queryGeneration: NSQueryGenerationToken?

        /// The message of a posted did-merge notification (nil for another notification).
        public static func makeMessage(_ notification: Notification) -> Self? { make(notification) }
        /// The notification of this message.
        public static func makeNotification(_ message: Self) -> Notification { message.notification }
    }
}

// MARK: Message identifiers (`addObserver(of: context, for: .didSave)`)

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSManagedObjectContext.WillSaveMessage> {
    /// ``NSManagedObjectContext/WillSaveMessage``: `addObserver(of: viewContext, for: .willSave) { … }`.
    public static var willSave: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSManagedObjectContext.DidSaveMessage> {
    /// ``NSManagedObjectContext/DidSaveMessage``: `addObserver(of: viewContext, for: .didSave) { … }`.
    public static var didSave: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSManagedObjectContext.DidSaveObjectIDsMessage> {
    /// ``NSManagedObjectContext/DidSaveObjectIDsMessage``: `addObserver(of: viewContext, for: .didSaveObjectIDs) { … }`.
    public static var didSaveObjectIDs: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSManagedObjectContext.DidSaveObjectIDsAsyncMessage> {
    /// ``NSManagedObjectContext/DidSaveObjectIDsAsyncMessage``: `messages(of: background, for: .didSaveObjectIDsAsync)`.
    public static var didSaveObjectIDsAsync: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSManagedObjectContext.ObjectsDidChangeMessage> {
    /// ``NSManagedObjectContext/ObjectsDidChangeMessage``: `addObserver(of: viewContext, for: .objectsDidChange) { … }`.
    public static var objectsDidChange: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSManagedObjectContext.DidMergeChangesMessage> {
    /// ``NSManagedObjectContext/DidMergeChangesMessage``: `addObserver(of: viewContext, for: .didMergeChanges) { … }`.
    public static var didMergeChanges: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<NSManagedObjectContext.DidMergeChangesAsyncMessage> {
    /// ``NSManagedObjectContext/DidMergeChangesAsyncMessage``: `messages(of: background, for: .didMergeChangesAsync)`.
    public static var didMergeChangesAsync: Self { .init() }
}

// MARK: Shared shape of the object-ID messages

/// The messages that carry object IDs: one way to read them from a notification and to write one.
protocol ObjectIDsMessage {
    init(context: NSManagedObjectContext, insertedIDs: Set<NSManagedObjectID>, updatedIDs: Set<NSManagedObjectID>,
         deletedIDs: Set<NSManagedObjectID>, refreshedIDs: Set<NSManagedObjectID>, invalidatedIDs: Set<NSManagedObjectID>,
         historyToken: NSPersistentHistoryToken?, queryGeneration: NSQueryGenerationToken?)
    static var name: Notification.Name { get }
    var context: NSManagedObjectContext { get }
    var insertedIDs: Set<NSManagedObjectID> { get }
    var updatedIDs: Set<NSManagedObjectID> { get }
    var deletedIDs: Set<NSManagedObjectID> { get }
    var refreshedIDs: Set<NSManagedObjectID> { get }
    var invalidatedIDs: Set<NSManagedObjectID> { get }
    var historyToken: NSPersistentHistoryToken? { get }
    var queryGeneration: NSQueryGenerationToken? { get }
}

extension ObjectIDsMessage {
    static func make(_ notification: Notification) -> Self? {
        guard notification.name == name, let context = notification.object as? NSManagedObjectContext else { return nil }
        let info = ContextNotificationInfo(notification)
        return Self(context: context, insertedIDs: info.objectIDs(NSInsertedObjectIDsKey), updatedIDs: info.objectIDs(NSUpdatedObjectIDsKey),
                    deletedIDs: info.objectIDs(NSDeletedObjectIDsKey), refreshedIDs: info.objectIDs(NSRefreshedObjectIDsKey),
                    invalidatedIDs: info.objectIDs(NSInvalidatedObjectIDsKey), historyToken: info.historyToken, queryGeneration: info.queryGeneration)
    }

    var notification: Notification {
        Notification(name: Self.name, object: context, userInfo: ContextNotificationInfo.userInfo(objects: [
            NSInsertedObjectIDsKey: insertedIDs, NSUpdatedObjectIDsKey: updatedIDs, NSDeletedObjectIDsKey: deletedIDs,
            NSRefreshedObjectIDsKey: refreshedIDs, NSInvalidatedObjectIDsKey: invalidatedIDs,
        ], historyToken: historyToken, queryGeneration: queryGeneration))
    }
}

/// Reads and writes the userInfo of context notifications.
struct ContextNotificationInfo {
    let userInfo: [AnyHashable: Any]

    init(_ notification: Notification) { userInfo = notification.userInfo ?? [:] }

    func objects(_ key: String) -> Set<NSManagedObject> {
        if let set = userInfo[key] as? Set<NSManagedObject> { return set }
        if let array = userInfo[key] as? [NSManagedObject] { return Set(array) }
        return []
    }

    func objectIDs(_ key: String) -> Set<NSManagedObjectID> {
        if let set = userInfo[key] as? Set<NSManagedObjectID> { return set }
        if let array = userInfo[key] as? [NSManagedObjectID] { return Set(array) }
        return []
    }

    var historyToken: NSPersistentHistoryToken? { userInfo[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken }
    var queryGeneration: NSQueryGenerationToken? {
        userInfo[NSManagedObjectContext.NotificationKey.queryGeneration.rawValue] as? NSQueryGenerationToken
    }

    /// A userInfo with the non-empty sets of `objects` and the tokens that are there.
    static func userInfo<Element>(objects: [String: Set<Element>], historyToken: NSPersistentHistoryToken?,
                                  queryGeneration: NSQueryGenerationToken?) -> [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [:]
        for (key, set) in objects where !set.isEmpty { info[key] = set }
        if let historyToken { info[NSPersistentHistoryTokenKey] = historyToken }
        if let queryGeneration { info[NSManagedObjectContext.NotificationKey.queryGeneration.rawValue] = queryGeneration }
        return info
    }
}

// MARK: Posting

extension NSManagedObjectContext {
    /// Posts a context notification (`object` is this context) and the typed message Apple's SDK delivers for it: the
    /// main-actor form for a main-queue context, the asynchronous form (where Apple has one) for the others.
    func postNotification(_ name: Notification.Name, userInfo: [AnyHashable: Any]? = nil) {
        let notification = Notification(name: name, object: self, userInfo: userInfo)
        NotificationCenter.default.post(notification)
        let mainQueue = concurrencyType == .mainQueueConcurrencyType
        switch name {
        case .NSManagedObjectContextWillSave:
            if mainQueue { TypedMessagePosting.postOnMainActor(WillSaveMessage.self, from: notification, subject: self) }
        case .NSManagedObjectContextDidSave:
            if mainQueue { TypedMessagePosting.postOnMainActor(DidSaveMessage.self, from: notification, subject: self) }
        case .NSManagedObjectContextDidSaveObjectIDs:
            if mainQueue {
                TypedMessagePosting.postOnMainActor(DidSaveObjectIDsMessage.self, from: notification, subject: self)
            } else {
                TypedMessagePosting.postAsync(DidSaveObjectIDsAsyncMessage.self, from: notification, subject: self)
            }
        case .NSManagedObjectContextObjectsDidChange:
            if mainQueue { TypedMessagePosting.postOnMainActor(ObjectsDidChangeMessage.self, from: notification, subject: self) }
        case .NSManagedObjectContextDidMergeChangesObjectIDs:
            if mainQueue {
                TypedMessagePosting.postOnMainActor(DidMergeChangesMessage.self, from: notification, subject: self)
            } else {
                TypedMessagePosting.postAsync(DidMergeChangesAsyncMessage.self, from: notification, subject: self)
            }
        default:
            break
        }
    }

    /// The tokens a did-save notification carries: the history token of the stores that keep history (read only
    /// when one does), and the query generation the context is pinned to.
    func tokensAfterSave(_ coordinator: NSPersistentStoreCoordinator?) -> [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [:]
        if let coordinator, coordinator.anyStoreKeepsHistory,
           let token = coordinator.currentPersistentHistoryToken(fromStores: nil) {
            info[NSPersistentHistoryTokenKey] = token
        }
        if _parent == nil, let generation = _queryGeneration, !generation.isCurrent {
            info[NotificationKey.queryGeneration.rawValue] = generation
        }
        return info
    }
}
