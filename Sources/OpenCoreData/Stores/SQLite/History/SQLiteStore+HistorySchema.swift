import Logging

/// A store's persistent-history state: whether it tracks history, what its history tables hold, the recorder the
/// history triggers fill during a write, and the remote-change watcher.
///
/// How history is recorded (as Apple's store does, with SQLite triggers — Michael Tsai, "Persistent History Tracking
/// in Core Data", mjtsai.com 2019: "The tables are updated using SQLite triggers … fired for all database changes"):
/// when the store is opened with `NSPersistentHistoryTrackingKey`, temporary `AFTER INSERT/UPDATE/DELETE` triggers on
/// every entity table of the store's own connection call `OCD_HISTORY_CHANGE(type, Z_ENT, Z_PK, …)`, which appends
/// to ``HistoryRecorder``: updates with which columns changed (`OLD.c IS NOT NEW.c`), deletions with the old values
/// of the tombstone columns. At the end of each save or batch transaction, ``SQLiteStore/recordHistory(for:)``
/// coalesces the rows per object and writes one `ATRANSACTION` row and its `ACHANGE` rows in the same transaction.
/// Temporary triggers live only in this connection: the store file keeps exactly Apple's schema.
final class SQLiteStoreHistory: @unchecked Sendable {
    // @unchecked Sendable: used only under the coordinator's lock (the store's contract), the watcher's polls included.

    /// Whether the store was opened with `NSPersistentHistoryTrackingKey` (history is written).
    let isTracking: Bool
    /// Whether the file has the history tables (history can be read).
    var hasTables: Bool
    /// The number of `ZTOMBSTONE<n>` columns of `ACHANGE`.
    var tombstoneColumnCount: Int
    let recorder = HistoryRecorder()
    /// Posts `NSPersistentStoreRemoteChange` (nil unless the store was opened with
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
    var watcher: RemoteChangeWatcher?
    /// The transaction written by the last write, for the remote-change notification of the store's own writes.
    var lastWrittenTransaction: Int64?
    private var layouts: [ObjectIdentifier: HistoryEntityLayout] = [:]

    init(isTracking: Bool, hasTables: Bool, tombstoneColumnCount: Int) {
        self.isTracking = isTracking
        self.hasTables = hasTables
        self.tombstoneColumnCount = tombstoneColumnCount
    }

    /// The history layout of a concrete entity (made once).
    func layout(of entity: NSEntityDescription, schema: SQLiteSchema) -> HistoryEntityLayout {
        if let layout = layouts[ObjectIdentifier(entity)] { return layout }
        let layout = HistoryEntityLayout(entity: entity, schema: schema)
        layouts[ObjectIdentifier(entity)] = layout
        return layout
    }
}

/// How history describes one entity's objects.
///
/// - `ZCOLUMNS` (OpenCoreData's encoding; Apple's is not known — see DEVIATIONS.md): the bytes `4F 43 01` ("OC",
///   version 1) followed by a bit vector over ``properties``, the entity's stored properties (attributes and
///   relationships, inherited ones included, transient ones not) sorted by name byte-wise: property `i` is bit
///   `i % 8` (least significant first) of byte `3 + i / 8`; trailing zero bytes are left out. NULL for insertions and
///   deletions.
/// - `ZTOMBSTONE<n>`: the stored (column) value of the `n`-th of ``tombstoneAttributes`` — attributes with
///   `preservesValueInHistoryOnDeletion` (inherited ones included), except transient ones and those that allow
///   external binary storage (as Apple's), sorted by name byte-wise.
final class HistoryEntityLayout {
    static let columnsMagic: [UInt8] = [0x4F, 0x43, 0x01]

    let entity: NSEntityDescription
    let properties: [NSPropertyDescription]
    let propertyIndex: [String: Int]
    /// Property index by the column index of the entity's table.
    let propertyOfColumn: [Int: Int]
    let tombstoneAttributes: [(attribute: NSAttributeDescription, column: Int)]

