/// The kinds of change a fetched results controller reports, with Apple's raw values.
///
/// For example:
/// ```swift
/// switch type {
/// case .insert: tableView.insertRows(at: [newIndexPath!], with: .fade)
/// case .delete: tableView.deleteRows(at: [indexPath!], with: .fade)
/// case .move:   tableView.moveRow(at: indexPath!, to: newIndexPath!)
/// case .update: tableView.reloadRows(at: [indexPath!], with: .none)
/// @unknown default: break
/// }
/// ```
public enum NSFetchedResultsChangeType: UInt, Sendable, Hashable {
    /// An object entered the results (or a section appeared).
    case insert = 1
    /// An object left the results (or a section disappeared).
    case delete = 2
    /// An object changed position (section or row).
    case move = 3
    /// An object changed in place.
    case update = 4
}

/// A section of a fetched results controller: its name, index title and objects.
///
/// For example:
/// ```swift
/// for section in controller.sections ?? [] {
///     print(section.name, section.numberOfObjects)
/// }
/// ```
public protocol NSFetchedResultsSectionInfo {
    /// The section's name: the value of the controller's `sectionNameKeyPath` for the section's objects.
    var name: String { get }
    /// The section's title in a section index (by default the capitalized first letter of the name).
    var indexTitle: String? { get }
    /// How many objects the section holds.
    var numberOfObjects: Int { get }
    /// The section's objects, in order.
    var objects: [Any]? { get }
}

/// The sections a controller hands out: a range of one state of the results.
final class FetchedResultsSection: NSFetchedResultsSectionInfo, CustomStringConvertible {
    let name: String
    let indexTitle: String?
    private let allObjects: [NSManagedObject]
    private let range: Range<Int>

    init(name: String, indexTitle: String?, objects: [NSManagedObject], range: Range<Int>) {
        self.name = name
        self.indexTitle = indexTitle
        self.allObjects = objects
        self.range = range
    }

    var numberOfObjects: Int { range.count }
    var objects: [Any]? { Array(allObjects[range]) }

    var description: String {
        "<NSFetchedResultsSectionInfo name: \"\(name)\"; indexTitle: \(indexTitle.map { "\"\($0)\"" } ?? "nil"); numberOfObjects: \(numberOfObjects)>"
    }
}
