import CSQLite
import Testing

@testable import OpenCoreData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What only a store with a file must do: reopen to the identical graph in an intact file, refuse files it cannot
/// open with clear errors (and leave them as they were), honour its options, and survive being killed mid-save.
/// The file is inspected with the SQLite C API (`RawSQLite`), independently of the library.
@Suite struct SQLiteStoreTests {
    // MARK: Round trip

    @Test func reopenedStoreYieldsTheIdenticalGraphInAnIntactFile() throws {
        let stack = try ConformanceStack(.sqlite)
        try SQLiteGraph.write(into: stack)
        let written = try SQLiteGraph.dump(stack)
        #expect(written.count == 14, "3 people, 3 animals, 4 tasks, 2 groups, 2 samples")
        let path = try #require(stack.storeURL?.path)
        try stack.close()

        let reopened = try ConformanceStack(.sqlite, model: ConformanceModel.make(), directory: stack.directory)
        let read = try SQLiteGraph.dump(reopened)
        #expect(read == written, "the reopened store's graph differs:\n\(Set(read).symmetricDifference(written).sorted().joined(separator: "\n"))")
        try reopened.close()

        #expect(try RawSQLite.rows(path, "PRAGMA integrity_check") == [["ok"]])
        #expect(try RawSQLite.rows(path, "SELECT count(*) FROM ZPERSON") == [["3"]])
    }

    // MARK: Files it cannot open

    @Test func reopeningWithADifferentModelThrowsIncompatibleVersionHash() throws {
        let stack = try ConformanceStack(.sqlite)
        try SQLiteGraph.write(into: stack)
        try stack.close()
        let path = try #require(stack.storeURL?.path)
        let before = try StoreFiles.fingerprint(of: stack.directory!.url)

        let changed = ConformanceModel.make(extraPersonAttribute: "middleName")
        let error = #expect(throws: NSError.self) {
            _ = try ConformanceStack(.sqlite, model: changed, directory: stack.directory)
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        let after = try StoreFiles.fingerprint(of: stack.directory!.url)
        #expect(after == before, "a refused store is left as it was: \(StoreFiles.differences(before, after))")
        #expect(try RawSQLite.rows(path, "PRAGMA integrity_check") == [["ok"]])
        // The right model still opens it.
        let again = try ConformanceStack(.sqlite, model: ConformanceModel.make(), directory: stack.directory)
        let context = again.newContext()
        try context.performAndWait { () throws in #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 3) }
    }

    @Test func anSQLiteFileThatIsNotACoreDataStoreIsRefused() throws {
        let directory = try TemporaryStoreDirectory()
        let path = directory.url.appendingPathComponent("Store.sqlite").path
        try RawSQLite.execute(path, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('not Core Data')")
        let before = try StoreFiles.fingerprint(of: directory.url)
        let error = #expect(throws: NSError.self) { _ = try ConformanceStack(.sqlite, model: ConformanceModel.shared, directory: directory) }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSPersistentStoreIncompatibleSchemaError, "134020, as the store reports a file without Z_METADATA")
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("not a Core Data store"), "says what is wrong: \(message)")
        let after = try StoreFiles.fingerprint(of: directory.url)
        #expect(after == before, "the foreign database is left as it was: \(StoreFiles.differences(before, after))")
        #expect(try RawSQLite.rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'") == [["people"]])
    }

    @Test func aFileOfRandomBytesIsRefused() throws {
        let directory = try TemporaryStoreDirectory()
        let url = directory.url.appendingPathComponent("Store.sqlite")
        var generator = StoreTestRandom(seed: 0x5EED)
        try Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: url)
        let before = try StoreFiles.fingerprint(of: directory.url)
        let error = #expect(throws: NSError.self) { _ = try ConformanceStack(.sqlite, model: ConformanceModel.shared, directory: directory) }
        #expect(error?.domain == NSCocoaErrorDomain)
        // Apple reports a file that is not a database as NSFileReadCorruptFileError (259), SQLite's code under NSSQLiteErrorDomain.
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect((error?.userInfo[NSSQLiteErrorDomain] as? NSNumber)?.int32Value == SQLITE_NOTADB)
        let after = try StoreFiles.fingerprint(of: directory.url)
        #expect(after == before, "the file is left as it was: \(StoreFiles.differences(before, after))")
    }