    init(entity: NSEntityDescription, schema: SQLiteSchema) {
        self.entity = entity
        let stored = entity.properties.filter { property in
            !property.isTransient && (property is NSAttributeDescription || property is NSRelationshipDescription)
        }
        properties = stored.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        propertyIndex = Dictionary(uniqueKeysWithValues: properties.enumerated().map { ($1.name, $0) })
        let mapping = schema.mapping(for: entity)
        let layout = entity.layout
        var byColumn: [Int: Int] = [:]
        for (slot, column) in mapping.attributeColumns.enumerated() {
            if let column, let index = propertyIndex[layout.attributes[slot].name] { byColumn[column] = index }
        }
        for (slot, columns) in mapping.toOneColumns.enumerated() {
            guard let columns, let index = propertyIndex[layout.toOneRelationships[slot].name] else { continue }
            byColumn[columns.key] = index
            if let entityColumn = columns.entity { byColumn[entityColumn] = index }
        }
        propertyOfColumn = byColumn
        var tombstones: [(attribute: NSAttributeDescription, column: Int)] = []
        for (slot, column) in mapping.attributeColumns.enumerated() {
            let attribute = layout.attributes[slot]
            guard let column, attribute.preservesValueInHistoryOnDeletion, !attribute.isTransient, !attribute.allowsExternalBinaryDataStorage
            else { continue }
            tombstones.append((attribute, column))
        }
        tombstoneAttributes = tombstones.sorted { $0.attribute.name.utf8.lexicographicallyPrecedes($1.attribute.name.utf8) }
    }

    /// `ZCOLUMNS` for a set of property indexes.
    func encodeColumns(_ indexes: Set<Int>) -> Data {
        var bytes = Self.columnsMagic
        for index in indexes.sorted() {
            let byte = Self.columnsMagic.count + index / 8
            while bytes.count <= byte { bytes.append(0) }
            bytes[byte] |= UInt8(1) << UInt8(index % 8)
        }
        return Data(bytes)
    }

    /// The properties a `ZCOLUMNS` value names; nil for a value not in OpenCoreData's encoding (written by Apple's
    /// Core Data, whose encoding is unknown).
    func decodeColumns(_ data: Data) -> Set<NSPropertyDescription>? {
        let bytes = [UInt8](data)
        guard bytes.count >= Self.columnsMagic.count, Array(bytes.prefix(Self.columnsMagic.count)) == Self.columnsMagic else { return nil }
        var result = Set<NSPropertyDescription>()
        for (offset, byte) in bytes.dropFirst(Self.columnsMagic.count).enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (UInt8(1) << UInt8(bit)) != 0 {
                let index = offset * 8 + bit
                if index < properties.count { result.insert(properties[index]) }
            }
        }
        return result
    }
}

extension SQLiteStore {
    /// The history tables' entity numbers in `Z_PRIMARYKEY`.
    static let historyChangeEntity: Int64 = 16001
    static let historyTransactionEntity: Int64 = 16002
    static let historyStringEntity: Int64 = 16003

