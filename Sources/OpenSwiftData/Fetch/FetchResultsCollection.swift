import Foundation
import OpenCoreData

/// The results of a batched fetch (SwiftData's `FetchResultsCollection`): a random-access collection whose models'
/// values are read a batch at a time, as they are reached.
///
/// ```swift
/// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 100)
/// for trip in trips.prefix(10) { print(trip.name) }   // one batch read
/// ```
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    private let objects: [NSManagedObject]
    private let context: ModelContext

    init(objects: [NSManagedObject], context: ModelContext) {
        self.objects = objects
        self.context = context
    }

    public var startIndex: Int { objects.startIndex }
    public var endIndex: Int { objects.endIndex }

    public subscript(position: Int) -> Element {
        context.model(for: objects[position]) as! Element
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
        return FetchResultsCollection(objects: try managedObjectContext.fetch(request), context: self)
    }
}