    @Test func aTruncatedStoreIsRefusedOrReadWithoutCrashing() throws {
        let stack = try ConformanceStack(.sqlite)
        try SQLiteGraph.write(into: stack)
        try stack.close()
        let url = try #require(stack.storeURL)
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count / 2).write(to: url)
        do {
            // Opening may succeed (the first pages are intact); reading the missing pages must then throw, not crash.
            let damaged = try ConformanceStack(.sqlite, model: ConformanceModel.shared, directory: stack.directory)
            let context = damaged.newContext()
            try context.performAndWait {
                for entity in ["Person", "Animal", "Task", "Group", "Sample"] { _ = try context.objects(entity).count }
            }
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain, "a damaged store fails with a Cocoa error: \(error)")
        }
    }

    // MARK: Options

    @Test func readOnlyOptionRefusesSavesAndLeavesTheFileByteIdentical() throws {
        let stack = try ConformanceStack(.sqlite)
        try SQLiteGraph.write(into: stack)
        try stack.close()
        let before = try StoreFiles.fingerprint(of: stack.directory!.url)

        let readOnly = try ConformanceStack(.sqlite, model: ConformanceModel.shared, directory: stack.directory,
                                            options: [NSReadOnlyPersistentStoreOption: true])
        #expect(readOnly.store.isReadOnly)
        let context = readOnly.newContext()
        let (updateError, insertError) = try context.performAndWait {
            #expect(try context.objects("Person").count == 3, "a read-only store reads")
            try context.only("Person", "name", "Alice").setValue("Changed", forKey: "name")
            let updateError = #expect(throws: NSError.self, "saving an update") { try context.save() }
            context.rollback()
            context.insertObject("Person", ["name": "New"])
            let insertError = #expect(throws: NSError.self, "saving an insert") { try context.save() }
            return (updateError, insertError)
        }
        for (error, change) in [(updateError, "an update"), (insertError, "an insert")] {
            #expect(error?.domain == NSCocoaErrorDomain, "saving \(change)")
            #expect(error?.code == NSPersistentStoreSaveError, "saving \(change) to a read-only store: 134030, as the store reports it")
        }
        try readOnly.close()
        // SQLite's read-only connection to a WAL database leaves an empty -wal and its -shm index beside the file;
        // the store file itself and the external data must not change by one byte.
        let after = try StoreFiles.fingerprint(of: stack.directory!.url)
        let sideFiles: Set<String> = ["Store.sqlite-wal", "Store.sqlite-shm"]
        #expect(after.filter { !sideFiles.contains($0.key) } == before, "not one byte of the store changed: \(StoreFiles.differences(before, after))")
        #expect(after["Store.sqlite-wal"].map(\.isEmpty) ?? true, "nothing was written to the log")
    }

    @Test func sqlitePragmasOptionIsApplied() throws {
        let stack = try ConformanceStack(.sqlite, options: [NSSQLitePragmasOption: ["synchronous": "FULL", "journal_mode": "DELETE"]])
        let store = try #require(stack.store as? SQLiteStore)
        // synchronous is a property of the connection: read it through the store's own.
        let synchronous = try stack.coordinator.performAndWait { try store.connection.pragmaValue("synchronous") }
        #expect(synchronous == .integer(2), "FULL")
        try SQLiteGraph.write(into: stack)
        let path = try #require(stack.storeURL?.path)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "journal_mode DELETE: no write-ahead log")
        try stack.close()
        // The file header's read/write versions (bytes 18 and 19) are 1 for rollback journals, 2 for WAL.
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))[18...19]) == [1, 1])

        let defaults = try ConformanceStack(.sqlite)
        let defaultStore = try #require(defaults.store as? SQLiteStore)
        #expect(try defaults.coordinator.performAndWait { try defaultStore.connection.pragmaValue("synchronous") } == .integer(1), "NORMAL by default")
        try SQLiteGraph.write(into: defaults)
        try defaults.close()
        #expect(Array(try Data(contentsOf: try #require(defaults.storeURL))[18...19]) == [2, 2], "WAL by default")
    }

    @Test func hostilePragmaOptionsCannotInjectSQL() throws {
        // A pragma name must be an identifier: anything else is refused.
        let error = #expect(throws: NSError.self) {
            _ = try ConformanceStack(.sqlite, options: [NSSQLitePragmasOption: ["synchronous = OFF; DROP TABLE Z_METADATA; --": 1]])
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        // A value is bound as a quoted literal, so SQL in it is only an (ignored) unknown setting, never executed.
        let stack = try ConformanceStack(.sqlite, options: [NSSQLitePragmasOption: ["synchronous": "FULL; DROP TABLE Z_METADATA"]])
        try SQLiteGraph.write(into: stack)
        try stack.close()
        let path = try #require(stack.storeURL?.path)
        #expect(try RawSQLite.rows(path, "SELECT count(*) FROM Z_METADATA") == [["1"]])
    }

    // MARK: Layout

    @Test func externalBinaryDataLivesBesideTheStore() throws {
        let stack = try ConformanceStack(.sqlite)
        let big = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let context = stack.newContext()
        try context.performAndWait {
            context.insertObject("Sample", ["string": "big", "bigData": big])
            context.insertObject("Sample", ["string": "small", "bigData": Data([1, 2, 3])])
            try context.save()
        }
        let folder = stack.directory!.url.appendingPathComponent(".Store_SUPPORT/_EXTERNAL_DATA")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count == 1, "only the value above 128 KiB goes to a file")
        if let file = files.first {
            #expect(UUID(uuidString: file) != nil)
            #expect(try Data(contentsOf: folder.appendingPathComponent(file)) == big)
        }
        try context.performAndWait {
            context.delete(try context.only("Sample", "string", "big"))
            try context.save()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "a deleted value's file is removed")
    }

    @Test func optimisticLockingAcrossTwoCoordinatorsUsesTheRowVersion() throws {
        let first = try ConformanceStack(.sqlite)
        let second = try first.reopened()
        let adaID = try StoreConformanceTests.insertAda(first)
        let path = try #require(first.storeURL?.path)
        #expect(try RawSQLite.rows(path, "SELECT Z_OPT FROM ZPERSON") == [["1"]])
        let firstContext = first.newContext(), secondContext = second.newContext()
        let adaInSecond = try secondContext.performAndWait {
            let ada = try secondContext.only("Person", "name", "Ada")
            _ = ada.value(forKey: "age")
            return ada
        }
        try firstContext.performAndWait {
            firstContext.object(with: adaID).setValue(40, forKey: "age")
            try firstContext.save()
        }
        #expect(try RawSQLite.rows(path, "SELECT Z_OPT, ZAGE FROM ZPERSON") == [["2", "40"]])
        let error = secondContext.performAndWait {
            adaInSecond.setValue("Countess", forKey: "name")
            return #expect(throws: NSError.self) { try secondContext.save() }
        }
        #expect(error?.code == NSManagedObjectMergeError)
        #expect((error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.first?.oldVersionNumber == 1)
        #expect(try RawSQLite.rows(path, "SELECT Z_OPT, ZNAME FROM ZPERSON") == [["2", "Ada"]])
    }

    // MARK: Crash safety

    /// "A child process killed at random points during 200 saves never leaves a store that fails integrity_check or
    /// contains part of a save." The child is this test executable, running `crashChildSaveLoop` (see `CrashChild`);
    /// this process kills it with SIGKILL after a random delay, then checks the file. `OPENCOREDATA_CRASH_KILLS=1000`
    /// runs the long version; `OPENCOREDATA_CRASH_SEED` replays a run.
    @Test(.enabled(if: CrashChild.storePath == nil))
    func killedMidSaveNeverLeavesAPartialSaveOrADamagedFile() throws {
        let environment = ProcessInfo.processInfo.environment
        let requiredKills = environment["OPENCOREDATA_CRASH_KILLS"].flatMap(Int.init) ?? 12
        let requiredSaves = max(200, requiredKills * 2)
        let seed = environment["OPENCOREDATA_CRASH_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        var generator = StoreTestRandom(seed: seed)
        let directory = try TemporaryStoreDirectory()
        let storePath = directory.url.appendingPathComponent("Crash.sqlite").path
        var figures = CrashFigures()
        var landed: Int64 = 0
        let started = Date()

        while figures.kills < requiredKills || figures.attempted < requiredSaves {
            let child = try CrashChild.start(storePath: storePath, run: figures.runs)
            figures.runs += 1
            // Most kills land while saves run; some during launch and store opening (WAL recovery included).
            if figures.runs % 4 == 0 {
                usleep(UInt32.random(in: 0...250_000, using: &generator))
            } else {
                _ = child.waitForReady(timeout: 30)
                usleep(UInt32.random(in: 5_000...150_000, using: &generator))
            }
            let killed = child.kill()
            if killed { figures.kills += 1 }
            let log = child.log()
            figures.attempted += log.begun.count
            #expect(log.failures.isEmpty, "the child failed: \(log.failures)")

            // The store must be intact, and hold exactly the saves 1…counter.
            let check = try CrashStoreCheck(path: storePath)
            #expect(check.integrity == ["ok"], "integrity_check after run \(figures.runs) (seed \(seed)): \(check.integrity)")
            #expect(check.problems.isEmpty, "after run \(figures.runs) (seed \(seed)):\n\(check.problems.joined(separator: "\n"))")
            if check.integrity != ["ok"] || !check.problems.isEmpty { figures.damaged += 1 }
            // A save the child saw complete is durable; the one in flight at the kill landed entirely or not at all.
            if let lastDone = log.completed.last {
                #expect(check.counter >= lastDone, "save \(lastDone) completed but the store's counter is \(check.counter) (seed \(seed))")
            }
            #expect(check.counter <= max(log.begun.last ?? 0, landed), "the counter \(check.counter) is ahead of every save begun (seed \(seed))")
            if check.counter > landed { figures.verified += Int(check.counter - landed) }
            landed = check.counter
            if !killed && child.exitStatus != 0 {
                Issue.record("the child exited with status \(child.exitStatus) on its own:\n\(child.output().suffix(2_000))")
                break
            }
            // A time limit that grows with the kills asked for (about 0.5 s per kill on an idle machine).
            let limit = max(600, Double(requiredKills) * 2)
            if Date().timeIntervalSince(started) > limit { Issue.record("stopping after \(Int(limit)) s: \(figures)"); break }
        }
        let seconds = Date().timeIntervalSince(started)
        print("Crash safety (seed \(seed)): \(figures.kills) kills in \(figures.runs) runs, \(figures.attempted) saves attempted, "
            + "\(figures.verified) saves landed and verified (counter \(landed)), \(figures.damaged) damaged or partial stores; \(String(format: "%.1f", seconds)) s")
        #expect(figures.kills >= min(requiredKills, 5))
        #expect(figures.attempted >= requiredSaves)
    }

    /// A process killed while it creates a new store (schema, primary-key and metadata rows) must leave a file that
    /// opens afterwards: SQLite's journal makes the creation transaction all or nothing, so the store is either
    /// complete or has no table at all — an empty database that is safe to treat as new.
    @Test(.enabled(if: CrashChild.storePath == nil))
    func killedWhileCreatingTheStoreStillOpens() throws {
        var generator = StoreTestRandom(seed: UInt64.random(in: 1...UInt64.max))
        var refused: [String] = []
        let attempts = 10
        for attempt in 0..<attempts {
            let directory = try TemporaryStoreDirectory()
            let storePath = directory.url.appendingPathComponent("Crash.sqlite").path
            let child = try CrashChild.start(storePath: storePath, run: attempt)
            let launched = Date()
            while !FileManager.default.fileExists(atPath: storePath) && child.process.isRunning && Date().timeIntervalSince(launched) < 30 {
                usleep(200)
            }
            usleep(UInt32.random(in: 0...3_000, using: &generator))  // the creation transaction takes a few milliseconds
            _ = child.kill()
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CrashModel.shared)
            do {
                try coordinator.remove(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: storePath)))
            } catch {
                let tables = (try? RawSQLite.rows(storePath, "SELECT count(*) FROM sqlite_master")) ?? []
                refused.append("attempt \(attempt): \((error as NSError).code) with \(tables) tables in the file")
            }
        }
        print("Killed while creating the store: \(attempts - refused.count) of \(attempts) stores open afterwards")
        #expect(refused.isEmpty, "stores a kill during creation left unopenable:\n\(refused.joined(separator: "\n"))")
    }

    /// The child of the crash test: saves batches until it is killed. Runs only in a child started by `CrashChild`.
    @Test(.enabled(if: CrashChild.storePath != nil))
    func crashChildSaveLoop() throws {
        guard let path = CrashChild.storePath else { return }
        try CrashChild.saveLoop(storePath: path)
    }
}

