import Foundation
import OpenCoreData

/// The results of a batched fetch (SwiftData's `FetchResultsCollection`): a random-access collection whose models'
/// values are read a batch at a time, as they are reached.
///
/// ```swift
/// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 100)
/// for trip in trips.prefix(10) { print(trip.name) }   // one batch read
/// ```
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    private let count_: Int
    private let element: (Int) -> Element

    init(count: Int, element: @escaping (Int) -> Element) {
        count_ = count
        self.element = element
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count_ }

    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count_, "Index \(position) out of range 0..<\(count_)")
        return element(position)
    }
}

extension ModelContext {
    /// The models `descriptor` matches, as a collection that reads their values `batchSize` at a time (Core Data's
    /// batched fetch): for long results of which only part is used.
    ///
    /// ```swift
    /// let trips = try context.fetch(FetchDescriptor<Trip>(), batchSize: 500)
    /// trips.count   // all of them, without reading their values
    /// ```
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        catchUp()
        let request: NSFetchRequest<NSManagedObject> = try descriptor.fetchRequest(.managedObjectResultType)
        request.fetchBatchSize = max(batchSize, 0)
        let objects = try managedObjectContext.fetch(request)
        return FetchResultsCollection(count: objects.count) { self.model(for: objects[$0]) as! T }
    }

    /// The identifiers of the models `descriptor` matches, as a collection (without making the models).
    ///
    /// ```swift
    /// let ids = try context.fetchIdentifiers(FetchDescriptor<Trip>(), batchSize: 1000)
    /// ```
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<PersistentIdentifier> {
        let identifiers = try fetchIdentifiers(descriptor)
        return FetchResultsCollection(count: identifiers.count) { identifiers[$0] }
    }
}
