/// One SQLite store's part of a query generation: a read-only connection of its own holding an open read
/// transaction. In WAL mode such a transaction keeps reading the database as it was when its first read ran, while
/// other connections (and processes) commit; the system SQLite has no snapshot API (`sqlite3_snapshot_get`), so the
/// open transaction is the generation.
///
/// The cost: while a reader is open, checkpoints cannot move the WAL's content past its snapshot into the main file,
/// so the `-wal` file keeps growing with every write until the generation is released (the last token referring to
/// it is gone). See README, "History and query generations".
final class SQLiteGenerationReader: @unchecked Sendable {
    // @unchecked Sendable: its connection is used only under the coordinator's lock, and closed in deinit (no user left).

    let connection: SQLiteConnection
    /// The store the reader reads (weakly: a token must not keep a removed store alive).
    private(set) weak var store: SQLiteStore?

    /// Opens the reader and pins the store's current state.
    init(store: SQLiteStore) throws {
        var configuration = SQLiteConnection.Configuration(mode: .readOnly, busyTimeout: store.connection.configuration.busyTimeout)
        configuration.pragmas = store.connection.configuration.pragmas
        connection = try SQLiteConnection(path: store.path, configuration: configuration)
        self.store = store
        // The SQL the store's fetches use calls its functions and collations.
        SQLiteFunctions.register(on: connection, recordingDerivedChangesIn: DerivedValueChanges())
        try connection.beginTransaction(.deferred)
        // A deferred transaction starts reading — and so fixes its snapshot — at its first read.
        _ = try connection.fetchValue("SELECT count(*) FROM Z_METADATA")
    }

    deinit {
        if !connection.isClosed && connection.isInTransaction { try? connection.rollback() }
        connection.close()
    }
}

extension SQLiteStore: QueryGenerationStore {
    /// Whether the store can pin query generations: a file store in WAL journal mode. Other stores read unpinned,
    /// as Apple documents ("your contexts gracefully revert to unpinned behavior").
    var supportsQueryGenerations: Bool {
        guard path != Self.inMemoryPath, let connection, !connection.isClosed,
            case .text(let mode)? = try? connection.fetchValue("PRAGMA journal_mode")
        else { return false }
        return mode.lowercased() == "wal"
    }

    func makeGenerationReader() throws -> AnyObject {
        try SQLiteGenerationReader(store: self)
    }

    /// The connection a read for `requestContext` goes through: its query generation's reader when the asker is
    /// pinned, else the store's own connection — always the own one inside a write transaction (a save's version
    /// checks and a batch request's selections read the current rows).
    func readConnection(for requestContext: StoreRequestContext) -> SQLiteConnection {
        guard let generation = requestContext.generation, !connection.isInTransaction,
              let reader = generation.reader(of: self) as? SQLiteGenerationReader, reader.store === self
        else { return connection }
        return reader.connection
    }
}