// MARK: - The graph of the round-trip tests

/// A graph that uses every attribute type and relationship shape of `ConformanceModel`, and a canonical dump of a
/// store's graph (one sorted line per object; objects named by their URI).
enum SQLiteGraph {
    static func write(into stack: ConformanceStack) throws {
        let context = stack.newContext()
        try context.performAndWait {
            let alice = context.insertObject("Person", ["name": "Alice", "age": 30, "email": "alice@example.com", "birthday": Date(timeIntervalSinceReferenceDate: 12.5)])
            let bob = context.insertObject("Person", ["name": "Bob", "nickname": "B", "email": "bob@example.com"])
            let carol = context.insertObject("Person", ["name": "Carol \"the 'quoted'\"", "age": -1])
            context.insertObject("Dog", ["name": "Rex", "legs": 4, "breed": "Collie", "owner": alice])
            context.insertObject("Cat", ["name": "Tom", "legs": 3, "indoor": true, "owner": alice])
            context.insertObject("Cat", ["name": "Stray"])
            let tasks = bob.mutableOrderedSetValue(forKey: "tasks")
            for (index, title) in ["z", "a", "m", "b"].enumerated() { tasks.add(context.insertObject("Task", ["title": title, "priority": index])) }
            let chess = context.insertObject("Group", ["title": "Chess"])
            chess.mutableSetValue(forKey: "members").addObjects(from: [alice, bob, carol])
            context.insertObject("Group", ["title": "Go"]).mutableSetValue(forKey: "members").add(carol)
            context.insertObject("Sample", [
                "string": "all", "int16": 16, "int32": 32, "int64": 64, "decimal": Decimal(string: "0.5")!, "double": 2.5, "float": Float(0.25),
                "bool": true, "date": Date(timeIntervalSinceReferenceDate: 1e9 + 0.001), "data": Data("bytes".utf8),
                "bigData": Data(repeating: 0xAB, count: 140_000), "uuid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
                "uri": URL(string: "file:///tmp/x%20y")!, "color": ConformanceColor(red: 9, green: 8, blue: 7), "owner": carol,
            ])
            context.insertObject("Sample", ["string": "nils"])
            try context.save()
        }
    }

