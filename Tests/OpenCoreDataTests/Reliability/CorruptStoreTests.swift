import Testing

@testable import OpenCoreData

/// Damaged and foreign store files: truncated at many offsets (header, mid-page, with and without a -wal), random
/// bytes, an SQLite database that is not a Core Data store. Each is opened the way an app opens a store
/// (`metadataForPersistentStore`, then `addPersistentStore` and a fetch of every entity) and must end in a thrown
/// `NSError` with Core Data's domain and a store code — or, where the damage misses every page read, in exactly the
/// data that was saved. Never a crash, never a silently shortened result, and a refused file is not written to.
///
/// Every input is a fresh file in a temporary directory (corpus stores are copied, never opened in place).
@Suite(.serialized) struct CorruptStoreTests {
    /// The codes a damaged or foreign store may be refused with.
    static let storeCodes: Set<Int> = [
        NSPersistentStoreInvalidTypeError, NSPersistentStoreIncompatibleSchemaError, NSPersistentStoreOperationError,
        NSPersistentStoreOpenError, NSPersistentStoreIncompatibleVersionHashError, NSSQLiteError, NSFileReadCorruptFileError,
        NSMigrationMissingSourceModelError,
    ]

    /// What happened to one input.
    enum Outcome: Equatable {
        case refusedOpening(Int)
        case refusedReading(Int)
        case read([String: Int])
    }

    /// Tallies of a suite's inputs, printed as the one-line summary the reliability report quotes.
    struct Tally {
        var tried = 0, refused = 0, readExactly = 0
        mutating func add(_ outcome: Outcome) {
            tried += 1
            if case .read = outcome { readExactly += 1 } else { refused += 1 }
        }
    }

    /// Opens the file at `url` as an app would and reads every entity's count; a thrown error must be Core Data's.
    static func open(_ url: URL, model: NSManagedObjectModel, _ comment: @autoclosure () -> String) -> Outcome {
        func check(_ error: Error) -> Int {
            let error = error as NSError
            #expect(error.domain == NSCocoaErrorDomain, "\(comment()): \(error)")
            #expect(storeCodes.contains(error.code), "\(comment()): unexpected code \(error.code): \(error)")
            return error.code
        }
        do {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        } catch {
            return .refusedOpening(check(error))
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store: NSPersistentStore
        do {
            store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        } catch {
            return .refusedOpening(check(error))
        }
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var counts: [String: Int] = [:]
        do {
            // Every row, value and relationship, read through throwing API: objects filled in by the fetch and
            // every relationship prefetched. (Firing a fault that cannot be fulfilled is a programmer-error trap, as
            // Apple's NSObjectInaccessibleException is, so a reader of untrusted files fetches this way.)
            for entity in model.entities where entity.superentity == nil {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name!)
                request.returnsObjectsAsFaults = false
                request.relationshipKeyPathsForPrefetching = Array(entity.relationshipsByName.keys)
                let objects = try context.fetch(request)
                let attributes = Array(entity.attributesByName.keys)
                for object in objects { _ = object.committedValues(forKeys: attributes) }
                counts[entity.name!] = objects.count
            }
        } catch {
            return .refusedReading(check(error))
        }
        return .read(counts)
    }

