import CSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening the file: flags, owner-only creation, the store's pragmas, the immutable fallback for read-only media.
///
/// ```swift
/// try SQLiteConnection.createOwnerOnlyFile(atPath: path)   // before sqlite3_open_v2, when asked for 0600
/// ```
extension SQLiteConnection {
    /// Opens a handle with `flags`, turns on extended result codes and sets the busy timeout.
    ///
    /// ```swift
    /// let handle = try SQLiteConnection.openHandle(path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, busyTimeout: 5)
    /// ```
    ///
    /// - Parameter reportedPath: the path named in errors when `path` is a URI.
    /// - Throws: an `NSSQLiteError` error (with `NSFilePathErrorKey`) when SQLite cannot open the file.
    static func openHandle(_ path: String, flags: Int32, busyTimeout: TimeInterval, reportedPath: String? = nil) throws -> OpaquePointer {
        if path.utf8.contains(0) {
            throw SQLiteError.make(code: .cantOpen, message: "the path contains a NUL character", operation: "opening", path: path)
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let error = SQLiteError.make(code: code, db: db, operation: "opening", path: reportedPath ?? path)
            sqlite3_close_v2(db)  // SQLite allocates a handle even when opening fails
            throw error
        }
        sqlite3_extended_result_codes(db, 1)
        let milliseconds = busyTimeout.isFinite ? max(0, min(busyTimeout * 1000, Double(Int32.max))) : Double(Int32.max)
        sqlite3_busy_timeout(db, Int32(milliseconds))
        return db
    }

    /// Whether `path` names a file (not `":memory:"` or the empty path of a temporary database).
    ///
    /// ```swift
    /// SQLiteConnection.isFilePath(":memory:")   // false
    /// ```
    static func isFilePath(_ path: String) -> Bool {
        !path.isEmpty && path != ":memory:"
    }

    /// Creates an empty file with mode 0600 if none exists (`open(2)` with `O_CREAT | O_EXCL`, then `fchmod` in case
    /// the umask removed owner bits). SQLite then fills it, and creates the -wal and -shm with the same mode: its
    /// unix VFS gives those files the permissions of the main database file.
    ///
    /// ```swift
    /// try SQLiteConnection.createOwnerOnlyFile(atPath: "/tmp/Secret.sqlite")
    /// ```
    ///
    /// - Throws: an `NSSQLiteError` error with `SQLITE_CANTOPEN` when the file cannot be created.
    static func createOwnerOnlyFile(atPath path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(0o600))
        guard descriptor >= 0 else {
            let number = errno
            if number == EEXIST { return }  // an existing file keeps its permissions
            let message = String(cString: strerror(number))
            throw SQLiteError.make(code: .cantOpen, message: message, operation: "creating", path: path)
        }
        defer { closeFileDescriptor(descriptor) }
        _ = fchmod(descriptor, mode_t(0o600))
    }

    /// A `file:` URI that opens `path` read-only and immutable (no locking, no -wal/-shm), every byte outside
    /// `[A-Za-z0-9/._~-]` percent-escaped so `?`, `#` and `%` in the path stay part of it.
    ///
    /// ```swift
    /// SQLiteConnection.immutableURI(forPath: "/media/a?b.sqlite")   // "file:/media/a%3Fb.sqlite?mode=ro&immutable=1"
    /// ```
    static func immutableURI(forPath path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var escaped = ""
        for byte in absolute.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "-"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                escaped += byte < 16 ? "%0" + hex : "%" + hex
            }
        }
        return "file:" + escaped + "?mode=ro&immutable=1"
    }

    /// Whether the store's `-wal` file exists and is not empty (then it may hold committed transactions).
    ///
    /// ```swift
    /// SQLiteConnection.walHoldsData(databasePath: "/media/Store.sqlite")
    /// ```
    static func walHoldsData(databasePath: String) -> Bool {
        let attributes = try? FileManager.default.attributesOfItem(atPath: databasePath + "-wal")
        guard let size = attributes?[.size] as? NSNumber else { return false }
        return size.int64Value > 0
    }

    /// Configures a read-write connection as Apple's store does, with the configuration's pragmas taking precedence.
    ///
    /// For a new file (no pages yet): `page_size = 4096` and `auto_vacuum = INCREMENTAL`, which SQLite only accepts
    /// before the first page is written. Then, always: `journal_mode = WAL` and `synchronous = NORMAL`, then the other
    /// configured pragmas. `foreign_keys` is left off (Core Data maintains relationships itself).
    ///
    /// ```swift
    /// try connection.applyStoreDefaults()
    /// ```
    ///
    /// - Throws: `SQLITE_NOTADB` for a file that is not a database, `SQLITE_BUSY` when another process holds the
    ///   file, ….
    func applyStoreDefaults() throws {
        var pragmas = configuration.pragmas
        var opening: [(String, SQLiteValue)] = []
        // Reading page_count reads the header: a foreign or damaged file fails here, at open time.
        let isNew = try fetchValue("PRAGMA page_count") == .integer(0)
        for (name, value) in [("page_size", SQLiteValue.integer(4096)), ("auto_vacuum", .text("INCREMENTAL"))] {
            let configured = pragmas.removeValue(forKey: name)
            if isNew { opening.append((name, configured ?? value)) }
        }
        opening.append(("journal_mode", pragmas.removeValue(forKey: "journal_mode") ?? .text("WAL")))
        opening.append(("synchronous", pragmas.removeValue(forKey: "synchronous") ?? .text("NORMAL")))
        for (name, value) in opening {
            let statement = try prepare("PRAGMA \(name) = \(try Self.pragmaLiteral(value, name: name))")
            while try statement.step() {}
        }
        try applyPragmaValues(pragmas)
    }

    /// Applies the configuration's pragmas that cannot write to a read-only connection's file.
    ///
    /// ```swift
    /// try connection.applyReadOnlyPragmas()
    /// ```
    func applyReadOnlyPragmas() throws {
        try applyPragmaValues(configuration.pragmas.filter { !["page_size", "auto_vacuum", "journal_mode"].contains($0.key) })
    }
}

/// `close(2)`, out of reach by that name inside `SQLiteConnection`, whose `close()` shadows it.
private func closeFileDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