    /// Every object of the store, as sorted lines (read by a new context).
    static func dump(_ stack: ConformanceStack) throws -> [String] {
        let context = stack.newContext()
        return try context.performAndWait {
            var lines: [String] = []
            for entity in stack.model.entities where !entity.isAbstract {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name!)
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    var fields: [String] = []
                    for (name, property) in entity.propertiesByName.sorted(by: { $0.key < $1.key }) {
                        fields.append("\(name)=\(describe(object.value(forKey: name), property))")
                    }
                    lines.append("\(object.objectID.uriRepresentation().absoluteString) \(entity.name!) \(fields.joined(separator: "; "))")
                }
            }
            return lines.sorted()
        }
    }

    private static func describe(_ value: Any?, _ property: NSPropertyDescription) -> String {
        switch value {
        case nil: return "nil"
        case let object as NSManagedObject: return object.objectID.uriRepresentation().absoluteString
        case let ordered as NSOrderedSet: return "[" + ordered.array.map { ($0 as! NSManagedObject).objectID.uriRepresentation().absoluteString }.joined(separator: ", ") + "]"
        case let set as NSSet: return "{" + set.allObjects.map { ($0 as! NSManagedObject).objectID.uriRepresentation().absoluteString }.sorted().joined(separator: ", ") + "}"
        case let date as Date: return "date \(date.timeIntervalSinceReferenceDate)"
        case let data as Data: return "data \(data.count) bytes, sum \(data.reduce(0) { $0 &+ Int($1) })"
        case let number as NSNumber: return "\(type(of: number)) \(number)"
        case let value?: return "\(type(of: value)) \(value)"
        }
    }
}

