import OpenCoreData
import Testing

/// `migratePersistentStore`: a store copied to another type and place keeps every object, value and relationship,
/// and the coordinator uses the copy from then on.
@Suite("migratePersistentStore: copying a store to another type or place")
struct MigratePersistentStoreTests {
    /// The conformance graph (people, pets, ordered tasks, many-to-many groups) plus samples with a value of every
    /// attribute type, saved in `stack`.
    static func seed(_ stack: ConformanceStack) throws {
        try StoreConformanceTests.seedPeople(stack)
        let context = stack.newContext()
        try context.performAndWait {
            let bob = try context.only("Person", "name", "bob")
            context.insertObject("Sample", [
                "string": "every type", "int16": Int16.min, "int32": Int32.max, "int64": Int64.min, "decimal": Decimal(string: "12345.6789")!,
                "double": 0.1 + 0.2, "float": Float(1.1), "bool": true, "date": Date(timeIntervalSinceReferenceDate: 712_345_678.123_456_7),
                "data": Data([0, 1, 2, 255]), "bigData": Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
                "uuid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, "uri": URL(string: "https://example.com/a%20b?q=1")!,
                "color": ConformanceColor(red: 9, green: 8, blue: 7), "owner": bob,
            ])
            context.insertObject("Sample", ["string": "nils", "owner": bob])
            context.insertObject("Sample", ["string": "", "int16": 0, "bool": false, "data": Data()])
            try context.save()
        }
    }

