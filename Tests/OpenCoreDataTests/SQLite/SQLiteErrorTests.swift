import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// Error mapping: every failure is an `NSSQLiteError` NSError carrying the extended result code.
@Suite struct SQLiteErrorTests {
    @Test func constraintViolationCarriesTheExtendedCode() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE ZITEM (ZNAME VARCHAR UNIQUE, ZSIZE INTEGER NOT NULL DEFAULT 0)")
        try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('a')")
        let insert = "INSERT INTO ZITEM (ZNAME) VALUES ('a')"
        var caughtByPattern = false
        do {
            try connection.execute(insert)
        } catch SQLiteResultCode.constraintUnique {
            caughtByPattern = true
        }
        #expect(caughtByPattern)
        #expect {
            try connection.execute(insert)
        } throws: { error in
            let error = error as NSError
            return error.domain == NSCocoaErrorDomain && error.code == NSSQLiteError && error.code == 134_180
                && (error.userInfo[NSSQLiteErrorDomain] as? NSNumber)?.intValue == 2067
                && error.localizedDescription == "UNIQUE constraint failed: ZITEM.ZNAME (code 2067) while executing: \(insert)"
                && error.userInfo[SQLiteErrorKey.message] as? String == "UNIQUE constraint failed: ZITEM.ZNAME"
                && error.userInfo[SQLiteErrorKey.sql] as? String == insert
                && SQLiteResultCode.constraint ~= error && !(SQLiteResultCode.constraintNotNull ~= error)
        }
        #expect(throws: (any Error).self) { try connection.execute("INSERT INTO ZITEM (ZNAME, ZSIZE) VALUES ('b', NULL)") }
        do {
            try connection.execute("INSERT INTO ZITEM (ZNAME, ZSIZE) VALUES ('b', NULL)")
        } catch SQLiteResultCode.constraintNotNull {
        } catch {
            Issue.record("expected SQLITE_CONSTRAINT_NOTNULL, got \(error)")
        }
    }

    @Test func syntaxErrorNamesTheSQL() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect {
            try connection.prepare("SELEKT 1")
        } throws: { error in
            let error = error as NSError
            return sqliteCode(error) == SQLITE_ERROR
                && error.localizedDescription == "near \"SELEKT\": syntax error (code 1) while preparing: SELEKT 1"
                && error.userInfo[SQLiteErrorKey.operation] as? String == "preparing"
        }
    }

    @Test func busyAfterTheTimeoutWhenAnotherConnectionHoldsTheWriteLock() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let holder = try SQLiteConnection(path: path)
        try holder.execute("CREATE TABLE ZITEM (ZNAME VARCHAR)")
        let waiter = try SQLiteConnection(path: path, configuration: .init(busyTimeout: 0.1))
        try holder.beginTransaction(.immediate)
        try holder.execute("INSERT INTO ZITEM VALUES ('held')")

        let start = Date()
        #expect {
            try waiter.beginTransaction(.immediate)
        } throws: { error in
            let error = error as NSError
            return SQLiteResultCode.busy ~= error && error.code == NSSQLiteError
                && (error.userInfo[NSLocalizedRecoverySuggestionErrorKey] as? String)?.contains("busy timeout") == true
        }
        #expect(Date().timeIntervalSince(start) >= 0.09)
        // WAL: the waiter can still read (the committed state) while the holder writes.
        #expect(try waiter.fetchValue("SELECT count(*) FROM ZITEM") == .integer(0))
        try holder.commit()
        try waiter.inTransaction(.immediate) { try waiter.execute("INSERT INTO ZITEM VALUES ('after')") }
        #expect(try holder.fetchValue("SELECT count(*) FROM ZITEM") == .integer(2))
    }

    @Test func randomBytesAreNotADatabase() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        var generator = SystemRandomNumberGenerator()
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for mode in [SQLiteConnection.Configuration.Mode.readWrite, .readOnly] {
            #expect {
                try SQLiteConnection(path: path, configuration: .init(mode: mode))
            } throws: { error in
                let error = error as NSError
                return SQLiteResultCode.notADatabase ~= error
                    && error.localizedDescription.hasPrefix("file is not a database (code 26)")
                    && (error.userInfo[NSLocalizedRecoverySuggestionErrorKey] as? String)?.contains("not an SQLite database") == true
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func truncatedDatabaseIsReportedCorrupt() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let writer = try SQLiteConnection(path: path)
        try writer.execute("CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZTEXT VARCHAR); CREATE INDEX ZITEM_ZTEXT ON ZITEM (ZTEXT)")
        try writer.inTransaction {
            let insert = try writer.cachedStatement("INSERT INTO ZITEM (ZTEXT) VALUES (?)")
            for index in 0..<2_000 {
                try insert.bind(String(repeating: "row \(index) ", count: 8), at: 1)
                try insert.execute()
            }
        }
        writer.close()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size / 2)
        try handle.close()

        // SQLite may notice at open (reading the schema) or only when it reaches a missing page.
        var sawCorruption = false
        do {
            let reader = try SQLiteConnection(path: path, configuration: .init(mode: .readOnly))
            let problems = try reader.integrityCheck()
            sawCorruption = problems != ["ok"]
            _ = try reader.fetchAll("SELECT * FROM ZITEM ORDER BY ZTEXT")
        } catch {
            sawCorruption = true
            #expect(SQLiteResultCode.corrupt ~= error, "\(error)")
            #expect((error as NSError).localizedDescription.contains("malformed"))
        }
        #expect(sawCorruption)
    }

    @Test func primaryPatternsMatchTheirFamily() {
        #expect(SQLiteResultCode.busy ~= SQLiteResultCode.busySnapshot)
        #expect(SQLiteResultCode.readonly ~= SQLiteResultCode.readonlyDatabaseMoved)
        #expect(!(SQLiteResultCode.busySnapshot ~= SQLiteResultCode.busy))
        #expect(!(SQLiteResultCode.busy ~= SQLiteResultCode.locked))
        #expect(SQLiteResultCode.constraintUnique.primary == .constraint && !SQLiteResultCode.constraintUnique.isPrimary)
        #expect(SQLiteResultCode.busy.description == "database is locked (5)")
        #expect(SQLiteResultCode(error: NSError(domain: NSCocoaErrorDomain, code: 1)) == nil)
    }

    @Test(arguments: [SQLiteResultCode.full, .ioError, .readonly, .corrupt, .notADatabase, .busy, .locked, .cantOpen])
    func fieldErrorsExplainThemselves(_ code: SQLiteResultCode) {
        let error = SQLiteError.make(code: code, message: "m", operation: "executing", sql: "SELECT 1")
        #expect(error.localizedDescription == "m (code \(code.rawValue)) while executing: SELECT 1")
        #expect((error.userInfo[NSLocalizedRecoverySuggestionErrorKey] as? String)?.isEmpty == false)
    }
}
