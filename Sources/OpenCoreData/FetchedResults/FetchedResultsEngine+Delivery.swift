import Synchronization
@_spi(OpenSwiftData) import OpenCoreDataSupport

/// How a controller reports: to the delegate in the form it adopted (snapshot, difference, or change by change, as
/// Apple's controller chooses with `respondsToSelector:`), and to snapshot streams.
extension FetchedResultsEngine {
    /// Reports one change set.
    func deliver(_ changes: FetchedResultsChanges, from old: FetchedResultsState, to new: FetchedResultsState) {
        isDelivering = true
        defer {
            isDelivering = false
            let work = deferredWork
            deferredWork = []
            for item in work { item() }
        }
        let previousIDs = deliveredIDs
        deliveredIDs = nil
        if let delegate, let view = owner?.erasedController {
            if let snapshotDelegate = delegate as? NSFetchedResultsControllerSnapshotDelegate {
                snapshotDelegate.controller(view, didChangeContentWith: new.snapshot(reloading: changes.changedObjects))
            } else if sectionNameKeyPath == nil, mayImplementDifferenceForm(delegate) {
                let difference = Self.difference(changes, from: old, previousIDs: previousIDs, to: new)
                deliveredIDs = new.objects.map(\.objectID)
                if !offerDifference(difference, to: delegate, view: view) {
                    deliveredIDs = nil
                    deliverChangeByChange(changes, from: old, to: new, to: delegate, view: view)
                }
            } else {
                deliverChangeByChange(changes, from: old, to: new, to: delegate, view: view)
            }
        }
        if streams.hasSubscribers { streams.yield(new.snapshot(reloading: changes.changedObjects)) }
    }

    /// Whether `delegate` may implement the difference form: yes until a call reached the protocol's default (then
    /// no, for as long as it stays the delegate).
    private func mayImplementDifferenceForm(_ delegate: any NSFetchedResultsControllerDelegate) -> Bool {
        guard let known = differenceFormSupport, known.delegate == ObjectIdentifier(delegate) else { return true }
        return known.implemented
    }

    /// Calls the difference form; false when the delegate does not implement it (the protocol's default ran).
    private func offerDifference(_ difference: CollectionDifference<NSManagedObjectID>, to delegate: any NSFetchedResultsControllerDelegate,
                                 view: NSFetchedResultsController<NSFetchRequestResult>) -> Bool {
        differenceFormIsDefault = false
        delegate.controller(view, didChangeContentWith: difference)
        let implemented = !differenceFormIsDefault
        differenceFormIsDefault = false
        differenceFormSupport = (ObjectIdentifier(delegate), implemented)
        return implemented
    }

    private func deliverChangeByChange(_ changes: FetchedResultsChanges, from old: FetchedResultsState, to new: FetchedResultsState,
                                       to delegate: any NSFetchedResultsControllerDelegate, view: NSFetchedResultsController<NSFetchRequestResult>) {
        delegate.controllerWillChangeContent(view)
        if !changes.deletedSections.isEmpty {
            let oldSections = sections(of: old)
            for index in changes.deletedSections {
                // As Apple's: a deleted section's info keeps its name and index title but holds no objects.
                let deleted = oldSections[index]
                let emptied = FetchedResultsSection(name: deleted.name, indexTitle: deleted.indexTitle, objects: [], range: 0..<0)
                delegate.controller(view, didChange: emptied, atSectionIndex: index, for: .delete)
            }
        }
        if !changes.insertedSections.isEmpty {
            let newSections = sections ?? sections(of: new)
            for index in changes.insertedSections {
                delegate.controller(view, didChange: newSections[index], atSectionIndex: index, for: .insert)
            }
        }
        for change in changes.objectChanges {
            delegate.controller(view, didChange: change.object, at: change.oldIndex.map(old.indexPath(ofFlatIndex:)), for: change.type,
                                newIndexPath: change.newIndex.map(new.indexPath(ofFlatIndex:)))
        }
        delegate.controllerDidChangeContent(view)
    }

    /// After `performFetch()`: snapshot delegates and streams get the whole content, difference delegates the
    /// difference from what they had (nothing, the first time).
    func deliverWholeContent(previous: FetchedResultsState?) {
        guard let state else { return }
        if let delegate, let view = owner?.erasedController {
            if let snapshotDelegate = delegate as? NSFetchedResultsControllerSnapshotDelegate {
                snapshotDelegate.controller(view, didChangeContentWith: state.snapshot())
            } else if sectionNameKeyPath == nil, mayImplementDifferenceForm(delegate) {
                let ids = state.objects.map(\.objectID)
                let difference = ids.difference(from: deliveredIDs ?? []).inferringMoves()
                deliveredIDs = ids
                if !offerDifference(difference, to: delegate, view: view) { deliveredIDs = nil }
            }
        }
        if streams.hasSubscribers { streams.yield(state.snapshot()) }
    }