    /// Sets up persistent history and remote-change notifications when a store is opened (called at the end of
    /// `load(model:)`): creates Apple's history tables (with tombstone columns) for a tracking store, installs the
    /// recording triggers on the store's connection, forces a store that has history but is opened without
    /// tracking into read-only mode (as Apple's Core Data does), and starts the remote-change watcher.
    func openHistory() throws {
        let isTracking = Self.isOn(options?[NSPersistentHistoryTrackingKey])
        let postsRemoteChanges = Self.isOn(options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey])
        var hasTables = try historyTablesExist()
        if !isTracking && hasTables && !isReadOnly {
            // Apple's message (Michael Tsai, "Turning Off Core Data Persistent History Tracking", 2023): the store
            // opens, but read-only, so the history cannot silently get a gap.
            logger.error("Store opened without NSPersistentHistoryTrackingKey but previously had been opened with NSPersistentHistoryTrackingKey - Forcing into Read Only mode store at '\(path)'")
            isReadOnly = true
        }
        guard isTracking || hasTables || postsRemoteChanges else { return }
        let tombstones = requiredTombstoneColumns()
        if isTracking && !isReadOnly && !connection.isReadOnly {
            try connection.inTransaction(.immediate) {
                if !hasTables { try createHistoryTables(tombstoneColumns: tombstones) }
                try addMissingTombstoneColumns(tombstones)
            }
            hasTables = true
        }
        let state = SQLiteStoreHistory(isTracking: isTracking, hasTables: hasTables, tombstoneColumnCount: hasTables ? try tombstoneColumnCount() : 0)
        history = state
        transactionObservers.removeAll { $0 is PersistentHistoryWriter }
        transactionObservers.append(PersistentHistoryWriter(state: state))
        if isTracking && !isReadOnly && !connection.isReadOnly { try installHistoryTriggers(state) }
        if postsRemoteChanges {
            state.watcher = RemoteChangeWatcher(store: self, pollsOtherWriters: path != Self.inMemoryPath)
            state.watcher?.start()
        }
    }

    /// Stops the remote-change watcher (called when the store is removed).
    func closeHistory() {
        history?.watcher?.stop()
    }

    /// Whether an option value turns a feature on (`true`, a non-zero `NSNumber`, `"YES"`, or — as Apple's early
    /// history API accepted — an options dictionary).
    static func isOn(_ value: Any?) -> Bool {
        switch value {
        case let flag as Bool: return flag
        case let number as NSNumber: return number.boolValue
        case let text as String: return ["yes", "true", "1"].contains(text.lowercased())
        case is [String: Any], is NSDictionary: return true
        default: return false
        }
    }

    func historyTablesExist() throws -> Bool {
        try connection.fetchValue("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')") == .integer(3)
    }

    /// The number of tombstone columns the model needs: the most tombstone attributes of any entity.
    private func requiredTombstoneColumns() -> Int {
        schema.entitiesInOrder.map { entity in
            entity.layout.attributes.filter { $0.preservesValueInHistoryOnDeletion && !$0.isTransient && !$0.allowsExternalBinaryDataStorage }.count
        }.max() ?? 0
    }

    private func tombstoneColumnCount() throws -> Int {
        let names = try connection.fetchAll("PRAGMA table_info(ACHANGE)").compactMap { row -> String? in
            if case .text(let name) = row[1] { return name }
            return nil
        }
        var count = 0
        while names.contains("ZTOMBSTONE\(count)") { count += 1 }
        return count
    }

    /// Apple's history tables, indexes and `Z_PRIMARYKEY` rows (store-format.md §7).
    private func createHistoryTables(tombstoneColumns: Int) throws {
        let tombstones = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0) BLOB" }.joined()
        for statement in [
            "CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB\(tombstones) )",
            "CREATE TABLE IF NOT EXISTS ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
            "CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
            "CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
            "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
            "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
            "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
            "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
            "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
            "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
            "CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        ] {
            try connection.execute(statement)
        }
        let insert = try connection.prepare("INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)")
        for (number, name) in [(Self.historyChangeEntity, "CHANGE"), (Self.historyTransactionEntity, "TRANSACTION"), (Self.historyStringEntity, "TRANSACTIONSTRING")] {
            try insert.bind(number, at: 1)
            try insert.bind(name, at: 2)
            try insert.execute()
            insert.reset()
        }
    }

    /// A model whose entities preserve more attributes than the store's `ACHANGE` has tombstone columns for gets the
    /// missing ones (appended, as Core Data's migrations append columns).
    private func addMissingTombstoneColumns(_ required: Int) throws {
        let existing = try tombstoneColumnCount()
        guard existing < required else { return }
        for index in existing..<required { try connection.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(index) BLOB") }
    }

    /// The temporary triggers that record every insert, update and delete of an entity table on this connection.
    private func installHistoryTriggers(_ state: SQLiteStoreHistory) throws {
        let recorder = state.recorder
        try connection.registerFunction(name: "OCD_HISTORY_CHANGE", argumentCount: -1, deterministic: false) { arguments in
            recorder.record(arguments)
            return .null
        }
        for table in schema.tables {
            let quotedTable = Self.quoted(table.name)
            let columns = table.columns.map { Self.quoted($0.name) }
            // Which columns changed, as a string of 0/1 (Z_OPT first, then the table's columns), in chunks that stay
            // within SQLite's limits on function arguments and expression depth.
            let comparisons = (["\"Z_OPT\""] + columns).map { "(OLD.\($0) IS NOT NEW.\($0))" }
            let chunks = stride(from: 0, to: comparisons.count, by: 100).map { comparisons[$0..<min($0 + 100, comparisons.count)].joined(separator: " || ") }
            let tombstoneColumns = tombstoneCandidateColumns(of: table, state).map { ", OLD.\(Self.quoted(table.columns[$0].name))" }.joined()
            let prefix = "OCD_HISTORY_\(table.name)"
            for statement in [
                "CREATE TEMP TRIGGER IF NOT EXISTS \(Self.quoted(prefix + "_INSERT")) AFTER INSERT ON main.\(quotedTable) FOR EACH ROW BEGIN SELECT OCD_HISTORY_CHANGE(0, NEW.Z_ENT, NEW.Z_PK); END",
                "CREATE TEMP TRIGGER IF NOT EXISTS \(Self.quoted(prefix + "_UPDATE")) AFTER UPDATE ON main.\(quotedTable) FOR EACH ROW BEGIN SELECT OCD_HISTORY_CHANGE(1, NEW.Z_ENT, NEW.Z_PK, \(chunks.joined(separator: ", "))); END",
                "CREATE TEMP TRIGGER IF NOT EXISTS \(Self.quoted(prefix + "_DELETE")) AFTER DELETE ON main.\(quotedTable) FOR EACH ROW BEGIN SELECT OCD_HISTORY_CHANGE(2, OLD.Z_ENT, OLD.Z_PK\(tombstoneColumns)); END",
            ] {
                try connection.execute(statement)
            }
        }
    }

    /// The columns of a table whose old values a delete trigger passes: every entity's tombstone columns, in column
    /// order.
    func tombstoneCandidateColumns(of table: SQLiteSchema.EntityTable, _ state: SQLiteStoreHistory) -> [Int] {
        Array(Set(table.entities.flatMap { state.layout(of: $0, schema: schema).tombstoneAttributes.map(\.column) })).sorted()
    }
}