    /// A store of the batch model with some hundred rows over many pages, closed (no -wal), and the counts it holds.
    static func makeStore(in directory: URL, keepWAL: Bool = false) throws -> (url: URL, before: [String: Int], after: [String: Int]) {
        let url = directory.appendingPathComponent("Source.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        func add(_ count: Int, _ prefix: String) {
            for index in 0..<count {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue("\(prefix) author \(index)", forKey: "name")
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                book.setValue(String(repeating: "\(prefix) title \(index) ", count: 20), forKey: "title")
                book.setValue(author, forKey: "author")
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue("\(prefix) item \(index)", forKey: "name")
                item.setValue(Data(repeating: UInt8(index & 0xFF), count: 300), forKey: "payload")
            }
        }
        add(40, "first")
        try context.save()
        func counts() throws -> [String: Int] {
            var result: [String: Int] = [:]
            for entity in BatchModel.shared.entities where entity.superentity == nil {
                result[entity.name!] = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity.name!))
            }
            return result
        }
        let before = try counts()
        guard keepWAL else {
            try coordinator.remove(store)
            return (url, before, before)
        }
        try coordinator.remove(store)  // a checkpointed main file, then one more save that stays in the -wal
        let second = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        let reopened = try second.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        context.reset()
        context.persistentStoreCoordinator = second
        add(10, "second")
        try context.save()
        let after = try counts()
        // Copy the pair while the store is open: the -wal holds the second save, uncheckpointed.
        let copy = directory.appendingPathComponent("WithWAL.sqlite")
        try FileManager.default.copyItem(atPath: url.path, toPath: copy.path)
        try FileManager.default.copyItem(atPath: url.path + "-wal", toPath: copy.path + "-wal")
        try second.remove(reopened)
        return (copy, before, after)
    }

    /// Writes `bytes` (and optionally a -wal) as a fresh store file and opens it; a refused file must be unchanged.
    static func tryInput(_ bytes: Data, wal: Data? = nil, model: NSManagedObjectModel, in directory: URL, _ comment: String) throws -> Outcome {
        let url = directory.appendingPathComponent("Input-\(UUID().uuidString).sqlite")
        try bytes.write(to: url)
        if let wal { try wal.write(to: URL(fileURLWithPath: url.path + "-wal")) }
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        let outcome = open(url, model: model, comment)
        if case .refusedOpening = outcome {
            #expect(try Data(contentsOf: url) == bytes, "\(comment): a refused file was written to")
        }
        return outcome
    }

    // MARK: Truncation

    @Test func truncatedStoresAreRefusedOrReadExactly() throws {
        let directory = try TemporaryDirectory.make()
        let clean = try Self.makeStore(in: directory.appendingPathComponent("clean"))
        let withWAL = try Self.makeStore(in: directory.appendingPathComponent("wal"), keepWAL: true)
        let cleanBytes = try Data(contentsOf: clean.url)
        let mainBytes = try Data(contentsOf: withWAL.url), walBytes = try Data(contentsOf: URL(fileURLWithPath: withWAL.url.path + "-wal"))
        #expect(walBytes.count > 4_096, "the -wal holds the second save")
        var tally = Tally()
        // The header (every byte of the first 100), every 64th offset of the first 8 KiB (page 1, sqlite_master and
        // the metadata), then every 509th (a prime: mid-page offsets everywhere). OPENCOREDATA_TRUNCATION_STRIDE=64
        // cuts at every 64th offset of the whole files (about 6,000 inputs, ~100 s).
        let stride509 = ProcessInfo.processInfo.environment["OPENCOREDATA_TRUNCATION_STRIDE"].flatMap(Int.init) ?? 509
        func offsets(_ size: Int) -> [Int] {
            Array(1..<100) + Array(stride(from: 100, to: min(size, 8_192), by: 64)) + Array(stride(from: 8_192, to: size, by: stride509))
        }

        for length in offsets(cleanBytes.count) {
            let outcome = try Self.tryInput(cleanBytes.prefix(length), model: BatchModel.shared, in: directory, "store cut at \(length)")
            if case .read(let counts) = outcome { #expect(counts == clean.before, "store cut at \(length) read short: \(counts)") }
            tally.add(outcome)
        }
        for length in offsets(mainBytes.count) {
            let outcome = try Self.tryInput(mainBytes.prefix(length), wal: walBytes, model: BatchModel.shared, in: directory, "store cut at \(length), -wal intact")
            if case .read(let counts) = outcome { #expect(counts == withWAL.after, "store cut at \(length) with its -wal read short: \(counts)") }
            tally.add(outcome)
        }
        // A -wal cut short loses at most its unfinished last commit, which is the whole second save here.
        for length in [0] + offsets(walBytes.count) {
            let outcome = try Self.tryInput(mainBytes, wal: walBytes.prefix(length), model: BatchModel.shared, in: directory, "-wal cut at \(length)")
            if case .read(let counts) = outcome {
                #expect(counts == withWAL.before || counts == withWAL.after, "-wal cut at \(length) read a partial save: \(counts)")
            } else {
                Issue.record("-wal cut at \(length): a store with a damaged -wal tail must still open at its last whole commit (\(outcome))")
            }
            tally.add(outcome)
        }
        print("Hostile inputs (truncated stores): \(tally.tried) tried, \(tally.refused) refused with an error, \(tally.readExactly) read exactly (damage outside the pages read), 0 crashes")
        #expect(tally.tried > 700)
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func truncatedCorpusStoreIsRefusedOrReadExactly() throws {
        let copy = try CorpusStoreReadTests.storeCopy("objcio__core-data__Moody.moody")
        let model = try CorpusStoreReadTests.readingModel("objcio__core-data__Moody__Migrations-Moody_1.xml")
        let bytes = try Data(contentsOf: copy)
        guard case .read(let intact) = Self.open(copy, model: model, "the intact Moody store") else {
            Issue.record("the intact corpus store must open")
            return
        }
        let directory = try TemporaryDirectory.make()
        var tally = Tally()
        for length in stride(from: 1, to: bytes.count, by: 64) {
            let outcome = try Self.tryInput(bytes.prefix(length), model: model, in: directory, "Moody store cut at \(length)")
            if case .read(let counts) = outcome { #expect(counts == intact, "Moody store cut at \(length) read short: \(counts)") }
            tally.add(outcome)
        }
        print("Hostile inputs (truncated corpus store): \(tally.tried) tried, \(tally.refused) refused with an error, \(tally.readExactly) read exactly, 0 crashes")
    }

    // MARK: Not a store

    @Test func randomBytesAndForeignFilesAreRefused() throws {
        let directory = try TemporaryDirectory.make()
        var random = StoreTestRandom(seed: 0x5EED_13)
        var tally = Tally()
        let header = Data("SQLite format 3\0".utf8)
        for index in 0..<200 {
            let size = [16, 100, 512, 4_096, 8_192, 65_536][index % 6] + Int.random(in: 0..<64, using: &random)
            var bytes = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) })
            // Half of them carry a valid SQLite magic string, so SQLite reads further into the garbage.
            if index % 2 == 1 { bytes.replaceSubrange(0..<16, with: header) }
            let outcome = try Self.tryInput(bytes, model: BatchModel.shared, in: directory, "random bytes #\(index)")
            if case .read = outcome { Issue.record("random bytes #\(index) opened as a store") }
            tally.add(outcome)
        }
        // Other foreign files: text, a property list, an SQLite database of another application.
        let foreignSQLite = directory.appendingPathComponent("Foreign.sqlite")
        try RawSQLite.execute(foreignSQLite.path, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('x')")
        let foreign: [(String, Data)] = [
            ("text", Data("hello, this is not a store\n".utf8)),
            ("xml plist", try PropertyListSerialization.data(fromPropertyList: ["NSStoreType": "SQLite"], format: .xml, options: 0)),
            ("another app's SQLite database", try Data(contentsOf: foreignSQLite)),
        ]
        for (name, bytes) in foreign {
            let outcome = try Self.tryInput(bytes, model: BatchModel.shared, in: directory, name)
            if case .read = outcome { Issue.record("\(name) opened as a store") }
            tally.add(outcome)
        }
        print("Hostile inputs (random and foreign files): \(tally.tried) tried, \(tally.refused) refused with an error, 0 crashes")
    }
}
