import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// The model of the history and query-generation suites:
/// - `Note`: title, body (String), rating (Int32), remoteID (String, `preservesValueInHistoryOnDeletion`), folder
///   (to-one, nullify);
/// - `Folder`: name (String, preserved), notes (to-many, nullify).
enum HistoryModel {
    static let shared: NSManagedObjectModel = make()

    static func make() -> NSManagedObjectModel {
        let note = NSEntityDescription(), folder = NSEntityDescription()
        note.name = "Note"
        note.managedObjectClassName = "NSManagedObject"
        folder.name = "Folder"
        folder.managedObjectClassName = "NSManagedObject"
        let remoteID = attribute("remoteID", .stringAttributeType)
        remoteID.preservesValueInHistoryOnDeletion = true
        let folderName = attribute("name", .stringAttributeType)
        folderName.preservesValueInHistoryOnDeletion = true
        let notes = NSRelationshipDescription(), noteFolder = NSRelationshipDescription()
        notes.name = "notes"
        notes.destinationEntity = note
        notes.maxCount = 0
        notes.deleteRule = .nullifyDeleteRule
        noteFolder.name = "folder"
        noteFolder.destinationEntity = folder
        noteFolder.maxCount = 1
        noteFolder.deleteRule = .nullifyDeleteRule
        notes.isOptional = true
        noteFolder.isOptional = true
        notes.inverseRelationship = noteFolder
        noteFolder.inverseRelationship = notes
        note.properties = [attribute("title", .stringAttributeType), attribute("body", .stringAttributeType),
                           attribute("rating", .integer32AttributeType), remoteID, noteFolder]
        folder.properties = [folderName, notes]
        let model = NSManagedObjectModel()
        model.entities = [note, folder]
        return model
    }

    private static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = true
        return attribute
    }
}

/// A coordinator with one SQLite store of ``HistoryModel`` and helpers to make contexts and notes.
struct HistoryStack {
    static var tracking: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }
    static var trackingAndRemoteChanges: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true] }

    let url: URL
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore

    /// Opens (or creates) the store at `url` (a new one in a fresh directory by default).
    init(url: URL? = nil, options: [AnyHashable: Any]? = HistoryStack.tracking, type: String = NSSQLiteStoreType) throws {
        let url = try url ?? TemporaryDirectory.make().appendingPathComponent("History.sqlite")
        self.url = url
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: HistoryModel.shared)
        store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: type == NSInMemoryStoreType ? nil : url, options: options)
    }

    /// A private-queue context of the stack.
    func context(name: String? = nil, author: String? = nil) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        context.transactionAuthor = author
        return context
    }
}

extension NSManagedObjectContext {
    /// Inserts a note.
    @discardableResult
    func insertNote(_ title: String, remoteID: String? = nil, rating: Int32 = 0) -> NSManagedObject {
        let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: self)
        note.setValue(title, forKey: "title")
        note.setValue(remoteID, forKey: "remoteID")
        note.setValue(NSNumber(value: rating), forKey: "rating")
        return note
    }

    /// Every note, by title.
    func notes(_ format: String? = nil) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        if let format { request.predicate = NSPredicate(format: format) }
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try fetch(request)
    }

    /// The titles of every note, sorted.
    func noteTitles() throws -> [String] {
        try notes().map { $0.value(forKey: "title") as? String ?? "?" }
    }

    /// Executes a history request and returns its result's value.
    func history(_ request: NSPersistentHistoryChangeRequest) throws -> Any? {
        (try execute(request) as? NSPersistentHistoryResult)?.result
    }

    /// The transactions after `token`.
    func transactions(after token: NSPersistentHistoryToken?) throws -> [NSPersistentHistoryTransaction] {
        try history(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? [NSPersistentHistoryTransaction] ?? []
    }
}

/// Values shared between a notification observer's thread and a test.
final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access to `storage` holds `lock`.
    private let lock = NSLock()
    private var storage: Value

    init(_ value: Value) { storage = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    func mutate(_ body: (inout Value) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body(&storage)
    }
}

/// A store file read with the SQLite C API directly (not the library's connection), read-only.
enum RawSQL {
    enum Value: Equatable, CustomStringConvertible {
        case null, integer(Int64), real(Double), text(String), blob([UInt8])

        var int: Int64? { if case .integer(let value) = self { return value } else { return nil } }
        var string: String? { if case .text(let value) = self { return value } else { return nil } }
        var double: Double? {
            switch self {
            case .real(let value): return value
            case .integer(let value): return Double(value)
            default: return nil
            }
        }
        var description: String {
            switch self {
            case .null: return "NULL"
            case .integer(let value): return "\(value)"
            case .real(let value): return "\(value)"
            case .text(let value): return "'\(value)'"
            case .blob(let value): return "x'\(value.map { String(format: "%02X", $0) }.joined())'"
            }
        }
    }

    /// Every row of `sql` on the file at `url`.
    static func rows(_ url: URL, _ sql: String) throws -> [[Value]] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            defer { sqlite3_close(db) }
            throw NSError(domain: "RawSQL", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot open \(url.path)"])
        }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw NSError(domain: "RawSQL", code: 2, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(db)) + " in " + sql])
        }
        defer { sqlite3_finalize(statement) }
        var result: [[Value]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw NSError(domain: "RawSQL", code: Int(code), userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(db))])
            }
            var row: [Value] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    let bytes = sqlite3_column_blob(statement, column).map { [UInt8](UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
                    row.append(.blob(bytes))
                default: row.append(.null)
                }
            }
            result.append(row)
        }
        return result
    }

    /// The first column of the first row.
    static func value(_ url: URL, _ sql: String) throws -> Value? {
        try rows(url, sql).first?.first
    }

    /// The column names of a table, in order.
    static func columns(_ url: URL, _ table: String) throws -> [String] {
        try rows(url, "PRAGMA table_info(\(table))").compactMap { $0[1].string }
    }
}

/// The primary key in an object ID's URI (`…/Entity/p<pk>`), through the public API only.
func primaryKey(_ objectID: NSManagedObjectID) -> Int64? {
    let last = objectID.uriRepresentation().lastPathComponent
    guard last.hasPrefix("p") else { return nil }
    return Int64(last.dropFirst())
}

/// The error a throwing body threw, as NSError.
func thrownError(_ body: () throws -> Void) -> NSError? {
    do {
        try body()
        return nil
    } catch {
        return error as NSError
    }
}

extension RawSQL {
    /// `PRAGMA wal_checkpoint(PASSIVE)` on a connection of its own: the WAL's frame count and how many were copied.
    static func checkpoint(_ url: URL) throws -> (log: Int32, checkpointed: Int32) {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            defer { sqlite3_close(db) }
            throw NSError(domain: "RawSQL", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot open \(url.path)"])
        }
        defer { sqlite3_close(db) }
        // A connection learns that the file is in WAL mode at its first read.
        guard sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK else {
            throw NSError(domain: "RawSQL", code: 3, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(db))])
        }
        var log: Int32 = -1, checkpointed: Int32 = -1
        let code = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &checkpointed)
        guard code == SQLITE_OK else {
            throw NSError(domain: "RawSQL", code: Int(code), userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(db))])
        }
        return (log, checkpointed)
    }
}
