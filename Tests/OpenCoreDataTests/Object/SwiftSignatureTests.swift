import OpenCoreData
import Testing

// Swift signatures that code written for Apple's Core Data relies on: initializers it calls through `Self` or a
// metatype (so they must be `required`), `performAndWait` in its Objective-C form `(() -> Void) -> Void` used as a
// function value, and the portable spellings of requests whose result type is `NSFetchRequestResult`.

/// The objc.io book's `Managed` protocol: a generic factory that creates `Self` in a context.
private protocol ManagedFactory: NSManagedObject {}

extension ManagedFactory {
    /// `Self(context:)` compiles only when `init(context:)` is `required`.
    static func insert(into context: NSManagedObjectContext) -> Self { Self(context: context) }
}

extension Mood: ManagedFactory {}

extension NSManagedObject {
    /// A class method of the base class creating the receiving class through its metatype.
    class func makeInserted(into context: NSManagedObjectContext) -> Self { self.init(context: context) }
}

extension Continent {
    /// The typed factory Xcode's code generation writes beside the base class's untyped one.
    class func fetchRequest() -> NSFetchRequest<Continent> { NSFetchRequest<Continent>(entityName: "Continent") }
}

/// A coordinator subclass, created through a metatype the way dependency-injection code does.
// @unchecked Sendable: restated from the base class; `tag` is never changed.
private final class TracingCoordinator: NSPersistentStoreCoordinator, @unchecked Sendable {
    var tag = "tracing"
}

@Suite("Swift signatures code written for Apple's Core Data relies on")
struct SwiftSignatureTests {
    @Test func managedObjectsAreCreatedThroughSelfWithInitContext() throws {
        let stack = try MoodyStack()
        let context = stack.context
        context.performAndWait {
            let mood = Mood.insert(into: context)
            #expect(mood.isInserted && mood.entity.name == "Mood")
            let country = Country.makeInserted(into: context)
            #expect(country.isInserted && country.entity.name == "Country")
            let metatype: NSManagedObject.Type = Mood.self
            let made = metatype.init(context: context)
            #expect(made is Mood && made.isInserted)
            #expect(context.insertedObjects.count == 3)
        }
    }

    @Test func coordinatorsAreCreatedThroughTheirMetatype() throws {
        let metatype: NSPersistentStoreCoordinator.Type = TracingCoordinator.self
        let coordinator = metatype.init(managedObjectModel: MoodyModel.shared)
        #expect((coordinator as? TracingCoordinator)?.tag == "tracing")
        #expect(coordinator.managedObjectModel === MoodyModel.shared)
        let again = type(of: coordinator).init(managedObjectModel: coordinator.managedObjectModel)
        #expect(again is TracingCoordinator)
        _ = try again.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        #expect(again.persistentStores.count == 1)
    }

    @Test func performAndWaitInItsObjectiveCFormIsAFunctionValue() throws {
        let stack = try MoodyStack()
        let context = stack.context
        // `(() -> Void) -> Void`: Apple's `-performBlockAndWait:`, as helpers that take "a way to run a block" use it.
        let runInContext: (() -> Void) -> Void = context.performAndWait
        var inserted = 0
        runInContext {
            _ = Mood(context: context)
            inserted = context.insertedObjects.count
        }
        #expect(inserted == 1)

        let runInCoordinator: (() -> Void) -> Void = stack.coordinator.performAndWait
        var storeCount = -1
        runInCoordinator { storeCount = stack.coordinator.persistentStores.count }
        #expect(storeCount == 1)

        // The generic form is still chosen for a block that returns a value or throws.
        let count: Int = context.performAndWait { context.insertedObjects.count }
        #expect(count == 1)
        let names: [String] = stack.coordinator.performAndWait { stack.coordinator.managedObjectModel.entities.compactMap(\.name) }
        #expect(names.contains("Mood"))
    }

    /// `request as! NSFetchRequest<NSFetchRequestResult>` cannot succeed in Swift (generic classes do not cast across
    /// their parameters; the compiler warns "always fails"): the portable spellings build the erased request directly.
    @Test func erasedRequestsHaveAPortableSpelling() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            for rating in 1...3 { Mood(context: context).rating = Int16(rating) }
            try context.save()

            // Instead of `Mood.fetchRequest() as! NSFetchRequest<NSFetchRequestResult>`:
            let erased = Mood.fetchRequest() as NSFetchRequest<NSFetchRequestResult>
            erased.predicate = NSPredicate(format: "rating >= 2")
            #expect(try context.count(for: erased) == 2)
            let byName = NSFetchRequest<NSFetchRequestResult>(entityName: Mood.entity().name!)
            byName.predicate = NSPredicate(format: "rating == 1")
            #expect(try context.count(for: byName) == 1)

            // With Xcode's typed factory beside the base class's untyped one, the type context picks either.
            _ = Continent(context: context)
            try context.save()
            let typed: NSFetchRequest<Continent> = Continent.fetchRequest()
            #expect(try context.fetch(typed).count == 1)
            let untypedContinents = Continent.fetchRequest() as NSFetchRequest<NSFetchRequestResult>
            #expect(try context.count(for: untypedContinents) == 1)

            // A batch delete takes the erased request, as on Apple platforms.
            let delete = NSBatchDeleteRequest(fetchRequest: erased)
            delete.resultType = .resultTypeCount
            let result = try context.execute(delete) as? NSBatchDeleteResult
            #expect(result?.result as? Int == 2)
            context.reset()
            #expect(try context.count(for: NSFetchRequest<Mood>(entityName: "Mood")) == 1)
            #expect(try context.count(for: NSFetchRequest<Continent>(entityName: "Continent")) == 1)
        }
    }
}