// MARK: - Crash test machinery

/// The model of the crash test: each save `n` inserts a `Batch` numbered `n` with `CrashModel.itemsPerBatch` items and
/// a 140 KB external blob, deletes batch `n - 3` (cascading to its items), and sets the one `Counter` to `n`. A store
/// at counter `c` therefore holds exactly batches `max(1, c - 2)…c`, each complete — anything else is part of a save.
enum CrashModel {
    static let itemsPerBatch = 12
    static let keptBatches: Int64 = 3

    static let shared: NSManagedObjectModel = {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        let batch = NSEntityDescription(), item = NSEntityDescription(), counter = NSEntityDescription()
        for (entity, name) in [(batch, "Batch"), (item, "Item"), (counter, "Counter")] {
            entity.name = name
            entity.managedObjectClassName = "NSManagedObject"
        }
        let items = NSRelationshipDescription(), owner = NSRelationshipDescription()
        items.name = "items"
        items.destinationEntity = item
        items.maxCount = 0
        items.isOrdered = true
        items.deleteRule = .cascadeDeleteRule
        owner.name = "batch"
        owner.destinationEntity = batch
        owner.maxCount = 1
        owner.deleteRule = .nullifyDeleteRule
        items.inverseRelationship = owner
        owner.inverseRelationship = items
        let blob = attribute("blob", .binaryDataAttributeType)
        blob.allowsExternalBinaryDataStorage = true
        batch.properties = [attribute("number", .integer64AttributeType), blob, items]
        batch.uniquenessConstraints = [["number"]]
        item.properties = [attribute("saveNumber", .integer64AttributeType), attribute("index", .integer16AttributeType), attribute("text", .stringAttributeType), owner]
        counter.properties = [attribute("value", .integer64AttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [batch, item, counter]
        return model
    }()

    /// The store options of the crash child and checker: persistent history is recorded with every save and batch
    /// request, so a kill also lands inside history writes.
    static var storeOptions: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }

    /// The text the batch update after save `number` gives every item of that save.
    static func checkedText(_ number: Int64) -> String { "checked \(number)" }

    /// The blob of batch `number` (above the 128 KiB external-storage threshold).
    static func blob(_ number: Int64) -> Data {
        var data = Data(repeating: UInt8(truncatingIfNeeded: number &* 37), count: 140_000)
        for offset in stride(from: 0, to: data.count - 8, by: 4_096) {  // the number on every page
            withUnsafeBytes(of: number.littleEndian) { data.replaceSubrange(offset..<offset + 8, with: $0) }
        }
        return data
    }

    static func text(_ number: Int64, _ index: Int) -> String {
        "save \(number) item \(index) " + String(repeating: "·", count: 64)
    }
}

/// A child process running `crashChildSaveLoop`, and the child's side of it.
final class CrashChild {
    static let storeVariable = "OPENCOREDATA_CRASH_CHILD"
    /// The store the child saves to; nil in the parent.
    static var storePath: String? { ProcessInfo.processInfo.environment[storeVariable] }