/// The rows the history triggers reported during the current write transaction.
final class HistoryRecorder: @unchecked Sendable {
    // @unchecked Sendable: filled by the store's connection and drained by the store, under the coordinator's lock.

    /// One trigger call: an insert, update or delete of the row `primaryKey` of entity `entity` (the triggers pass
    /// the change type's raw value, Apple's `ZCHANGETYPE` numbers); `changedColumns` (updates) is Z_OPT's flag then
    /// the table's columns' flags; `oldValues` (deletes) are the table's tombstone candidate columns' old values.
    struct Entry {
        var type: NSPersistentHistoryChangeType
        var entity: Int
        var primaryKey: Int64
        var changedColumns: [Bool] = []
        var oldValues: [SQLiteValue] = []
    }

    private var entries: [Entry] = []

    func record(_ arguments: [SQLiteValue]) {
        guard arguments.count >= 3, case .integer(let code) = arguments[0], let type = NSPersistentHistoryChangeType(rawValue: Int(code)),
            case .integer(let entity) = arguments[1], case .integer(let primaryKey) = arguments[2]
        else { return }
        var entry = Entry(type: type, entity: Int(entity), primaryKey: primaryKey)
        let rest = arguments.dropFirst(3)
        if type == .update {
            for chunk in rest {
                switch chunk {
                case .integer(let flag): entry.changedColumns.append(flag != 0)
                case .text(let flags): entry.changedColumns += flags.utf8.map { $0 == UInt8(ascii: "1") }
                default: continue
                }
            }
        } else if type == .delete {
            entry.oldValues = Array(rest)
        }
        entries.append(entry)
    }

    func reset() { entries.removeAll() }

    func take() -> [Entry] {
        defer { entries.removeAll() }
        return entries
    }
}
