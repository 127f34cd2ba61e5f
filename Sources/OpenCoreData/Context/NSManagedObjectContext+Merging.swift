extension NSManagedObjectContext {
    /// Brings the context up to date with a save made by another context: objects deleted there are removed
    /// here, updated ones are refreshed (keeping this context's own unsaved changes on top), and inserted ones
    /// become known. Posts `ObjectsDidChange` for what changed.
    ///
    /// For example:
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: background, queue: nil) { note in
    ///     viewContext.perform { viewContext.mergeChanges(fromContextDidSave: note) }
    /// }
    /// ```
    public func mergeChanges(fromContextDidSave notification: Notification) {
        checkConfinement()
        let info = notification.userInfo ?? [:]
        let updated = Self.objectIDs(info[NSUpdatedObjectsKey] ?? info[NSUpdatedObjectIDsKey])
        let deleted = Self.objectIDs(info[NSDeletedObjectsKey] ?? info[NSDeletedObjectIDsKey])
        // A save of a context on this coordinator left its rows in the row cache; any other notification (persistent
        // history's `objectIDNotification()`, a save on another coordinator or in another process) describes rows
        // the cache may hold in an older version, which the refreshes below must not serve.
        if let coordinator = persistentStoreCoordinator, !Self.savedThrough(coordinator, notification) {
            coordinator.rowCache.remove(updated.union(deleted))
        }
        mergeChanges(inserted: Self.objectIDs(info[NSInsertedObjectsKey] ?? info[NSInsertedObjectIDsKey]),
                     updated: updated, deleted: deleted)
    }

    /// Merges a save described by object IDs or URIs (for example from another process or from persistent
    /// history) into `contexts`. The userInfo keys are `NSInsertedObjectsKey`/`NSInsertedObjectIDsKey`, …, with
    /// sets or arrays of `NSManagedObjectID`s, managed objects or URI `URL`s.
    ///
    /// For example:
    /// ```swift
    /// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deletedIDs], into: [viewContext])
    /// ```
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]) {
        for context in contexts {
            context.performAndWait {
                let resolve: (Any?) -> Set<NSManagedObjectID> = { value in
                    Set(objectIDs(value).union(urls(value).compactMap { context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: $0) }))
                }
                let insertedKey = changeNotificationData[NSInsertedObjectsKey] ?? changeNotificationData[NSInsertedObjectIDsKey]
                let updatedKey = changeNotificationData[NSUpdatedObjectsKey] ?? changeNotificationData[NSUpdatedObjectIDsKey]
                let deletedKey = changeNotificationData[NSDeletedObjectsKey] ?? changeNotificationData[NSDeletedObjectIDsKey]
                context.persistentStoreCoordinator?.rowCache.remove(resolve(updatedKey).union(resolve(deletedKey)))
                context.mergeChanges(inserted: resolve(insertedKey), updated: resolve(updatedKey), deleted: resolve(deletedKey))
            }
        }
    }

    /// Whether `notification` is the did-save of a context that saved into `coordinator`'s stores (directly, not a
    /// child context saving into its parent).
    private static func savedThrough(_ coordinator: NSPersistentStoreCoordinator, _ notification: Notification) -> Bool {
        guard let saver = notification.object as? NSManagedObjectContext, saver.parent == nil else { return false }
        return saver.persistentStoreCoordinator === coordinator
    }

    /// Applies merged changes to the registered objects.
    func mergeChanges(inserted: Set<NSManagedObjectID>, updated: Set<NSManagedObjectID>, deleted: Set<NSManagedObjectID>) {
        advanceQueryGeneration()   // a pinned context moves to the current generation when it merges (Apple documents it)
        processPendingChangesInternal()
        forgetDeletedElsewhere(deleted.compactMap { registry[$0] })
        // An inserted object this context knows already (a child that read its parent's unsaved insertion) has the
        // values it read then: it is refreshed like an updated one.
        for objectID in updated.union(inserted.filter { registry[$0] != nil }) {
            guard let object = registry[objectID] else { continue }
            if object._isDeleted {
                // The deletion stays pending, checked at the save against the version read before it.
                if !object._isInserted { deletionsWithMergedRows.insert(objectID) }
                continue
            }
            if object._isFault {
                continue
            }
            refresh(object, mergeChanges: true)
            eventChanges.updated.insert(object)
        }
        for objectID in inserted where registry[objectID] == nil {
            let object = self.object(with: objectID)
            eventChanges.inserted.insert(object)
        }
        realignInverseToManys(withMerged: updated.union(inserted))
        postObjectsDidChange()
        postNotification(.NSManagedObjectContextDidMergeChangesObjectIDs, userInfo: [
            NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted,
        ])
    }

    /// Removes objects another context (or a batch delete) deleted: they leave every realized relationship of
    /// this context (without making the holders dirty) and are unregistered. One pass over the registered objects
    /// for all of them, so merging a large batch delete stays linear.
    func forgetDeletedElsewhere(_ objects: [NSManagedObject]) {
        guard !objects.isEmpty else { return }
        leaveRealizedRelationships(objects)
        for object in objects {
            insertedSet.remove(object)
            updatedSet.remove(object)
            deletedSet.remove(object)
            unpropagatedDeletes.remove(object)
            registry[object.objectID] = nil
            eventChanges.deleted.insert(object)
            object.discardUpdateAndTurnIntoFault()
            object.lifeCycle.deleteElsewhere()
            object._context = nil
        }
        leaveFaultBatches(objects.map(\.objectID))
    }

    /// Takes objects whose deletion the store holds out of every realized relationship of the other registered
    /// objects, committed members included (the store no longer has them there), without making the holders changes.
    /// To-ones only with `toOnes`; with `toOnes` false, a to-one whose inverse has the no-action rule stays (a
    /// deletion saved here leaves it as the store has it: the row's foreign key, which only that rule leaves pointing
    /// at the deleted row; any other rule has cleared or deleted every holder the store has, so a holder still
    /// pointing there is a copy read before another context moved it away, whose row points elsewhere).
    func leaveRealizedRelationships(_ objects: [NSManagedObject], toOnes: Bool = true) {
        guard !objects.isEmpty else { return }
        let goneObjects = Set(objects.map(ObjectIdentifier.init))
        let goneIDs = Set(objects.map(\.objectID))
        for holder in registry.values {
            guard !goneObjects.contains(ObjectIdentifier(holder)), !holder._isFault else { continue }
            for slot in holder.toOneValues.indices {
                guard let target = holder.toOneID(at: slot), goneIDs.contains(target) else { continue }
                if !toOnes && holder.layout.toOneRelationships[slot].inverseRelationship?.deleteRule ?? .noActionDeleteRule == .noActionDeleteRule {
                    continue
                }
                holder.toOneValues[slot] = .none
                // The store's row no longer points there either (the deletion nullified or deleted it): not an unsaved
                // change of the holder, which a later merge would put back over the store's newer value.
                if let committed = holder.committedSnapshot?.toOne[slot], goneIDs.contains(committed) {
                    holder.committedSnapshot?.toOne[slot] = nil
                }
            }
            for slot in holder.toManyValues.indices {
                holder.dropRealizedMembers(among: objects, identifiers: goneObjects, at: slot, committedLeaving: goneIDs)
            }
        }
    }

    static func objectIDs(_ value: Any?) -> Set<NSManagedObjectID> {
        var result = Set<NSManagedObjectID>()
        for element in elements(value) {
            if let objectID = element as? NSManagedObjectID { result.insert(objectID) }
            if let object = element as? NSManagedObject { result.insert(object.objectID) }
        }
        return result
    }

    private static func urls(_ value: Any?) -> [URL] {
        elements(value).compactMap { ($0 as? URL) ?? ($0 as? NSURL).flatMap { $0.absoluteURL } }
    }

    private static func elements(_ value: Any?) -> [Any] {
        switch value {
        case let set as Set<NSManagedObject>: return Array(set)
        case let set as Set<NSManagedObjectID>: return Array(set)
        case let set as NSSet: return set.allObjects
        case let array as [Any]: return array
        case let set as Set<AnyHashable>: return set.map(\.base)
        default: return []
        }
    }
}

