/// A snapshot of sectioned, ordered identifiers: the shape of UIKit's and AppKit's `NSDiffableDataSourceSnapshot`,
/// which does not exist outside Apple platforms. A fetched results controller hands one (with section names and object
/// IDs) to a snapshot delegate and to ``NSFetchedResultsController/snapshots(bufferingPolicy:)``.
///
/// Where UIKit and AppKit cannot be imported, `NSDiffableDataSourceSnapshot` and `NSDiffableDataSourceSnapshotReference`
/// name this type, so Apple's spelling (`snapshot as NSDiffableDataSourceSnapshot<String, NSManagedObjectID>`) compiles.
///
/// For example:
/// ```swift
/// var snapshot = FetchedResultsSnapshot<String, NSManagedObjectID>()
/// snapshot.appendSections(["Europe"])
/// snapshot.appendItems([france.objectID], toSection: "Europe")
/// print(snapshot.numberOfItems)   // 1
/// ```
public struct FetchedResultsSnapshot<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>: Sendable, Equatable {
    private var sectionIDs: [SectionIdentifierType] = []
    private var itemsBySection: [[ItemIdentifierType]] = []
    private var sectionIndexByID: [SectionIdentifierType: Int] = [:]
    private var sectionOfItem: [ItemIdentifierType: SectionIdentifierType] = [:]
    /// The items marked for reloading (for a controller's snapshot: objects that changed).
    public private(set) var reloadedItemIdentifiers: [ItemIdentifierType] = []
    /// The items marked for reconfiguring.
    public private(set) var reconfiguredItemIdentifiers: [ItemIdentifierType] = []
    /// The sections marked for reloading.
    public private(set) var reloadedSectionIdentifiers: [SectionIdentifierType] = []

    /// Creates an empty snapshot.
    ///
    /// For example:
    /// ```swift
    /// var snapshot = FetchedResultsSnapshot<Int, String>()
    /// ```
    public init() {}

    // MARK: Reading

    /// How many items the snapshot holds.
    ///
    /// For example:
    /// ```swift
    /// print(snapshot.numberOfItems)
    /// ```
    public var numberOfItems: Int { sectionOfItem.count }

    /// How many sections the snapshot holds.
    ///
    /// For example:
    /// ```swift
    /// print(snapshot.numberOfSections)
    /// ```
    public var numberOfSections: Int { sectionIDs.count }

    /// The sections, in order.
    ///
    /// For example:
    /// ```swift
    /// let names = snapshot.sectionIdentifiers   // ["Africa", "Europe"]
    /// ```
    public var sectionIdentifiers: [SectionIdentifierType] { sectionIDs }

    /// Every item, section by section.
    ///
    /// For example:
    /// ```swift
    /// let ids = snapshot.itemIdentifiers
    /// ```
    public var itemIdentifiers: [ItemIdentifierType] { itemsBySection.flatMap { $0 } }

    /// How many items a section holds (stops the program for an unknown section, as Apple's).
    ///
    /// For example:
    /// ```swift
    /// snapshot.numberOfItems(inSection: "Europe")
    /// ```
    public func numberOfItems(inSection identifier: SectionIdentifierType) -> Int {
        itemsBySection[requireSection(identifier)].count
    }

    /// The items of a section, in order (stops the program for an unknown section, as Apple's).
    ///
    /// For example:
    /// ```swift
    /// let european = snapshot.itemIdentifiers(inSection: "Europe")
    /// ```
    public func itemIdentifiers(inSection identifier: SectionIdentifierType) -> [ItemIdentifierType] {
        itemsBySection[requireSection(identifier)]
    }

    /// The section holding an item, if the snapshot has it.
    ///
    /// For example:
    /// ```swift
    /// snapshot.sectionIdentifier(containingItem: mood.objectID)   // "Europe"
    /// ```
    public func sectionIdentifier(containingItem identifier: ItemIdentifierType) -> SectionIdentifierType? {
        sectionOfItem[identifier]
    }

