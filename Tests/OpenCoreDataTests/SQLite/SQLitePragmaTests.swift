import Foundation
import Testing

@testable import OpenCoreData

/// User pragmas (`NSSQLitePragmasOption`) and maintenance.
@Suite struct SQLitePragmaTests {
    @Test func pragmasOfEveryValueTypeAreApplied() throws {
        let connection = try SQLiteConnection(path: try SQLiteTestFiles.newDatabasePath())
        try connection.applyPragmas([
            "journal_mode": "DELETE",
            "cache_size": -4000,
            "secure_delete": true,
            "main.user_version": NSNumber(value: 7),
            "application_id": Int32(42),
            "analysis_limit": UInt8(9),
            "synchronous": "FULL",
        ])
        #expect(try connection.pragmaValue("journal_mode") == .text("delete"))
        #expect(try connection.pragmaValue("cache_size") == .integer(-4000))
        #expect(try connection.pragmaValue("secure_delete") == .integer(1))
        #expect(try connection.pragmaValue("user_version") == .integer(7))
        #expect(try connection.pragmaValue("application_id") == .integer(42))
        #expect(try connection.pragmaValue("analysis_limit") == .integer(9))
        #expect(try connection.pragmaValue("synchronous") == .integer(2))
    }

    @Test(arguments: [
        "journal_mode; DROP TABLE ZITEM", "user_version = 1; --", "1abc", "", "a.b.c", "x y", "café", "name\u{0}", "main.",
    ])
    func invalidPragmaNamesAreRefusedBeforeAnythingRuns(_ name: String) throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE ZITEM (x)")
        #expect {
            try connection.applyPragmas(["user_version": 5, name: 1])
        } throws: { error in
            let error = error as NSError
            return error.code == NSSQLiteError && error.localizedDescription.hasPrefix("invalid pragma name")
        }
        #expect(try connection.pragmaValue("user_version") == .integer(0), "no pragma ran")
        #expect(try connection.fetchValue("SELECT count(*) FROM ZITEM") == .integer(0))
    }

    @Test func valuesAreQuotedNeverSpliced() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE ZITEM (x)")
        // A hostile value becomes one string literal; SQLite rejects it as a journal mode and nothing else runs.
        try connection.applyPragmas(["journal_mode": "WAL'; DROP TABLE ZITEM; --"])
        #expect(try connection.fetchValue("SELECT count(*) FROM sqlite_schema WHERE name = 'ZITEM'") == .integer(1))
        #expect(try SQLiteConnection.pragmaLiteral(.text("it's"), name: "x") == "'it''s'")
        #expect(try SQLiteConnection.pragmaValue(false, name: "x") == .integer(0))
        #expect(try SQLiteConnection.pragmaValue(-2.5, name: "x") == .real(-2.5))
        #expect(try SQLiteConnection.pragmaValue(NSNumber(value: 1.5), name: "x") == .real(1.5))
        #expect(try SQLiteConnection.pragmaValue(NSNumber(value: 3), name: "x") == .integer(3))
        #expect(try SQLiteConnection.pragmaLiteral(.real(-2.5), name: "x") == "-2.5")
        for value: Any in [Double.nan, Double.infinity, "nul\u{0}", Data([1]), NSNull(), [1], UInt64.max] {
            #expect(throws: (any Error).self, "\(value)") { try SQLiteConnection.pragmaValue(value, name: "x") }
        }
        for value in [SQLiteValue.null, .blob(Data()), .real(.nan), .text("a\u{0}")] {
            #expect(throws: (any Error).self, "\(value)") { try SQLiteConnection.pragmaLiteral(value, name: "x") }
        }
    }

    @Test func configuredPragmasReplaceTheStoreDefaultsOnANewFile() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let pragmas = try SQLiteConnection.pragmaValues(["page_size": 8192, "auto_vacuum": "FULL", "journal_mode": "DELETE", "cache_size": -100])
        let connection = try SQLiteConnection(path: path, configuration: .init(pragmas: pragmas))
        #expect(try connection.pragmaValue("page_size") == .integer(8192))
        #expect(try connection.pragmaValue("auto_vacuum") == .integer(1))
        #expect(try connection.pragmaValue("journal_mode") == .text("delete"))
        #expect(try connection.pragmaValue("synchronous") == .integer(1))
        #expect(try connection.pragmaValue("cache_size") == .integer(-100))
        try connection.execute("CREATE TABLE ZITEM (x)")
        connection.close()
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(20)
        #expect(header[18] == 1 && Int(header[16]) << 8 | Int(header[17]) == 8192, "rollback journal, 8 KiB pages")

        // Reopened: an existing file keeps its page size and auto-vacuum whatever the configuration says.
        let reopened = try SQLiteConnection(path: path, configuration: .init(pragmas: ["page_size": .integer(1024)]))
        #expect(try reopened.pragmaValue("page_size") == .integer(8192))
        #expect(try reopened.pragmaValue("journal_mode") == .text("wal"))
        let reader = try SQLiteConnection(path: path, configuration: .init(mode: .readOnly, pragmas: ["journal_mode": .text("DELETE"), "cache_size": .integer(-7)]))
        #expect(try reader.pragmaValue("cache_size") == .integer(-7))
    }

    @Test func incrementalVacuumReleasesFreePages() throws {
        let connection = try SQLiteConnection(path: try SQLiteTestFiles.newDatabasePath())
        try connection.execute("CREATE TABLE ZBLOB (ZDATA BLOB)")
        try connection.inTransaction {
            let insert = try connection.cachedStatement("INSERT INTO ZBLOB VALUES (?)")
            for _ in 0..<50 {
                try insert.bind(Data(repeating: 7, count: 16_384), at: 1)
                try insert.execute()
            }
        }
        try connection.execute("DELETE FROM ZBLOB")
        guard case .integer(let free)? = try connection.pragmaValue("freelist_count") else { throw CancellationError() }
        #expect(free > 100)
        try connection.incrementalVacuum(pages: 10)
        #expect(try connection.pragmaValue("freelist_count") == .integer(free - 10))
        try connection.incrementalVacuum()
        #expect(try connection.pragmaValue("freelist_count") == .integer(0))
    }

    @Test func maintenanceOperations() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let connection = try SQLiteConnection(path: path)
        try connection.execute("CREATE TABLE ZITEM (ZNAME VARCHAR); CREATE INDEX ZITEM_ZNAME ON ZITEM (ZNAME); INSERT INTO ZITEM VALUES ('a'), ('b')")
        #expect(try connection.integrityCheck() == ["ok"])
        #expect(try connection.integrityCheck(maxErrors: 1) == ["ok"])
        try connection.analyze()
        #expect(try connection.fetchValue("SELECT count(*) FROM sqlite_stat1") != .integer(0))
        let walSize = { (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? -1 }
        #expect(walSize() > 0)
        let result = try connection.walCheckpoint(mode: .truncate)
        #expect(result.isComplete && result.logFrames == 0 && result.checkpointedFrames == 0)
        #expect(walSize() == 0)
        try connection.vacuum()
        #expect(try connection.pragmaValue("auto_vacuum") == .integer(2), "VACUUM keeps incremental auto-vacuum")

        let memory = try SQLiteConnection(path: ":memory:")
        #expect(try memory.walCheckpoint() == SQLiteCheckpointResult(isComplete: true, logFrames: -1, checkpointedFrames: -1))
    }
}
