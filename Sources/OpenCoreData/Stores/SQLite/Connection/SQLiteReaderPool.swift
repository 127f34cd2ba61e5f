import Foundation

/// The read-only connections an SQLite store in WAL mode reads through besides its writer connection
/// (`NSPersistentStoreConnectionPoolMaxSizeKey`): WAL lets each of them read a committed snapshot while the writer
/// holds a write transaction. Connections are opened on demand, up to `capacity`, and handed to one reader at a time.
///
/// ```swift
/// guard let reader = try pool.acquire() else { return nil }   // nil: the pool is closed
/// defer { pool.release(reader) }
/// ```
final class SQLiteReaderPool: @unchecked Sendable {
    // @unchecked Sendable: every field is guarded by `condition`; a connection is used by the one thread that acquired it.

    let capacity: Int
    private let path: String
    private let configuration: SQLiteConnection.Configuration
    private let condition = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var openCount = 0
    private var closed = false
    /// Statements reading right now, and the most there ever were at once (the tests' proof of overlap).
    private var activeReads = 0
    private var mostConcurrentReads = 0
    /// For tests: each read, once its statement is open, waits (up to 5 s) until this many reads have been open at once.
    private var overlapTarget = 0

    init(path: String, configuration: SQLiteConnection.Configuration, capacity: Int) {
        var configuration = configuration
        configuration.mode = .readOnly
        configuration.appliesStoreDefaultsOnOpen = false
        self.path = path
        self.configuration = configuration
        self.capacity = capacity
    }

    /// An idle connection, a new one while fewer than `capacity` are open, or — all busy — the next one released.
    /// Nil once the pool is closed.
    func acquire() throws -> SQLiteConnection? {
        condition.lock()
        while !closed && idle.isEmpty && openCount >= capacity { condition.wait() }
        if closed {
            condition.unlock()
            return nil
        }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        openCount += 1
        condition.unlock()
        do {
            let connection = try SQLiteConnection(path: path, configuration: configuration)
            // The SQL the store's fetches use calls its functions and collations.
            SQLiteFunctions.register(on: connection, recordingDerivedChangesIn: DerivedValueChanges())
            return connection
        } catch {
            condition.lock()
            openCount -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    /// Gives a connection back (closed instead when the pool is closed or the connection is mid-transaction).
    func release(_ connection: SQLiteConnection) {
        if connection.isInTransaction { try? connection.rollback() }
        condition.lock()
        if closed || connection.isInTransaction {
            openCount -= 1
            condition.unlock()
            connection.close()
        } else {
            idle.append(connection)
            condition.signal()
            condition.unlock()
        }
    }

    /// Closes the idle connections; busy ones close when released. Waiting readers get nil.
    func close() {
        condition.lock()
        closed = true
        let toClose = idle
        openCount -= idle.count
        idle = []
        condition.broadcast()
        condition.unlock()
        for connection in toClose { connection.close() }
    }

    /// Counts a statement reading while `body` runs.
    func reading<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        activeReads += 1
        mostConcurrentReads = max(mostConcurrentReads, activeReads)
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: 5)
        while overlapTarget > 0 && mostConcurrentReads < overlapTarget && !closed {
            if !condition.wait(until: deadline) { break }
        }
        condition.unlock()
        defer {
            condition.lock()
            activeReads -= 1
            condition.unlock()
        }
        return try body()
    }

    /// For tests: the most statements that read at once so far, and the number of connections open.
    var statistics: (mostConcurrentReads: Int, openConnections: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (mostConcurrentReads, openCount)
    }

    /// For tests: runs after a pooled fetch ended its read transaction, before its rows may go into the row cache.
    var testHookAfterRead: (() -> Void)? {
        get { condition.withLock { _testHookAfterRead } }
        set { condition.withLock { _testHookAfterRead = newValue } }
    }
    private var _testHookAfterRead: (() -> Void)?

    /// For tests: makes each read wait, once its statement is open, until `count` reads have been open at once (0: no waiting).
    func waitForOverlap(of count: Int) {
        condition.lock()
        overlapTarget = count
        condition.broadcast()
        condition.unlock()
    }
}