    let process = Process()
    let outputURL: URL

    private init(outputURL: URL) { self.outputURL = outputURL }

    /// Starts the test executable on `crashChildSaveLoop` with the store path in the environment.
    static func start(storePath: String, run: Int) throws -> CrashChild {
        let outputURL = URL(fileURLWithPath: storePath + ".child-\(run).log")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else { throw ConformanceFailure("cannot create \(outputURL.path)") }
        let child = CrashChild(outputURL: outputURL)
        let argument = CommandLine.arguments.first ?? ""
        let executable = FileManager.default.isExecutableFile(atPath: argument) ? argument : "/proc/self/exe"
        child.process.executableURL = URL(fileURLWithPath: executable)
        child.process.arguments = ["--testing-library", "swift-testing", "--filter", "SQLiteStoreTests/crashChildSaveLoop"]
        var environment = ProcessInfo.processInfo.environment
        environment[storeVariable] = storePath
        child.process.environment = environment
        let output = try FileHandle(forWritingTo: outputURL)
        child.process.standardOutput = output
        child.process.standardError = output
        try child.process.run()
        try output.close()
        return child
    }

    /// Waits until the child has opened the store.
    func waitForReady(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output().contains("OCD-CRASH ready") { return true }
            if !process.isRunning { return false }
            usleep(2_000)
        }
        return false
    }

    /// Kills the child with SIGKILL (true if it was still running) and waits for it.
    func kill() -> Bool {
        let wasRunning = process.isRunning
        if wasRunning { sendSIGKILL(process.processIdentifier) }
        process.waitUntilExit()
        return wasRunning && process.terminationReason == .uncaughtSignal
    }

    var exitStatus: Int32 { process.terminationStatus }

    func output() -> String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