extension NSManagedObjectContext {
    /// Starts or stops merging the saves of other contexts on the same coordinator (or of the parent context)
    /// automatically, on this context's queue.
    func updateAutomaticMerging() {
        if let token = autoMergeObserver {
            NotificationCenter.default.removeObserver(token)
            autoMergeObserver = nil
        }
        guard _automaticallyMergesChangesFromParent else { return }
        let weakSelf = WeakContext(self)
        autoMergeObserver = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) { note in
            guard let me = weakSelf.context, let saver = note.object as? NSManagedObjectContext, saver !== me else { return }
            let sameSource = me._parent.map { $0 === saver } ?? (saver._parent == nil && saver.persistentStoreCoordinator === me.persistentStoreCoordinator)
            guard sameSource else { return }
            // Extract IDs on the saver's thread; the objects themselves stay with their context.
            let info = note.userInfo ?? [:]
            let ids = UncheckedSendableBox((Self.objectIDs(info[NSInsertedObjectsKey]), Self.objectIDs(info[NSUpdatedObjectsKey]), Self.objectIDs(info[NSDeletedObjectsKey])))
            me.perform {
                me.mergeChanges(inserted: ids.value.0, updated: ids.value.1, deleted: ids.value.2)
            }
        }
    }
}

/// A weak reference to a context for notification observers.
final class WeakContext: @unchecked Sendable {
    // @unchecked Sendable: only a weak reference, used to reach the context, which confines itself.
    weak var context: NSManagedObjectContext?
    init(_ context: NSManagedObjectContext) { self.context = context }
}
