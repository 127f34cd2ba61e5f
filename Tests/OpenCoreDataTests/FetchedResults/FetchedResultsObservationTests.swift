@testable import OpenCoreData
import Foundation
import Testing

// Swift-native observation (snapshot streams, ManagedObjectObserver), IndexPath's table spellings, the snapshot type,
// and Apple-spelled delegate code.

private func request() -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
    request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
    return request
}

@Suite("Fetched results observation")
struct FetchedResultsObservationTests {
    @Test func snapshotStreamsNeedNoDelegate() async throws {
        let stack = try FRCStack()
        let context = stack.context
        let snapshots = try await context.perform {
            FRCStack.item(1, rank: 1, in: context)
            let controller = NSFetchedResultsController(fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            return controller.snapshots()
        }
        var iterator = snapshots.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.numberOfItems == 1 && first.sectionIdentifiers == [""])
        let (secondID, firstID) = await context.perform {
            let second = FRCStack.item(2, rank: 0, in: context)
            return (second.objectID, first.itemIdentifiers[0])
        }
        let next = try #require(await iterator.next())
        #expect(next.itemIdentifiers == [secondID, firstID])
        _ = await context.perform {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "uid == 1")
            (try? context.fetch(request).first)?.setValue("edited", forKey: "note")
        }
        let third = try #require(await iterator.next())
        #expect(third.reloadedItemIdentifiers == [firstID])
    }

    @Test func aStreamKeepsItsControllerAliveUntilItEnds() async throws {
        let stack = try FRCStack()
        let context = stack.context
        let (stream, probe) = try await context.perform {
            let controller = NSFetchedResultsController(fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            return (controller.snapshots(), WeakBox(controller))
        }
        #expect(await context.perform { probe.object != nil })
        let task = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        await context.perform { _ = FRCStack.item(1, rank: 1, in: context) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        #expect(await task.value >= 1)
        for _ in 0..<100 where await context.perform({ probe.object != nil }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await context.perform { probe.object == nil }, "released (on its context's queue) once the stream ended")
    }

    @Test func managedObjectObserverReportsUpdatesAndDeletes() throws {
        let stack = try FRCStack()
        let context = stack.context
        let log = ChangeLog()
        let (observer, id) = try context.performAndWait {
            let item = FRCStack.item(1, in: context)
            try context.save()
            let observer = ManagedObjectObserver(object: item) { log.changes.append($0) }
            return (observer, item.objectID)
        }
        #expect(observer != nil)
        context.performAndWait { context.object(with: id).setValue("x", forKey: "note") }
        context.performAndWait { context.refresh(context.object(with: id), mergeChanges: false) }
        // An update merged from another context while the object is a fault here.
        let background = stack.newContext()
        try background.performAndWait {
            background.object(with: id).setValue("y", forKey: "note")
            try background.save()
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectIDsKey: [id]], into: [context])
        try background.performAndWait {
            background.delete(background.object(with: id))
            try background.save()
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectIDsKey: [id]], into: [context])
        context.performAndWait {
            #expect(log.changes == [.update, .update, .update, .delete])
            withExtendedLifetime(observer) {}
        }
        #expect(ManagedObjectObserver(object: NSManagedObject(entity: FRCModel.shared.entitiesByName["Item"]!, insertInto: nil)) { _ in } == nil)
    }

    @Test func objectChangesAsAStream() async throws {
        let stack = try FRCStack()
        let context = stack.context
        let (changes, id) = await context.perform {
            let item = FRCStack.item(1, in: context)
            return (ManagedObjectObserver.changes(of: item), item.objectID)
        }
        await context.perform { context.object(with: id).setValue("x", forKey: "note") }
        await context.perform { context.delete(context.object(with: id)) }
        var received: [ManagedObjectObserver.ChangeType] = []
        for await change in changes { received.append(change) }
        #expect(received == [.update, .delete])
    }

    // MARK: Spellings

    @Test func indexPathsHaveUIKitsTableSpellings() {
        var path = IndexPath(row: 3, section: 1)
        #expect(path.row == 3 && path.section == 1 && path.item == 3)
        #expect(path == IndexPath(indexes: [1, 3]))
        path.row = 4
        path.section = 2
        #expect(path == IndexPath(item: 4, section: 2))
        #expect(IndexPath(item: 0, section: 5).section == 5)
    }

    @Test func snapshotsHaveTheDiffableDataSourceAPI() {
        var snapshot = NSDiffableDataSourceSnapshot<String, Int>()
        snapshot.appendSections(["a", "c"])
        snapshot.insertSections(["b"], beforeSection: "c")
        snapshot.appendItems([1, 2], toSection: "a")
        snapshot.appendItems([5])
        snapshot.insertItems([3], afterItem: 2)
        snapshot.insertItems([4], beforeItem: 5)
        #expect(snapshot.sectionIdentifiers == ["a", "b", "c"])
        #expect(snapshot.itemIdentifiers == [1, 2, 3, 4, 5])
        #expect(snapshot.numberOfItems == 5 && snapshot.numberOfSections == 3)
        #expect(snapshot.numberOfItems(inSection: "c") == 2)
        #expect(snapshot.sectionIdentifier(containingItem: 4) == "c")
        #expect(snapshot.indexOfItem(4) == 3 && snapshot.indexOfSection("c") == 2 && snapshot.indexOfItem(9) == nil)
        snapshot.moveItem(1, afterItem: 5)
        #expect(snapshot.itemIdentifiers(inSection: "c") == [4, 5, 1])
        snapshot.moveSection("c", beforeSection: "a")
        #expect(snapshot.sectionIdentifiers == ["c", "a", "b"])
        snapshot.reloadItems([2])
        snapshot.reconfigureItems([3])
        snapshot.reloadSections(["b"])
        #expect(snapshot.reloadedItemIdentifiers == [2] && snapshot.reconfiguredItemIdentifiers == [3] && snapshot.reloadedSectionIdentifiers == ["b"])
        snapshot.deleteItems([2, 42])
        snapshot.deleteSections(["c"])
        #expect(snapshot.itemIdentifiers == [3] && snapshot.reloadedItemIdentifiers.isEmpty)
        snapshot.deleteAllItems()
        #expect(snapshot.numberOfSections == 0 && snapshot == FetchedResultsSnapshot())
    }

    @Test func appleSpelledDelegateCodeCompilesAndRuns() throws {
        // Written as on iOS: the untyped request, casts in the callbacks, IndexPath.row/section.
        final class MoodList: NSFetchedResultsControllerDelegate {
            var rows: [String] = []
            var fetchedResultsController: NSFetchedResultsController<NSFetchRequestResult>!

            func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { rows.append("begin") }

            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                            atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
                rows.append("section \(type == .insert ? "+" : "-")\(sectionIndex) \(sectionInfo.name)")
            }

            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                            for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
                switch type {
                case .insert: rows.append("insert \(newIndexPath!.section).\(newIndexPath!.row)")
                case .delete: rows.append("delete \(indexPath!.section).\(indexPath!.row)")
                case .move: rows.append("move \(indexPath!.row)→\(newIndexPath!.row)")
                case .update:
                    let object = controller.object(at: newIndexPath!) as! NSManagedObject
                    rows.append("update \(object.value(forKey: "uid") as! Int64)")
                @unknown default: break
                }
            }

            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
                if controller == fetchedResultsController { rows.append("end") }
            }
        }
        let stack = try FRCStack()
        let context = stack.context
        let list = MoodList()
        try context.performAndWait {
            FRCStack.item(1, rank: 1, group: "a", in: context)
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            controller.delegate = list
            list.fetchedResultsController = controller
            try controller.performFetch()
            let first = controller.object(at: IndexPath(row: 0, section: 0)) as! NSManagedObject
            first.setValue("edited", forKey: "note")
            FRCStack.item(2, rank: 0, group: "b", in: context)
        }
        #expect(context.performAndWait { list.rows } == ["begin", "section +1 b", "insert 1.0", "update 1", "end"])
    }
}

/// A weak reference readable from tests.
final class WeakBox: @unchecked Sendable {
    // @unchecked Sendable: read only on the object's context's queue in these tests.
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

/// Changes an observer reported (appended and read on the context's queue).
final class ChangeLog: @unchecked Sendable {
    // @unchecked Sendable: appended and read on one context's queue.
    var changes: [ManagedObjectObserver.ChangeType] = []
}
