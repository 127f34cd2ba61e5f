import Foundation
import Testing

@testable import OpenCoreData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File permissions of a new store and its -wal/-shm: the process umask by default, 0600 on request.
///
/// The umask is process-wide, so the umask case runs in a child process that sets `umask(022)` itself.
@Suite struct SQLiteFilePermissionTests {
    /// Creates a store at `path` and returns the permissions of the file, its -wal and its -shm while it is open.
    static func createStore(at path: String, ownerOnly: Bool) throws -> [Int?] {
        let connection = try SQLiteConnection(path: path, configuration: .init(createsOwnerOnlyFiles: ownerOnly))
        try connection.execute("CREATE TABLE ZITEM (ZNAME VARCHAR); INSERT INTO ZITEM VALUES ('x')")
        defer { connection.close() }
        return ["", "-wal", "-shm"].map { SQLiteTestFiles.permissions(path + $0) }
    }

    @Test(.enabled(if: ChildProcess.role == nil))
    func umask022GivesWorldReadableFilesAndTheOptionGivesOwnerOnly() throws {
        let directory = try SQLiteTestFiles.directory()
        let result = try ChildProcess.run(test: "permissionsChild", role: "permissions", path: directory.path)
        #expect(result.status == 0 && result.output.contains("permissionsChild() passed"), "child output:\n\(result.output)")
        let report = try String(contentsOf: directory.appendingPathComponent("report.txt"), encoding: .utf8)
        #expect(report == "default 644 644 644\nownerOnly 600 600 600\n")
    }

    /// The child: sets umask 022, creates both stores and writes what it saw.
    @Test(.enabled(if: ChildProcess.role == "permissions"))
    func permissionsChild() throws {
        umask(0o022)
        let directory = URL(fileURLWithPath: ChildProcess.path)
        var report = ""
        for (name, ownerOnly) in [("default", false), ("ownerOnly", true)] {
            let modes = try Self.createStore(at: directory.appendingPathComponent(name + ".sqlite").path, ownerOnly: ownerOnly)
            report += name + modes.map { " " + ($0.map { String($0, radix: 8) } ?? "missing") }.joined() + "\n"
        }
        try report.write(to: directory.appendingPathComponent("report.txt"), atomically: true, encoding: .utf8)
    }

    /// In this process, whatever its umask: owner-only files stay 0600, -wal and -shm included.
    @Test func ownerOnlyOptionInProcess() throws {
        let path = try SQLiteTestFiles.newDatabasePath()
        #expect(try Self.createStore(at: path, ownerOnly: true) == [0o600, 0o600, 0o600])
        // An existing file keeps its permissions.
        let existing = try SQLiteTestFiles.newDatabasePath()
        #expect(FileManager.default.createFile(atPath: existing, contents: nil, attributes: [.posixPermissions: 0o640]))
        #expect(try Self.createStore(at: existing, ownerOnly: true) == [0o640, 0o640, 0o640])
    }
}
