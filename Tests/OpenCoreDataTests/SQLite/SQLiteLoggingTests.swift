import Foundation
import Logging
import Testing

@testable import OpenCoreData

/// SQL debug logging (`-com.apple.CoreData.SQLDebug N`) captured through swift-log.
@Suite struct SQLiteLoggingTests {
    static func connection(level: Int) throws -> (SQLiteConnection, CapturedLog) {
        let (logger, log) = CapturingLogHandler.logger()
        let connection = try SQLiteConnection(path: ":memory:", configuration: .init(sqlDebugLevel: 0, logger: logger))
        try connection.execute("CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR); CREATE INDEX ZITEM_ZNAME ON ZITEM (ZNAME)")
        try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('a'), ('b')")
        #expect(log.entries.isEmpty, "level 0 logs nothing")
        connection.sqlDebugLevel = level
        return (connection, log)
    }

    static func select(_ connection: SQLiteConnection) throws {
        let statement = try connection.cachedStatement("SELECT Z_PK FROM ZITEM WHERE ZNAME = ?")
        try statement.bind("it's", at: 1)
        while try statement.step() {}
    }

    @Test func levelOneLogsSQLAndExecutionTime() throws {
        let (connection, log) = try Self.connection(level: 1)
        try connection.execute("SELECT ZNAME FROM ZITEM")
        #expect(log.messages.count == 2)
        #expect(log.messages.first == "sql: SELECT ZNAME FROM ZITEM")
        let timing = try #require(log.messages.last)
        #expect(timing.hasPrefix("annotation: sql execution time: 0.") && timing.hasSuffix("s, 2 rows"))
        #expect(log.entries.allSatisfy { $0.level == .debug })

        log.removeAll()
        try Self.select(connection)
        #expect(log.messages == ["sql: SELECT Z_PK FROM ZITEM WHERE ZNAME = ?", log.messages.last ?? ""])
        #expect(!log.messages.contains { $0.contains("bind") || $0.contains("EXPLAIN") })
    }

    @Test func levelTwoAddsBoundValues() throws {
        let (connection, log) = try Self.connection(level: 2)
        try Self.select(connection)
        #expect(log.messages.count == 3)
        #expect(log.messages[0] == "sql: SELECT Z_PK FROM ZITEM WHERE ZNAME = ?")
        #expect(log.messages[1] == "details: SQLite bind[0] = 'it''s'")
        #expect(log.messages[2].hasSuffix("s, 0 rows"))
        #expect(!log.messages.contains { $0.contains("EXPLAIN") })
    }

    @Test func levelThreeAddsTheQueryPlanOfSelects() throws {
        let (connection, log) = try Self.connection(level: 3)
        try Self.select(connection)
        let plan = try #require(log.messages.first { $0.hasPrefix("details: EXPLAIN QUERY PLAN") })
        #expect(plan.contains("SELECT Z_PK FROM ZITEM WHERE ZNAME = ?"))
        #expect(plan.contains("USING COVERING INDEX ZITEM_ZNAME"))
        #expect(log.messages.contains("details: SQLite bind[0] = 'it''s'"))

        log.removeAll()
        try connection.execute("UPDATE ZITEM SET ZNAME = 'c' WHERE Z_PK = 1")
        #expect(!log.messages.contains { $0.contains("EXPLAIN") }, "only SELECTs are explained")
    }

    @Test func failuresAreLogged() throws {
        let (connection, log) = try Self.connection(level: 1)
        #expect(throws: (any Error).self) { try connection.execute("INSERT INTO ZMISSING VALUES (1)") }
        #expect(log.messages == ["error: no such table: ZMISSING (code 1) while preparing: INSERT INTO ZMISSING VALUES (1)"])
    }

    @Test func abandonedExecutionIsReportedOnReset() throws {
        let (connection, log) = try Self.connection(level: 1)
        let statement = try connection.prepare("SELECT ZNAME FROM ZITEM")
        #expect(try statement.step())
        #expect(log.messages.count == 1)
        statement.reset()
        #expect(log.messages.count == 2 && log.messages[1].hasSuffix("s, 1 row"))
    }

    @Test func levelComesFromTheLaunchArgumentOrTheEnvironment() {
        #expect(SQLDebug.level(arguments: ["tool", "-com.apple.CoreData.SQLDebug", "3"], environment: [:]) == 3)
        #expect(SQLDebug.level(arguments: ["tool"], environment: ["OPENCOREDATA_SQL_DEBUG": "2"]) == 2)
        #expect(SQLDebug.level(arguments: ["tool", "-com.apple.CoreData.SQLDebug", "1"], environment: ["OPENCOREDATA_SQL_DEBUG": "4"]) == 4)
        #expect(SQLDebug.level(arguments: ["tool", "-com.apple.CoreData.SQLDebug"], environment: ["OPENCOREDATA_SQL_DEBUG": "x"]) == 0)
        #expect(SQLDebug.level(arguments: [], environment: [:]) == 0)
    }

    @Test func debugLevelRaisesTheLoggersLevel() throws {
        var logger = Logger(label: SQLDebug.loggerLabel) { _ in CapturingLogHandler(log: CapturedLog()) }
        logger.logLevel = .error
        let connection = try SQLiteConnection(path: ":memory:", configuration: .init(sqlDebugLevel: 1, logger: logger))
        #expect(connection.logger.logLevel == .debug)
        #expect(connection.logger.label == "OpenCoreData.SQL")
        #expect(SQLDebug.makeLogger(level: 0).label == "OpenCoreData.SQL")
    }

    @Test func secondsAreFormattedWithFourDecimals() {
        #expect(SQLiteConnection.seconds(1_200_000) == "0.0012s")
        #expect(SQLiteConnection.seconds(2_500_049_999) == "2.5000s")
        #expect(SQLiteConnection.seconds(0) == "0.0000s")
    }
}
