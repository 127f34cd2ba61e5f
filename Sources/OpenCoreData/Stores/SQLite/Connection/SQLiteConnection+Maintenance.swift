import Foundation

/// How hard a WAL checkpoint tries (`PRAGMA wal_checkpoint(MODE)`).
///
/// ```swift
/// try connection.walCheckpoint(mode: .truncate)
/// ```
///
/// See <https://www.sqlite.org/pragma.html#pragma_wal_checkpoint>.
enum SQLiteCheckpointMode: String, Sendable, Hashable {
    /// Copy as many frames as possible without waiting for readers or writers.
    case passive = "PASSIVE"
    /// Wait for writers, then copy every frame.
    case full = "FULL"
    /// As full, then wait for readers so the next writer restarts the WAL from the beginning.
    case restart = "RESTART"
    /// As restart, then truncate the -wal file to zero bytes.
    case truncate = "TRUNCATE"
}

/// The outcome of a WAL checkpoint.
///
/// ```swift
/// let result = try connection.walCheckpoint(mode: .full)
/// result.isComplete   // false if a reader or writer blocked it
/// ```
struct SQLiteCheckpointResult: Hashable, Sendable {
    /// Whether the checkpoint ran to completion (SQLite's first column is 0, not "busy").
    var isComplete: Bool
    /// Frames in the WAL (-1 when the database is not in WAL mode).
    var logFrames: Int
    /// Frames copied into the database (-1 when the database is not in WAL mode).
    var checkpointedFrames: Int
}

/// Housekeeping: vacuuming, statistics, integrity checks and checkpoints.
///
/// ```swift
/// try connection.incrementalVacuum()
/// try connection.integrityCheck()   // ["ok"]
/// ```
extension SQLiteConnection {
    /// Returns free pages to the file system (`PRAGMA incremental_vacuum`; the store's `auto_vacuum` is INCREMENTAL).
    ///
    /// ```swift
    /// try connection.incrementalVacuum(pages: 100)
    /// ```
    ///
    /// - Parameter pages: how many free pages to release; nil (or a value ≤ 0) releases all of them.
    func incrementalVacuum(pages: Int? = nil) throws {
        let statement = try prepare(pages.map { "PRAGMA incremental_vacuum(\($0))" } ?? "PRAGMA incremental_vacuum")
        while try statement.step() {}
    }

    /// Rebuilds the database file (`VACUUM`). Must run outside a transaction.
    ///
    /// ```swift
    /// try connection.vacuum()
    /// ```
    func vacuum() throws {
        try execute("VACUUM")
    }

    /// Gathers index statistics for the query planner (`ANALYZE`).
    ///
    /// ```swift
    /// try connection.analyze()
    /// ```
    func analyze() throws {
        try execute("ANALYZE")
    }

    /// The rows of `PRAGMA integrity_check`: `["ok"]` for a sound database, else one message per problem.
    ///
    /// ```swift
    /// let problems = try connection.integrityCheck()
    /// let isSound = problems == ["ok"]
    /// ```
    ///
    /// - Parameter maxErrors: stop after this many problems (SQLite's default is 100).
    /// - Throws: `SQLITE_CORRUPT` or `SQLITE_NOTADB` when the damage keeps the check itself from running.
    func integrityCheck(maxErrors: Int? = nil) throws -> [String] {
        let sql = maxErrors.map { "PRAGMA integrity_check(\(max(1, $0)))" } ?? "PRAGMA integrity_check"
        return try fetchAll(sql).map { row in
            if case .text(let text)? = row.first { return text }
            return row.first?.description ?? ""
        }
    }

    /// Copies WAL frames into the database file (`PRAGMA wal_checkpoint(MODE)`).
    ///
    /// ```swift
    /// let result = try connection.walCheckpoint(mode: .truncate)
    /// ```
    ///
    /// - Returns: whether it completed, and the frame counts; a checkpoint blocked by other connections is not an
    ///   error but returns `isComplete == false`.
    @discardableResult
    func walCheckpoint(mode: SQLiteCheckpointMode = .passive) throws -> SQLiteCheckpointResult {
        let row = try fetchAll("PRAGMA wal_checkpoint(\(mode.rawValue))").first ?? []
        func integer(_ index: Int) -> Int {
            guard index < row.count, case .integer(let value) = row[index] else { return -1 }
            return Int(value)
        }
        return SQLiteCheckpointResult(isComplete: integer(0) == 0, logFrames: integer(1), checkpointedFrames: integer(2))
    }
}
