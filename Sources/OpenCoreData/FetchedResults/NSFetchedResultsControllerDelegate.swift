/// The object a fetched results controller tells about changes to its results, method by method as Apple's
/// `NSFetchedResultsControllerDelegate`.
///
/// Apple's methods are `optional` Objective-C requirements and the controller asks which ones the delegate implements.
/// Swift on Linux has neither, so every method here has a default implementation (doing nothing, or for
/// `controller(_:sectionIndexTitleForSectionName:)` asking the controller; the default of the difference form,
/// `controller(_:didChangeContentWith:)` with a `CollectionDifference<NSManagedObjectID>`, tells the controller it is
/// not implemented). Implement the difference form (controllers without `sectionNameKeyPath`) or adopt
/// ``NSFetchedResultsControllerSnapshotDelegate`` for the whole-content forms; then, as with Apple's, no other change
/// method is called.
///
/// Per change, the controller calls `controllerWillChangeContent`, then every section change, then every object change,
/// then `controllerDidChangeContent`. Index paths follow UIKit's batch-update rules: deletes, moves and updates give the
/// object's index path before the change (`indexPath`), inserts, moves and updates its index path after it
/// (`newIndexPath`).
///
/// For example:
/// ```swift
/// final class MoodList: NSFetchedResultsControllerDelegate {
///     var rows: [[NSManagedObjectID]] = []
///     func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
///                     at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
///         print(type, indexPath as Any, newIndexPath as Any)
///     }
/// }
/// ```
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// The controller is about to report one or more changes.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// An object was inserted, deleted, moved or updated. `indexPath` is nil for inserts, `newIndexPath` for deletes.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)

    /// A section was inserted (at its new index) or deleted (at its old index).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)

    /// The controller has reported all changes of one change set.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// The section index title for a section name. By default the controller's
    /// ``NSFetchedResultsController/sectionIndexTitle(forSectionName:)`` (the capitalized first letter).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String?

    /// The results changed; applying `diff` to the previous object IDs gives the new ones (after `performFetch()`,
    /// the difference from nothing). Apple's difference form: when the delegate implements it and the controller has
    /// no `sectionNameKeyPath`, it is called instead of the change-by-change methods.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}

extension NSFetchedResultsControllerDelegate {
    /// Does nothing by default.
    ///
    /// For example:
    /// ```swift
    /// func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { pending = [] }
    /// ```
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    /// Does nothing by default.
    ///
    /// For example:
    /// ```swift
    /// func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
    ///                 at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
    ///     if type == .insert { print("new row at", newIndexPath!) }
    /// }
    /// ```
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                           for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {}

    /// Does nothing by default.
    ///
    /// For example:
    /// ```swift
    /// func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
    ///                 atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
    ///     print(type, sectionInfo.name)
    /// }
    /// ```
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
                           atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {}

    /// Does nothing by default.
    ///
    /// For example:
    /// ```swift
    /// func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { redraw() }
    /// ```
    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    /// Asks the controller (``NSFetchedResultsController/sectionIndexTitle(forSectionName:)``) by default.
    ///
    /// For example:
    /// ```swift
    /// func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
    ///                 sectionIndexTitleForSectionName sectionName: String) -> String? { sectionName }
    /// ```
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        controller.sectionIndexTitle(forSectionName: sectionName)
    }

    /// Not implemented by default: the controller then reports change by change, as Apple's does for a delegate
    /// that does not implement the difference form (Swift has no `respondsToSelector:`, so this default tells the
    /// controller so when it is called).
    ///
    /// For example:
    /// ```swift
    /// func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
    ///                 didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
    ///     ids = ids.applying(diff)!
    /// }
    /// ```
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                           didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        controller.engine.differenceFormIsDefault = true
    }
}

/// A delegate that receives the whole content as a snapshot of section names and object IDs after each change set (and
/// once after `performFetch()`), Apple's `controller(_:didChangeContentWith:)` with an `NSDiffableDataSourceSnapshotReference`.
/// When the delegate adopts this protocol no other change method is called, as with Apple's.
///
/// For example:
/// ```swift
/// final class MoodList: NSFetchedResultsControllerSnapshotDelegate {
///     func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
///                     didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
///         let typed = snapshot as NSDiffableDataSourceSnapshot<String, NSManagedObjectID>
///         print(typed.numberOfItems)
///     }
/// }
/// ```
public protocol NSFetchedResultsControllerSnapshotDelegate: NSFetchedResultsControllerDelegate {
    /// The results changed; `snapshot` is the new content (objects that changed are in `reloadedItemIdentifiers`).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    didChangeContentWith snapshot: FetchedResultsSnapshot<String, NSManagedObjectID>)
}

/// A delegate that receives each change set as a difference of object IDs, Apple's `controller(_:didChangeContentWith:)`
/// with a `CollectionDifference<NSManagedObjectID>`. Adopting it is optional: the method is a requirement of
/// ``NSFetchedResultsControllerDelegate`` itself, and implementing it there is enough, as on iOS. Used only when the
/// controller has no `sectionNameKeyPath` and the delegate is not a ``NSFetchedResultsControllerSnapshotDelegate``; then
/// no other change method is called.
///
/// For example:
/// ```swift
/// final class MoodIDs: NSFetchedResultsControllerDifferenceDelegate {
///     var ids: [NSManagedObjectID] = []
///     func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
///                     didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
///         ids = ids.applying(diff)!
///     }
/// }
/// ```
public protocol NSFetchedResultsControllerDifferenceDelegate: NSFetchedResultsControllerDelegate {
    /// The results changed; applying `diff` to the previous object IDs gives the new ones.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
                    didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}
