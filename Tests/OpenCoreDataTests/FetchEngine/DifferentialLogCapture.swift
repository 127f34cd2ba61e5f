import Logging
import OpenCoreData

/// Captures what the SQLite store logs when it cannot translate a fetch to SQL: `filtering <Entity> rows in memory:
/// <reason> in <predicate>` and `sorting <Entity> rows in memory: <reason>` (debug level, logger label
/// `OpenCoreData.SQLiteStore`, `SQLiteStore+Fetch.swift`).
///
/// The store creates its logger with `Logger(label:)`, so its handler comes from swift-log's process-wide factory:
/// the only way to see those messages without changing the library is `LoggingSystem.bootstrap`, which may be called
/// once per process (a second call stops the program). `install()` bootstraps once, lazily, with a factory that keeps
/// swift-log's default for every label (a `StreamLogHandler` on standard error at `.info`, exactly what an
/// un-bootstrapped process uses) and, for the store's label only, adds a handler at `.debug` that records the
/// messages about `Diff…` entities (this suite's model) and forwards `.info` and above to the default handler. Other
/// tests therefore see no change; a test that needs its own bootstrap must reuse this one instead of calling
/// `LoggingSystem.bootstrap` again. (The SQL debug log, `OpenCoreData.SQL`, is injected per connection and needs
/// no bootstrap: `SQLiteLoggingTests`.)
///
/// Stores created before `install()` keep swift-log's default handler, so a test calls it before creating stores.
/// Other suites' stores log about other entities and are not recorded; this suite is serialized, so what is recorded
/// between two `drain()` calls belongs to the fetch in between.
final class DifferentialLogCapture: @unchecked Sendable {  // `messages` is only read or written while holding `lock`
    static let shared = DifferentialLogCapture()
    static let storeLoggerLabel = "OpenCoreData.SQLiteStore"

    private let lock = NSLock()
    private var messages: [String] = []

    /// Bootstraps swift-log (once per process).
    static func install() {
        _ = bootstrapped
    }

    private static let bootstrapped: Bool = {
        LoggingSystem.bootstrap { label in
            let standard = StreamLogHandler.standardError(label: label)
            guard label == DifferentialLogCapture.storeLoggerLabel else { return standard }
            return DifferentialLogHandler(forward: standard, capture: DifferentialLogCapture.shared)
        }
        return true
    }()

    func record(_ message: String) {
        guard message.hasPrefix("filtering Diff") || message.hasPrefix("sorting Diff") else { return }
        lock.lock()
        defer { lock.unlock() }
        messages.append(message)
    }

    /// The messages recorded since the last call.
    func drain() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        defer { messages.removeAll() }
        return messages
    }
}

/// The SQLite store's log handler while the differential suite runs: records, and forwards what swift-log's default
/// handler would print.
struct DifferentialLogHandler: LogHandler {
    var forward: StreamLogHandler
    let capture: DifferentialLogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        capture.record(event.message.description)
        if event.level >= forward.logLevel { forward.log(event: event) }
    }
}
