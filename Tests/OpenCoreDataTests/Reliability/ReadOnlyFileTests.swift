import Testing

@_spi(OpenSwiftData) @testable import OpenCoreData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Store files the process cannot write: a write-protected store file in a writable directory, and a write-protected
/// store in a write-protected directory (where SQLite cannot create the -wal and -shm either).
///
/// Apple's store opens a write-protected file and fails the save (SQLite's `SQLITE_READONLY` under the store's error);
/// ours does the same or refuses to open with a Core Data error — either way no save can land, the context keeps its
/// unsaved changes and the file does not change by one byte. Root ignores permission bits, so the scenarios run in a
/// child process that drops to the unprivileged user `nobody` (65534) when it starts as root; as any other user, the
/// permission bits alone (0444 files, 0555 directory) protect the files. Either way works on a fresh CI machine.
/// (`NSReadOnlyPersistentStoreOption` itself: `SQLiteStoreTests.readOnlyOptionRefusesSavesAndLeavesTheFileByteIdentical`.)
@Suite struct ReadOnlyFileTests {
    static let role = "readOnlyFiles"

    /// Where each scenario's store lives: `fileOnly` has a writable directory, `fileAndDirectory` does not.
    static let scenarios = ["fileOnly", "fileAndDirectory"]

    @Test(.enabled(if: ChildProcess.role == nil))
    func aStoreTheProcessCannotWriteRefusesSavesAndLosesNothing() throws {
        let root = try TemporaryDirectory.make()
        var fingerprints: [String: Data] = [:]
        for scenario in Self.scenarios {
            let directory = root.appendingPathComponent(scenario)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let url = directory.appendingPathComponent("Locked.sqlite")
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
            let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            for index in 0..<5 { NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("kept \(index)", forKey: "name") }
            try context.save()
            try coordinator.remove(store)  // checkpoints: no -wal or -shm remains
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
            fingerprints[scenario] = try Data(contentsOf: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
            try FileManager.default.setAttributes([.posixPermissions: scenario == "fileOnly" ? 0o777 : 0o555], ofItemAtPath: directory.path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.path)
        defer {
            for scenario in Self.scenarios {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.appendingPathComponent(scenario).path)
            }
        }

        let result = try ChildProcess.run(test: "ReadOnlyFileTests/readOnlyFilesChild", role: Self.role, path: root.path)
        #expect(result.status == 0 && result.output.contains("readOnlyFilesChild() passed"), "child output:\n\(result.output.suffix(4_000))")
        let lines = result.output.split(separator: "\n").filter { $0.hasPrefix("Read-only ") }
        #expect(lines.count == Self.scenarios.count, "child output:\n\(result.output.suffix(4_000))")
        for line in lines { print(line) }
        for scenario in Self.scenarios {
            let url = root.appendingPathComponent(scenario).appendingPathComponent("Locked.sqlite")
            #expect(try Data(contentsOf: url) == fingerprints[scenario], "\(scenario): the store file changed")
            // Reading a WAL database needs its -shm: give the directory back first (as a non-root user it is ours).
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.deletingLastPathComponent().path)
            #expect(try RawSQLite.rows(url.path, "SELECT ZNAME FROM ZITEM ORDER BY Z_PK").compactMap { $0[0] } == (0..<5).map { "kept \($0)" })
        }
    }

    /// The child: becomes `nobody` when it is root, then tries to open and save each store.
    @Test(.enabled(if: ChildProcess.role == ReadOnlyFileTests.role))
    func readOnlyFilesChild() throws {
        let root = URL(fileURLWithPath: ChildProcess.path)
        if geteuid() == 0 {
            #expect(setgroups(0, nil) == 0)
            #expect(setgid(65_534) == 0)
            #expect(setuid(65_534) == 0)
        }
        for scenario in Self.scenarios {
            let directory = root.appendingPathComponent(scenario)
            let url = directory.appendingPathComponent("Locked.sqlite")
            #expect(access(url.path, W_OK) != 0, "\(scenario): the process must not be able to write the store")
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
            let store: NSPersistentStore
            do {
                store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            } catch let error as NSError {
                // Refusing to open is acceptable, with Core Data's domain and a store code.
                #expect(error.domain == NSCocoaErrorDomain, "\(error)")
                #expect([NSPersistentStoreOpenError, NSSQLiteError, NSPersistentStoreInvalidTypeError].contains(error.code), "\(error)")
                print("Read-only \(scenario): refused to open with \(error.code) (\(error.userInfo[NSSQLiteErrorDomain] ?? "no SQLite code"))")
                continue
            }
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let items = try context.fetch(request)
            #expect(items.compactMap { $0.value(forKey: "name") as? String } == (0..<5).map { "kept \($0)" })

            items[0].setValue("changed", forKey: "name")
            let inserted = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            inserted.setValue("new", forKey: "name")
            let error = #expect(throws: NSError.self, "\(scenario): saving to a file the process cannot write") { try context.save() }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect([NSPersistentStoreSaveError, NSSQLiteError].contains(error?.code ?? 0), "\(String(describing: error))")
            // Nothing lost: the unsaved changes are all still in the context.
            #expect(context.insertedObjects == [inserted] && inserted.value(forKey: "name") as? String == "new")
            #expect(context.updatedObjects == [items[0]] && items[0].value(forKey: "name") as? String == "changed")
            // A batch request cannot write either.
            let batch = NSBatchUpdateRequest(entityName: "Item")
            batch.propertiesToUpdate = ["name": "batch"]
            #expect(throws: NSError.self, "\(scenario): a batch update") { try context.execute(batch) }
            print("Read-only \(scenario): opened (read-only store: \(store.isReadOnly)), save refused with \(error?.code ?? 0) (\(error?.userInfo[NSSQLiteErrorDomain] ?? "no SQLite code"))")
            try coordinator.remove(store)
        }
    }

    /// `NSReadOnlyPersistentStoreOption`: batch requests are refused like saves (Apple's store refuses every write to
    /// a read-only store), with Core Data's error, and the file keeps every byte. (Saves: `SQLiteStoreTests`.)
    @Test(.enabled(if: ChildProcess.role == nil))
    func theReadOnlyOptionRefusesBatchRequests() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("ReadOnly.sqlite")
        let writer = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        let store = try writer.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = writer
        for index in 0..<3 { NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("kept \(index)", forKey: "name") }
        try context.save()
        try writer.remove(store)
        let before = try Data(contentsOf: url)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        let reader = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let update = NSBatchUpdateRequest(entityName: "Item")
        update.propertiesToUpdate = ["name": "changed"]
        let requests: [(String, NSPersistentStoreRequest)] = [
            ("batch insert", NSBatchInsertRequest(entityName: "Item", objects: [["name": "new"]])),
            ("batch update", update),
            ("batch delete", NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"))),
        ]
        for (name, request) in requests {
            let error = #expect(throws: NSError.self, "\(name) on a read-only store") { try reader.execute(request) }
            #expect(error?.domain == NSCocoaErrorDomain, "\(name)")
            #expect([NSPersistentStoreSaveError, NSPersistentStoreOperationError].contains(error?.code ?? 0), "\(name): \(String(describing: error))")
        }
        #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 3)
        #expect(try Data(contentsOf: url) == before)
    }
}
