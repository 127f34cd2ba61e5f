import Logging

/// `NSSQLiteStoreType`: the default store, in Apple's on-disk format — a store written by Core Data on iOS or
/// macOS opens here, and a store written here has Apple's tables, columns, metadata and version hashes.
///
/// Open it through a coordinator:
/// ```swift
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
///                                    at: URL(fileURLWithPath: "Moody.sqlite"),
///                                    options: [NSSQLitePragmasOption: ["synchronous": "FULL"]])
/// ```
/// Options: `NSReadOnlyPersistentStoreOption`, `NSSQLitePragmasOption`, `NSSQLiteManualVacuumOption`,
/// `NSSQLiteAnalyzeOption`, `NSPersistentStoreTimeoutOption`, and `NSPersistentStoreFileProtectionKey` (Linux has
/// no data protection classes: any class but `FileProtectionType.none` creates the store, its -wal/-shm and its
/// external-data folders and files owner-only, 0600/0700; without it new files follow the umask, as Apple's do).
final class SQLiteStore: NSPersistentStore, SnapshotStore, @unchecked Sendable {
    // @unchecked Sendable: the connection and schema are used only under the coordinator's lock
    // (SnapshotStore contract); metadata goes through NSPersistentStore's lock.

    private(set) var connection: SQLiteConnection!
    private(set) var schema: SQLiteSchema! {
        didSet { rowWritePlans = [:] }
    }
    /// How each entity's rows are written by saves, made once per schema (SQLiteStore+Save.swift).
    var rowWritePlans: [ObjectIdentifier: RowWritePlan] = [:]
    private(set) var model: NSManagedObjectModel!
    /// Set while an automatic migration runs (a store is migrated once per opening).
    var isMigrating = false
    /// Objects changed by Apple's derived-attribute triggers during the current save.
    let derivedValueChanges = DerivedValueChanges()
    /// Persistent history and remote-change notifications (History/); nil when the store uses neither.
    var history: SQLiteStoreHistory?
    /// Told about each write transaction, in order (persistent history: ``SQLiteTransactionObserver``).
    var transactionObservers: [any SQLiteTransactionObserver] = []
    /// The read-only connections fetches use without the coordinator's lock (`NSPersistentStoreConnectionPoolMaxSizeKey`,
    /// SQLiteStore+ConnectionPool.swift); nil with one connection. Set once, when the store is loaded.
    var readerPool: SQLiteReaderPool?
    /// For tests: runs inside a save's write transaction, after its rows are written and before it commits.
    var testHookInsideWriteTransaction: (() -> Void)?
    let logger = Logger(label: "OpenCoreData.SQLiteStore")

    /// The Core Data framework version OpenCoreData writes into new stores' metadata (an iOS 17-era value).
    static let frameworkVersion = 1344
    /// Binary values above this size go to a file when their attribute allows external storage.
    static let externalStorageThreshold = 128 * 1024

    override var type: String { NSSQLiteStoreType }

    /// The store file's path (kept: reading it from the URL parses the URL).
    var path: String {
        if let cachedPath { return cachedPath }
        let path = url?.path ?? ""
        cachedPath = path
        return path
    }
    private var cachedPath: String?

    /// Where the store's external binary values live (made once).
    var externalStorage: ExternalBinaryStorage {
        if let externalStorageCache { return externalStorageCache }
        let storage = ExternalBinaryStorage(storePath: path, ownerOnly: createsOwnerOnlyFiles)
        externalStorageCache = storage
        return storage
    }
    private var externalStorageCache: ExternalBinaryStorage?

    /// Whether new files are owner-only: `NSPersistentStoreFileProtectionKey` names a protection class other than
    /// `.none` (given as a `FileProtectionType` or its raw string).
    ///
    /// ```swift
    /// options: [NSPersistentStoreFileProtectionKey: FileProtectionType.complete]   // Store.sqlite is 0600
    /// ```
    var createsOwnerOnlyFiles: Bool { Self.createsOwnerOnlyFiles(options) }

