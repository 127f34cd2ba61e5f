import Testing

@testable import OpenCoreData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A full disk, for real: a child process ignores `SIGXFSZ` and lowers `RLIMIT_FSIZE` (the largest file it may
/// write) just above the current size of the store, its -wal and -shm, so the next write that would grow a file
/// fails in the kernel (`EFBIG`) exactly as a full volume fails it (`ENOSPC`). SQLite reports the failed write
/// (`SQLITE_FULL` or `SQLITE_IOERR_WRITE`), the store throws Core Data's `NSSQLiteError` (134180) with that code under
/// `NSSQLiteErrorDomain`, the context keeps every unsaved change, the file stays intact, and once the limit is raised
/// again ("space is freed") the same save succeeds and stores exactly those changes.
///
/// The parent only starts the child and checks its verdict and the files it left: each scenario's assertions run in
/// the child, where the limit is in force (the limit is process-wide, so it cannot be lowered in the test process).
@Suite struct DiskFullTests {
    static let role = "diskFull"

    /// The scenarios; each is one child run (`ChildProcess.path` is "<directory>|<scenario>").
    enum Scenario: String, CaseIterable {
        case save, batchInsert, externalBinaryData
    }

    @Test(.enabled(if: ChildProcess.role == nil), arguments: Scenario.allCases)
    func aFullDiskFailsTheSaveKeepsTheChangesAndARetrySucceeds(_ scenario: Scenario) throws {
        let directory = try TemporaryDirectory.make()
        let result = try ChildProcess.run(test: "DiskFullTests/diskFullChild", role: Self.role, path: directory.path + "|" + scenario.rawValue)
        #expect(result.status == 0 && result.output.contains("diskFullChild() passed"), "child output:\n\(result.output.suffix(4_000))")
        let report = try String(contentsOf: directory.appendingPathComponent("report.txt"), encoding: .utf8)
        // SQLite's failed write is NSSQLiteError (134180); the external blob's failed file write is NSPersistentStoreSaveError.
        #expect(report.hasPrefix(scenario == .externalBinaryData ? "failed with 134030/" : "failed with 134180/"), "\(report)")
        print("Disk full (\(scenario.rawValue)): \(report.trimmingCharacters(in: .newlines))")

        // The parent's own look at the file, with the SQLite C API: intact, and holding exactly what the child saved.
        let store = directory.appendingPathComponent("Full.sqlite").path
        #expect(try RawSQLite.rows(store, "PRAGMA integrity_check") == [["ok"]])
        let names = try RawSQLite.rows(store, "SELECT ZNAME FROM ZITEM ORDER BY Z_PK").compactMap { $0[0] }
        #expect(names == Self.expectedNames(after: scenario))
    }

    /// The rows a scenario ends with: the 10 saved before the disk filled, then those of the retried save.
    static func expectedNames(after scenario: Scenario) -> [String] {
        let before = (0..<10).map { $0 == 3 ? "renamed before 3" : "before \($0)" }
        switch scenario {
        case .save: return before + (0..<Self.bulkCount).map { "bulk \($0)" }
        case .batchInsert: return before + (0..<Self.bulkCount).map { "batch \($0)" }
        case .externalBinaryData: return before + ["external"]
        }
    }

    static let bulkCount = 400
    /// 400 rows of 4 KiB text: 1.6 MB to write, far beyond the limit.
    static func filler(_ index: Int) -> String { String(repeating: "\(index % 10)", count: 4_096) }

    // MARK: The child

    @Test(.enabled(if: ChildProcess.role == DiskFullTests.role))
    func diskFullChild() throws {
        let parts = ChildProcess.path.split(separator: "|").map(String.init)
        let directory = URL(fileURLWithPath: parts[0]), scenario = try #require(Scenario(rawValue: parts[1]))
        let url = directory.appendingPathComponent("Full.sqlite")
        signal(SIGXFSZ, SIG_IGN)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var saved: [NSManagedObject] = []
        for index in 0..<10 {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("before \(index)", forKey: "name")
            item.setValue(Int32(index), forKey: "rating")
            saved.append(item)
        }
        try context.save()
        if scenario != .save {
            saved[3].setValue("renamed before 3", forKey: "name")
            try context.save()
        }

        // The "disk": nothing may grow more than 64 KiB past the largest file's present size — room for the small
        // writes before the big one (primary keys, a row), none for the big one (1.6 MB of rows, a 400 KB blob).
        let sizes = ["", "-wal", "-shm"].map { (try? FileManager.default.attributesOfItem(atPath: url.path + $0)[.size] as? Int) ?? 0 }
        var original = rlimit()
        #expect(getrlimit(Self.fileSizeLimit, &original) == 0)
        var limited = original
        limited.rlim_cur = rlim_t(sizes.max()! + 65_536)
        #expect(setrlimit(Self.fileSizeLimit, &limited) == 0)

        var error: NSError?
        switch scenario {
        case .save:
            saved[3].setValue("renamed before 3", forKey: "name")
            for index in 0..<Self.bulkCount {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue("bulk \(index)", forKey: "name")
                item.setValue(Double(index) + 0.5, forKey: "price")
                item.setValue(Data(Self.filler(index).utf8), forKey: "payload")  // 4 KiB: kept in the row
            }
            do { try context.save() } catch let thrown as NSError { error = thrown }
            // Every unsaved change is still there, values intact.
            #expect(context.insertedObjects.count == Self.bulkCount)
            #expect(context.updatedObjects.contains(saved[3]))
            #expect(saved[3].value(forKey: "name") as? String == "renamed before 3")
            #expect(saved[3].changedValues()["name"] as? String == "renamed before 3")
            let names = Set(context.insertedObjects.compactMap { $0.value(forKey: "name") as? String })
            #expect(names == Set((0..<Self.bulkCount).map { "bulk \($0)" }))
            #expect(context.hasChanges)
        case .batchInsert:
            let objects: [[String: Any]] = (0..<Self.bulkCount).map { ["name": "batch \($0)", "payload": Data(Self.filler($0).utf8.prefix(2_000))] }
            do { _ = try context.execute(NSBatchInsertRequest(entityName: "Item", objects: objects)) } catch let thrown as NSError { error = thrown }
        case .externalBinaryData:
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("external", forKey: "name")
            let blob = Data((0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            item.setValue(blob, forKey: "payload")
            do { try context.save() } catch let thrown as NSError { error = thrown }
            #expect(context.insertedObjects == [item])
            #expect(item.value(forKey: "payload") as? Data == blob)
            // No half-written file is left behind.
            let external = directory.appendingPathComponent(".Full_SUPPORT/_EXTERNAL_DATA").path
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: external)) ?? []).isEmpty)
        }
        let thrown = try #require(error, "the write past the limit must fail")
        #expect(thrown.domain == NSCocoaErrorDomain)
        let sqliteCode = thrown.userInfo[NSSQLiteErrorDomain] as? NSNumber
        let underlying = thrown.userInfo[NSUnderlyingErrorKey] as? NSError
        if scenario == .externalBinaryData {
            // The blob's file cannot be written: Core Data's save error with the file system's error underneath (EFBIG).
            #expect(thrown.code == NSPersistentStoreSaveError, "\(thrown)")
            #expect(underlying?.domain == NSCocoaErrorDomain, "\(thrown)")
            #expect(thrown.userInfo[NSFilePathErrorKey] as? String != nil)
        } else {
            #expect(thrown.code == NSSQLiteError, "\(thrown)")
            // SQLITE_FULL (13) for ENOSPC; SQLITE_IOERR_WRITE (778) for EFBIG, which is what RLIMIT_FSIZE gives.
            #expect(sqliteCode.map { [13, 10].contains($0.int32Value & 0xFF) } == true, "\(thrown.userInfo)")
        }

        // The store is intact while the disk is still "full": the earlier saves and nothing of the failed one.
        #expect(try RawSQLite.rows(url.path, "PRAGMA integrity_check") == [["ok"]])
        let before = try RawSQLite.rows(url.path, "SELECT ZNAME FROM ZITEM ORDER BY Z_PK").compactMap { $0[0] }
        #expect(before == (0..<10).map { $0 == 3 && scenario != .save ? "renamed before 3" : "before \($0)" })

        // Space is freed: the same save succeeds, and stores exactly the changes.
        #expect(setrlimit(Self.fileSizeLimit, &original) == 0)
        switch scenario {
        case .save, .externalBinaryData:
            try context.save()
            #expect(!context.hasChanges)
        case .batchInsert:
            let objects: [[String: Any]] = (0..<Self.bulkCount).map { ["name": "batch \($0)", "payload": Data(Self.filler($0).utf8.prefix(2_000))] }
            _ = try context.execute(NSBatchInsertRequest(entityName: "Item", objects: objects))
        }
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let check = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        check.persistentStoreCoordinator = reopened
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let items = try check.fetch(request)
        #expect(items.count == Self.expectedNames(after: scenario).count)
        if scenario == .externalBinaryData {
            let blob = Data((0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            #expect(items.first { $0.value(forKey: "name") as? String == "external" }?.value(forKey: "payload") as? Data == blob)
        }
        let code = sqliteCode.map { "\($0)" } ?? "none"
        try "failed with \(thrown.code)/\(code) \(thrown.localizedDescription.prefix(80))\(underlying.map { " (underlying \($0.domain) \($0.code))" } ?? ""), limit \(sizes.max()! + 65_536) bytes, retried after raising RLIMIT_FSIZE\n"
            .write(to: directory.appendingPathComponent("report.txt"), atomically: true, encoding: .utf8)
    }
}

extension DiskFullTests {
    #if canImport(Glibc)
    /// `RLIMIT_FSIZE` as `setrlimit` takes it (an enum on Glibc, an `Int32` on Darwin).
    static let fileSizeLimit = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
    #else
    static let fileSizeLimit = RLIMIT_FSIZE
    #endif
}