    /// The change set as a difference of object IDs: removals at old offsets, insertions at new ones, moves associated.
    /// Objects whose ID changed since the last delivery (a save made it permanent) are removed and inserted again.
    static func difference(_ changes: FetchedResultsChanges, from old: FetchedResultsState, previousIDs: [NSManagedObjectID]?,
                           to new: FetchedResultsState) -> CollectionDifference<NSManagedObjectID> {
        let oldIDs = previousIDs.flatMap { $0.count == old.objects.count ? $0 : nil } ?? old.objects.map(\.objectID)
        var steps: [CollectionDifference<NSManagedObjectID>.Change] = []
        var reported = Set<ObjectIdentifier>()
        for change in changes.objectChanges {
            reported.insert(ObjectIdentifier(change.object))
            switch change.type {
            case .delete:
                steps.append(.remove(offset: change.oldIndex!, element: oldIDs[change.oldIndex!], associatedWith: nil))
            case .insert:
                steps.append(.insert(offset: change.newIndex!, element: new.objects[change.newIndex!].objectID, associatedWith: nil))
            case .move:
                let (from, to) = (change.oldIndex!, change.newIndex!)
                let sameID = oldIDs[from] == new.objects[to].objectID
                steps.append(.remove(offset: from, element: oldIDs[from], associatedWith: sameID ? to : nil))
                steps.append(.insert(offset: to, element: new.objects[to].objectID, associatedWith: sameID ? from : nil))
            case .update:
                if oldIDs[change.oldIndex!] != new.objects[change.newIndex!].objectID {
                    steps.append(.remove(offset: change.oldIndex!, element: oldIDs[change.oldIndex!], associatedWith: nil))
                    steps.append(.insert(offset: change.newIndex!, element: new.objects[change.newIndex!].objectID, associatedWith: nil))
                }
            }
        }
        let oldIndex = old.indexByObject
        for (position, object) in new.objects.enumerated() where !reported.contains(ObjectIdentifier(object)) {
            guard let oldPosition = oldIndex[ObjectIdentifier(object)], oldIDs[oldPosition] != object.objectID else { continue }
            steps.append(.remove(offset: oldPosition, element: oldIDs[oldPosition], associatedWith: nil))
            steps.append(.insert(offset: position, element: object.objectID, associatedWith: nil))
        }
        guard let difference = CollectionDifference(steps) else {
            preconditionFailure("NSFetchedResultsController built an inconsistent difference; please report this.")
        }
        return difference
    }
}

/// The continuations of a controller's snapshot streams. Each stream keeps its controller alive until it ends.
final class SnapshotBroadcaster: Sendable {
    typealias Snapshot = FetchedResultsSnapshot<String, NSManagedObjectID>
    private struct Subscriber {
        let continuation: AsyncStream<Snapshot>.Continuation
        /// The controller, kept alive while the stream runs; released on its context's queue.
        let keepAlive: KeepAlive
        let context: WeakContext
    }

    /// Holds the controller until emptied on its context's queue.
    final class KeepAlive: @unchecked Sendable {
        // @unchecked Sendable: `object` is set once, then cleared on the context's queue (or when the context is gone).
        var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    private let subscribers = Locked<[Int: Subscriber]>([:])
    private let nextID = Atomic<Int>(0)

    var hasSubscribers: Bool { subscribers.withLock { !$0.isEmpty } }

    func add(_ continuation: AsyncStream<Snapshot>.Continuation, keepingAlive owner: AnyObject, context: NSManagedObjectContext) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = Subscriber(continuation: continuation, keepAlive: KeepAlive(owner), context: WeakContext(context)) }
        continuation.onTermination = { [weak self] _ in
            guard let subscriber = self?.subscribers.withLock({ $0.removeValue(forKey: id) }) else { return }
            // Let go of the controller where it lives.
            let keepAlive = subscriber.keepAlive
            if let context = subscriber.context.context {
                context.perform { keepAlive.object = nil }
            } else {
                keepAlive.object = nil
            }
        }
    }

    func yield(_ snapshot: Snapshot) {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.continuation.yield(snapshot) }
    }

    func finishAll() {
        let all = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for subscriber in all { subscriber.continuation.finish() }
    }
}
