/// A connection's prepared statements by SQL text, for ``SQLiteConnection/cachedStatement(_:)``.
///
/// A save or a fetch asks for the same few statements once per row. Looking one up in a dictionary hashes its whole
/// SQL text (a hundred characters and more) each time; the cache first compares the text with the statements it
/// handed out last, which for the same string (a row-write plan's) is a comparison of two pointers.
///
/// ```swift
/// var cache = StatementCache()
/// cache.insert(statement, for: sql)
/// cache.statement(for: sql)   // statement, found among the recent ones
/// ```
struct StatementCache {
    private var statements: [String: SQLiteStatement] = [:]
    /// The statements looked up last, the most recent first, at most ``recentLimit``.
    private var recent: [(sql: String, statement: SQLiteStatement)] = []

    /// How many statements ``recent`` keeps.
    static let recentLimit = 4

    /// The number of statements in the cache.
    var count: Int { statements.count }

    /// The statement prepared for `sql`, if the cache has one.
    mutating func statement(for sql: String) -> SQLiteStatement? {
        for entry in recent where entry.sql == sql { return entry.statement }
        guard let statement = statements[sql] else { return nil }
        remember(statement, for: sql)
        return statement
    }

    /// Keeps `statement` as the one prepared for `sql`.
    mutating func insert(_ statement: SQLiteStatement, for sql: String) {
        statements[sql] = statement
        recent.removeAll { $0.sql == sql }
        remember(statement, for: sql)
    }

    /// Forgets every statement.
    mutating func removeAll() {
        statements.removeAll()
        recent.removeAll()
    }

    private mutating func remember(_ statement: SQLiteStatement, for sql: String) {
        if recent.count == Self.recentLimit { recent.removeLast() }
        recent.insert((sql, statement), at: 0)
    }
}
