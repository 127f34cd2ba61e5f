import Foundation

@testable import OpenCoreData

/// A fetched results controller on context 0 of the multi-context graph run (the context that merges every other
/// context's saves automatically): the members, in sections by their owner (`owner.id`), ordered by owner, value and
/// id — so moves between owners, merges, undo and redo, inserts and deletes all move rows between sections. After
/// every step the controller's invariants must hold: the delegate's reports, applied to the previous table with
/// UIKit's batch-update rules (`frcReplay`), give exactly the controller's new sections, and those are what a fresh
/// fetch in the same context returns.
final class MCFetchedResultsWatch {
    private let context: NSManagedObjectContext
    private let request: NSFetchRequest<NSManagedObject>
    private let controller: NSFetchedResultsController<NSManagedObject>
    private let recorder = FRCRecorder()
    private var table = FRCTable(sections: [])
    private(set) var deliveries = 0
    private(set) var rowEvents = 0
    private(set) var sectionEvents = 0
    static let sectionKeyPath = "owner.id"

    init(context: NSManagedObjectContext) throws {
        self.context = context
        request = NSFetchRequest<NSManagedObject>(entityName: "Member")
        request.sortDescriptors = [NSSortDescriptor(key: Self.sectionKeyPath, ascending: true), NSSortDescriptor(key: "value", ascending: true),
                                   NSSortDescriptor(key: "id", ascending: true)]
        controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                sectionNameKeyPath: Self.sectionKeyPath, cacheName: nil)
        controller.delegate = recorder
        try refetch()
    }

    /// Fetches again (after `reset()`, which Apple documents as needing a new `performFetch()`).
    func refetch() throws {
        try context.performAndWait {
            try controller.performFetch()
            _ = recorder.take()
            table = FRCTable(controller)
        }
    }

    /// Checks the invariants; returns what is wrong, or nil.
    func check() -> String? {
        context.performAndWait {
            context.processPendingChanges()
            for delivery in recorder.take() {
                deliveries += 1
                for event in delivery {
                    if case .object = event { rowEvents += 1 } else if case .section = event { sectionEvents += 1 }
                }
                do {
                    table = try frcReplay(table, delivery)
                } catch {
                    return "the controller's report cannot be applied to its previous sections (\(error)): \(Self.describe(table))"
                }
            }
            if recorder.strayEvents > 0 { return "\(recorder.strayEvents) delegate calls outside willChange/didChange" }
            let shown = FRCTable(controller)
            guard table == shown else {
                return "the controller's reports give \(Self.describe(table)), its sections are \(Self.describe(shown))"
            }
            do {
                let fresh = try FRCTable.freshFetch(request, sectionNameKeyPath: Self.sectionKeyPath, in: context)
                guard shown == fresh else { return "the controller shows \(Self.describe(shown)), a fresh fetch \(Self.describe(fresh))" }
            } catch {
                return "a fresh fetch failed: \(error)"
            }
            return nil
        }
    }

    private static func describe(_ table: FRCTable) -> String {
        table.sections.map { section in
            "\(section.name): " + section.rows.map { row in
                row.isDeleted || row.managedObjectContext == nil ? "(gone)" : "\((row.value(forKey: "id") as? Int64) ?? -1)"
            }.joined(separator: ",")
        }.joined(separator: " | ")
    }
}
