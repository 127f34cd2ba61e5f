import CSQLite
import Foundation

extension SQLiteConnection {
    /// Replaces this database's whole content with `source`'s (SQLite's online backup API), in one write
    /// transaction on this database: a process killed mid-copy leaves this database as it was.
    ///
    /// ```swift
    /// try destination.replaceContents(with: migratedCopy)
    /// ```
    func replaceContents(with source: SQLiteConnection) throws {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw SQLiteError.make(code: sqlite3_errcode(handle), db: handle, operation: "backup")
        }
        var code: Int32
        repeat {
            code = sqlite3_backup_step(backup, -1)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        if code != SQLITE_DONE { throw SQLiteError.make(code: code, db: handle, operation: "backup") }
        if finish != SQLITE_OK { throw SQLiteError.make(code: finish, db: handle, operation: "backup") }
    }
}
