import Foundation
import Logging
import Testing

@testable import OpenCoreData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Temporary files for the SQLite connection tests.
enum SQLiteTestFiles {
    /// A fresh, empty temporary directory.
    static func directory() throws -> URL {
        try TemporaryDirectory.make("OpenCoreDataSQLite")
    }

    /// A path for a database that does not exist yet, in a fresh directory.
    static func newDatabasePath(_ name: String = "Store.sqlite") throws -> String {
        try directory().appendingPathComponent(name).path
    }

    /// The permission bits of a file (`st_mode & 0o777`), or nil when it does not exist.
    static func permissions(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode) & 0o777
    }

    /// A file's bytes and modification time, to prove it was not touched.
    static func fingerprint(_ path: String) throws -> (bytes: Data, modified: Date) {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (try Data(contentsOf: URL(fileURLWithPath: path)), attributes[.modificationDate] as? Date ?? .distantPast)
    }

    /// The shared corpus of real stores (`../shared/corpus/stores` beside the repository), when present.
    static let corpusStores: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // SQLite
        .deletingLastPathComponent()  // OpenCoreDataTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .deletingLastPathComponent()
        .appendingPathComponent("shared/corpus/stores")
}

/// One log message captured by ``CapturingLogHandler``.
struct CapturedLogEntry: Sendable {
    var level: Logger.Level
    var message: String
}

/// The messages a ``CapturingLogHandler`` received.
final class CapturedLog: @unchecked Sendable {  // every access to `storage` holds `lock`
    private let lock = NSLock()
    private var storage: [CapturedLogEntry] = []

    func append(_ entry: CapturedLogEntry) {
        lock.lock()
        defer { lock.unlock() }
        storage.append(entry)
    }

    var entries: [CapturedLogEntry] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    var messages: [String] { entries.map(\.message) }

    func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        storage.removeAll()
    }
}

/// A private-queue context on a new SQLite store of a model, and the store's SQL debug log captured on demand: the
/// stack of the tests that check the SQL a fetch runs.
enum SQLiteTestStack {
    static func make(_ model: NSManagedObjectModel, name: String) throws -> (NSManagedObjectContext, SQLiteStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite")
        let store = try #require(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil) as? SQLiteStore)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, store)
    }

    /// Records what `store` logs at SQL debug `level` from now on.
    static func recordSQL(of store: SQLiteStore, level: Int) -> CapturedLog {
        let (logger, log) = CapturingLogHandler.logger()
        store.connection.logger = logger
        store.connection.sqlDebugLevel = level
        return log
    }
}

/// A swift-log handler that records messages, for asserting what the SQL debug log says.
struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        log.append(CapturedLogEntry(level: event.level, message: event.message.description))
    }

    /// A logger with the SQL label writing to a fresh capture.
    static func logger() -> (Logger, CapturedLog) {
        let captured = CapturedLog()
        return (Logger(label: SQLDebug.loggerLabel) { _ in CapturingLogHandler(log: captured) }, captured)
    }
}

/// Runs a test of this same test executable in a child process, for behaviour that needs a second process
/// (two writers on one store) or process-wide state (the umask, a mount namespace).
///
/// The child test is selected with `--filter` and enabled only when ``roleVariable`` names its role, so in a normal
/// run it is skipped.
enum ChildProcess {
    /// The environment variable that gives a child test its role.
    static let roleVariable = "OPENCOREDATA_SQLITE_TEST_ROLE"

    /// The environment variable that passes a path to the child.
    static let pathVariable = "OPENCOREDATA_SQLITE_TEST_PATH"

    /// The role of this process, nil in the parent.
    static var role: String? { ProcessInfo.processInfo.environment[roleVariable] }

    /// The path passed to this child process.
    static var path: String { ProcessInfo.processInfo.environment[pathVariable] ?? "" }

    /// The running test executable.
    static var executable: String {
        let argument = CommandLine.arguments.first ?? ""
        return FileManager.default.isExecutableFile(atPath: argument) ? argument : "/proc/self/exe"
    }

    /// Starts the test function `test` (a name unique in the test target) with `role` and `path`, optionally under a
    /// wrapper command (`["/usr/bin/unshare", "-m", …]`).
    static func start(test: String, role: String, path: String, wrapper: [String] = []) throws -> (Process, Pipe) {
        let process = Process()
        let command = wrapper + [executable, "--testing-library", "swift-testing", "--filter", test]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment[roleVariable] = role
        environment[pathVariable] = path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return (process, output)
    }

    /// Waits for a child and returns its exit status and output.
    static func finish(_ child: (Process, Pipe)) -> (status: Int32, output: String) {
        let data = child.1.fileHandleForReading.readDataToEndOfFile()
        child.0.waitUntilExit()
        return (child.0.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs a child to completion.
    static func run(test: String, role: String, path: String, wrapper: [String] = []) throws -> (status: Int32, output: String) {
        finish(try start(test: test, role: role, path: path, wrapper: wrapper))
    }
}

/// Polls `condition` every 5 ms for up to `timeout` seconds.
func waitUntil(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

/// The `NSSQLiteErrorDomain` code of an error thrown by the connection layer.
func sqliteCode(_ error: any Error) -> Int32? {
    SQLiteResultCode(error: error)?.rawValue
}
