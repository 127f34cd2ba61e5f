import OpenCoreData
import Testing

/// Models compare by content, as Apple's do: JSQCoreDataKit's suite finds "the model in the bundle that opens this
/// store" and checks it with `XCTAssertEqual(foundModel, NSManagedObjectModel(contentsOf: versionURL))`, and compares
/// an entity's `managedObjectModel` with a second load of the same file.
@Suite struct ModelEqualityTests {
    static var libraryURL: URL { Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld")! }

    @Test func twoLoadsOfOneModelFileAreEqual() throws {
        let first = try #require(NSManagedObjectModel(contentsOf: Self.libraryURL))
        let second = try #require(NSManagedObjectModel(contentsOf: Self.libraryURL))
        #expect(first !== second)
        #expect(first == second)
        #expect(first.isEqual(second))
        #expect(first.hash == second.hash)
        #expect([first] == [second])
        #expect(Set([first, second]).count == 1)
    }

    @Test func aModelInUseEqualsAFreshLoadOfItsFile() throws {
        let inUse = try #require(NSManagedObjectModel(contentsOf: Self.libraryURL))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: inUse)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let entityName = try #require(inUse.entities.first?.name)
        let fresh = try #require(NSManagedObjectModel(contentsOf: Self.libraryURL))
        let entity = try #require(NSEntityDescription.entity(forEntityName: entityName, in: context))
        #expect(entity.managedObjectModel == fresh)
    }

    @Test func differentVersionsOfAModelAreNotEqual() throws {
        let version1 = try #require(NSManagedObjectModel(contentsOf: Self.libraryURL.appendingPathComponent("Library.xcdatamodel")))
        let version2 = try #require(NSManagedObjectModel(contentsOf: Self.libraryURL.appendingPathComponent("Library 2.xcdatamodel")))
        #expect(version1 != version2)
        #expect(version1 == NSManagedObjectModel(contentsOf: Self.libraryURL.appendingPathComponent("Library.xcdatamodel")))
    }

    @Test func detailsOutsideTheVersionHashCount() throws {
        func model(className: String = "NSManagedObject", defaultName: String? = nil, deleteRule: NSDeleteRule = .nullifyDeleteRule) -> NSManagedObjectModel {
            let author = NSEntityDescription()
            author.name = "Author"
            author.managedObjectClassName = className
            let name = NSAttributeDescription()
            name.name = "name"
            name.attributeType = .stringAttributeType
            name.defaultValue = defaultName
            let books = NSRelationshipDescription()
            books.name = "books"
            books.destinationEntity = author
            books.maxCount = 0
            books.deleteRule = deleteRule
            author.properties = [name, books]
            let model = NSManagedObjectModel()
            model.entities = [author]
            return model
        }
        #expect(model() == model())
        #expect(model() != model(className: "Library.Author"), "class names count")
        #expect(model() != model(defaultName: "Anonymous"), "default values count")
        #expect(model(defaultName: "Anonymous") == model(defaultName: "Anonymous"))
        #expect(model() != model(deleteRule: .cascadeDeleteRule), "delete rules count")
        #expect(model() != NSManagedObjectModel(), "entities count")
        #expect(!model().isEqual("Author"))
    }
}