    /// The save numbers the child began and completed, and any failure it reported.
    func log() -> (begun: [Int64], completed: [Int64], failures: [String]) {
        var begun: [Int64] = [], completed: [Int64] = [], failures: [String] = []
        for line in output().split(separator: "\n") where line.hasPrefix("OCD-CRASH ") {
            let words = line.split(separator: " ")
            guard words.count >= 3 else { continue }
            switch words[1] {
            case "begin": if let n = Int64(words[2]) { begun.append(n) }
            case "done": if let n = Int64(words[2]) { completed.append(n) }
            case "failed": failures.append(String(line))
            default: break
            }
        }
        return (begun, completed, failures)
    }

    // MARK: The child's side

    /// Writes a line straight to the output file descriptor (no buffering, so a kill loses nothing written).
    private static func report(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }

    /// Opens the store and saves batches until killed (or until a time limit, should no kill come).
    static func saveLoop(storePath: String) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CrashModel.shared)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: storePath), options: CrashModel.storeOptions)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let deadline = Date().addingTimeInterval(60)
        try context.performAndWait {
            var counter = try context.objects("Counter").first ?? context.insertObject("Counter", ["value": Int64(0)])
            var number = (counter.value(forKey: "value") as? Int64) ?? 0
            report("OCD-CRASH ready \(number)")
            while Date() < deadline {
                number += 1
                report("OCD-CRASH begin \(number)")
                let batch = context.insertObject("Batch", ["number": number, "blob": CrashModel.blob(number)])
                let items = batch.mutableOrderedSetValue(forKey: "items")
                for index in 0..<CrashModel.itemsPerBatch {
                    items.add(context.insertObject("Item", ["saveNumber": number, "index": index, "text": CrashModel.text(number, index)]))
                }
                for old in try context.objects("Batch", "number == %@", [number - CrashModel.keptBatches]) { context.delete(old) }
                counter.setValue(number, forKey: "value")
                do {
                    try context.save()
                } catch {
                    report("OCD-CRASH failed \(number) \(error)")
                    throw error
                }
                report("OCD-CRASH done \(number)")
                // A batch update of the batch's items (with its history transaction): all of them or none.
                let update = NSBatchUpdateRequest(entityName: "Item")
                update.predicate = NSPredicate(format: "saveNumber == %lld", number)
                update.propertiesToUpdate = ["text": CrashModel.checkedText(number)]
                update.resultType = .updatedObjectIDsResultType
                do {
                    // Apple's pattern: the coordinator is not told of a batch update, so its IDs are merged.
                    let result = try context.execute(update) as? NSBatchUpdateResult
                    NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: result?.result as? [NSManagedObjectID] ?? []], into: [context])
                } catch {
                    report("OCD-CRASH failed batch \(number) \(error)")
                    throw error
                }
                context.reset()  // keeps the child's memory flat
                guard let reloaded = try context.objects("Counter").first else { throw ConformanceFailure("the counter vanished") }
                counter = reloaded
            }
        }
    }
}

/// `kill(2)` with SIGKILL (out of reach by that name inside `CrashChild`, whose `kill()` shadows it).
private func sendSIGKILL(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}

/// What the parent finds in the store after a kill.
struct CrashStoreCheck {
    var integrity: [String] = []
    var counter: Int64 = 0
    var problems: [String] = []

