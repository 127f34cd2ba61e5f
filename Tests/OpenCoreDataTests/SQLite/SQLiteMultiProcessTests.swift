import Foundation
import Testing

@testable import OpenCoreData

/// Two processes sharing one store: WAL plus the busy timeout let a second writer wait for the lock instead of
/// failing, and each sees the other's commits. The second process is this test executable, run as a child.
@Suite struct SQLiteMultiProcessTests {
    static let rowsPerProcess = 100

    @Test(.enabled(if: ChildProcess.role == nil))
    func twoProcessesWriteOneStore() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        let connection = try SQLiteConnection(path: path)
        try connection.execute("CREATE TABLE ZEVENT (Z_PK INTEGER PRIMARY KEY, ZWRITER VARCHAR, ZWAITED FLOAT)")

        // 1. The parent holds the write lock; the child's write must wait for it, not fail.
        try connection.beginTransaction(.immediate)
        try connection.execute("INSERT INTO ZEVENT (ZWRITER) VALUES ('parent, holding the lock')")
        let child = try ChildProcess.start(test: "sharedStoreChildWriter", role: "writer", path: path)
        let started = waitUntil { FileManager.default.fileExists(atPath: path + ".child-started") }
        #expect(started, "the child did not start")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try connection.fetchValue("SELECT count(*) FROM ZEVENT WHERE ZWRITER = 'child, waited'") == .integer(0))
        try connection.commit()

        // 2. Both write concurrently, one transaction per row.
        let insert = try connection.cachedStatement("INSERT INTO ZEVENT (ZWRITER) VALUES ('parent')")
        for _ in 0..<Self.rowsPerProcess {
            try connection.inTransaction(.immediate) { try insert.execute() }
        }

        let result = ChildProcess.finish(child)
        #expect(result.status == 0 && result.output.contains("sharedStoreChildWriter() passed"), "child output:\n\(result.output)")
        let waited = try connection.fetchValue("SELECT ZWAITED FROM ZEVENT WHERE ZWRITER = 'child, waited'")
        if case .real(let seconds)? = waited {
            #expect(seconds >= 0.2, "the child's write should have waited for the parent's lock")
        } else {
            Issue.record("the child's first row is missing: \(String(describing: waited))")
        }
        #expect(try connection.fetchValue("SELECT count(*) FROM ZEVENT WHERE ZWRITER = 'child'") == .integer(Int64(Self.rowsPerProcess)))
        #expect(try connection.fetchValue("SELECT count(*) FROM ZEVENT WHERE ZWRITER = 'parent'") == .integer(Int64(Self.rowsPerProcess)))
        #expect(try connection.integrityCheck() == ["ok"])
    }

    /// The child: waits for the parent's lock, then writes its rows while the parent writes its own.
    @Test(.enabled(if: ChildProcess.role == "writer"))
    func sharedStoreChildWriter() throws {
        let path = ChildProcess.path
        let connection = try SQLiteConnection(path: path, configuration: .init(busyTimeout: 10))
        #expect(FileManager.default.createFile(atPath: path + ".child-started", contents: Data()))
        let start = Date()
        try connection.inTransaction(.immediate) {
            let statement = try connection.prepare("INSERT INTO ZEVENT (ZWRITER, ZWAITED) VALUES ('child, waited', ?)")
            try statement.bind(Date().timeIntervalSince(start), at: 1)
            try statement.execute()
        }
        #expect(try connection.fetchValue("SELECT count(*) FROM ZEVENT WHERE ZWRITER = 'parent, holding the lock'") == .integer(1))
        let insert = try connection.cachedStatement("INSERT INTO ZEVENT (ZWRITER) VALUES ('child')")
        for _ in 0..<Self.rowsPerProcess {
            try connection.inTransaction(.immediate) { try insert.execute() }
        }
    }
}
