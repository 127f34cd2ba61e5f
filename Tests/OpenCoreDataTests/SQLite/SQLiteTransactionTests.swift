import Foundation
import Testing

@testable import OpenCoreData

/// Transactions and savepoints.
@Suite struct SQLiteTransactionTests {
    struct Failure: Error {}

    static func connection() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR UNIQUE)")
        return connection
    }

    static func names(_ connection: SQLiteConnection) throws -> [String] {
        try connection.fetchAll("SELECT ZNAME FROM ZITEM ORDER BY Z_PK").compactMap { row in
            if case .text(let name)? = row.first { return name }
            return nil
        }
    }

    @Test(arguments: [SQLiteTransactionKind.deferred, .immediate, .exclusive])
    func transactionCommits(_ kind: SQLiteTransactionKind) throws {
        let connection = try Self.connection()
        #expect(!connection.isInTransaction)
        let count = try connection.inTransaction(kind) {
            #expect(connection.isInTransaction)
            try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('a'), ('b')")
            return connection.changes
        }
        #expect(count == 2)
        #expect(!connection.isInTransaction)
        #expect(try Self.names(connection) == ["a", "b"])
    }

    @Test func transactionRollsBackWhenTheBodyThrows() throws {
        let connection = try Self.connection()
        try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('before')")
        #expect(throws: Failure.self) {
            try connection.inTransaction(.immediate) {
                try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('during')")
                throw Failure()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try Self.names(connection) == ["before"])
    }

    @Test func transactionRollsBackWhenAStatementFails() throws {
        let connection = try Self.connection()
        #expect(throws: (any Error).self) {
            try connection.inTransaction {
                try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('x')")
                try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('x')")  // UNIQUE violation
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try Self.names(connection).isEmpty)
    }

    @Test func explicitBeginCommitRollback() throws {
        let connection = try Self.connection()
        try connection.beginTransaction()
        try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('rolled back')")
        try connection.rollback()
        try connection.beginTransaction(.immediate)
        try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('committed')")
        #expect(throws: (any Error).self) { try connection.beginTransaction() }  // no nesting
        try connection.commit()
        #expect(try Self.names(connection) == ["committed"])
        #expect(throws: (any Error).self) { try connection.commit() }  // nothing to commit
    }

    @Test func nestedSavepointsUndoOnlyTheirOwnWork() throws {
        let connection = try Self.connection()
        try connection.inTransaction {
            try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('outer')")
            try connection.inSavepoint {
                try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('level 1')")
                #expect(throws: Failure.self) {
                    try connection.inSavepoint {
                        try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('level 2, undone')")
                        try connection.inSavepoint {
                            try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('level 3, undone')")
                        }
                        throw Failure()
                    }
                }
                try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('level 1, after')")
            }
            #expect(connection.savepointDepth == 0)
        }
        #expect(try Self.names(connection) == ["outer", "level 1", "level 1, after"])
    }

    @Test func outermostSavepointIsATransaction() throws {
        let connection = try Self.connection()
        #expect(throws: Failure.self) {
            try connection.inSavepoint {
                #expect(connection.isInTransaction)
                try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('undone')")
                throw Failure()
            }
        }
        #expect(!connection.isInTransaction)
        try connection.inSavepoint { try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('kept')") }
        #expect(!connection.isInTransaction)
        #expect(try Self.names(connection) == ["kept"])
    }

    @Test func namedSavepoints() throws {
        let connection = try Self.connection()
        try connection.savepoint("import")
        try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('a')")
        try connection.rollbackToSavepoint("import")
        try connection.execute("INSERT INTO ZITEM (ZNAME) VALUES ('b')")
        try connection.releaseSavepoint("import")
        #expect(!connection.isInTransaction)
        #expect(try Self.names(connection) == ["b"])
        #expect(throws: (any Error).self) { try connection.savepoint("x\"; DROP TABLE ZITEM; --") }
        #expect(try Self.names(connection) == ["b"])
    }
}
