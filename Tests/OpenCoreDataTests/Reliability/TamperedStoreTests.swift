import Testing

@testable import OpenCoreData

/// Stores that are valid SQLite but wrong as Core Data stores: written by a newer model, with a table or a column
/// removed, with a tampered `Z_METADATA` plist, or without their `Z_PRIMARYKEY` rows. Each ends in a thrown `NSError`
/// with Core Data's domain and code (never a crash), a refused file keeps every byte, and where the store still opens
/// no data is lost or overwritten.
@Suite struct TamperedStoreTests {
    /// A closed store of the batch model holding 5 items and 2 books.
    static func makeStore() throws -> URL {
        let url = try TemporaryDirectory.make().appendingPathComponent("Tampered.sqlite")
        try write(url, model: BatchModel.shared)
        return url
    }

    static func write(_ url: URL, model: NSManagedObjectModel) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for index in 0..<5 { NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("item \(index)", forKey: "name") }
        for index in 0..<2 { NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue("book \(index)", forKey: "title") }
        try context.save()
        try coordinator.remove(store)
    }

    /// Opens `url` with `options`; returns the error, having checked it is Core Data's, and that the file is unchanged.
    static func refusal(_ url: URL, model: NSManagedObjectModel = BatchModel.shared, options: [AnyHashable: Any]? = nil, _ comment: Comment) throws -> NSError? {
        let before = try Data(contentsOf: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = #expect(throws: NSError.self, comment) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        }
        #expect(error?.domain == NSCocoaErrorDomain, comment)
        #expect(try Data(contentsOf: url) == before, "a refused store file must not change: \(comment)")
        return error
    }

    /// Replaces the store's metadata blob with `bytes`.
    static func setMetadata(_ url: URL, _ bytes: Data) throws {
        try RawSQLite.execute(url.path, "UPDATE Z_METADATA SET Z_PLIST = X'\(bytes.map { String(format: "%02X", $0) }.joined())'")
    }

    // MARK: Newer model

    @Test func aStoreFromANewerModelIsRefusedWithApplesCodes() throws {
        let newer = BatchModel.make()
        let gadget = NSEntityDescription()
        gadget.name = "Gadget"
        let size = NSAttributeDescription()
        size.name = "size"
        size.attributeType = .integer32AttributeType
        gadget.properties = [size]
        newer.entities += [gadget]
        // And a new attribute of an existing entity: the store's hash for Item is one this model has never had.
        let color = NSAttributeDescription()
        color.name = "color"
        color.attributeType = .stringAttributeType
        color.isOptional = true
        let item = try #require(newer.entitiesByName["Item"])
        item.properties += [color]
        let url = try TemporaryDirectory.make().appendingPathComponent("Newer.sqlite")
        try Self.write(url, model: newer)

        // Opening with the older model: the entity hashes do not match (134100).
        let plain = try Self.refusal(url, "a newer store, no migration")
        #expect(plain?.code == NSPersistentStoreIncompatibleVersionHashError)
        // With automatic migration, Apple's source model search (`NSStoreMigrationPolicy sourceModelForStoreAtURL:`)
        // ends with the model cached in the store: a copy of the store migrates back to the older model by inference,
        // without what the older model lacks (DEVIATIONS.md M6).
        let copy = url.deletingLastPathComponent().appendingPathComponent("NewerCopy.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        let older = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        try older.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: copy,
                                     options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let olderContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        olderContext.persistentStoreCoordinator = older
        #expect(try olderContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 5)
        #expect(try RawSQLite.rows(copy.path, "SELECT name FROM sqlite_master WHERE name = 'ZGADGET'").isEmpty)
        // Without a model of its own there is no model for the store's hashes: Apple's "Can't find model for source
        // store" (134130).
        try RawSQLite.execute(url.path, "DELETE FROM Z_MODELCACHE")
        let migrating = try Self.refusal(url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true], "a newer store without a model cache, automatic migration")
        #expect(migrating?.code == NSMigrationMissingSourceModelError)
        // The newer model still opens it: nothing was lost.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: newer)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 5)
    }

    // MARK: Tampered metadata

    @Test func aTamperedMetadataPlistIsRefused() throws {
        let pristine = try Self.makeStore()
        let original = try RawStoreMetadata.read(pristine)
        func variant(_ name: String, _ tamper: (URL) throws -> Void) throws -> URL {
            let url = pristine.deletingLastPathComponent().appendingPathComponent(name + ".sqlite")
            try FileManager.default.copyItem(at: pristine, to: url)
            try tamper(url)
            return url
        }
        func binary(_ plist: Any) throws -> Data { try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0) }
        var hashesAsText = original, hashValuesAsNumbers = original, noHashes = original
        hashesAsText["NSStoreModelVersionHashes"] = "Item=abc"
        hashValuesAsNumbers["NSStoreModelVersionHashes"] = Dictionary(uniqueKeysWithValues: BatchModel.shared.entities.map { ($0.name!, 42) })
        noHashes.removeValue(forKey: "NSStoreModelVersionHashes")
        let cases: [(String, (URL) throws -> Void)] = [
            ("not a plist", { try Self.setMetadata($0, Data("garbage, not a property list".utf8)) }),
            ("an empty blob", { try Self.setMetadata($0, Data()) }),
            ("a truncated binary plist", { try Self.setMetadata($0, try binary(original).prefix(40)) }),
            ("a plist array", { try Self.setMetadata($0, try binary(["NSStoreType", "SQLite"])) }),
            ("a plist string", { try Self.setMetadata($0, try binary("SQLite")) }),
            ("hashes as a string", { try Self.setMetadata($0, try binary(hashesAsText)) }),
            ("hash values as numbers", { try Self.setMetadata($0, try binary(hashValuesAsNumbers)) }),
            ("no hashes", { try Self.setMetadata($0, try binary(noHashes)) }),
            ("a NULL plist", { try RawSQLite.execute($0.path, "UPDATE Z_METADATA SET Z_PLIST = NULL") }),
            ("no metadata row", { try RawSQLite.execute($0.path, "DELETE FROM Z_METADATA") }),
            ("no metadata table", { try RawSQLite.execute($0.path, "DROP TABLE Z_METADATA") }),
        ]
        var refused = 0
        for (name, tamper) in cases {
            let url = try variant(name.replacingOccurrences(of: " ", with: "-"), tamper)
            // Reading the metadata alone either fails with Core Data's error or returns what is there.
            do {
                _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain, "metadata with \(name): \(error)")
            }
            if let error = try Self.refusal(url, "metadata with \(name)") {
                #expect([NSPersistentStoreIncompatibleVersionHashError, NSPersistentStoreIncompatibleSchemaError, NSPersistentStoreInvalidTypeError,
                         NSPersistentStoreTypeMismatchError, NSPersistentStoreOpenError, NSFileReadCorruptFileError].contains(error.code),
                        "metadata with \(name): code \(error.code) \(error.localizedDescription)")
                refused += 1
            }
        }
        print("Hostile inputs (tampered Z_METADATA): \(cases.count) tried, \(refused) refused with an error, 0 crashes")
    }

    // MARK: Missing tables and columns

    @Test func aMissingTableOrColumnFailsTheFetchAndTheSaveKeepsTheChanges() throws {
        for (damage, sql, entity) in [("no ZBOOK table", "DROP TABLE ZBOOK", "Book"), ("no ZITEM.ZPRICE column", "ALTER TABLE ZITEM DROP COLUMN ZPRICE", "Item")] {
            let url = try Self.makeStore()
            try RawSQLite.execute(url.path, sql)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
            do {
                try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            } catch let error as NSError {
                // Refusing at open is fine too; then nothing else to check.
                #expect(error.domain == NSCocoaErrorDomain, "\(damage): \(error)")
                continue
            }
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let fetchError = #expect(throws: NSError.self, "\(damage): fetching \(entity)") {
                try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
            }
            #expect(fetchError?.domain == NSCocoaErrorDomain && fetchError?.code == NSSQLiteError, "\(damage): \(String(describing: fetchError))")
            let inserted = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            inserted.setValue("new", forKey: entity == "Book" ? "title" : "name")
            let saveError = #expect(throws: NSError.self, "\(damage): saving a new \(entity)") { try context.save() }
            #expect(saveError?.domain == NSCocoaErrorDomain, "\(damage)")
            #expect(context.insertedObjects == [inserted], "\(damage): the unsaved insert is kept")
            // The intact tables still read.
            let other = entity == "Book" ? "Item" : "Book"
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: other)) == (other == "Item" ? 5 : 2))
            #expect(try RawSQLite.rows(url.path, "PRAGMA integrity_check") == [["ok"]])
        }
    }

    // MARK: Rows of no entity of their table

    /// A row whose `Z_ENT` names no entity stored in its table (NULL, as a damaged page reads, an unknown number, or an
    /// entity of another table) fails the fetch with `NSFileReadCorruptFileError`: skipping it would lose it silently.
    @Test(arguments: ["NULL", "999", "(SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item')"])
    func aRowOfNoEntityOfItsTableFailsTheFetch(_ entityNumber: String) throws {
        let url = try Self.makeStore()
        try RawSQLite.execute(url.path, "UPDATE ZBOOK SET Z_ENT = \(entityNumber) WHERE Z_PK = (SELECT MAX(Z_PK) FROM ZBOOK)")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let error = #expect(throws: NSError.self, "Z_ENT = \(entityNumber)") {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
        }
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSFileReadCorruptFileError, "\(String(describing: error))")
        let description = error?.localizedDescription ?? ""
        #expect(description.contains("of ZBOOK has entity number"), "\(description)")
        #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 5, "the intact table still reads")
    }

    // MARK: Z_PRIMARYKEY

    /// Without its `Z_PRIMARYKEY` rows (or table) a store must never hand out a primary key that is already used:
    /// a new object either gets a fresh key or the save fails with Core Data's error — no row is overwritten.
    @Test(arguments: ["DELETE FROM Z_PRIMARYKEY", "DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'", "UPDATE Z_PRIMARYKEY SET Z_MAX = 0", "DROP TABLE Z_PRIMARYKEY"])
    func missingPrimaryKeyRowsNeverReuseAKey(_ damage: String) throws {
        let url = try Self.makeStore()
        try RawSQLite.execute(url.path, damage)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        do {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain, "\(damage): \(error)")
            return
        }
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for index in 0..<3 { NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("new \(index)", forKey: "name") }
        do {
            try context.save()
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain, "\(damage): \(error)")
            #expect(context.insertedObjects.count == 3, "\(damage): the unsaved inserts are kept")
        }
        let names = try RawSQLite.rows(url.path, "SELECT ZNAME FROM ZITEM ORDER BY Z_PK").compactMap { $0[0] }
        #expect(Array(names.prefix(5)) == (0..<5).map { "item \($0)" }, "\(damage): an existing row was overwritten: \(names)")
        #expect(names.count == 5 || names.count == 8, "\(damage): \(names)")
        #expect(try RawSQLite.rows(url.path, "PRAGMA integrity_check") == [["ok"]])
    }
}
