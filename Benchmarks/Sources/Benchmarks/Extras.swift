import Foundation
import OpenCoreData

extension GRDBDatabase {
    /// A batch insert in GRDB's raw-SQL form: one cached statement, arguments per row.
    func batchInsert(_ rows: [ItemRow]) throws {
        try queue.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZFLAG, ZID, ZCREATEDAT, ZSCORE, ZNAME, ZPAYLOAD) VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?)")
            for (index, row) in rows.enumerated() {
                try statement.execute(arguments: [Int64(index + 1), row.flag, row.id, row.createdAt.timeIntervalSinceReferenceDate, row.score, row.name, row.payload])
            }
        }
    }
}

extension OpenCoreDataStack {
    /// `NSBatchInsertRequest` with a dictionary handler (no objects).
    func batchInsert(_ rows: [ItemRow]) throws {
        try context.performAndWait {
            var index = 0
            let request = NSBatchInsertRequest(entityName: "Item") { (dictionary: NSMutableDictionary) -> Bool in
                guard index < rows.count else { return true }
                let row = rows[index]
                dictionary["id"] = row.id
                dictionary["name"] = row.name
                dictionary["score"] = row.score
                dictionary["createdAt"] = row.createdAt
                dictionary["flag"] = row.flag
                dictionary["payload"] = row.payload
                index += 1
                return false
            }
            request.resultType = .statusOnly
            _ = try context.execute(request)
        }
    }

    /// `NSBatchDeleteRequest` of every item: no objects.
    func batchDelete() throws {
        try context.performAndWait {
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"))
            request.resultType = .resultTypeStatusOnly
            _ = try context.execute(request)
        }
    }

    /// An `NSFetchedResultsController` over every item by score (batches of 20), then `changes` edits, each its own
    /// event (the controller reports each): the score of one item moves it elsewhere in the list.
    func fetchedResultsController(changes: Int) throws -> Int {
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "score", ascending: true)]
            request.fetchBatchSize = 20
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            let count = controller.fetchedObjects?.count ?? 0
            var generator = SplitMix64(seed: 7)
            for _ in 0..<changes {
                let item = controller.object(at: IndexPath(item: Int(generator.next() % UInt64(count)), section: 0))
                item.score = Double(generator.next() % 1_000_000) / 1_000_000
                context.processPendingChanges()
            }
            let checksum = controller.fetchedObjects?.count ?? 0
            context.rollback()
            context.reset()
            return checksum
        }
    }
}

extension OpenCoreDataStack {
    /// `NSBatchUpdateRequest`: one SQL statement, no objects.
    func batchUpdate() throws {
        try context.performAndWait {
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.propertiesToUpdate = ["flag": true]
            request.resultType = .statusOnlyResultType
            _ = try context.execute(request)
        }
    }
}

/// Bytes of resident memory per realized object, measured in a process of its own on a store another
/// process wrote (so that memory freed by the writing cannot be reused and hide the cost).
enum MemoryProbe {
    /// The store the parent prepares for `implementation`.
    static func storePath(_ implementation: Implementation) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ocd-bench-memory-\(implementation.rawValue.replacingOccurrences(of: " ", with: "-")).sqlite").path
    }

    /// Writes the N rows for `implementation` (in the parent).
    static func prepare(_ implementation: Implementation, rows: [ItemRow]) throws {
        let path = storePath(implementation)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        switch implementation {
        case .raw:
            let database = RawDatabase(path: path)
            RawDatabase.createSchema(database)
            database.insert(rows)
        case .grdb:
            let database = try GRDBDatabase(path: path)
            try database.createSchema()
            try database.insert(rows)
        case .openCoreData:
            try OpenCoreDataStack(path: path).insert(rows)
        }
    }

    /// Opens the prepared store and measures the resident memory that holding every row as an object costs.
    static func run(_ implementation: Implementation, n: Int) throws -> Int {
        let path = storePath(implementation)
        switch implementation {
        case .raw:
            let database = RawDatabase(path: path)
            _ = database.items("WHERE Z_PK < 0")
            let before = residentBytes()
            let items = database.items()
            let after = residentBytes()
            withExtendedLifetime(items) {}
            return (after - before) / max(items.count, 1)
        case .grdb:
            let database = try GRDBDatabase(path: path)
            _ = try database.rangeFetch(2, 3)
            let before = residentBytes()
            let items = try database.fetchAllRecords()
            let after = residentBytes()
            withExtendedLifetime(items) {}
            return (after - before) / max(items.count, 1)
        case .openCoreData:
            let stack = try OpenCoreDataStack(path: path)
            _ = try stack.rangeFetch(2, 3)
            return try stack.context.performAndWait {
                let before = residentBytes()
                let request = NSFetchRequest<Item>(entityName: "Item")
                request.returnsObjectsAsFaults = false
                let items = try stack.context.fetch(request)
                let after = residentBytes()
                withExtendedLifetime(items) {}
                return (after - before) / max(items.count, 1)
            }
        }
    }
}

/// The `sqlite3` shell importing the same rows in one transaction: a check that the raw baseline is not slow.
enum SQLiteShellBaseline {
    static func importSeconds(_ rows: [ItemRow]) -> Double? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else { return nil }
        let path = freshStorePath("shell.sqlite")
        var sql = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;\nCREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZFLAG INTEGER, ZID INTEGER, ZCREATEDAT TIMESTAMP, ZSCORE FLOAT, ZNAME VARCHAR, ZPAYLOAD BLOB);\nCREATE INDEX ZITEM_ZSCORE_INDEX ON ZITEM (ZSCORE);\nBEGIN;\n"
        sql.reserveCapacity(rows.count * 120)
        for (index, row) in rows.enumerated() {
            let hex = row.payload.map { String(format: "%02x", $0) }.joined()
            sql += "INSERT INTO ZITEM VALUES (\(index + 1), 1, 1, \(row.flag ? 1 : 0), \(row.id), \(row.createdAt.timeIntervalSinceReferenceDate), \(row.score), '\(row.name)', x'\(hex)');\n"
        }
        sql += "COMMIT;\n"
        let script = path + ".sql"
        guard (try? sql.write(toFile: script, atomically: true, encoding: .utf8)) != nil else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "/usr/bin/sqlite3 '\(path)' < '\(script)' > /dev/null"]
        return try? time {
            try process.run()
            process.waitUntilExit()
        }
    }
}

/// The machine the run happened on.
enum MachineDescription {
    static var current: String {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
            .first { $0.hasPrefix("model name") }.map { $0.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
        return "\(ProcessInfo.processInfo.activeProcessorCount) cores (\(cpu)), \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
    }
}