    init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        // First the raw file, read-only and independent of the library (it reads the -wal the child left).
        integrity = try RawSQLite.rows(path, "PRAGMA integrity_check").map { $0.first.flatMap { $0 } ?? "nil" }
        guard integrity == ["ok"] else { return }
        // Then the graph, through the store.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CrashModel.shared)
        let store: NSPersistentStore
        do {
            store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path), options: CrashModel.storeOptions)
        } catch {
            // A kill before the first transaction committed may leave a file without Core Data tables.
            let tables = try RawSQLite.rows(path, "SELECT count(*) FROM sqlite_master WHERE name = 'Z_METADATA'")
            if tables != [["0"]] { problems.append("the store no longer opens: \(error)") }
            return
        }
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let (counter, problems) = try context.performAndWait { () throws -> (Int64, [String]) in
            var problems: [String] = []
            let counters = try context.objects("Counter")
            if counters.count > 1 { problems.append("\(counters.count) counters") }
            let counter = (counters.first?.value(forKey: "value") as? Int64) ?? 0
            let expected = counter == 0 ? [] : Array(max(1, counter - CrashModel.keptBatches + 1)...counter)
            let batches = try context.objects("Batch", sortedBy: ["number"])
            let numbers = batches.compactMap { $0.value(forKey: "number") as? Int64 }
            if numbers != expected { problems.append("counter \(counter) but batches \(numbers) (expected \(expected))") }
            for batch in batches {
                let number = batch.value(forKey: "number") as? Int64 ?? -1
                let items = (batch.value(forKey: "items") as? NSOrderedSet)?.array as? [NSManagedObject] ?? []
                let shape = items.map { "\($0.value(forKey: "saveNumber") as? Int64 ?? -1)/\($0.value(forKey: "index") as? Int16 ?? -1)" }
                let wanted = (0..<CrashModel.itemsPerBatch).map { "\(number)/\($0)" }
                if shape != wanted { problems.append("batch \(number) has items \(shape)") }
                // Either the batch update after the save ran on all of the batch's items, or on none.
                let texts = items.map { $0.value(forKey: "text") as? String }
                let original = items.map { CrashModel.text(number, Int($0.value(forKey: "index") as? Int16 ?? -1)) }
                if texts != original && texts != Array(repeating: CrashModel.checkedText(number), count: items.count) {
                    problems.append("batch \(number) has items with texts neither all original nor all updated: \(texts.map { $0?.prefix(12) ?? "nil" })")
                }
                if batch.value(forKey: "blob") as? Data != CrashModel.blob(number) { problems.append("batch \(number)'s external blob is wrong or missing") }
            }
            let itemCount = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
            if itemCount != batches.count * CrashModel.itemsPerBatch { problems.append("\(itemCount) items for \(batches.count) batches") }
            // Every completed save wrote one history transaction that changed the counter (none half-written).
            let transactions = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
            let counterSaves = ((transactions?.result as? [NSPersistentHistoryTransaction]) ?? []).filter { transaction in
                transaction.changes?.contains { $0.changedObjectID.entity.name == "Counter" } ?? false
            }.count
            if counterSaves != counter { problems.append("\(counterSaves) history transactions changed the counter, which is \(counter)") }
            return (counter, problems)
        }
        self.counter = counter
        self.problems = problems
    }
}

/// The figures the crash test prints.
struct CrashFigures: CustomStringConvertible {
    var runs = 0
    var kills = 0
    var attempted = 0
    var verified = 0
    /// Checks after which the file failed integrity_check or held part of a save.
    var damaged = 0
    var description: String { "\(kills) kills, \(runs) runs, \(attempted) saves attempted, \(verified) verified, \(damaged) damaged" }
}

// MARK: - Files

/// The SQLite C API on a connection of its own, independent of the library under test.
enum RawSQLite {
    /// The rows of a query on a read-only connection, every column as text (nil for NULL).
    static func rows(_ path: String, _ sql: String) throws -> [[String?]] {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw failure(db, "open \(path)") }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw failure(db, sql) }
        var rows: [[String?]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw failure(db, sql) }
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
        }
        return rows
    }

    /// Runs statements on a read-write connection (creating the file).
    static func execute(_ path: String, _ sql: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK
        else { throw failure(db, sql) }
    }

    private static func failure(_ db: OpaquePointer?, _ what: String) -> ConformanceFailure {
        ConformanceFailure("SQLite failed (\(what)): \(db.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection")")
    }
}

/// The files of a directory (hidden ones included) with their bytes, to prove nothing was written.
enum StoreFiles {
    /// What differs between two fingerprints, for messages.
    static func differences(_ before: [String: Data], _ after: [String: Data]) -> String {
        Set(before.keys).union(after.keys).sorted().compactMap { name -> String? in
            switch (before[name], after[name]) {
            case (nil, let new?): return "\(name) appeared (\(new.count) bytes)"
            case (_?, nil): return "\(name) disappeared"
            case (let old?, let new?) where old != new:
                let offsets = zip(old, new).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
                return "\(name) changed (\(old.count) → \(new.count) bytes; first differing offsets \(offsets.prefix(8)))"
            default: return nil
            }
        }.joined(separator: "; ")
    }

    static func fingerprint(of directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return result }
        for case let relative as String in enumerator {
            let url = directory.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = try Data(contentsOf: url)
            }
        }
        return result
    }
}

/// A small seeded generator, so a failing random run can be replayed.
struct StoreTestRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
