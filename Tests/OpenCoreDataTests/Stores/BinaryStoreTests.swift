import OpenCoreData
import Testing

/// `NSBinaryStoreType`: the file format documented in DEVIATIONS.md (read here independently of the store, with
/// Foundation's property-list reader), atomic writes, corrupt and foreign files refused with Core Data's errors, and
/// metadata read and written without adding the store.
@Suite("NSBinaryStoreType: one file, written atomically")
struct BinaryStoreTests {
    /// Alice with one task, saved in a new binary store.
    static func saveAlice() throws -> ConformanceStack {
        let stack = try ConformanceStack(.binary)
        let context = stack.newContext()
        try context.performAndWait {
            let alice = context.insertObject("Person", ["name": "Alice", "age": 30])
            alice.mutableOrderedSetValue(forKey: "tasks").add(context.insertObject("Task", ["title": "write", "priority": 2]))
            try context.save()
        }
        return stack
    }

    @Test("the file is the documented format: signature, version 1, then a binary property list of metadata and objects")
    func fileFormat() throws {
        let stack = try Self.saveAlice()
        let url = try #require(stack.storeURL)
        let bytes = try Data(contentsOf: url)
        #expect(Array(bytes.prefix(8)) == Array("OCDBINST".utf8))
        #expect(Array(bytes.dropFirst(8).prefix(4)) == [0, 0, 0, 1])
        #expect(Array(bytes.dropFirst(12).prefix(8)) == Array("bplist00".utf8))
        let root = try #require(try PropertyListSerialization.propertyList(from: bytes.dropFirst(12), format: nil) as? [String: Any])
        let metadata = try #require(root["metadata"] as? [String: Any])
        #expect(metadata[NSStoreTypeKey] as? String == "Binary")
        #expect(metadata[NSStoreUUIDKey] as? String == stack.store.identifier)
        #expect(metadata[NSStoreModelVersionHashesKey] is [String: Any])
        let objects = try #require(root["objects"] as? [[String: Any]])
        #expect(objects.count == 2)
        let person = try #require(objects.first { $0["entity"] as? String == "Person" })
        let task = try #require(objects.first { $0["entity"] as? String == "Task" })
        #expect((person["attributes"] as? [String: Any])?["name"] as? String == "Alice")
        #expect(((person["attributes"] as? [String: Any])?["age"] as? NSNumber)?.intValue == 30)
        #expect((person["attributes"] as? [String: Any])?["nickname"] == nil, "nil values are absent")
        let taskReference = try #require((task["reference"] as? NSNumber)?.intValue)
        let personReference = try #require((person["reference"] as? NSNumber)?.intValue)
        #expect(((person["toMany"] as? [String: Any])?["tasks"] as? [NSNumber])?.map(\.intValue) == [taskReference])
        #expect(((task["toOne"] as? [String: Any])?["person"] as? NSNumber)?.intValue == personReference)
        #expect((person["version"] as? NSNumber)?.intValue == 1)
        #expect(((root["nextReference"] as? NSNumber)?.intValue ?? 0) > max(taskReference, personReference))
        // Written atomically: nothing but the store is left in the directory.
        let files = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(files == [url.lastPathComponent])
    }

    @Test("a new store's file exists as soon as the store is added, and every save rewrites it")
    func newStoreIsWrittenAtOnce() throws {
        let stack = try ConformanceStack(.binary)
        let url = try #require(stack.storeURL)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSBinaryStoreType, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == stack.store.identifier)
        let before = try Data(contentsOf: url)
        let context = stack.newContext()
        try context.performAndWait {
            context.insertObject("Group", ["title": "Chess"])
            try context.save()
        }
        #expect(try Data(contentsOf: url) != before)
    }

