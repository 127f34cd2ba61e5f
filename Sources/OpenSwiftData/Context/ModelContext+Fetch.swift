import Foundation
import OpenCoreData

extension ModelContext {
    /// The models `descriptor` matches, in its order. A predicate that cannot run in the store throws
    /// ``SwiftDataError/unsupportedPredicate``.
    ///
    /// ```swift
    /// let recent = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.start > cutoff }))
    /// ```
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        catchUp()
        let request: NSFetchRequest<NSManagedObject> = try descriptor.fetchRequest(.managedObjectResultType)
        return try lending(descriptor) { try managedObjectContext.fetch(request) }.map { model(for: $0) as! T }
    }

    /// How many models `descriptor` matches (its limit and offset apply).
    ///
    /// ```swift
    /// let count = try context.fetchCount(FetchDescriptor<Trip>())
    /// ```
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        catchUp()
        let request: NSFetchRequest<NSManagedObject> = try descriptor.fetchRequest(.managedObjectResultType)
        return try lending(descriptor) { try managedObjectContext.count(for: request) }
    }

    /// The identifiers of the models `descriptor` matches, without making the models.
    ///
    /// ```swift
    /// let ids = try context.fetchIdentifiers(FetchDescriptor<Trip>())
    /// ```
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        catchUp()
        let request: NSFetchRequest<NSManagedObjectID> = try descriptor.fetchRequest(.managedObjectIDResultType)
        return try lending(descriptor) { try managedObjectContext.fetch(request) }.map(PersistentIdentifier.init)
    }

    /// Calls `block` with each model `descriptor` matches, reading them `batchSize` at a time.
    ///
    /// ```swift
    /// try context.enumerate(FetchDescriptor<Trip>(), batchSize: 500) { trip in total += trip.stops.count }
    /// ```
    public func enumerate<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
                                              block: (T) throws -> Void) throws {
        catchUp()
        let request: NSFetchRequest<NSManagedObjectID> = try descriptor.fetchRequest(.managedObjectIDResultType)
        let ids = try lending(descriptor) { try managedObjectContext.fetch(request) }
        let size = max(batchSize, 1)
        var start = 0
        while start < ids.count {
            let batch = Array(ids[start..<min(start + size, ids.count)])
            let objects = try managedObjectContext.fetch(Self.objectsRequest(batch, entityName: Schema.entityName(of: T.self)))
            let byID = Dictionary(objects.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
            for id in batch {
                guard let object = byID[id] ?? managedObjectContext.registeredObject(for: id) else { continue }
                try block(model(for: object) as! T)
            }
            start += size
        }
    }

    /// A request for the objects with `ids` (one batch of an enumeration), their values read at once.
    private static func objectsRequest(_ ids: [NSManagedObjectID], entityName: String) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        request.predicate = OpenCoreData.NSPredicate(format: "self IN %@", ids)
        request.returnsObjectsAsFaults = false
        return request
    }
}
