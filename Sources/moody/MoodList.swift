import OpenCoreData

/// The book's mood list: moods grouped by country (sections) through an `NSFetchedResultsController`, printing
/// the changes it reports as a table view would apply them.
final class MoodList: NSFetchedResultsControllerDelegate {
    let controller: NSFetchedResultsController<Mood>

    init(context: NSManagedObjectContext) throws {
        let request = NSFetchRequest<Mood>(entityName: "Mood")
        request.sortDescriptors = [NSSortDescriptor(key: "country.numericISO3166Code", ascending: true), NSSortDescriptor(key: "date", ascending: true)]
        request.fetchBatchSize = 20
        controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                sectionNameKeyPath: "country.numericISO3166Code", cacheName: nil)
        controller.delegate = self
        try controller.performFetch()
    }

    /// Prints the sections and their rows.
    func show() {
        for (index, section) in (controller.sections ?? []).enumerated() {
            let code = Int16(section.name) ?? 0
            print("  section \(index) \(Geography.countryName(code)): \(section.numberOfObjects) mood(s)")
        }
    }

    static func describe(_ indexPath: IndexPath?) -> String {
        indexPath.map { "[\($0.section), \($0.row)]" } ?? "-"
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        print("  list: begin updates")
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        print("  list: \(type == .insert ? "insert" : "delete") section \(sectionIndex) (\(Geography.countryName(Int16(sectionInfo.name) ?? 0)))")
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        let rating = (anObject as? Mood)?.rating ?? -1
        switch type {
        case .insert: print("  list: insert row \(Self.describe(newIndexPath)) (rating \(rating))")
        case .delete: print("  list: delete row \(Self.describe(indexPath))")
        case .move: print("  list: move row \(Self.describe(indexPath)) → \(Self.describe(newIndexPath))")
        case .update: print("  list: reload row \(Self.describe(indexPath)) (rating \(rating))")
        @unknown default: break
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        print("  list: end updates (\(controller.fetchedObjects?.count ?? 0) moods)")
    }
}
