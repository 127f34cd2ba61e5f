import Foundation
import OpenCoreData

/// What to fetch (SwiftData's `FetchDescriptor`): a `#Predicate`, `SortDescriptor`s, a limit and an offset. The
/// predicate and the sort run in SQL (converted to Core Data's `NSPredicate`/`NSSortDescriptor`).
///
/// ```swift
/// var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name.starts(with: "L") }, sortBy: [SortDescriptor(\.name)])
/// descriptor.fetchLimit = 10
/// let trips = try context.fetch(descriptor)
/// ```
public struct FetchDescriptor<T: PersistentModel>: @unchecked Sendable {
    // @unchecked Sendable: Predicate and SortDescriptor are Sendable; the key paths are immutable values.

    /// Which models to fetch (all when nil).
    public var predicate: Predicate<T>?
    /// The order of the results.
    public var sortBy: [SortDescriptor<T>]
    /// The most models to return.
    public var fetchLimit: Int?
    /// How many of the matching models to skip.
    public var fetchOffset: Int?
    /// Whether the context's unsaved insertions, changes and deletions count (true by default).
    public var includePendingChanges: Bool = true
    /// The properties to read (a hint: every model's values are read with its row in this implementation).
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships whose models are read with the results (one query per relationship).
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }

    /// How strings compare: the descriptor's comparator — `.localizedStandard` (Foundation's default for a `String`
    /// key path: numbers by value, case ignored, as Finder sorts) or `.lexical` (code point order).
    static func selector(_ descriptor: SortDescriptor<T>, keyPath: PartialKeyPath<T>) -> Selector? {
        let valueType = type(of: keyPath).valueType
        guard valueType == String.self || valueType == String?.self else { return nil }
        return descriptor.stringComparator == String.StandardComparator.lexical ? nil : Selector("localizedStandardCompare:")
    }

    /// The Core Data fetch request of this descriptor.
    func fetchRequest<Result: NSFetchRequestResult>(_ resultType: NSFetchRequestResultType) throws -> NSFetchRequest<Result> {
        let request = NSFetchRequest<Result>(entityName: Schema.entityName(of: T.self))
        request.resultType = resultType
        if let predicate {
            do {
                request.predicate = try OpenCoreData.NSPredicate(converting: predicate)
            } catch {
                throw SwiftDataError(.unsupportedPredicate, "The predicate cannot be run in the store: \((error as NSError).localizedDescription)", underlying: error)
            }
        }
        request.sortDescriptors = try sortBy.map { descriptor in
            guard let keyPath = descriptor.keyPath, let name = ModelKeyPaths.name(of: keyPath) else {
                throw SwiftDataError(.unsupportedSortDescriptor, "Sort descriptors must sort by a persisted property's key path.")
            }
            return OpenCoreData.NSSortDescriptor(key: name, ascending: descriptor.order == .forward, selector: Self.selector(descriptor, keyPath: keyPath))
        }
        if let fetchLimit { request.fetchLimit = max(fetchLimit, 0) }
        if let fetchOffset { request.fetchOffset = max(fetchOffset, 0) }
        request.includesPendingChanges = includePendingChanges
        if !relationshipKeyPathsForPrefetching.isEmpty {
            request.relationshipKeyPathsForPrefetching = try relationshipKeyPathsForPrefetching.map { keyPath in
                guard let name = ModelKeyPaths.name(of: keyPath) else {
                    throw SwiftDataError(.unsupportedKeyPath, "\(keyPath) is not a relationship to prefetch.")
                }
                return name
            }
        }
        return request
    }
}