    /// The position of an item among all items, if the snapshot has it.
    ///
    /// For example:
    /// ```swift
    /// snapshot.indexOfItem(mood.objectID)   // 4
    /// ```
    public func indexOfItem(_ identifier: ItemIdentifierType) -> Int? {
        guard let section = sectionOfItem[identifier], let sectionIndex = sectionIndexByID[section],
            let row = itemsBySection[sectionIndex].firstIndex(of: identifier)
        else { return nil }
        return itemsBySection[..<sectionIndex].reduce(row) { $0 + $1.count }
    }

    /// The position of a section, if the snapshot has it.
    ///
    /// For example:
    /// ```swift
    /// snapshot.indexOfSection("Europe")   // 1
    /// ```
    public func indexOfSection(_ identifier: SectionIdentifierType) -> Int? {
        sectionIndexByID[identifier]
    }

    // MARK: Items

    /// Adds items at the end of a section (the last section when nil).
    ///
    /// For example:
    /// ```swift
    /// snapshot.appendItems([a, b], toSection: "Europe")
    /// ```
    public mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection sectionIdentifier: SectionIdentifierType? = nil) {
        guard let section = sectionIdentifier ?? sectionIDs.last else {
            preconditionFailure("There are currently no sections in the data source. Please add a section first.")
        }
        let index = requireSection(section)
        claim(identifiers, for: section)
        itemsBySection[index].append(contentsOf: identifiers)
    }

    /// Inserts items before an item already in the snapshot.
    ///
    /// For example:
    /// ```swift
    /// snapshot.insertItems([new], beforeItem: first)
    /// ```
    public mutating func insertItems(_ identifiers: [ItemIdentifierType], beforeItem beforeIdentifier: ItemIdentifierType) {
        let (section, row) = requireItem(beforeIdentifier)
        claim(identifiers, for: sectionIDs[section])
        itemsBySection[section].insert(contentsOf: identifiers, at: row)
    }

    /// Inserts items after an item already in the snapshot.
    ///
    /// For example:
    /// ```swift
    /// snapshot.insertItems([new], afterItem: last)
    /// ```
    public mutating func insertItems(_ identifiers: [ItemIdentifierType], afterItem afterIdentifier: ItemIdentifierType) {
        let (section, row) = requireItem(afterIdentifier)
        claim(identifiers, for: sectionIDs[section])
        itemsBySection[section].insert(contentsOf: identifiers, at: row + 1)
    }

    /// Removes items (unknown ones are ignored).
    ///
    /// For example:
    /// ```swift
    /// snapshot.deleteItems([gone])
    /// ```
    public mutating func deleteItems(_ identifiers: [ItemIdentifierType]) {
        var doomed = Set<ItemIdentifierType>()
        for identifier in identifiers where sectionOfItem.removeValue(forKey: identifier) != nil { doomed.insert(identifier) }
        guard !doomed.isEmpty else { return }
        for index in itemsBySection.indices { itemsBySection[index].removeAll { doomed.contains($0) } }
        reloadedItemIdentifiers.removeAll { doomed.contains($0) }
        reconfiguredItemIdentifiers.removeAll { doomed.contains($0) }
    }

    /// Removes every item and section.
    ///
    /// For example:
    /// ```swift
    /// snapshot.deleteAllItems()
    /// ```
    public mutating func deleteAllItems() {
        self = FetchedResultsSnapshot()
    }

    /// Moves an item before another one.
    ///
    /// For example:
    /// ```swift
    /// snapshot.moveItem(last, beforeItem: first)
    /// ```
    public mutating func moveItem(_ identifier: ItemIdentifierType, beforeItem toIdentifier: ItemIdentifierType) {
        moveItem(identifier, relativeTo: toIdentifier, after: false)
    }

    /// Moves an item after another one.
    ///
    /// For example:
    /// ```swift
    /// snapshot.moveItem(first, afterItem: last)
    /// ```
    public mutating func moveItem(_ identifier: ItemIdentifierType, afterItem toIdentifier: ItemIdentifierType) {
        moveItem(identifier, relativeTo: toIdentifier, after: true)
    }

    /// Marks items for reloading.
    ///
    /// For example:
    /// ```swift
    /// snapshot.reloadItems([mood.objectID])
    /// ```
    public mutating func reloadItems(_ identifiers: [ItemIdentifierType]) {
        for identifier in identifiers {
            _ = requireItem(identifier)
            if !reloadedItemIdentifiers.contains(identifier) { reloadedItemIdentifiers.append(identifier) }
        }
    }

    /// Marks items for reconfiguring (updating their cells in place).
    ///
    /// For example:
    /// ```swift
    /// snapshot.reconfigureItems([mood.objectID])
    /// ```
    public mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) {
        for identifier in identifiers {
            _ = requireItem(identifier)
            if !reconfiguredItemIdentifiers.contains(identifier) { reconfiguredItemIdentifiers.append(identifier) }
        }
    }

    // MARK: Sections

    /// Adds sections at the end.
    ///
    /// For example:
    /// ```swift
    /// snapshot.appendSections(["Africa", "Europe"])
    /// ```
    public mutating func appendSections(_ identifiers: [SectionIdentifierType]) {
        insertSections(identifiers, at: sectionIDs.count)
    }

    /// Inserts sections before a section already in the snapshot.
    ///
    /// For example:
    /// ```swift
    /// snapshot.insertSections(["Africa"], beforeSection: "Europe")
    /// ```
    public mutating func insertSections(_ identifiers: [SectionIdentifierType], beforeSection toIdentifier: SectionIdentifierType) {
        insertSections(identifiers, at: requireSection(toIdentifier))
    }

    /// Inserts sections after a section already in the snapshot.
    ///
    /// For example:
    /// ```swift
    /// snapshot.insertSections(["Europe"], afterSection: "Africa")
    /// ```
    public mutating func insertSections(_ identifiers: [SectionIdentifierType], afterSection toIdentifier: SectionIdentifierType) {
        insertSections(identifiers, at: requireSection(toIdentifier) + 1)
    }

    /// Removes sections and their items (unknown ones are ignored).
    ///
    /// For example:
    /// ```swift
    /// snapshot.deleteSections(["Antarctica"])
    /// ```
    public mutating func deleteSections(_ identifiers: [SectionIdentifierType]) {
        let doomed = Set(identifiers.filter { sectionIndexByID[$0] != nil })
        guard !doomed.isEmpty else { return }
        var items: [ItemIdentifierType] = []
        for (index, section) in sectionIDs.enumerated() where doomed.contains(section) { items += itemsBySection[index] }
        deleteItems(items)
        let kept = sectionIDs.indices.filter { !doomed.contains(sectionIDs[$0]) }
        sectionIDs = kept.map { sectionIDs[$0] }
        itemsBySection = kept.map { itemsBySection[$0] }
        reloadedSectionIdentifiers.removeAll { doomed.contains($0) }
        reindexSections()
    }

    /// Moves a section before another one.
    ///
    /// For example:
    /// ```swift
    /// snapshot.moveSection("Europe", beforeSection: "Africa")
    /// ```
    public mutating func moveSection(_ identifier: SectionIdentifierType, beforeSection toIdentifier: SectionIdentifierType) {
        moveSection(identifier, relativeTo: toIdentifier, after: false)
    }

    /// Moves a section after another one.
    ///
    /// For example:
    /// ```swift
    /// snapshot.moveSection("Africa", afterSection: "Europe")
    /// ```
    public mutating func moveSection(_ identifier: SectionIdentifierType, afterSection toIdentifier: SectionIdentifierType) {
        moveSection(identifier, relativeTo: toIdentifier, after: true)
    }

    /// Marks sections for reloading.
    ///
    /// For example:
    /// ```swift
    /// snapshot.reloadSections(["Europe"])
    /// ```
    public mutating func reloadSections(_ identifiers: [SectionIdentifierType]) {
        for identifier in identifiers {
            _ = requireSection(identifier)
            if !reloadedSectionIdentifiers.contains(identifier) { reloadedSectionIdentifiers.append(identifier) }
        }
    }

    // MARK: Helpers

    private func requireSection(_ identifier: SectionIdentifierType) -> Int {
        guard let index = sectionIndexByID[identifier] else {
            preconditionFailure("Invalid section identifier \(identifier): the snapshot has no such section.")
        }
        return index
    }

    private func requireItem(_ identifier: ItemIdentifierType) -> (section: Int, row: Int) {
        guard let section = sectionOfItem[identifier], let index = sectionIndexByID[section],
            let row = itemsBySection[index].firstIndex(of: identifier)
        else {
            preconditionFailure("Invalid item identifier \(identifier): the snapshot has no such item.")
        }
        return (index, row)
    }

    private mutating func claim(_ identifiers: [ItemIdentifierType], for section: SectionIdentifierType) {
        for identifier in identifiers {
            guard sectionOfItem.updateValue(section, forKey: identifier) == nil else {
                preconditionFailure("Duplicate item identifier \(identifier): item identifiers must be unique in a snapshot.")
            }
        }
    }

    private mutating func insertSections(_ identifiers: [SectionIdentifierType], at index: Int) {
        for identifier in identifiers where sectionIndexByID[identifier] != nil || identifiers.filter({ $0 == identifier }).count > 1 {
            preconditionFailure("Duplicate section identifier \(identifier): section identifiers must be unique in a snapshot.")
        }
        sectionIDs.insert(contentsOf: identifiers, at: index)
        itemsBySection.insert(contentsOf: identifiers.map { _ in [] }, at: index)
        reindexSections()
    }

    private mutating func reindexSections() {
        sectionIndexByID = Dictionary(uniqueKeysWithValues: sectionIDs.enumerated().map { ($1, $0) })
    }

    private mutating func moveItem(_ identifier: ItemIdentifierType, relativeTo target: ItemIdentifierType, after: Bool) {
        guard identifier != target else { return }
        let (fromSection, fromRow) = requireItem(identifier)
        _ = requireItem(target)
        itemsBySection[fromSection].remove(at: fromRow)
        sectionOfItem[identifier] = nil
        let (toSection, toRow) = requireItem(target)
        itemsBySection[toSection].insert(identifier, at: after ? toRow + 1 : toRow)
        sectionOfItem[identifier] = sectionIDs[toSection]
    }

    private mutating func moveSection(_ identifier: SectionIdentifierType, relativeTo target: SectionIdentifierType, after: Bool) {
        guard identifier != target else { return }
        let from = requireSection(identifier)
        _ = requireSection(target)
        let items = itemsBySection.remove(at: from)
        sectionIDs.remove(at: from)
        reindexSections()
        let to = requireSection(target) + (after ? 1 : 0)
        sectionIDs.insert(identifier, at: to)
        itemsBySection.insert(items, at: to)
        reindexSections()
    }
}

#if !canImport(UIKit) && !canImport(AppKit)
/// Apple's name (UIKit and AppKit) for a snapshot of section and item identifiers; here ``FetchedResultsSnapshot``.
///
/// For example:
/// ```swift
/// let typed = snapshot as NSDiffableDataSourceSnapshot<String, NSManagedObjectID>
/// ```
public typealias NSDiffableDataSourceSnapshot<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable> =
    FetchedResultsSnapshot<SectionIdentifierType, ItemIdentifierType>

/// Apple's Objective-C snapshot class, as a fetched results controller hands it to its delegate: section names and
/// object IDs.
///
/// For example:
/// ```swift
/// func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
///                 didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
///     let typed = snapshot as NSDiffableDataSourceSnapshot<String, NSManagedObjectID>
/// }
/// ```
public typealias NSDiffableDataSourceSnapshotReference = FetchedResultsSnapshot<String, NSManagedObjectID>
#endif