    @Test("files that are not binary stores, or are damaged, are refused with NSFileReadCorruptFileError (a store of another type with NSPersistentStoreTypeMismatchError) and left as they were")
    func corruptAndForeignFilesAreRefused() throws {
        let alice = try Self.saveAlice()   // kept alive: its directory goes away with it
        let valid = try Data(contentsOf: try #require(alice.storeURL))
        func header(version: UInt32) -> Data { Data("OCDBINST".utf8) + Data([0, 0, 0, UInt8(version)]) }
        func file(_ root: [String: Any]) throws -> Data {
            header(version: 1) + (try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0))
        }
        let metadata: [String: Any] = [NSStoreTypeKey: "Binary", NSStoreUUIDKey: "B1B1B1B1-0000-0000-0000-000000000001"]
        let sqliteStack = try ConformanceStack(.sqlite)
        try sqliteStack.close()
        let cases: [(String, Data)] = [
            ("random bytes", Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })),
            ("an SQLite store", try Data(contentsOf: try #require(sqliteStack.storeURL))),
            ("a truncated binary store", valid.prefix(valid.count - 20)),
            ("the header alone", header(version: 1)),
            ("an unknown format version", header(version: 2) + valid.dropFirst(12)),
            ("a property list without objects", try file(["metadata": metadata])),
            ("an object of an entity the model lacks", try file(["metadata": metadata, "objects": [["entity": "Spaceship", "reference": 1]]])),
            ("a relationship to a missing object", try file(["metadata": metadata, "objects": [["entity": "Task", "reference": 1, "toOne": ["person": 99]]]])),
            ("an attribute value of the wrong type", try file(["metadata": metadata, "objects": [["entity": "Person", "reference": 1, "attributes": ["age": "thirty"]]]])),
            ("a reference used twice", try file(["metadata": metadata, "objects": [["entity": "Task", "reference": 1], ["entity": "Group", "reference": 1]]])),
        ]
        let directory = try TemporaryStoreDirectory()
        for (label, bytes) in cases {
            let url = directory.url.appendingPathComponent("\(label).binarystore")
            try bytes.write(to: url)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.shared)
            // An SQLite store is a store of another type: Apple's coordinator reports it as a type mismatch (134010).
            let error = expectCocoaError(label == "an SQLite store" ? NSPersistentStoreTypeMismatchError : NSFileReadCorruptFileError, "\(label)") {
                try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url)
            }
            #expect(error?.userInfo[NSFilePathErrorKey] as? String == url.path, "\(label)")
            #expect(coordinator.persistentStores.isEmpty)
            #expect(try Data(contentsOf: url) == bytes, "\(label): the file is left as it was")
        }
    }

    @Test("a save the file system refuses throws, keeps the file and the store's contents as they were, and can be retried")
    func failedWriteChangesNothing() throws {
        let stack = try Self.saveAlice()
        let url = try #require(stack.storeURL)
        let before = try Data(contentsOf: url)
        // A location whose directory cannot be created (its parent is a regular file).
        let blocked = URL(fileURLWithPath: url.path + "/cannot/be/here.binarystore")
        #expect(stack.coordinator.setURL(blocked, for: stack.store))
        let context = stack.newContext()
        try context.performAndWait {
            context.insertObject("Person", ["name": "Bob"])
            try context.only("Person", "name", "Alice").setValue(31, forKey: "age")
            _ = expectCocoaError(NSPersistentStoreSaveError) { try context.save() }
            #expect(context.hasChanges, "the changes are still the context's to save")
            // The store still holds only what was saved before.
            let fresh = stack.newContext()
            try fresh.performAndWait { () throws in
                #expect(strings(try fresh.objects("Person")) == ["Alice"])
                #expect(try fresh.only("Person", "name", "Alice").value(forKey: "age") as? Int == 30)
            }
            #expect(try Data(contentsOf: url) == before, "the file was not touched")
            #expect(stack.coordinator.setURL(url, for: stack.store))
            try context.save()
        }
        let reader = try stack.reopened().newContext()
        try reader.performAndWait { () throws in
            #expect(strings(try reader.objects("Person", sortedBy: ["name"])) == ["Alice", "Bob"])
            #expect(try reader.only("Person", "name", "Alice").value(forKey: "age") as? Int == 31)
        }
    }

    @Test("a store written with another model version is refused with NSPersistentStoreIncompatibleVersionHashError")
    func otherModelVersionIsRefused() throws {
        let stack = try Self.saveAlice()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make(extraPersonAttribute: "middleName"))
        _ = expectCocoaError(NSPersistentStoreIncompatibleVersionHashError) {
            try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: stack.storeURL!)
        }
    }

    @Test("a read-only binary store reads but refuses saves")
    func readOnly() throws {
        let stack = try Self.saveAlice()
        let reader = try ConformanceStack(.binary, model: ConformanceModel.shared, directory: stack.directory,
                                          options: [NSReadOnlyPersistentStoreOption: true])
        let context = reader.newContext()
        context.performAndWait {
            #expect(strings((try? context.objects("Person")) ?? []) == ["Alice"])
            context.insertObject("Person", ["name": "Bob"])
            _ = expectCocoaError(NSPersistentStoreSaveError) { try context.save() }
        }
    }

    @Test("metadata is read and written without adding the store, for the binary store and a custom store alike")
    func classLevelMetadata() throws {
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[NSBinaryStoreType] != nil)
        for kind in [StoreKind.binary, .customIncremental, .sqlite] {
            let stack = try ConformanceStack(kind)
            let context = stack.newContext()
            try context.performAndWait {
                context.insertObject("Person", ["name": "Alice"])
                try context.save()
            }
            let identifier = stack.store.identifier
            try stack.close()
            let url = try #require(stack.storeURL)
            var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: kind.storeType, at: url)
            #expect(metadata[NSStoreUUIDKey] as? String == identifier, "\(kind)")
            metadata["com.example.backup"] = "2026-11-23"
            try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: kind.storeType, at: url)
            let reread = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .init(rawValue: kind.storeType), at: url)
            #expect(reread["com.example.backup"] as? String == "2026-11-23", "\(kind)")
            #expect(reread[NSStoreUUIDKey] as? String == identifier, "\(kind): the UUID is kept")
            let reopened = try stack.reopened()
            #expect(reopened.store.metadata["com.example.backup"] as? String == "2026-11-23", "\(kind)")
            let readerContext = reopened.newContext()
            try readerContext.performAndWait { () throws in #expect(strings(try readerContext.objects("Person")) == ["Alice"], "\(kind)") }
        }
        // Apple's older spelling recognises the type of a file when none is given.
        for kind in [StoreKind.binary, .sqlite] {
            let stack = try ConformanceStack(kind)
            let url = try #require(stack.storeURL)
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)
            #expect(metadata[NSStoreTypeKey] as? String == kind.storeType)
            try NSPersistentStoreCoordinator.setMetadata(metadata.merging(["com.example.k": 1]) { $1 }, forPersistentStoreOfType: nil, at: url)
            #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: url)["com.example.k"] as? Int == 1)
        }
        let text = try TemporaryStoreDirectory()
        try Data("plain text, not a store".utf8).write(to: text.url.appendingPathComponent("notes.txt"))
        _ = expectCocoaError(NSPersistentStoreInvalidTypeError) {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: nil, at: text.url.appendingPathComponent("notes.txt"))
        }
        _ = expectCocoaError(NSFileReadNoSuchFileError) {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSBinaryStoreType, at: URL(fileURLWithPath: "/nonexistent/x.binarystore"))
        }
    }
}