    /// Every object of the store as one line: its entity, every attribute, and every relationship as the
    /// destinations' attribute signatures (in order for ordered relationships, sorted otherwise) — so two stores
    /// with different object IDs compare equal exactly when they hold the same graph.
    static func dump(_ context: NSManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            func describe(_ value: Any?) -> String {
                switch value {
                case nil: return "nil"
                case let data as Data: return "data(\(data.base64EncodedString()))"
                case let date as Date: return "date(\(date.timeIntervalSinceReferenceDate))"
                case let number as NSNumber: return "\(number)"
                default: return "\(value!)"
                }
            }
            func signature(_ object: NSManagedObject) -> String {
                let attributes = object.entity.attributesByName.keys.sorted().map { "\($0)=\(describe(object.value(forKey: $0)))" }
                return "\(object.entity.name!){\(attributes.joined(separator: ", "))}"
            }
            var lines: [String] = []
            for entity in context.persistentStoreCoordinator!.managedObjectModel.entities where !entity.isAbstract {
                let request = NSFetchRequest<NSManagedObject>()
                request.entity = entity
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    let relationships = object.entity.relationshipsByName.keys.sorted().map { name -> String in
                        switch object.value(forKey: name) {
                        case let ordered as NSOrderedSet: return "\(name)=[\(ordered.array.map { signature($0 as! NSManagedObject) }.joined(separator: "; "))]"
                        case let set as NSSet: return "\(name)={\(set.allObjects.map { signature($0 as! NSManagedObject) }.sorted().joined(separator: "; "))}"
                        case let destination as NSManagedObject: return "\(name)->\(signature(destination))"
                        default: return "\(name)->nil"
                        }
                    }
                    lines.append(signature(object) + " || " + relationships.joined(separator: " "))
                }
            }
            return lines.sorted()
        }
    }

    @Test("SQLite → binary → SQLite keeps every object, value and relationship")
    func roundTripThroughTheBinaryStore() throws {
        let stack = try ConformanceStack(.sqlite)
        try Self.seed(stack)
        let original = try Self.dump(stack.newContext())
        // 6 people, 5 animals, 4 tasks, 3 groups, 3 samples (counted from the fixtures, not from the store).
        #expect(original.count == 21)
        #expect(Set(original.map { $0.components(separatedBy: " || ")[0] }).count == 21, "every object has a distinct signature, so the dump is exact")
        #expect(original.contains { $0.hasPrefix("Person{age=30, birthday=date(0.0), email=alice30@example.com, name=Alice, nickname=Ally}")
            && $0.contains("tasks=[Task{priority=3, title=Task 10}; Task{priority=7, title=task 1}; Task{priority=1, title=Task 2}]") })

        let directory = try #require(stack.directory)
        let oldContext = stack.newContext()
        let oldAliceID = try oldContext.performAndWait { try oldContext.only("Person", "name", "Alice").objectID }
        var metadata = stack.coordinator.metadata(for: stack.store)
        metadata["com.example.lastExport"] = "2026-11-23"
        stack.coordinator.setMetadata(metadata, for: stack.store)
        let binaryURL = directory.url.appendingPathComponent("Migrated.binarystore")
        let binary = try stack.coordinator.migratePersistentStore(stack.store, to: binaryURL, options: nil, type: .binary)
        #expect(binary.type == NSBinaryStoreType)
        #expect(binary.identifier != stack.store.identifier, "the copy is a new store with a UUID of its own")
        #expect(stack.store.persistentStoreCoordinator == nil, "the old store is detached")
        let afterMigration = stack.newContext()
        afterMigration.performAndWait {
            _ = expectCocoaError(NSManagedObjectReferentialIntegrityError, "an ID of the old store names no object of the new one") {
                _ = try afterMigration.existingObject(with: oldAliceID)
            }
        }
        #expect(stack.coordinator.persistentStores.count == 1 && stack.coordinator.persistentStores[0] === binary)
        #expect(try Self.dump(stack.newContext()) == original, "the coordinator now reads the binary store")

        let sqliteURL = directory.url.appendingPathComponent("Back.sqlite")
        let back = try stack.coordinator.migratePersistentStore(binary, to: sqliteURL, options: nil, withType: NSSQLiteStoreType)
        #expect(back.type == NSSQLiteStoreType && stack.coordinator.persistentStores.count == 1)
        #expect(try Self.dump(stack.newContext()) == original)

        // The app's own metadata keys travel with the copies; the stores' own keys are each store's.
        for url in [binaryURL, sqliteURL] {
            let stored = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: url == binaryURL ? NSBinaryStoreType : NSSQLiteStoreType, at: url)
            #expect(stored["com.example.lastExport"] as? String == "2026-11-23", "\(url.lastPathComponent)")
        }
        #expect(back.metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)

        // From disk, through new coordinators: the binary file, the new SQLite file, and the untouched original.
        for (type, url) in [(NSBinaryStoreType, binaryURL), (NSSQLiteStoreType, sqliteURL), (NSSQLiteStoreType, stack.storeURL!)] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.shared)
            try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            #expect(try Self.dump(context) == original, "\(url.lastPathComponent)")
        }
    }

    @Test("a migration posts one will-change and one did-change notification naming both stores")
    func migrationNotifications() throws {
        let stack = try ConformanceStack(.inMemory)
        try Self.seed(stack)
        let directory = try TemporaryStoreDirectory()
        let received = LockedBox<[[AnyHashable: Any]]>([])
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange, object: stack.coordinator, queue: nil) { note in
            let info = note.userInfo ?? [:]
            received.mutate { $0.append(info) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let migrated = try stack.coordinator.migratePersistentStore(stack.store, to: directory.url.appendingPathComponent("Copy.sqlite"), type: .sqlite)
        let info = try #require(received.value.first)
        #expect(received.value.count == 1)
        #expect((info[NSAddedPersistentStoresKey] as? [NSPersistentStore])?.first === migrated)
        #expect((info[NSRemovedPersistentStoresKey] as? [NSPersistentStore])?.first === stack.store)
        let changed = info[NSUUIDChangedPersistentStoresKey] as? [NSPersistentStore] ?? []
        #expect(changed.count == 2 && changed[0] === stack.store && changed[1] === migrated)
        #expect(try Self.dump(stack.newContext()).count == 21)
    }

    @Test("a migration whose destination fails to save removes the files it created and keeps the source store")
    func failedCopyLeavesNothingBehind() throws {
        /// An atomic store that creates its file when loaded and refuses every save.
        final class RefusingStore: NSAtomicStore, @unchecked Sendable {
            // @unchecked Sendable: no state of its own.
            override var type: String { "OpenCoreDataTests.RefusingStore" }
            override func load() throws { try Data("refusing".utf8).write(to: url!) }
            override func save() throws { throw NSError(domain: NSCocoaErrorDomain, code: NSFileWriteOutOfSpaceError) }
        }
        NSPersistentStoreCoordinator.registerStoreClass(RefusingStore.self, forStoreType: "OpenCoreDataTests.RefusingStore")
        let stack = try ConformanceStack(.inMemory)
        try Self.seed(stack)
        let directory = try TemporaryStoreDirectory()
        let target = directory.url.appendingPathComponent("Refusing.store")
        _ = expectCocoaError(NSFileWriteOutOfSpaceError) {
            try stack.coordinator.migratePersistentStore(stack.store, to: target, withType: "OpenCoreDataTests.RefusingStore")
        }
        #expect(!FileManager.default.fileExists(atPath: target.path), "the half-made destination is removed")
        #expect(stack.coordinator.persistentStores.count == 1 && stack.coordinator.persistentStores[0] === stack.store)
        #expect(try Self.dump(stack.newContext()).count == 21, "the source store is still in use, complete")
    }

    @Test("a migration to an unknown type or of a foreign store fails with Core Data's errors and changes nothing")
    func migrationErrors() throws {
        let stack = try ConformanceStack(.inMemory)
        let directory = try TemporaryStoreDirectory()
        _ = expectCocoaError(NSPersistentStoreInvalidTypeError) {
            try stack.coordinator.migratePersistentStore(stack.store, to: directory.url.appendingPathComponent("x"), withType: "NoSuchType")
        }
        let other = try ConformanceStack(.inMemory)
        _ = expectCocoaError(NSPersistentStoreOperationError) {
            try stack.coordinator.migratePersistentStore(other.store, to: directory.url.appendingPathComponent("y.sqlite"), type: .sqlite)
        }
        // A destination that is not a store of the requested type: the source stays in place.
        let garbage = directory.url.appendingPathComponent("garbage.binarystore")
        try Data("not a store".utf8).write(to: garbage)
        _ = expectCocoaError(NSFileReadCorruptFileError) {
            try stack.coordinator.migratePersistentStore(stack.store, to: garbage, type: .binary)
        }
        #expect(stack.coordinator.persistentStores.count == 1 && stack.coordinator.persistentStores[0] === stack.store)
    }
}
