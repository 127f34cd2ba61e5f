import Foundation
import Testing

@_spi(OpenSwiftData) @testable import OpenCoreData

/// Inferred mappings and the SQLite store's in-place lightweight migration, through the public API.
@Suite struct LightweightMigrationTests {
    static var automatic: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    /// A version-1 store: two authors (one without age), three books, two tags.
    static func makeVersion1Store(_ package: URL, duplicateNames: Bool = false) throws -> URL {
        let url = try TemporaryDirectory.make().appendingPathComponent("Library.sqlite")
        let coordinator = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 1))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        let ada = insert("Author", ["name": "Ada", "age": 36, "rating": 5])
        let bob = insert("Author", ["name": duplicateNames ? "Ada" : "Bob", "rating": 3])
        let swift = insert("Tag", ["label": "swift"]), data = insert("Tag", ["label": "data"])
        let first = insert("Book", ["title": "Engines", "pages": 120, "author": ada])
        first.mutableSetValue(forKey: "tags").addObjects(from: [swift, data])
        let second = insert("Book", ["title": "Notes", "pages": 45, "author": ada])
        second.mutableSetValue(forKey: "tags").add(data)
        _ = insert("Book", ["title": "Orphan", "pages": 7])
        _ = bob
        try context.save()
        try coordinator.remove(coordinator.persistentStores[0])
        return url
    }

    @Test func inferredMappingNamesEveryChange() throws {
        let package = try MigrationTestModels.package()
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: MigrationTestModels.model(package, version: 1), destinationModel: MigrationTestModels.model(package, version: 2))
        let byName = mapping.entityMappingsByName
        #expect(Set(byName.keys) == ["AuthorToWriter", "BookToBook", "TagToTag", "AddToItem", "AddToPublisher"])
        #expect(byName["AuthorToWriter"]?.mappingType == .transformEntityMappingType)
        #expect(byName["TagToTag"]?.mappingType == .transformEntityMappingType || byName["TagToTag"]?.mappingType == .copyEntityMappingType)
        #expect(byName["AddToPublisher"]?.mappingType == .addEntityMappingType)
        let writer = try #require(byName["AuthorToWriter"])
        let expressions = Dictionary(uniqueKeysWithValues: (writer.attributeMappings ?? []).map { ($0.name ?? "", $0.valueExpression?.description) })
        #expect(expressions["fullName"] == "$source.name")
        #expect(expressions["age"] == "$source.age")
        #expect(expressions["country"] == .some(nil))
        let books = try #require(byName["BookToBook"]?.relationshipMappings?.first { $0.name == "authors" })
        // Apple's inferred mappings name the source relationship (`_NSMappingModelBuilder`), not a target mapping.
        #expect(books.valueExpression?.description == #"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "author", $source.author)"#)
    }

    @Test func automaticMigrationMovesEveryValueAndRelationship() throws {
        let package = try MigrationTestModels.package()
        let url = try Self.makeVersion1Store(package)
        let before = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let oldKeys = try RawDatabase(path: url.path).rows("SELECT Z_PK, ZNAME FROM ZAUTHOR ORDER BY Z_PK").map { "\($0[0])=\($0[1])" }

        let model = try #require(NSManagedObjectModel(contentsOf: package))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: Self.automatic)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator

        let writers = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Writer")).sorted { ($0.value(forKey: "fullName") as? String ?? "") < ($1.value(forKey: "fullName") as? String ?? "") }
        #expect(writers.map { $0.value(forKey: "fullName") as? String } == ["Ada", "Bob"])
        #expect(writers.map { $0.value(forKey: "age") as? String } == ["36", nil])
        #expect(writers.map { $0.value(forKey: "country") as? String } == ["XX", "XX"])
        #expect(writers.map { $0.value(forKey: "nickname") as? String } == [nil, nil])
        let adaBooks = (writers[0].value(forKey: "books") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "title") as? String }.sorted()
        #expect(adaBooks == ["Engines", "Notes"])
        #expect((writers[1].value(forKey: "books") as? Set<NSManagedObject>)?.isEmpty == true)

        let books = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
        #expect(books.count == 3)
        for book in books {
            #expect(book.entity.name == "Book")
            let tags = (book.value(forKey: "tags") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "label") as? String }.sorted()
            let authors = (book.value(forKey: "authors") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "fullName") as? String }
            switch book.value(forKey: "title") as? String {
            case "Engines": #expect(tags == ["data", "swift"] && authors == ["Ada"] && book.value(forKey: "pages") as? Int == 120)
            case "Notes": #expect(tags == ["data"] && authors == ["Ada"])
            case "Orphan": #expect(tags.isEmpty && authors.isEmpty)
            default: Issue.record("unexpected book \(book)")
            }
        }
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Publisher")) == 0)

        // Same UUID and primary keys; the metadata names the new model.
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(after[NSStoreUUIDKey] as? String == before[NSStoreUUIDKey] as? String)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: after))
        // The model cache now describes the new model.
        #expect(try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url).entityVersionHashesByName == model.entityVersionHashesByName)
        let newKeys = try RawDatabase(path: url.path).rows("SELECT Z_PK, ZFULLNAME FROM ZWRITER ORDER BY Z_PK").map { "\($0[0])=\($0[1])" }
        #expect(newKeys == oldKeys)

        // New objects get fresh primary keys and save.
        let publisher = NSEntityDescription.insertNewObject(forEntityName: "Publisher", into: context)
        publisher.setValue("Acme", forKey: "name")
        let writer = NSEntityDescription.insertNewObject(forEntityName: "Writer", into: context)
        writer.setValue("Cy", forKey: "fullName")
        try context.save()
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Writer")) == 3)
    }

    @Test func automaticMigrationReportsProgressForAProgressBar() throws {
        let package = try MigrationTestModels.package()
        let url = try Self.makeVersion1Store(package)
        let coordinator = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 2))
        let steps = Locked<[Float]>([])
        var options = Self.automatic
        options[OpenCoreDataMigrationProgressHandlerOption] = { (progress: Float) in steps.withLock { $0.append(progress) } }
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let reported = steps.withLock { $0 }
        #expect(reported.count >= 5)
        #expect(reported == reported.sorted())
        #expect(reported.last == 1)
    }

    @Test func unorderedRelationshipsBecomeOrdered() throws {
        // Version 2 here is version 1 with Author.books (inverse to-one) and Book.tags (many-to-many) ordered.
        let ordered = MigrationTestModels.version1
            .replacingOccurrences(of: #"<relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author""#,
                                  with: #"<relationship name="books" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author""#)
            .replacingOccurrences(of: #"<relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify""#,
                                  with: #"<relationship name="tags" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify""#)
        #expect(ordered != MigrationTestModels.version1)
        let package = try MigrationTestModels.package(version2: ordered)
        let url = try Self.makeVersion1Store(package)
        let coordinator = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 2))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: Self.automatic)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
        request.predicate = NSPredicate(format: "name == 'Ada'")
        let ada = try #require(try context.fetch(request).first)
        let books = try #require(ada.value(forKey: "books") as? NSOrderedSet)
        #expect(Set(books.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }) == ["Engines", "Notes"])
        let bookRequest = NSFetchRequest<NSManagedObject>(entityName: "Book")
        bookRequest.predicate = NSPredicate(format: "title == 'Engines'")
        let engines = try #require(try context.fetch(bookRequest).first)
        let tags = try #require(engines.value(forKey: "tags") as? NSOrderedSet)
        #expect(Set(tags.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "label") as? String }) == ["data", "swift"])
        // Every member has its own position 1…n.
        let database = try RawDatabase(path: url.path)
        #expect(try database.rows("SELECT Z_FOK_AUTHOR FROM ZBOOK WHERE ZAUTHOR IS NOT NULL ORDER BY Z_FOK_AUTHOR").map { $0[0].integer } == [1, 2])
        // Reordering and saving works on the migrated store.
        ada.mutableOrderedSetValue(forKey: "books").exchangeObject(at: 0, withObjectAt: 1)
        try context.save()
    }

    @Test func migratedSchemaEqualsAFreshStore() throws {
        let package = try MigrationTestModels.package()
        let url = try Self.makeVersion1Store(package)
        let coordinator = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 2))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: Self.automatic)
        try coordinator.remove(coordinator.persistentStores[0])
        let fresh = try TemporaryDirectory.make().appendingPathComponent("Fresh.sqlite")
        let freshCoordinator = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 2))
        try freshCoordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: fresh, options: nil)
        try freshCoordinator.remove(freshCoordinator.persistentStores[0])
        let schema = { (path: String) throws -> [String] in
            try RawDatabase(path: path).rows("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").map { "\($0)" }
        }
        #expect(try schema(url.path) == schema(fresh.path))
        let entities = { (path: String) throws -> [String] in
            try RawDatabase(path: path).rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { "\($0)" }
        }
        #expect(try entities(url.path) == entities(fresh.path))
    }

    @Test func withoutTheOptionsTheStoreIsRefusedAndUntouched() throws {
        let package = try MigrationTestModels.package()
        let url = try Self.makeVersion1Store(package)
        let snapshot = try Self.dump(url)
        let coordinator = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 2))
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        let noInference = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true])
        }
        #expect(noInference?.code == NSMigrationMissingMappingModelError)
        #expect(try Self.dump(url) == snapshot)
    }

    @Test func aFailedMigrationLeavesTheStoreIntactAndOpenableWithTheOldModel() throws {
        let package = try MigrationTestModels.package(version2: MigrationTestModels.version2(uniqueWriterNames: true))
        let url = try Self.makeVersion1Store(package, duplicateNames: true)
        let snapshot = try Self.dump(url)
        let coordinator = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 2))
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: Self.automatic)
        }
        #expect(error?.code == NSMigrationConstraintViolationError)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(try Self.dump(url) == snapshot)
        let old = try NSPersistentStoreCoordinator(managedObjectModel: MigrationTestModels.model(package, version: 1))
        try old.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = old
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 2)
    }

    @Test func mergingHierarchiesCannotBeInferred() throws {
        let package = try MigrationTestModels.package()
        let source = try MigrationTestModels.model(package, version: 1)
        let merged = MigrationTestModels.version1.replacingOccurrences(of: #"<entity name="Book" representedClassName="Book""#, with: #"<entity name="Book" representedClassName="Book" parentEntity="Author""#)
        let destination = try MigrationTestModels.model(MigrationTestModels.package(version2: merged), version: 2)
        let error = #expect(throws: NSError.self) {
            _ = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        }
        #expect(error?.code == NSInferredMappingModelError)
        #expect(error?.localizedDescription.contains("cannot merge entity hierarchies") == true)
    }

    @Test func unconvertibleTypeChangesCannotBeInferred() throws {
        let package = try MigrationTestModels.package()
        let source = try MigrationTestModels.model(package, version: 1)
        let changed = MigrationTestModels.version1.replacingOccurrences(of: #"<attribute name="title" optional="YES" attributeType="String"/>"#, with: #"<attribute name="title" optional="YES" attributeType="Date" usesScalarValueType="NO"/>"#)
        let destination = try MigrationTestModels.model(MigrationTestModels.package(version2: changed), version: 2)
        let error = #expect(throws: NSError.self) {
            _ = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        }
        #expect(error?.code == NSInferredMappingModelError)
        #expect(error?.localizedDescription.contains("Book.title") == true)
    }

    /// Every row of every table, as text (the store's logical content).
    static func dump(_ url: URL) throws -> [String] {
        let database = try RawDatabase(path: url.path)
        var lines: [String] = []
        for table in try database.tables().keys.sorted() {
            lines += try database.rows("SELECT * FROM \"\(table)\" ORDER BY 1").map { "\(table): \($0)" }
        }
        return lines
    }
}
