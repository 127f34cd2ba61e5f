import Foundation
import Logging

extension SQLiteConnection {
    /// How a connection opens its file.
    ///
    /// ```swift
    /// var configuration = SQLiteConnection.Configuration()
    /// configuration.busyTimeout = 0.5
    /// configuration.createsOwnerOnlyFiles = true
    /// configuration.pragmas = try SQLiteConnection.pragmaValues(["journal_mode": "DELETE"])
    /// let connection = try SQLiteConnection(path: storePath, configuration: configuration)
    /// ```
    struct Configuration: Sendable {
        /// Read-write (creating the file or not) or read-only.
        ///
        /// ```swift
        /// SQLiteConnection.Configuration(mode: .readOnly)
        /// ```
        enum Mode: Sendable, Hashable {
            /// Read-write; the file is created when missing (`SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE`).
            case readWriteCreate
            /// Read-write; a missing file is an error (`SQLITE_OPEN_READWRITE`).
            case readWrite
            /// Read-only (`SQLITE_OPEN_READONLY`): nothing is ever written to the database file or its -wal.
            case readOnly
        }

        /// The open mode; read-write-create by default.
        var mode: Mode

        /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`
        /// (`sqlite3_busy_timeout`); 5 seconds by default.
        var busyTimeout: TimeInterval

        /// Whether a database file this connection creates gets owner-only permissions (0600) instead of the
        /// process umask's (0644 with umask 022). SQLite gives the -wal and -shm files the main file's permissions.
        /// An existing file keeps its permissions.
        var createsOwnerOnlyFiles: Bool

        /// User pragmas applied while opening (`NSSQLitePragmasOption`, converted with
        /// ``SQLiteConnection/pragmaValues(_:)``). On a read-write open they replace the store's defaults:
        /// `page_size` and `auto_vacuum` (applied to a new file only), `journal_mode` and `synchronous`; the others
        /// run after those. A read-only open applies all but `page_size`, `auto_vacuum` and `journal_mode`.
        var pragmas: [String: SQLiteValue]

        /// The SQL debug level; nil takes the process's (``SQLDebug/processLevel``).
        var sqlDebugLevel: Int?

        /// Whether a read-write open applies ``SQLiteConnection/applyStoreDefaults()`` (which writes the file's
        /// journal mode). The store turns it off to look at a file before changing it, and applies the defaults
        /// once the file is known to be its own.
        var appliesStoreDefaultsOnOpen = true

        /// The logger SQL is logged to; nil makes one labelled ``SQLDebug/loggerLabel``.
        var logger: Logger?

        /// A configuration; every parameter has the store's default.
        ///
        /// ```swift
        /// let readOnly = SQLiteConnection.Configuration(mode: .readOnly, busyTimeout: 1)
        /// ```
        init(
            mode: Mode = .readWriteCreate,
            busyTimeout: TimeInterval = 5,
            createsOwnerOnlyFiles: Bool = false,
            pragmas: [String: SQLiteValue] = [:],
            sqlDebugLevel: Int? = nil,
            logger: Logger? = nil
        ) {
            self.mode = mode
            self.busyTimeout = busyTimeout
            self.createsOwnerOnlyFiles = createsOwnerOnlyFiles
            self.pragmas = pragmas
            self.sqlDebugLevel = sqlDebugLevel
            self.logger = logger
        }
    }
}
