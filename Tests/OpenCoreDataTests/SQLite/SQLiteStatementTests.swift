import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// Statements: binding and reading every type, hostile text, the statement cache, scripts.
@Suite struct SQLiteStatementTests {
    static func connection() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE ZVALUE (Z_PK INTEGER PRIMARY KEY, ZANY)")
        return connection
    }

    /// Stores `value` in an untyped column and reads it back.
    static func roundTrip(_ value: SQLiteValue, _ connection: SQLiteConnection) throws -> SQLiteValue {
        let insert = try connection.cachedStatement("INSERT INTO ZVALUE (ZANY) VALUES (?)")
        try insert.bind(value, at: 1)
        try insert.execute()
        let select = try connection.cachedStatement("SELECT ZANY FROM ZVALUE WHERE Z_PK = ?")
        try select.bind(connection.lastInsertRowID, at: 1)
        #expect(try select.step())
        return select.value(at: 0)
    }

    @Test(arguments: [
        SQLiteValue.null, .integer(0), .integer(Int64.min), .integer(Int64.max), .real(-0.5), .real(1e308),
        .real(Double.leastNonzeroMagnitude), .text(""), .text("plain"), .text("nul\u{0}inside\u{0}"),
        .text("\u{0}"), .text(String(repeating: "日本語🇫🇷é\u{301}", count: 5_000)), .blob(Data()),
        .blob(Data([0, 0, 0])), .blob(Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
    ])
    func everyValueRoundTrips(_ value: SQLiteValue) throws {
        #expect(try Self.roundTrip(value, Self.connection()) == value)
    }

    @Test func typedBindingsAndAccessors() throws {
        let connection = try Self.connection()
        try connection.execute("CREATE TABLE ZROW (ZI INTEGER, ZR FLOAT, ZT VARCHAR, ZB BLOB, ZN, ZBYTES BLOB)")
        let insert = try connection.prepare("INSERT INTO ZROW VALUES (?, ?, ?, ?, ?, ?)")
        #expect(insert.parameterCount == 6)
        try insert.bind(Int64(-42), at: 1)
        try insert.bind(2.5, at: 2)
        try insert.bind("a\u{0}b", at: 3)
        try insert.bind(Data([1, 2, 3]), at: 4)
        try insert.bindNull(at: 5)
        try insert.bind([0xFF, 0x00] as [UInt8], at: 6)
        try insert.execute()

        let select = try connection.prepare("SELECT ZI, ZR, ZT, ZB, ZN, ZBYTES, length(ZT) AS textLength FROM ZROW")
        #expect(try select.step())
        #expect(select.columnCount == 7)
        #expect(select.columnName(at: 0) == "ZI" && select.columnName(at: 6) == "textLength")
        #expect(select.int64(at: 0) == -42 && select.columnType(at: 0) == .integer)
        #expect(select.double(at: 1) == 2.5 && select.columnType(at: 1) == .real)
        #expect(select.string(at: 2) == "a\u{0}b" && select.columnType(at: 2) == .text)
        #expect(select.data(at: 3) == Data([1, 2, 3]) && select.columnType(at: 3) == .blob)
        #expect(select.isNull(at: 4) && select.string(at: 4) == nil && select.data(at: 4) == nil && select.int64(at: 4) == 0)
        #expect(select.data(at: 5) == Data([0xFF, 0x00]))
        #expect(select.row.count == 7)
        #expect(try !select.step())
    }

    @Test func emptyTextAndBlobAreNotNull() throws {
        let connection = try Self.connection()
        let row = try connection.fetchAll("SELECT typeof(?), typeof(?), length(?)", arguments: [.text(""), .blob(Data()), .text("")])
        #expect(row == [[.text("text"), .text("blob"), .integer(0)]])
    }

    @Test(arguments: ["'; DROP TABLE ZVALUE--", "\"); DELETE FROM ZVALUE; --", "' OR 1=1 --", "Robert'); DROP TABLE Students;--", "?1 :a @b $c"])
    func hostileTextIsStoredExactly(_ text: String) throws {
        let connection = try Self.connection()
        #expect(try Self.roundTrip(.text(text), connection) == .text(text))
        #expect(try connection.fetchValue("SELECT count(*) FROM ZVALUE") == .integer(1))
        #expect(try connection.fetchValue("SELECT count(*) FROM ZVALUE WHERE ZANY = ?", arguments: [.text(text)]) == .integer(1))
    }

    @Test func nanIsStoredAsNull() throws {
        #expect(try Self.roundTrip(.real(.nan), Self.connection()) == .null)
    }

    @Test func cachedStatementsArePreparedOnceAndComeBackClean() throws {
        let connection = try Self.connection()
        let sql = "SELECT ?1, ?2"
        let first = try connection.cachedStatement(sql)
        try first.bind(Int64(1), at: 1)
        try first.bind(Int64(2), at: 2)
        #expect(try first.step())
        #expect(first.int64(at: 1) == 2)
        #expect(try !first.step())

        let second = try connection.cachedStatement(sql)
        #expect(second === first)
        #expect(connection.cachedStatementCount == 1)
        #expect(try second.step())
        #expect(second.isNull(at: 0) && second.isNull(at: 1))  // bindings were cleared

        // While the cached statement is still running, callers get a fresh one instead of a reset.
        let third = try connection.cachedStatement(sql)
        #expect(third !== second)
        #expect(connection.cachedStatementCount == 1)

        connection.clearStatementCache()
        #expect(connection.cachedStatementCount == 0)
        #expect(try connection.cachedStatement(sql) !== first)
    }

    /// More statements than the cache compares before hashing, asked for in turns, by texts equal to the first but
    /// built anew: each text gets the one statement prepared for it, whether found among the recent ones or not.
    @Test func cachedStatementsAreFoundByTextBeyondTheRecentOnes() throws {
        let connection = try Self.connection()
        let count = StatementCache.recentLimit + 3
        let texts = (0..<count).map { "SELECT \($0) + ?1" }
        let prepared = try texts.map { try connection.cachedStatement($0) }
        #expect(Set(prepared.map(ObjectIdentifier.init)).count == count)
        for round in 0..<3 {
            for (index, text) in texts.enumerated().reversed() {
                let statement = try connection.cachedStatement(String(decoding: Array(text.utf8), as: UTF8.self))
                #expect(statement === prepared[index], "round \(round), statement \(index)")
                try statement.bind(Int64(round), at: 1)
                #expect(try statement.step())
                #expect(statement.int64(at: 0) == Int64(index + round))
                statement.reset()
            }
        }
        #expect(connection.cachedStatementCount == count)
        connection.clearStatementCache()
        #expect(try connection.cachedStatement(texts[0]) !== prepared[0], "cleared: the recent ones too")
    }

    @Test func resetKeepsBindingsClearBindingsDropsThem() throws {
        let connection = try Self.connection()
        let statement = try connection.prepare("SELECT ?")
        try statement.bind("kept", at: 1)
        #expect(try statement.step())
        statement.reset()
        #expect(try statement.step())
        #expect(statement.string(at: 0) == "kept")
        statement.reset()
        statement.clearBindings()
        #expect(try statement.step())
        #expect(statement.isNull(at: 0))
    }

    @Test func sqlAndExpandedSQL() throws {
        let connection = try Self.connection()
        let statement = try connection.prepare("SELECT * FROM ZVALUE WHERE Z_PK = ? AND ZANY = ?  ;  -- trailing comment")
        #expect(statement.sql.hasPrefix("SELECT * FROM ZVALUE WHERE Z_PK = ? AND ZANY = ?"))
        try statement.bind(Int64(7), at: 1)
        try statement.bind("it's", at: 2)
        #expect(statement.expandedSQL?.hasPrefix("SELECT * FROM ZVALUE WHERE Z_PK = 7 AND ZANY = 'it''s'") == true)
        #expect(statement.isReadOnly)
    }

    @Test func prepareRefusesScriptsEmptySQLAndNulBytes() throws {
        let connection = try Self.connection()
        for sql in ["SELECT 1; SELECT 2", "SELECT 1; ; SELECT 2", "SELECT 1; garbage", "   ", "-- only a comment", "SELECT 1\u{0}; DROP TABLE ZVALUE"] {
            #expect(throws: (any Error).self, "\(sql.debugDescription)") { try connection.prepare(sql) }
        }
        #expect(try connection.fetchValue("SELECT count(*) FROM sqlite_schema WHERE name = 'ZVALUE'") == .integer(1))
    }

    @Test func bindingOutOfRangeThrows() throws {
        let connection = try Self.connection()
        let statement = try connection.prepare("SELECT ?")
        #expect {
            try statement.bind(Int64(1), at: 2)
        } throws: { error in
            SQLiteResultCode.range ~= error
        }
    }

    @Test func executeRunsEveryStatementOfAScript() throws {
        let connection = try Self.connection()
        try connection.execute("""
            INSERT INTO ZVALUE (ZANY) VALUES ('a;b'); -- a comment; with a semicolon
            INSERT INTO ZVALUE (ZANY) VALUES ('c'); ;
            /* block */ UPDATE ZVALUE SET ZANY = ZANY || '!';
            """)
        #expect(try connection.fetchAll("SELECT ZANY FROM ZVALUE ORDER BY Z_PK") == [[.text("a;b!")], [.text("c!")]])
        #expect(connection.changes == 2)
        #expect(connection.totalChanges == 4)
        #expect(connection.lastInsertRowID == 2)
    }

    @Test func executeStopsAtTheFirstFailingStatement() throws {
        let connection = try Self.connection()
        #expect(throws: (any Error).self) {
            try connection.execute("INSERT INTO ZVALUE (ZANY) VALUES (1); INSERT INTO ZMISSING VALUES (2); INSERT INTO ZVALUE (ZANY) VALUES (3)")
        }
        #expect(try connection.fetchAll("SELECT ZANY FROM ZVALUE") == [[.integer(1)]])
    }
}
