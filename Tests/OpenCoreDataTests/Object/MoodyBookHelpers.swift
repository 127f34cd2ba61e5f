import OpenCoreData

// MARK: - The book's `Managed` protocol and helpers ("Accessing Data", "Relationships")

/// The book's `Managed` protocol. Renamed: here `Managed` is the name of the property macro.
protocol BookManaged: AnyObject {
    static var entityName: String { get }
    static var defaultSortDescriptors: [NSSortDescriptor] { get }
}

extension BookManaged where Self: NSManagedObject {
    static var defaultSortDescriptors: [NSSortDescriptor] { [] }

    /// Every fetch these helpers make is counted in the context's `userInfo`, so a test can tell whether
    /// `findOrFetch` answered from the registered objects or from a fetch.
    static func fetch(in context: NSManagedObjectContext, configurationBlock: (NSFetchRequest<Self>) -> Void = { _ in }) throws -> [Self] {
        let request = NSFetchRequest<Self>(entityName: entityName)
        request.sortDescriptors = defaultSortDescriptors
        configurationBlock(request)
        context.userInfo["fetches"] = fetchCount(in: context) + 1
        return try context.fetch(request)
    }

    static func fetchCount(in context: NSManagedObjectContext) -> Int { context.userInfo["fetches"] as? Int ?? 0 }

    static func findOrCreate(in context: NSManagedObjectContext, matching predicate: NSPredicate, configure: (Self) -> Void) throws -> Self {
        guard let object = try findOrFetch(in: context, matching: predicate) else {
            let newObject: Self = context.insertObject()
            configure(newObject)
            return newObject
        }
        return object
    }

    static func findOrFetch(in context: NSManagedObjectContext, matching predicate: NSPredicate) throws -> Self? {
        guard let object = materializedObject(in: context, matching: predicate) else {
            return try fetch(in: context) { request in
                request.predicate = predicate
                request.returnsObjectsAsFaults = false
                request.fetchLimit = 1
            }.first
        }
        return object
    }

    /// Searches the context's registered objects that are not faults (evaluating a predicate on a fault would
    /// fire it, defeating the purpose).
    static func materializedObject(in context: NSManagedObjectContext, matching predicate: NSPredicate) -> Self? {
        for object in context.registeredObjects where !object.isFault {
            guard let result = object as? Self, predicate.evaluate(with: result) else { continue }
            return result
        }
        return nil
    }
}

extension NSManagedObjectContext {
    /// The book's typed insert.
    func insertObject<A: NSManagedObject>() -> A where A: BookManaged {
        guard let object = NSEntityDescription.insertNewObject(forEntityName: A.entityName, into: self) as? A else {
            fatalError("Wrong object type")
        }
        return object
    }
}

extension Mood: BookManaged {
    static var entityName: String { "Mood" }
    static var defaultSortDescriptors: [NSSortDescriptor] { [NSSortDescriptor(key: "date", ascending: false)] }
}

extension Country: BookManaged {
    static var entityName: String { "Country" }
}

extension Continent: BookManaged {
    static var entityName: String { "Continent" }
}
