@testable import OpenCoreData
import Foundation
import Testing

// NSFetchedResultsController: fetching, sections, index titles, Apple's change reporting rules, and the delegate forms.

/// A stack with Items in groups: (uid, rank, group), all active, saved.
private func seeded(_ items: [(Int64, Int, String)], sqlite: Bool = false) throws -> FRCStack {
    let stack = try FRCStack(sqlite: sqlite)
    try stack.context.performAndWait {
        for (uid, rank, group) in items { FRCStack.item(uid, rank: rank, group: group, in: stack.context) }
        try stack.context.save()
    }
    return stack
}

private func itemsRequest(sectioned: Bool = true) -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
    request.predicate = NSPredicate(format: "active == YES")
    request.sortDescriptors = sectioned
        ? [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: true), NSSortDescriptor(key: "uid", ascending: true)]
        : [NSSortDescriptor(key: "rank", ascending: true), NSSortDescriptor(key: "uid", ascending: true)]
    return request
}

private func item(_ uid: Int64, in context: NSManagedObjectContext) throws -> NSManagedObject {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
    request.predicate = NSPredicate(format: "uid == %lld", uid)
    return try #require(try context.fetch(request).first)
}

/// Every Item of the context by uid (fetch first: a fetch ends the current event, so changes made after it form one).
private func itemsByUID(in context: NSManagedObjectContext) throws -> [Int64: NSManagedObject] {
    Dictionary(uniqueKeysWithValues: try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).map { ($0.uid, $0) })
}

/// The uids of the controller's sections.
private func uids(_ controller: NSFetchedResultsController<NSManagedObject>) -> [[Int64]] {
    (controller.sections ?? []).map { ($0.objects ?? []).map { ($0 as! NSManagedObject).uid } }
}

/// The events of one delivery, as text with uids (reads the objects: call it on their context's queue).
private func describe(_ delivery: [FRCEvent]) -> [String] {
    delivery.compactMap { event in
        switch event {
        case .willChange, .didChange: return nil
        case .section(let type, let index, let name): return "section \(type) \(index) \(name)"
        case .object(let object, let type, let old, let new):
            let path = { (p: IndexPath?) in p.map { "\($0[0]).\($0[1])" } ?? "-" }
            return "\(type) \(object.managedObjectContext == nil ? -1 : object.uid) \(path(old))→\(path(new))"
        }
    }
}

