import Foundation
import Testing

@testable import OpenCoreData

/// Read-only media: a directory mounted read-only in a private mount namespace (`unshare -m`), where SQLite can
/// create neither a -shm nor a -wal. Runs when the test process may create mount namespaces (root in CI);
/// cancelled with an explanation otherwise.
@Suite struct SQLiteReadOnlyMediaTests {
    /// Exit status of the wrapper when the read-only mount cannot be made.
    static let unsupported: Int32 = 77

    @Test(.enabled(if: ChildProcess.role == nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")))
    func readOnlyMediaOpensWhatCanBeReadExactly() throws {
        let directory = try SQLiteTestFiles.directory()
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        // Clean: a WAL store closed normally, so no -wal and no -shm.
        let clean = try SQLiteConnection(path: path("Clean.sqlite"))
        try clean.execute("CREATE TABLE ZITEM (ZNAME VARCHAR); INSERT INTO ZITEM VALUES ('clean')")
        clean.close()
        // Pending: data only in the -wal, and no -shm. Full: -wal and -shm both present.
        let live = try SQLiteConnection(path: path("Live.sqlite"))
        try live.execute("CREATE TABLE ZITEM (ZNAME VARCHAR); INSERT INTO ZITEM VALUES ('pending')")
        for (name, suffixes) in [("Pending.sqlite", ["", "-wal"]), ("Full.sqlite", ["", "-wal", "-shm"])] {
            for suffix in suffixes {
                try FileManager.default.copyItem(atPath: path("Live.sqlite") + suffix, toPath: path(name) + suffix)
            }
        }
        live.close()

        let script = "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" || exit \(Self.unsupported); shift; exec \"$@\""
        let result = try ChildProcess.run(
            test: "readOnlyMediaChild", role: "readOnlyMedia", path: directory.path,
            wrapper: ["/usr/bin/unshare", "-m", "/bin/sh", "-c", script, "sh", directory.path])
        if result.status == Self.unsupported {
            try Test.cancel("cannot mount a read-only directory here (needs CAP_SYS_ADMIN): \(result.output)")
        }
        #expect(result.status == 0 && result.output.contains("readOnlyMediaChild() passed"), "child output:\n\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: path("Clean.sqlite") + "-shm"))
    }

    /// The child: runs inside the read-only mount.
    @Test(.enabled(if: ChildProcess.role == "readOnlyMedia"))
    func readOnlyMediaChild() throws {
        let directory = URL(fileURLWithPath: ChildProcess.path)
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        #expect(!FileManager.default.createFile(atPath: path("probe"), contents: Data()), "the directory must be read-only")

        // No WAL content: read through the immutable fallback, exactly.
        let clean = try SQLiteConnection(path: path("Clean.sqlite"), configuration: .init(mode: .readOnly))
        #expect(clean.isImmutable)
        #expect(try clean.fetchValue("SELECT ZNAME FROM ZITEM") == .text("clean"))

        // -wal and -shm present: read normally, WAL included.
        let full = try SQLiteConnection(path: path("Full.sqlite"), configuration: .init(mode: .readOnly))
        #expect(!full.isImmutable)
        #expect(try full.fetchValue("SELECT ZNAME FROM ZITEM") == .text("pending"))

        // Data in the -wal but no -shm: refused rather than read without the WAL.
        #expect {
            try SQLiteConnection(path: path("Pending.sqlite"), configuration: .init(mode: .readOnly))
        } throws: { error in
            SQLiteResultCode.cantOpen ~= error
        }

        // A read-write open fails too (SQLite cannot create the -wal here) instead of half-working.
        #expect(throws: (any Error).self) { try SQLiteConnection(path: path("Clean.sqlite"), configuration: .init(mode: .readWrite)) }
    }
}