    /// Whether store `options` ask for owner-only files (see ``createsOwnerOnlyFiles``).
    static func createsOwnerOnlyFiles(_ options: [AnyHashable: Any]?) -> Bool {
        guard let value = options?[NSPersistentStoreFileProtectionKey] else { return false }
        let protection = (value as? FileProtectionType)?.rawValue ?? (value as? String) ?? ""
        return !protection.isEmpty && protection != FileProtectionType.none.rawValue
    }

    override var url: URL? {
        didSet {
            cachedPath = nil
            externalStorageCache = nil
        }
    }

    /// The URL path that makes an SQLite store an in-memory database (Apple's idiom for tests).
    static var inMemoryPath: String { StoreLocations.inMemoryPath }

    func load(model: NSManagedObjectModel) throws {
        self.model = model
        guard let url, url.isFileURL else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "An SQLite store needs a file URL (got \(self.url?.absoluteString ?? "nil"))")
        }
        let isInMemory = url.path == Self.inMemoryPath
        let fileExists = isInMemory || FileManager.default.fileExists(atPath: url.path)
        if !fileExists && isReadOnly {
            throw CoreDataError.make(NSPersistentStoreOpenError, "The read-only store at \(url.path) does not exist", userInfo: [NSFilePathErrorKey: url.path])
        }
        if !fileExists {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        // Nothing is written to the file (not even its journal mode) until it is known to be a store of ours.
        let configuration = try Self.connectionConfiguration(options: options, mode: isReadOnly ? .readOnly : .readWriteCreate)
        do {
            connection = try SQLiteConnection(path: isInMemory ? ":memory:" : url.path, configuration: configuration)
            SQLiteFunctions.register(on: connection, recordingDerivedChangesIn: derivedValueChanges)
            // A file without tables is new — also one left by a process killed while creating the store.
            let tables = try tableNames()
            if tables.isEmpty {
                if isReadOnly {
                    throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The read-only file at \(url.path) is empty, not a Core Data store", userInfo: [NSFilePathErrorKey: url.path])
                }
                try connection.applyStoreDefaults()
                try create(model: model)
            } else {
                try openExisting(model: model, tables: tables)
            }
            if (options?[NSSQLiteManualVacuumOption] as? Bool) == true && !isReadOnly { try connection.vacuum() }
            if (options?[NSSQLiteAnalyzeOption] as? Bool) == true && !isReadOnly { try connection.analyze() }
            try openHistory()
            openReaderPool()
        } catch let error as NSError {
            connection?.close()
            connection = nil
            throw Self.openError(error, path: url.path)
        }
    }

    /// How the store's connection opens its file with the store `options` (timeout, pragmas, owner-only files);
    /// the store defaults (journal mode, …) are not applied on opening: the caller applies them once the file is known.
    static func connectionConfiguration(options: [AnyHashable: Any]?, mode: SQLiteConnection.Configuration.Mode) throws -> SQLiteConnection.Configuration {
        var configuration = SQLiteConnection.Configuration(mode: mode)
        configuration.createsOwnerOnlyFiles = createsOwnerOnlyFiles(options)
        configuration.appliesStoreDefaultsOnOpen = false
        if let timeout = (options?[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue ?? (options?[NSPersistentStoreTimeoutOption] as? Double) {
            configuration.busyTimeout = timeout
        }
        if let pragmas = options?[NSSQLitePragmasOption] as? [String: Any] {
            configuration.pragmas = try SQLiteConnection.pragmaValues(pragmas)
        }
        return configuration
    }

    /// Turns SQLite's "not a database"/corruption failures into Cocoa's corrupt-file error (as Apple reports them).
    static func openError(_ error: NSError, path: String) -> NSError {
        guard error.code == NSSQLiteError, let code = (error.userInfo[NSSQLiteErrorDomain] as? NSNumber)?.int32Value,
            SQLiteResultCode(rawValue: code).primary == .notADatabase || SQLiteResultCode(rawValue: code).primary == .corrupt
        else { return error }
        return CoreDataError.make(NSFileReadCorruptFileError, "The store at \(path) is not an SQLite database or is corrupt (\(error.localizedDescription))",
                                  userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: error, NSSQLiteErrorDomain: NSNumber(value: code)])
    }

    /// Creates Apple's layout for `model` in a new file.
    private func create(model: NSManagedObjectModel) throws {
        schema = SQLiteSchema(model: model)
        let uuid = UUID().uuidString
        var metadata = Self.modelMetadata(model)
        metadata[NSStoreTypeKey] = NSSQLiteStoreType
        metadata[NSPersistenceFrameworkVersionKey] = Self.frameworkVersion
        metadata["_NSAutoVacuumLevel"] = "2"
        if let userMetadata = options?["NSStoreMetadataOption"] as? [String: Any] {
            metadata.merge(userMetadata) { _, user in user }
        }
        try connection.inTransaction(.immediate) {
            for statement in schema.creationStatements() { try connection.execute(statement) }
            let insertEntity = try connection.prepare("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
            for (index, entity) in schema.entitiesInOrder.enumerated() {
                try insertEntity.bind(Int64(index + 1), at: 1)
                try insertEntity.bind(entity.name ?? "", at: 2)
                try insertEntity.bind(Int64(entity.superentity.map { schema.number(of: $0) } ?? 0), at: 3)
                try insertEntity.execute()
                insertEntity.reset()
            }
            try writeMetadataRow(metadata, uuid: uuid, insert: true)
            try writeModelCache(for: model)
        }
        super.metadata = metadata.merging([NSStoreUUIDKey: uuid]) { $1 }
        metadataNeedsWriting = false
    }

    /// The model keys of store metadata: hashes, identifiers, digest and checksum.
    static func modelMetadata(_ model: NSManagedObjectModel) -> [String: Any] {
        let hashes = model.entityVersionHashesByName
        return [
            NSStoreModelVersionHashesKey: hashes,
            "NSStoreModelVersionHashesVersion": 3,
            NSStoreModelVersionIdentifiersKey: model.versionIdentifiers.compactMap { $0.base as? String }.sorted(),
            "NSStoreModelVersionHashesDigest": ModelDigests.versionHashesDigest(hashes),
            NSPersistentStoreModelVersionChecksumKey: ModelDigests.versionChecksum(hashes),
        ]
    }

    /// Opens an existing store: checks it is a Core Data store of this model and maps its tables.
    /// The names of the file's tables (reading them also proves the file is an SQLite database).
    private func tableNames() throws -> Set<String> {
        Set(try connection.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { row -> String? in
            if case .text(let name) = row[0] { return name }
            return nil
        })
    }

    private func openExisting(model: NSManagedObjectModel, tables: Set<String>) throws {
        guard tables.contains("Z_METADATA"), tables.contains("Z_PRIMARYKEY") else {
            throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The file at \(path) is an SQLite database but not a Core Data store (no Z_METADATA table)",
                                     userInfo: [NSFilePathErrorKey: path])
        }
        let metadata = try readMetadata()
        // A file whose metadata names another store type is not opened as an SQLite store (and not migrated or
        // written to). Apple's SQLite stores always name their type; a missing one is tolerated.
        guard Self.metadata(metadata, namesType: NSSQLiteStoreType, allowingMissing: true) else {
            throw Self.typeMismatch(metadata, expected: NSSQLiteStoreType, path: path)
        }
        let storeHashes = metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]
        if !model.isConfiguration(withName: configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : configurationName, compatibleWithStoreMetadata: metadata) {
            if let staged = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager, !isReadOnly, !isMigrating {
                isMigrating = true
                defer { isMigrating = false }
                try runStagedMigration(staged, metadata: metadata, to: model)
                return try openExisting(model: model, tables: tableNames())
            }
            if migratesAutomatically && !isReadOnly && !isMigrating {
                isMigrating = true
                defer { isMigrating = false }
                try migrateOpenStore(metadata: metadata, to: model)
                return try openExisting(model: model, tables: tableNames())
            }
            let mismatched = model.entitiesByName.keys.filter { name in
                (storeHashes[name] as? Data) != model.entitiesByName[name]?.versionHash
            }.sorted()
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model used to open the store is incompatible with the one used to create the store (entities whose version hash differs: \(mismatched.joined(separator: ", ")))",
                userInfo: ["metadata": metadata, NSFilePathErrorKey: path, "reason": "The model used to open the store is incompatible with the one used to create the store"])
        }
        // The file is a store of this model: now it may be configured (journal mode, synchronous, user pragmas).
        if !isReadOnly { try connection.applyStoreDefaults() }
        var columnsByTable: [String: [String]] = [:]
        for table in tables {
            columnsByTable[table] = try connection.fetchAll("PRAGMA table_info(\(SQLiteStore.quoted(table)))").compactMap { row -> String? in
                if case .text(let name) = row[1] { return name }
                return nil
            }
        }
        schema = SQLiteSchema(model: model, existingTables: columnsByTable)
        try checkTables(existing: columnsByTable)
        super.metadata = metadata
        metadataNeedsWriting = false
        // Work a deferred lightweight migration left is done when the store is added without the option.
        if hasPendingDeferredMigrationWork && !defersLightweightMigrationCleanup && !isReadOnly { try finishDeferredMigration() }
    }

    /// An identifier quoted for SQL.
    static func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// Every table and column the model needs must be in the store.
    private func checkTables(existing: [String: [String]]) throws {
        for table in schema.tables {
            guard let columns = existing[table.name].map(Set.init) else {
                throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store at \(path) has no table \(table.name) for entity \(table.root.name ?? "?")")
            }
            for column in table.columns where !columns.contains(column.name) {
                throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store's table \(table.name) has no column \(column.name)")
            }
        }
        for join in schema.joinTables {
            guard let columns = existing[join.name].map(Set.init) else {
                throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store at \(path) has no join table \(join.name) for relationship \(join.relationship.name)")
            }
            for column in [join.firstColumn, join.secondColumn] + [join.orderColumn, join.inverseOrderColumn].compactMap({ $0 })
            where !columns.contains(column) {
                throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store's join table \(join.name) has no column \(column)")
            }
        }
    }

    // MARK: Metadata

    /// The metadata of the store file (the Z_METADATA plist plus `NSStoreUUID`).
    func readMetadata() throws -> [String: Any] {
        guard let row = try connection.fetchAll("SELECT Z_UUID, Z_PLIST FROM Z_METADATA").first else {
            throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store at \(path) has no metadata row")
        }
        guard case .blob(let plistData) = row[1] else {
            throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store's metadata is not a property list")
        }
        let plist: Any
        do {
            plist = try Self.metadataPropertyList(plistData)
        } catch {
            throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store's metadata is not a valid property list: \(error)", userInfo: [NSUnderlyingErrorKey: error])
        }
        guard var metadata = plist as? [String: Any] else {
            throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store's metadata is not a dictionary")
        }
        if case .text(let uuid) = row[0] { metadata[NSStoreUUIDKey] = uuid }
        return metadata
    }

    /// Decodes a `Z_METADATA` blob. Binary property lists — what Core Data writes — and XML ones are read by
    /// OpenCoreData's own checked readers (Foundation's on Linux crashed on some malformed lists and leaks memory on
    /// malformed binary and XML lists, found by fuzzing); anything else is refused.
    static func metadataPropertyList(_ data: Data) throws -> Any {
        try PropertyListObject.foundationPropertyList(from: data)
    }

    /// Writes the metadata row.
    func writeMetadataRow(_ metadata: [String: Any], uuid: String, insert: Bool) throws {
        var plist = metadata
        plist[NSStoreUUIDKey] = nil
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let statement = try connection.prepare(insert ? "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)" : "UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ?")
        try statement.bind(uuid, at: 1)
        try statement.bind(data, at: 2)
        try statement.execute()
    }

    /// Reads the metadata of the store file at `url` without opening it as a store.
    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        do {
            let connection = try SQLiteConnection(path: url.path, configuration: .init(mode: .readOnly))
            defer { connection.close() }
            let store = SQLiteStore(persistentStoreCoordinator: nil, configurationName: nil, at: url, options: nil)
            store.connection = connection
            guard try connection.fetchValue("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'Z_METADATA'") != nil else {
                throw CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The file at \(url.path) is not a Core Data store (no Z_METADATA table)",
                                         userInfo: [NSFilePathErrorKey: url.path])
            }
            return try store.readMetadata()
        } catch let error as NSError {
            throw openError(error, path: url.path)
        }
    }

    /// Writes metadata into the store file at `url` (keeping its model keys and UUID).
    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        let connection = try SQLiteConnection(path: url.path, configuration: .init(mode: .readWrite))
        defer { connection.close() }
        let store = SQLiteStore(persistentStoreCoordinator: nil, configurationName: nil, at: url, options: nil)
        store.connection = connection
        let current = try store.readMetadata()
        var merged = metadata ?? [:]
        for key in [NSStoreModelVersionHashesKey, "NSStoreModelVersionHashesVersion", NSStoreModelVersionIdentifiersKey, NSStoreTypeKey] where merged[key] == nil {
            merged[key] = current[key]
        }
        try store.writeMetadataRow(merged, uuid: current[NSStoreUUIDKey] as? String ?? UUID().uuidString, insert: false)
    }

    // MARK: Object IDs

    func newObjectIDs(for entity: NSEntityDescription, count: Int) throws -> [NSManagedObjectID] {
        let root = entity.rootEntity
        let rootNumber = Int64(schema.number(of: root))
        let first: Int64 = try connection.inTransaction(.immediate) {
            guard case .integer(let max)? = try connection.fetchValue("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [.integer(rootNumber)]) else {
                throw CoreDataError.make(NSPersistentStoreOperationError, "The store has no primary key row for \(root.name ?? "?")")
            }
            let table = schema.table(for: root).name
            let tableMax: Int64
            if case .integer(let value)? = try connection.fetchValue("SELECT MAX(Z_PK) FROM \(table)") { tableMax = value } else { tableMax = 0 }
            let start = Swift.max(max, tableMax) + 1
            let update = try connection.cachedStatement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
            try update.bind(start + Int64(count) - 1, at: 1)
            try update.bind(rootNumber, at: 2)
            try update.execute()
            return start
        }
        return (0..<Int64(count)).map { objectID(for: entity, primaryKey: first + $0) }
    }

    // MARK: Destroying and replacing (SQLiteStore+StoreFiles.swift)

    override class func destroyStoreFiles(at url: URL, options: [AnyHashable: Any]?, removingOpenStores removeOpenStores: () throws -> Void) throws {
        try destroyFiles(at: url, options: options, removingOpenStores: removeOpenStores)
    }

    override class func replaceStoreFiles(at destination: URL, destinationOptions: [AnyHashable: Any]?, withStoreAt source: URL,
                                          sourceOptions: [AnyHashable: Any]?) throws {
        try replaceFiles(at: destination, destinationOptions: destinationOptions, withStoreAt: source, sourceOptions: sourceOptions)
    }

    override func willRemove(from coordinator: NSPersistentStoreCoordinator?) {
        closeHistory()
        readerPool?.close()
        connection?.close()
    }

    deinit {
        readerPool?.close()
        connection?.close()
    }
}