@Suite("NSFetchedResultsController")
struct FetchedResultsControllerTests {
    @Test func fetchesSectionsObjectsAndIndexPaths() throws {
        let stack = try seeded([(1, 2, "bananas"), (2, 1, "Apples"), (3, 5, "bananas"), (4, 0, "Cherries"), (5, 3, "Apples")])
        let context = stack.context
        try context.performAndWait {
            let controller = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context,
                                                        sectionNameKeyPath: "group", cacheName: nil)
            #expect(controller.fetchedObjects == nil && controller.sections == nil)
            try controller.performFetch()
            // Strings compare literally: "Apples" < "Cherries" < "bananas".
            #expect(controller.sections?.map(\.name) == ["Apples", "Cherries", "bananas"])
            #expect(uids(controller) == [[2, 5], [4], [1, 3]])
            #expect(controller.sections?.map(\.numberOfObjects) == [2, 1, 2])
            #expect(controller.sections?.map(\.indexTitle) == ["A", "C", "B"])
            #expect(controller.fetchedObjects?.map(\.uid) == [2, 5, 4, 1, 3])
            let third = controller.object(at: IndexPath(row: 0, section: 2))
            #expect(third.uid == 1)
            #expect(controller.indexPath(forObject: third) == IndexPath(row: 0, section: 2))
            #expect(controller.indexPath(forObject: try item(4, in: context)) == IndexPath(item: 0, section: 1))
            #expect(controller.sectionIndexTitles == ["A", "C", "B"])
            #expect(controller.sectionIndexTitle(forSectionName: "bananas") == "B")
            #expect(controller.sectionIndexTitle(forSectionName: "") == nil)
            #expect(controller.section(forSectionIndexTitle: "B", at: 2) == 2)
            #expect(controller.section(forSectionIndexTitle: "C", at: 1) == 1)
            #expect(controller.section(forSectionIndexTitle: "Z", at: 9) == 2, "an unknown title goes to the last section before it")
            #expect(controller.sectionNameKeyPath == "group" && controller.cacheName == nil && controller.managedObjectContext === context)
        }
    }

    @Test func withoutSectionKeyPathThereIsOneSectionEvenWhenEmpty() throws {
        let stack = try FRCStack()
        let context = stack.context
        try context.performAndWait {
            let flat = NSFetchedResultsController(fetchRequest: itemsRequest(sectioned: false), managedObjectContext: context,
                                                  sectionNameKeyPath: nil, cacheName: nil)
            try flat.performFetch()
            #expect(flat.sections?.count == 1)
            #expect(flat.sections?.first?.name == "" && flat.sections?.first?.numberOfObjects == 0 && flat.sections?.first?.indexTitle == nil)
            #expect(flat.fetchedObjects?.isEmpty == true)
            #expect(flat.sectionIndexTitles.isEmpty)
            let grouped = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context,
                                                     sectionNameKeyPath: "group", cacheName: nil)
            try grouped.performFetch()
            #expect(grouped.sections?.count == 0)
        }
    }

    @Test func sectionNamesOfNilAndNumbers() throws {
        let stack = try FRCStack()
        let context = stack.context
        try context.performAndWait {
            FRCStack.item(1, rank: 7, group: nil, in: context)
            FRCStack.item(2, rank: 7, group: "x", in: context)
            FRCStack.item(3, rank: 12, group: "x", in: context)
            let byRank = NSFetchRequest<NSManagedObject>(entityName: "Item")
            byRank.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true), NSSortDescriptor(key: "uid", ascending: true)]
            let ranks = NSFetchedResultsController(fetchRequest: byRank, managedObjectContext: context, sectionNameKeyPath: "rank", cacheName: nil)
            try ranks.performFetch()
            #expect(ranks.sections?.map(\.name) == ["7", "12"])
            let byGroup = NSFetchRequest<NSManagedObject>(entityName: "Item")
            byGroup.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "uid", ascending: true)]
            let groups = NSFetchedResultsController(fetchRequest: byGroup, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            try groups.performFetch()
            #expect(groups.sections?.map(\.name) == ["", "x"], "nil sorts first and names the section \"\"")
            #expect(groups.sections?.map(\.indexTitle) == [nil, "X"])
        }
    }

    @Test func sectionsThatTheSortDoesNotGroupFailTheFetch() throws {
        let stack = try seeded([(1, 1, "b"), (2, 2, "a"), (3, 3, "b")])
        let context = stack.context
        context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            let error = expectCocoaError(NSCoreDataError) { try controller.performFetch() }
            #expect(error?.localizedDescription.contains("out of order section name 'b") == true)
        }
    }

    @Test func onlyManagedObjectResultsAreSupported() throws {
        let stack = try seeded([(1, 1, "a")])
        stack.context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Item")
            request.resultType = .dictionaryResultType
            request.sortDescriptors = [NSSortDescriptor(key: "uid", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: nil)
            expectCocoaError(NSPersistentStoreUnsupportedRequestTypeError) { try controller.performFetch() }
        }
    }

    // MARK: Reporting

    @Test func changesAreReportedInApplesOrderWithOldAndNewIndexPaths() throws {
        let stack = try seeded([(1, 10, "a"), (2, 20, "a"), (3, 30, "a"), (4, 40, "a"), (5, 50, "a")])
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(sectioned: false), managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            let items = try itemsByUID(in: context)
            context.delete(items[1]!)                                 // delete row 0
            FRCStack.item(6, rank: 5, group: "a", in: context)        // insert at the top
            items[3]!.setValue(Int16(60), forKey: "rank")            // row 2 moves to the end
            items[4]!.setValue("new note", forKey: "note")           // row 3 changes in place
        }
        let deliveries = context.performAndWait { recorder.take() }
        try #require(deliveries.count == 1)
        #expect(context.performAndWait { describe(deliveries[0]) } == ["delete 1 0.0→-", "insert 6 -→0.0", "move 3 0.2→0.4", "update 4 0.3→0.2"])
        #expect(context.performAndWait { uids(controller) } == [[6, 2, 4, 5, 3]])
        let replayed = try frcReplay(FRCTable(sections: [.init(name: "", rows: [])]), [.willChange, .didChange])
        #expect(replayed.sections.count == 1)
    }

    @Test func sectionChangesComeBeforeObjectChanges() throws {
        let stack = try seeded([(1, 1, "a"), (2, 2, "b"), (3, 3, "b")])
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            try item(1, in: context).setValue("c", forKey: "group")   // section a disappears, c appears
        }
        let deliveries = context.performAndWait { recorder.take() }
        try #require(deliveries.count == 1)
        #expect(context.performAndWait { describe(deliveries[0]) } == ["section delete 0 a", "section insert 1 c", "move 1 0.0→1.0"])
        #expect(context.performAndWait { controller.sections?.map(\.name) } == ["b", "c"])
    }

    @Test func editsThatKeepTheirPlaceAreUpdatesAndMovesAreFewest() throws {
        let stack = try seeded([(1, 1, "a"), (2, 2, "a"), (3, 3, "a"), (4, 4, "a")])
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(sectioned: false), managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            // Rank changes that keep the order: updates, not moves.
            let items = try itemsByUID(in: context)
            items[2]!.setValue(Int16(2), forKey: "rank")
            items[3]!.setValue(Int16(3), forKey: "rank")
        }
        try context.performAndWait {
            // The first and the last trade places.
            let items = try itemsByUID(in: context)
            items[1]!.setValue(Int16(5), forKey: "rank")
            items[4]!.setValue(Int16(0), forKey: "rank")
        }
        context.performAndWait {}
        let deliveries = context.performAndWait { recorder.take() }
        try #require(deliveries.count == 2)
        #expect(context.performAndWait { describe(deliveries[0]) } == ["update 2 0.1→0.1", "update 3 0.2→0.2"])
        #expect(context.performAndWait { describe(deliveries[1]) }.filter { $0.hasPrefix("move") }.count == 2, "both ends moved past every untouched row")
        #expect(context.performAndWait { uids(controller) } == [[4, 2, 3, 1]])
        try context.performAndWait {
            // Swapping two neighbours takes one move, not two.
            let items = try itemsByUID(in: context)
            items[2]!.setValue(Int16(3), forKey: "rank")
            items[3]!.setValue(Int16(2), forKey: "rank")
        }
        let swap = context.performAndWait { recorder.take() }
        let swapped = context.performAndWait { swap.first.map(describe) ?? [] }
        #expect(swap.count == 1 && swapped.filter { $0.hasPrefix("move") }.count == 1 && swapped.filter { $0.hasPrefix("update") }.count == 1)
    }

    @Test func untouchedRowsAndOtherEntitiesGetNoEvents() throws {
        let stack = try seeded([(1, 1, "a"), (2, 2, "a")])
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            FRCStack.insert("Owner", into: context, ["name": "Ann"])
            FRCStack.item(3, rank: 9, group: "a", active: false, in: context)   // does not match the predicate
            try context.save()
        }
        #expect(context.performAndWait { recorder.take() }.isEmpty)
    }

    // MARK: Delegate forms

    @Test func snapshotDelegatesGetTheContentAfterFetchingAndAfterEachChange() throws {
        final class SnapshotDelegate: NSFetchedResultsControllerSnapshotDelegate {
            var snapshots: [NSDiffableDataSourceSnapshot<String, NSManagedObjectID>] = []
            var objectEvents = 0
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
                snapshots.append(snapshot as NSDiffableDataSourceSnapshot<String, NSManagedObjectID>)
            }
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                            for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) { objectEvents += 1 }
        }
        let stack = try seeded([(1, 1, "a"), (2, 2, "b")])
        let context = stack.context
        let delegate = SnapshotDelegate()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try context.performAndWait {
            controller.delegate = delegate
            try controller.performFetch()
            #expect(delegate.snapshots.count == 1, "Apple's controller hands a snapshot delegate the results right after performFetch()")
            try item(2, in: context).setValue("n", forKey: "note")
            FRCStack.item(3, rank: 0, group: "b", in: context)
        }
        context.performAndWait {
            #expect(delegate.snapshots.count == 2)
            #expect(delegate.objectEvents == 0, "with a snapshot delegate no other change method is called")
            let last = delegate.snapshots.last!
            #expect(last.sectionIdentifiers == ["a", "b"])
            #expect(last.numberOfItems(inSection: "b") == 2)
            #expect(last.itemIdentifiers == controller.fetchedObjects!.map(\.objectID))
            #expect(last.reloadedItemIdentifiers == [controller.fetchedObjects![2].objectID], "the edited object is reloaded")
        }
    }

    @Test func differenceDelegatesOnlyWithoutSections() throws {
        final class DifferenceDelegate: NSFetchedResultsControllerDifferenceDelegate {
            var ids: [NSManagedObjectID] = []
            var differences = 0
            var perChange = 0
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
                differences += 1
                ids = ids.applying(diff)!
            }
            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { perChange += 1 }
        }
        let stack = try seeded([(1, 1, "a"), (2, 2, "a"), (3, 3, "b")])
        let context = stack.context
        let flatDelegate = DifferenceDelegate(), sectionedDelegate = DifferenceDelegate()
        let flat = NSFetchedResultsController(fetchRequest: itemsRequest(sectioned: false), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let sectioned = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try context.performAndWait {
            flat.delegate = flatDelegate
            sectioned.delegate = sectionedDelegate
            try flat.performFetch()
            try sectioned.performFetch()
            let items = try itemsByUID(in: context)
            items[1]!.setValue(Int16(9), forKey: "rank")
            context.delete(items[2]!)
            FRCStack.item(4, rank: 0, group: "a", in: context)
        }
        try context.performAndWait {
            let third = try item(3, in: context)
            try context.save()   // temporary IDs become permanent: the next difference replaces them
            third.setValue(Int16(10), forKey: "rank")
        }
        context.performAndWait {
            #expect(flatDelegate.ids == flat.fetchedObjects!.map(\.objectID))
            #expect(flatDelegate.differences == 3, "one after performFetch(), one per change set")
            #expect(flatDelegate.perChange == 0)
            #expect(sectionedDelegate.differences == 0, "with sections, Apple's controller uses the per-change methods")
            #expect(sectionedDelegate.perChange == 2)
        }
    }

    @Test func delegatesReceiveAViewThatEqualsTheController() throws {
        final class Probe: NSFetchedResultsControllerDelegate {
            var seen: [NSFetchedResultsController<NSFetchRequestResult>] = []
            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { seen.append(controller) }
        }
        let stack = try seeded([(1, 1, "a")])
        let context = stack.context
        let probe = Probe()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try context.performAndWait {
            controller.delegate = probe
            try controller.performFetch()
            FRCStack.item(2, rank: 2, group: "a", in: context)
        }
        try context.performAndWait {
            FRCStack.item(3, rank: 3, group: "a", in: context)
            try context.save()
        }
        context.performAndWait {
            #expect(probe.seen.count == 2)
            let view = probe.seen[0]
            #expect(view === probe.seen[1], "the same view every time")
            #expect(view == controller && controller == view)
            #expect(view.hash == controller.hash)
            #expect((view.object(at: IndexPath(row: 2, section: 0)) as! NSManagedObject).uid == 3)
            #expect(view.fetchedObjects?.count == 3 && view.sections?.first?.numberOfObjects == 3)
            #expect(view.fetchRequest.entityName == "Item" && view.sectionNameKeyPath == "group")
            #expect(view.delegate === probe)
            let untyped = NSFetchedResultsController(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"), managedObjectContext: context,
                                                     sectionNameKeyPath: nil, cacheName: nil)
            #expect(untyped != controller)
            #expect(untyped.engine.owner?.erasedController === untyped, "an NSFetchRequestResult controller is its own view")
        }
    }

    @Test func sectionIndexTitlesComeFromTheDelegateOrASubclass() throws {
        final class FullNames: NSFetchedResultsControllerDelegate {
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
                sectionName.uppercased()
            }
        }
        final class Reversed: NSFetchedResultsController<NSManagedObject> {
            override func sectionIndexTitle(forSectionName sectionName: String) -> String? { String(sectionName.reversed()) }
        }
        let stack = try seeded([(1, 1, "ab"), (2, 2, "cd")])
        let context = stack.context
        let delegate = FullNames()
        try context.performAndWait {
            let withDelegate = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            withDelegate.delegate = delegate
            try withDelegate.performFetch()
            #expect(withDelegate.sectionIndexTitles == ["AB", "CD"])
            let subclass = Reversed(fetchRequest: itemsRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            try subclass.performFetch()
            #expect(subclass.sections?.map(\.indexTitle) == ["ba", "dc"])
            #expect(subclass.section(forSectionIndexTitle: "dc", at: 1) == 1)
        }
    }

    @Test func delegatesMayChangeTheContextFromTheirCallbacks() throws {
        final class Saver: NSFetchedResultsControllerDelegate {
            var calls = 0
            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
                calls += 1
                let context = controller.managedObjectContext
                // Touch the results again from inside the callback (another change set, reported afterwards).
                if calls == 1, let first = controller.fetchedObjects?.first as? NSManagedObject {
                    first.setValue("from the delegate", forKey: "note")
                    context.processPendingChanges()
                }
                try? context.save()
            }
        }
        let stack = try seeded([(1, 1, "a"), (2, 2, "a")])
        let context = stack.context
        let saver = Saver()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try context.performAndWait {
            controller.delegate = saver
            try controller.performFetch()
            FRCStack.item(3, rank: 3, group: "a", in: context)
        }
        context.performAndWait {
            #expect(saver.calls == 2)
            #expect(!context.hasChanges)
            #expect(uids(controller) == [[1, 2, 3]])
        }
    }

    // MARK: Tracking modes

    @Test func withoutADelegateTheResultsStayAsFetched() throws {
        let stack = try seeded([(1, 1, "a")])
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try context.performAndWait {
            try controller.performFetch()
            FRCStack.item(2, rank: 2, group: "a", in: context)
        }
        context.performAndWait {
            #expect(uids(controller) == [[1]], "Apple: no tracking without a delegate")
            controller.delegate = recorder
            #expect(uids(controller) == [[1, 2]], "setting a delegate brings the results up to date, without reporting")
            FRCStack.item(3, rank: 3, group: "a", in: context)
        }
        context.performAndWait {
            #expect(uids(controller) == [[1, 2, 3]])
            #expect(recorder.take().map(describe) == [["insert 3 -→0.2"]])
        }
    }

    @Test func pendingChangesCountOnlyWhenTheRequestIncludesThem() throws {
        let stack = try seeded([(1, 1, "a"), (2, 2, "a")])
        let context = stack.context
        let recorder = FRCRecorder()
        let request = itemsRequest(sectioned: false)
        request.includesPendingChanges = false
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            FRCStack.item(3, rank: 0, group: "a", in: context)
            try item(1, in: context).setValue(false, forKey: "active")
        }
        context.performAndWait {
            #expect(uids(controller) == [[1, 2]], "unsaved changes do not count")
            #expect(recorder.take().map(describe) == [["update 1 0.0→0.0"]], "the edited object is redrawn")
        }
        try context.performAndWait { try context.save() }
        context.performAndWait {
            #expect(uids(controller) == [[3, 2]])
            #expect(recorder.take().map(describe) == [["delete 1 0.0→-", "insert 3 -→0.0"]])
        }
    }

    @Test func fetchLimitAndOffsetAreKept() throws {
        let stack = try seeded((1...6).map { (Int64($0), $0, "a") })
        let context = stack.context
        let recorder = FRCRecorder()
        let request = itemsRequest(sectioned: false)
        request.fetchLimit = 3
        request.fetchOffset = 1
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            #expect(uids(controller) == [[2, 3, 4]])
            context.delete(try item(3, in: context))
        }
        context.performAndWait {
            #expect(uids(controller) == [[2, 4, 5]])
            #expect(recorder.take().map(describe) == [["delete 3 0.1→-", "insert 5 -→0.2"]])
        }
    }

    @Test func batchedResultsStayFaultsUntilUsed() throws {
        let stack = try seeded((1...60).map { (Int64($0), $0, "a") }, sqlite: true)
        defer { stack.removeFiles() }
        let context = stack.newContext()
        let request = itemsRequest(sectioned: false)
        request.fetchBatchSize = 10
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 60)
            let faults = controller.fetchedObjects!.filter { $0.isFault }.count
            #expect(faults == 60)
            FRCStack.item(61, rank: 30, group: "a", in: context)   // placed by binary search: few objects are read
        }
        context.performAndWait {
            #expect(controller.fetchedObjects!.filter { !$0.isFault }.count <= 31, "only the batches the search touched fired")
            #expect(controller.fetchedObjects![30].uid == 61 || controller.fetchedObjects![29].uid == 61)
            #expect(recorder.take().count == 1)
        }
    }

    // MARK: Following other contexts

    @Test func mergedSavesAreFollowedIncludingFaultsAndUnregisteredObjects() throws {
        let stack = try seeded([(1, 1, "a"), (2, 2, "a"), (3, 3, "a")])
        try stack.context.performAndWait { try item(3, in: stack.context).setValue(false, forKey: "active"); try stack.context.save() }
        let context = stack.newContext()
        context.automaticallyMergesChangesFromParent = true
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(sectioned: false), managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            let allFaults = controller.fetchedObjects!.allSatisfy { $0.isFault }
            #expect(allFaults, "fetched as faults")
            #expect(context.registeredObject(for: try stack.context.performAndWait { try item(3, in: stack.context).objectID }) == nil)
        }
        let background = stack.newContext()
        try background.performAndWait {
            try item(3, in: background).setValue(true, forKey: "active")     // not registered in the controller's context
            try item(1, in: background).setValue(Int16(9), forKey: "rank")  // a fault there
            try item(2, in: background).setValue("bg", forKey: "note")
            try background.save()
        }
        context.performAndWait {}
        context.performAndWait {
            #expect(uids(controller) == [[2, 3, 1]])
            let events = recorder.take().flatMap(describe)
            #expect(Set(events) == ["insert 3 -→0.1", "move 1 0.0→0.2", "update 2 0.1→0.0"])
        }
    }

    @Test func aMergeAfterARefreshStillReportsTheUpdate() throws {
        let stack = try seeded([(1, 1, "a"), (2, 2, "a")])
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(sectioned: false), managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        let id = try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            let first = try item(1, in: context)
            context.refresh(first, mergeChanges: false)   // reported, and now a fault
            return first.objectID
        }
        #expect(context.performAndWait { recorder.take().map(describe) } == [["update 1 0.0→0.0"]])
        let background = stack.newContext()
        try background.performAndWait {
            background.object(with: id).setValue("changed elsewhere", forKey: "note")
            try background.save()
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectIDsKey: [id]], into: [context])
        #expect(context.performAndWait { recorder.take().map(describe) } == [["update 1 0.0→0.0"]])
    }

    @Test func refreshAndRollbackAreFollowed() throws {
        let stack = try seeded([(1, 1, "a"), (2, 2, "a")])
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: itemsRequest(sectioned: false), managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            let first = try item(1, in: context)
            first.setValue(Int16(5), forKey: "rank")
            FRCStack.item(3, rank: 0, group: "a", in: context)
        }
        #expect(context.performAndWait { uids(controller) } == [[3, 2, 1]])
        _ = context.performAndWait { recorder.take() }
        context.performAndWait { context.rollback() }
        context.performAndWait {
            #expect(uids(controller) == [[1, 2]])
            #expect(recorder.take().map(describe) == [["delete -1 0.0→-", "move 1 0.2→0.0"]], "the inserted object is invalidated (-1: no context)")
        }
        try context.performAndWait {
            let second = try item(2, in: context)
            second.setValue(Int16(0), forKey: "rank")
            context.processPendingChanges()
            _ = recorder.take()
            context.refresh(second, mergeChanges: false)   // drops the unsaved rank
        }
        context.performAndWait {
            #expect(uids(controller) == [[1, 2]])
            #expect(recorder.take().map(describe) == [["move 2 0.0→0.1"]])
        }
    }

    // MARK: Related objects (extension)

    private func ownersStack() throws -> (FRCStack, [NSManagedObjectID]) {
        let stack = try FRCStack()
        let ids: [NSManagedObjectID] = try stack.context.performAndWait {
            let north = FRCStack.insert("Region", into: stack.context, ["name": "North"])
            let south = FRCStack.insert("Region", into: stack.context, ["name": "South"])
            let ann = FRCStack.insert("Owner", into: stack.context, ["name": "Ann", "weight": Int16(7), "region": north])
            let bob = FRCStack.insert("Owner", into: stack.context, ["name": "Bob", "weight": Int16(3), "region": south])
            FRCStack.item(1, rank: 1, owner: ann, in: stack.context)
            FRCStack.item(2, rank: 2, owner: bob, in: stack.context)
            FRCStack.item(3, rank: 3, owner: ann, in: stack.context)
            try stack.context.save()
            return [ann.objectID, bob.objectID, north.objectID, south.objectID]
        }
        return (stack, ids)
    }

    private func ownerRequest() -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = NSPredicate(format: "owner.weight >= 5")
        request.sortDescriptors = [NSSortDescriptor(key: "owner.region.name", ascending: true), NSSortDescriptor(key: "uid", ascending: true)]
        return request
    }

    @Test func editsOfRelatedObjectsAreNotSeenByDefault() throws {
        let (stack, ids) = try ownersStack()
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: ownerRequest(), managedObjectContext: context,
                                                    sectionNameKeyPath: "owner.region.name", cacheName: nil)
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            #expect(uids(controller) == [[1, 3]])
            context.object(with: ids[1]).setValue(Int16(9), forKey: "weight")   // Bob's items now match
            context.object(with: ids[2]).setValue("Zenith", forKey: "name")      // North renamed
            try context.save()
        }
        try context.performAndWait {
            #expect(recorder.take().isEmpty, "Apple's controller reacts only to changes of the fetched entity's objects")
            #expect(uids(controller) == [[1, 3]] && controller.sections?.map(\.name) == ["North"])
            let fresh = try FRCTable.freshFetch(ownerRequest(), sectionNameKeyPath: "owner.region.name", in: context)
            #expect(fresh.sections.map(\.name) == ["South", "Zenith"])
        }
    }

    @Test func editsOfRelatedObjectsAreFollowedWhenTracked() throws {
        let (stack, ids) = try ownersStack()
        let context = stack.context
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: ownerRequest(), managedObjectContext: context,
                                                    sectionNameKeyPath: "owner.region.name", cacheName: nil)
        controller.tracksRelatedKeyPaths = true
        // Each change is saved, so that a fresh fetch (which matches unsaved changes of *related* objects against their
        // saved values, as Apple's does) sees what the controller evaluates in memory.
        func check(_ expected: [[String]], _ comment: Comment) throws {
            try context.performAndWait {
                try context.save()
                let fresh = try FRCTable.freshFetch(ownerRequest(), sectionNameKeyPath: "owner.region.name", in: context)
                #expect(FRCTable(controller) == fresh, comment)
                #expect(recorder.take().map(describe) == expected, comment)
            }
        }
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            context.object(with: ids[1]).setValue(Int16(9), forKey: "weight")
        }
        try check([["section insert 1 South", "insert 2 -→1.0"]], "Bob's item enters")
        context.performAndWait { context.object(with: ids[2]).setValue("Zenith", forKey: "name") }
        try check([["section delete 0 North", "section insert 1 Zenith", "move 1 0.0→1.0", "move 3 0.1→1.1"]], "North is renamed after South")
        context.performAndWait { context.object(with: ids[0]).setValue(Int16(1), forKey: "weight") }
        try check([["section delete 1 Zenith", "delete 1 1.0→-", "delete 3 1.1→-"]], "Ann's items leave")
        context.performAndWait { context.object(with: ids[1]).setValue("Bobby", forKey: "name") }
        try check([], "a key no key path reads changes nothing")
        // From another context, merged.
        let background = stack.newContext()
        try background.performAndWait {
            background.object(with: ids[0]).setValue(Int16(8), forKey: "weight")
            try background.save()
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectIDsKey: [ids[0]]], into: [context])
        try context.performAndWait {
            let fresh = try FRCTable.freshFetch(ownerRequest(), sectionNameKeyPath: "owner.region.name", in: context)
            #expect(FRCTable(controller) == fresh)
            #expect(Set(recorder.take().flatMap(describe)) == ["section insert 1 Zenith", "insert 1 -→1.0", "insert 3 -→1.1"])
        }
    }

    @Test func relationshipsWithoutInversesAreTrackedByEvaluatingEverything() throws {
        // Note ──tag──▶ Tag, with no inverse: a changed Tag cannot lead back to its notes.
        let note = NSEntityDescription(), tag = NSEntityDescription()
        note.name = "Note"
        tag.name = "Tag"
        let label = NSAttributeDescription()
        label.name = "label"
        label.attributeType = .stringAttributeType
        label.isOptional = true
        let number = NSAttributeDescription()
        number.name = "number"
        number.attributeType = .integer64AttributeType
        number.isOptional = false
        number.defaultValue = 0
        let toTag = NSRelationshipDescription()
        toTag.name = "tag"
        toTag.destinationEntity = tag
        toTag.maxCount = 1
        toTag.isOptional = true
        note.properties = [number, toTag]
        tag.properties = [label]
        let model = NSManagedObjectModel()
        model.entities = [note, tag]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.predicate = NSPredicate(format: "tag.label == 'keep'")
        request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
        let recorder = FRCRecorder()
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        controller.tracksRelatedKeyPaths = true
        #expect(context.performAndWait { RelatedKeyPaths(predicate: request.predicate, sortDescriptors: [], sectionNameKeyPath: nil, entity: note).hasInverses } == false)
        let tagID = try context.performAndWait {
            let first = NSManagedObject(entity: tag, insertInto: context)
            first.setValue("drop", forKey: "label")
            let item = NSManagedObject(entity: note, insertInto: context)
            item.setValue(Int64(1), forKey: "number")
            item.setValue(first, forKey: "tag")
            try context.save()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.fetchedObjects?.isEmpty == true)
            return first.objectID
        }
        try context.performAndWait {
            context.object(with: tagID).setValue("keep", forKey: "label")
            try context.save()
        }
        context.performAndWait {
            #expect(controller.fetchedObjects?.count == 1)
            #expect(recorder.take().count == 1)
        }
    }

    @Test func relatedKeyPathsAreFoundInPredicatesSortsAndSections() {
        let entity = FRCModel.shared.entitiesByName["Item"]!
        let paths = RelatedKeyPaths(predicate: NSPredicate(format: "owner.weight > 1 AND SUBQUERY(owner.items, $i, $i.note == 'x').@count > 0 AND rank > 0"),
                                    sortDescriptors: [NSSortDescriptor(key: "owner.name", ascending: true)],
                                    sectionNameKeyPath: "owner.region.name", entity: entity)
        let chains = Set(paths.chains.map { $0.components.joined(separator: ".") })
        #expect(chains == ["owner.weight", "owner.items", "owner.items.note", "owner.name", "owner.region.name"])
        #expect(paths.hasInverses)
        #expect(RelatedKeyPaths(predicate: NSPredicate(format: "rank > 1"), sortDescriptors: [], sectionNameKeyPath: "group", entity: entity).isEmpty)
    }
}
