import OpenCoreData
import Testing

// NSFetchedResultsController as Apple's behaves for two details apps rely on: a request whose sort descriptors are an
// empty array (Apple raises only when `sortDescriptors` is nil), and the section info handed out for a deleted
// section (empty, as Apple's).

/// Records each section change with what its section info holds at the moment it is handed out.
private final class SectionInfoRecorder: NSFetchedResultsControllerDelegate {
    struct SectionChange: Equatable {
        var type: NSFetchedResultsChangeType
        var index: Int
        var name: String
        var numberOfObjects: Int
        var objectCount: Int?
    }
    var sectionChanges: [SectionChange] = []
    var objectChanges: [(type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)] = []

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        sectionChanges.append(SectionChange(type: type, index: sectionIndex, name: sectionInfo.name,
                                            numberOfObjects: sectionInfo.numberOfObjects, objectCount: sectionInfo.objects?.count))
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        objectChanges.append((type, newIndexPath))
    }
}

@Suite("NSFetchedResultsController: empty sort descriptors and deleted sections")
struct FetchedResultsRequestShapeTests {
    /// Items with (uid, group), saved.
    private func stack(_ items: [(Int64, String)], sqlite: Bool) throws -> FRCStack {
        let stack = try FRCStack(sqlite: sqlite)
        try stack.context.performAndWait {
            for (uid, group) in items { FRCStack.item(uid, group: group, in: stack.context) }
            try stack.context.save()
        }
        return stack
    }

    @Test("sortDescriptors = [] is accepted: the results are every matching object, and changes are tracked", arguments: [false, true])
    func emptySortDescriptors(sqlite: Bool) throws {
        let stack = try stack([(1, "A"), (2, "B"), (3, "A")], sqlite: sqlite)
        defer { stack.removeFiles() }
        let context = stack.context
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "active == YES")
            request.sortDescriptors = []
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let recorder = SectionInfoRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(Set((controller.fetchedObjects ?? []).map(\.uid)) == [1, 2, 3])
            #expect(controller.sections?.count == 1)
            #expect(controller.sections?.first?.numberOfObjects == 3)

            let added = FRCStack.item(4, group: "C", in: context)
            context.processPendingChanges()
            #expect(recorder.objectChanges.count == 1)
            #expect(recorder.objectChanges.first?.type == .insert)
            #expect(controller.fetchedObjects?.contains { $0 === added } == true)
            #expect(controller.fetchedObjects?.count == 4)

            try item(1, in: context).setValue(false, forKey: "active")
            context.processPendingChanges()
            #expect(recorder.objectChanges.count == 2)
            #expect(recorder.objectChanges.last?.type == .delete)
            #expect(Set((controller.fetchedObjects ?? []).map(\.uid)) == [2, 3, 4])
        }
    }

    @Test("the section info of a deleted section holds no objects, as Apple's", arguments: [false, true])
    func deletedSectionInfoIsEmpty(sqlite: Bool) throws {
        let stack = try stack([(1, "A"), (2, "B"), (3, "B"), (4, "C")], sqlite: sqlite)
        defer { stack.removeFiles() }
        let context = stack.context
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "uid", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            let recorder = SectionInfoRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["A", "B", "C"])

            context.delete(try item(2, in: context))
            context.delete(try item(3, in: context))
            FRCStack.item(5, group: "D", in: context)
            context.processPendingChanges()
            #expect(recorder.sectionChanges == [
                .init(type: .delete, index: 1, name: "B", numberOfObjects: 0, objectCount: 0),
                .init(type: .insert, index: 2, name: "D", numberOfObjects: 1, objectCount: 1),
            ])
            #expect(controller.sections?.map(\.name) == ["A", "C", "D"])
        }
    }

    private func item(_ uid: Int64, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = NSPredicate(format: "uid == %lld", uid)
        return try #require(try context.fetch(request).first)
    }
}
