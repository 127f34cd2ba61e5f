import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// Opening: the store's configuration on a new file, existing files, read-only opens.
@Suite struct SQLiteConnectionOpeningTests {
    @Test func newFileGetsApplesStoreConfiguration() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let connection = try SQLiteConnection(path: path)
        #expect(try connection.pragmaValue("auto_vacuum") == .integer(2))
        #expect(try connection.pragmaValue("journal_mode") == .text("wal"))
        #expect(try connection.pragmaValue("synchronous") == .integer(1))
        #expect(try connection.pragmaValue("page_size") == .integer(4096))
        #expect(try connection.pragmaValue("foreign_keys") == .integer(0))
        #expect(try connection.pragmaValue("busy_timeout") == .integer(5000))
        try connection.execute("CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR)")
        connection.close()

        // The header on disk says WAL (bytes 18/19 = 2), page size 4096, incremental vacuum (offset 64 ≠ 0).
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100)
        #expect(header[18] == 2 && header[19] == 2)
        #expect(Int(header[16]) << 8 | Int(header[17]) == 4096)
        #expect(header[52..<56].contains { $0 != 0 } && header[67] == 1)
    }

    @Test func existingFileKeepsItsAutoVacuumAndPageSize() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "PRAGMA page_size = 1024; CREATE TABLE t (x); INSERT INTO t VALUES (1)", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)

        let connection = try SQLiteConnection(path: path)
        #expect(try connection.pragmaValue("auto_vacuum") == .integer(0))
        #expect(try connection.pragmaValue("page_size") == .integer(1024))
        #expect(try connection.pragmaValue("journal_mode") == .text("wal"))
        #expect(try connection.fetchValue("SELECT x FROM t") == .integer(1))
    }

    @Test func busyTimeoutIsConfigurable() throws {
        let connection = try SQLiteConnection(path: ":memory:", configuration: .init(busyTimeout: 0.25))
        #expect(try connection.pragmaValue("busy_timeout") == .integer(250))
    }

    @Test func readWriteWithoutCreateRefusesMissingFile() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        #expect {
            try SQLiteConnection(path: path, configuration: .init(mode: .readWrite))
        } throws: { error in
            let error = error as NSError
            return sqliteCode(error) == SQLITE_CANTOPEN && error.userInfo[NSFilePathErrorKey] as? String == path
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func readOnlyOpenRefusesWritesAndLeavesTheFileAlone() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let writer = try SQLiteConnection(path: path)
        try writer.execute("CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR); INSERT INTO ZITEM (ZNAME) VALUES ('a')")
        writer.close()  // checkpoints and removes -wal/-shm
        let before = try SQLiteTestFiles.fingerprint(path)
        Thread.sleep(forTimeInterval: 0.01)

        let reader = try SQLiteConnection(path: path, configuration: .init(mode: .readOnly))
        #expect(reader.isReadOnly && !reader.isImmutable)
        #expect(try reader.fetchValue("SELECT ZNAME FROM ZITEM") == .text("a"))
        #expect {
            try reader.execute("INSERT INTO ZITEM (ZNAME) VALUES ('b')")
        } throws: { error in
            let error = error as NSError
            return error.domain == NSCocoaErrorDomain && error.code == NSSQLiteError
                && SQLiteResultCode(error: error)?.primary == .readonly
        }
        #expect(throws: (any Error).self) { try reader.execute("PRAGMA user_version = 7") }
        reader.close()

        let after = try SQLiteTestFiles.fingerprint(path)
        #expect(after.bytes == before.bytes)
        #expect(after.modified == before.modified)
    }

    @Test func readOnlyOpenReadsAWALItCannotCheckpoint() throws {
        // A store whose committed data lives only in its -wal (as Apple's stores often ship).
        let directory = try SQLiteTestFiles.directory()
        let live = directory.appendingPathComponent("Live.sqlite").path
        let copy = directory.appendingPathComponent("Copy.sqlite").path
        let writer = try SQLiteConnection(path: live)
        try writer.execute("CREATE TABLE ZITEM (ZNAME VARCHAR); INSERT INTO ZITEM VALUES ('in the wal')")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: live + suffix, toPath: copy + suffix) }
        writer.close()
        let mainBefore = try SQLiteTestFiles.fingerprint(copy)
        let walBefore = try SQLiteTestFiles.fingerprint(copy + "-wal")

        let reader = try SQLiteConnection(path: copy, configuration: .init(mode: .readOnly))
        #expect(try reader.fetchValue("SELECT ZNAME FROM ZITEM") == .text("in the wal"))
        reader.close()

        #expect(try SQLiteTestFiles.fingerprint(copy).bytes == mainBefore.bytes)
        #expect(try SQLiteTestFiles.fingerprint(copy + "-wal").bytes == walBefore.bytes)
    }

    @Test func closeIsIdempotentAndStatementsMayOutliveIt() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let statement = try connection.prepare("SELECT 1")
        #expect(try statement.step())
        connection.close()
        connection.close()
        #expect(connection.isClosed)
        _ = statement  // finalized after the close without trouble (sqlite3_close_v2)
    }

    @Test func immutableURIEscapesThePath() {
        #expect(SQLiteConnection.immutableURI(forPath: "/a b/c?d#e%.sqlite") == "file:/a%20b/c%3Fd%23e%25.sqlite?mode=ro&immutable=1")
    }
}
