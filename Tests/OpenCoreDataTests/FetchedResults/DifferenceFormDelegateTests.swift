import OpenCoreData
import Testing

// Apple's difference form of the delegate, `controller(_:didChangeContentWith:)` with a
// `CollectionDifference<NSManagedObjectID>`, implemented on a delegate that adopts only
// `NSFetchedResultsControllerDelegate`, as iOS code writes it.

@Suite struct DifferenceFormDelegateTests {
    /// A delegate written as on iOS: it adopts the plain protocol and implements the difference method.
    final class IDList: NSFetchedResultsControllerDelegate {
        var ids: [NSManagedObjectID] = []
        var differences: [CollectionDifference<NSManagedObjectID>] = []
        var changeByChangeCalls = 0
        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
            differences.append(diff)
            ids = ids.applying(diff)!
        }
        func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { changeByChangeCalls += 1 }
        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { changeByChangeCalls += 1 }
    }

    /// A delegate that implements only the change-by-change methods.
    final class RowLog: NSFetchedResultsControllerDelegate {
        var changes: [NSFetchedResultsChangeType] = []
        var didChangeContent = 0
        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) { changes.append(type) }
        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { didChangeContent += 1 }
    }

    private func stackWithItems() throws -> FRCStack {
        let stack = try FRCStack()
        try stack.context.performAndWait {
            for uid in 1...3 { FRCStack.item(Int64(uid), rank: uid, in: stack.context) }
            try stack.context.save()
        }
        return stack
    }

    private func byRank() -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        return request
    }

    @Test func aPlainDelegateImplementingTheDifferenceFormGetsTheRealInsertionsAndRemovals() throws {
        let stack = try stackWithItems()
        let context = stack.context
        let delegate = IDList()
        let controller = NSFetchedResultsController(fetchRequest: byRank(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            controller.delegate = delegate
            try controller.performFetch()
        }
        let (before, removedID, insertedID) = context.performAndWait {
            let before = controller.fetchedObjects!.map(\.objectID)
            let second = controller.fetchedObjects![1]
            context.delete(second)
            let inserted = FRCStack.item(9, rank: 0, in: context)   // rank 0: first in the order
            context.processPendingChanges()   // the end of the event: the controller reports the change set
            return (before, second.objectID, inserted.objectID)
        }
        try context.performAndWait {
            #expect(delegate.differences.count == 2, "one after performFetch(), one for the change set")
            #expect(delegate.changeByChangeCalls == 0, "with the difference form, no change-by-change method is called")
            let first = try #require(delegate.differences.first)
            #expect(first.insertions.count == 3 && first.removals.isEmpty, "after performFetch(): the difference from nothing")
            let change = try #require(delegate.differences.last)
            let removals = change.removals.map { removal -> (Int, NSManagedObjectID) in
                guard case .remove(let offset, let id, _) = removal else { fatalError("not a removal") }
                return (offset, id)
            }
            let insertions = change.insertions.map { insertion -> (Int, NSManagedObjectID) in
                guard case .insert(let offset, let id, _) = insertion else { fatalError("not an insertion") }
                return (offset, id)
            }
            #expect(removals.map(\.0) == [1] && removals.map(\.1) == [removedID], "the deleted object was at offset 1")
            #expect(insertions.map(\.0) == [0] && insertions.map(\.1) == [insertedID], "the new object sorts first")
            #expect(before.applying(change) == controller.fetchedObjects!.map(\.objectID))
            #expect(delegate.ids == controller.fetchedObjects!.map(\.objectID))
        }
    }

    @Test func aDelegateWithoutTheDifferenceFormStillGetsChangeByChange() throws {
        let stack = try stackWithItems()
        let context = stack.context
        let delegate = RowLog()
        let controller = NSFetchedResultsController(fetchRequest: byRank(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            controller.delegate = delegate
            try controller.performFetch()
            FRCStack.item(7, rank: 7, in: context)
            try context.save()
            context.delete(controller.fetchedObjects![0])
            try context.save()
        }
        context.performAndWait {
            #expect(delegate.changes == [.insert, .delete])
            #expect(delegate.didChangeContent == 2)
        }
    }

    @Test func withSectionsTheDifferenceFormIsNotUsed() throws {
        let stack = try stackWithItems()
        let context = stack.context
        let delegate = IDList()
        let request = byRank()
        request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try context.performAndWait {
            controller.delegate = delegate
            try controller.performFetch()
            FRCStack.item(8, rank: 8, in: context)
            try context.save()
        }
        context.performAndWait {
            #expect(delegate.differences.isEmpty)
            #expect(delegate.changeByChangeCalls == 2)
        }
    }
}
