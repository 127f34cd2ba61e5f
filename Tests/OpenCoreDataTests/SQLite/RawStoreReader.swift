import CSQLite
import Foundation

@testable import OpenCoreData

// An independent reader of Apple's SQLite store layout for the corpus tests: the SQLite C API and hand-written
// decoding straight from store-format.md — nothing here calls the library's SQLite connection, schema, codec
// or row decoder. Only the model descriptions (entities, attributes, relationships) come from the library.

/// A value as SQLite holds it (TEXT kept as its raw bytes).
enum RawValue: Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(Data)
    case blob(Data)

    var isNull: Bool { self == .null }

    var string: String? {
        if case .text(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return "\(value)"
        case .real(let value): return "\(value)"
        case .text: return "'\(string ?? "")'"
        case .blob(let data): return "x'\(data.prefix(24).map { String(format: "%02X", $0) }.joined())\(data.count > 24 ? "…" : "")' (\(data.count) bytes)"
        }
    }
}

struct RawStoreError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A read-only SQLite database opened with the C API.
final class RawDatabase {
    private var db: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw RawStoreError("cannot open \(path): \(message)")
        }
    }

    deinit { sqlite3_close_v2(db) }

    /// Every row of a query, as raw values.
    func rows(_ sql: String, _ arguments: [RawValue] = []) throws -> [[RawValue]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw RawStoreError("\(String(cString: sqlite3_errmsg(db))) in \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            switch argument {
            case .null: sqlite3_bind_null(statement, index)
            case .integer(let value): sqlite3_bind_int64(statement, index, value)
            case .real(let value): sqlite3_bind_double(statement, index, value)
            case .text(let bytes), .blob(let bytes):
                _ = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                }
            }
        }
        var result: [[RawValue]] = []
        let count = sqlite3_column_count(statement)
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw RawStoreError("\(String(cString: sqlite3_errmsg(db))) in \(sql)") }
            result.append((0..<count).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
                case SQLITE_TEXT:
                    let length = Int(sqlite3_column_bytes(statement, column))
                    guard let bytes = sqlite3_column_text(statement, column) else { return .text(Data()) }
                    return .text(Data(bytes: bytes, count: length))
                case SQLITE_BLOB:
                    let length = Int(sqlite3_column_bytes(statement, column))
                    guard let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
                    return .blob(Data(bytes: bytes, count: length))
                default: return .null
                }
            })
        }
        return result
    }

    /// Names of the tables (`sqlite_master`), with the DDL each was created with.
    func tables() throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try rows("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'") {
            result[row[0].string ?? ""] = row[1].string ?? ""
        }
        return result
    }

    /// The columns of a table (`PRAGMA table_info`): names and declared types, in order.
    func columns(of table: String) throws -> [(name: String, type: String)] {
        try rows("PRAGMA table_info(\"\(table)\")").map { ($0[1].string ?? "", $0[2].string ?? "") }
    }

    /// The indexes of a table (`PRAGMA index_list` + `index_info`), with their column specification from
    /// `sqlite_master` (collation and order). Automatic indexes of a PRIMARY KEY are left out; those of a UNIQUE
    /// table constraint (origin `u`) are kept.
    func indexes(of table: String) throws -> [RawIndex] {
        try rows("PRAGMA index_list(\"\(table)\")").compactMap { row -> RawIndex? in
            guard let name = row[1].string, row[3].string != "pk" else { return nil }
            let columns = try rows("PRAGMA index_info(\"\(name)\")").sorted { ($0[0].integer ?? 0) < ($1[0].integer ?? 0) }.map { $0[2].string ?? "" }
            let sql = try rows("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(Data(name.utf8))]).first?.first?.string
            return RawIndex(name: name, table: table, columns: columns, isUnique: row[2].integer == 1, origin: row[3].string ?? "", specification: sql.map(RawIndex.specification) ?? "")
        }
    }
}

/// An index as `PRAGMA index_list`/`index_info` and `sqlite_master` describe it.
struct RawIndex: Hashable, CustomStringConvertible {
    var name: String
    var table: String
    var columns: [String]
    var isUnique: Bool
    /// `c` (CREATE INDEX) or `u` (UNIQUE table constraint).
    var origin: String
    /// The column list of the CREATE INDEX statement, whitespace-normalised (`ZUUID COLLATE BINARY ASC, …`).
    var specification: String

    var description: String { "\(isUnique ? "UNIQUE " : "")\(name) ON \(table) (\(specification.isEmpty ? columns.joined(separator: ", ") : specification))" }

    /// The text between the outermost parentheses of a CREATE INDEX statement, whitespace-normalised.
    static func specification(_ sql: String) -> String {
        guard let open = sql.firstIndex(of: "("), let close = sql.lastIndex(of: ")"), open < close else { return "" }
        return sql[sql.index(after: open)..<close].split(whereSeparator: \.isWhitespace).joined(separator: " ")
            .replacingOccurrences(of: " ,", with: ",")
    }
}

// MARK: - Decoded values

/// An attribute value decoded by hand from its column (store-format.md §4), in a form that compares with what
/// Apple's `value(forKey:)` returns.
enum ExpectedValue: Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case boolean(Bool)
    case double(Double)
    case float(Float)
    case decimal(String)
    case string(String)
    /// Seconds since 2001-01-01 UTC.
    case date(Double)
    case data(Data)
    case uuid(UUID)
    case url(String)
    /// An external-storage reference (`0x02` + UUID): the file lives in `_EXTERNAL_DATA`.
    case externalReference(String)
    /// The bytes a value transformer produced (compared at byte level).
    case transformed(Data)
    /// A column value the format does not allow for the attribute type.
    case undecodable(String)

    var description: String {
        switch self {
        case .null: return "nil"
        case .integer(let v): return "\(v)"
        case .boolean(let v): return "\(v)"
        case .double(let v): return "\(v)"
        case .float(let v): return "\(v)f"
        case .decimal(let v): return "decimal \(v)"
        case .string(let v): return "\"\(v)\""
        case .date(let v): return "date \(v)"
        case .data(let v), .transformed(let v): return "\(v.count) bytes \(v.prefix(12).map { String(format: "%02X", $0) }.joined())"
        case .uuid(let v): return "uuid \(v)"
        case .url(let v): return "url \(v)"
        case .externalReference(let v): return "external file \(v)"
        case .undecodable(let v): return "undecodable: \(v)"
        }
    }
}

/// An object as the raw reader sees it: entity name and primary key.
struct RawObjectRef: Hashable, CustomStringConvertible {
    var entity: String
    var primaryKey: Int64
    var description: String { "\(entity)/p\(primaryKey)" }
}

/// One row of an entity, decoded by hand.
struct RawRow {
    var primaryKey: Int64
    var version: RawValue
    var attributes: [String: ExpectedValue] = [:]
    var toOne: [String: RawObjectRef?] = [:]
    /// Members of to-many relationships (in order for ordered ones).
    var toMany: [String: [RawObjectRef]] = [:]
}

// MARK: - The mapping of a model onto an Apple store, resolved from the store itself

/// Maps a model onto an Apple-written store by the rules of store-format.md, checking each rule against what
/// the file holds (`Z_PRIMARYKEY`, `sqlite_master`, `PRAGMA table_info`), and reads rows with hand decoding.
final class RawStoreReader {
    let database: RawDatabase
    let model: NSManagedObjectModel
    /// `Z_METADATA.Z_UUID`.
    let storeUUID: String
    /// Entity numbers (§2.1), as found in `Z_PRIMARYKEY`.
    private(set) var numbers: [String: Int] = [:]
    /// Tables and their columns.
    let tables: [String: String]
    private var tableColumns: [String: [String]] = [:]
    /// Column of each stored property, by entity name and property name (§3, §5).
    private var columns: [String: [String: String]] = [:]
    /// Polymorphic to-one entity columns (`Z<n>_<NAME>`) and ordered to-one order keys (`Z_FOK_<NAME>`).
    private var entityColumns: [String: [String: String]] = [:]
    private var orderColumns: [String: [String: String]] = [:]
    /// `Z_ENT` of every row, by root table and primary key.
    private var rowEntities: [String: [Int64: Int]] = [:]
    /// Join tables of many-to-many relationships resolved so far.
    private var joins: [String: Join] = [:]
    /// Problems found while mapping (a rule of store-format.md that the file contradicts).
    private(set) var problems: [String] = []
    /// Notes about what could not be compared and why.
    private(set) var notes: [String] = []
    /// Columns a suffix rule assigned (name collisions), for the report.
    private(set) var suffixedColumns: [String] = []
    /// What each model-derived column of an entity table holds, by table and column:
    /// `attribute`, `to-one`, `entity` (polymorphic `Z<n>_`) or `order` (`Z_FOK_`).
    private(set) var columnKinds: [String: [String: String]] = [:]

    struct Join {
        var table: String
        /// Column holding the keys of the relationship's source objects, and of its members.
        var sourceColumn: String
        var memberColumn: String
        var orderColumn: String?
    }

    init(url: URL, model: NSManagedObjectModel) throws {
        database = try RawDatabase(path: url.path)
        self.model = model
        guard let uuid = try database.rows("SELECT Z_UUID FROM Z_METADATA").first?.first?.string else {
            throw RawStoreError("no Z_METADATA row")
        }
        storeUUID = uuid
        tables = try database.tables()
        try resolveEntityNumbers()
        try resolveColumns()
    }

    // MARK: Entity numbers

    /// Apple's numbering rule (§2.1): depth-first pre-order of the inheritance forest, siblings by name compared
    /// case-insensitively. Computed here and checked against every `Z_PRIMARYKEY` row by number.
    static func expectedNumbering(_ model: NSManagedObjectModel) -> [NSEntityDescription] {
        func sorted(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
            entities.sorted { a, b in
                let x = a.name ?? "", y = b.name ?? ""
                if x.lowercased() != y.lowercased() { return x.lowercased() < y.lowercased() }
                return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            }
        }
        var result: [NSEntityDescription] = []
        func visit(_ entity: NSEntityDescription) {
            result.append(entity)
            sorted(entity.subentities).forEach(visit)
        }
        sorted(model.entities.filter { $0.superentity == nil }).forEach(visit)
        return result
    }

    private func resolveEntityNumbers() throws {
        var rows: [Int: (name: String, superNumber: Int)] = [:]
        for row in try database.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000") {
            rows[Int(row[0].integer ?? 0)] = (row[1].string ?? "", Int(row[2].integer ?? 0))
        }
        let expected = Self.expectedNumbering(model)
        if rows.count != expected.count {
            problems.append("Z_PRIMARYKEY has \(rows.count) entity rows, the model \(expected.count) entities")
        }
        for (offset, entity) in expected.enumerated() {
            let number = offset + 1, name = entity.name ?? ""
            numbers[name] = number
            guard let row = rows[number] else {
                problems.append("Z_PRIMARYKEY has no row \(number) for \(name)")
                continue
            }
            if row.name != name {
                // §2.1: Z_NAME can be stale after a rename (the model's renaming identifier names the old entity).
                if row.name == entity.renamingIdentifier {
                    notes.append("Z_PRIMARYKEY row \(number) keeps the stale name \(row.name) of entity \(name) (renamed; §2.1)")
                } else {
                    problems.append("Z_PRIMARYKEY row \(number) is \(row.name), numbering rule says \(name)")
                }
            }
            let superNumber = entity.superentity.map { superentity in (expected.firstIndex { $0 === superentity } ?? -1) + 1 } ?? 0
            if row.superNumber != superNumber {
                problems.append("Z_PRIMARYKEY row \(number) (\(name)) has Z_SUPER \(row.superNumber), expected \(superNumber)")
            }
        }
    }

    func number(of entity: NSEntityDescription) -> Int { numbers[entity.name ?? ""] ?? 0 }

    func entity(number: Int) -> NSEntityDescription? {
        numbers.first { $0.value == number }.flatMap { model.entitiesByName[$0.key] }
    }

    static func root(of entity: NSEntityDescription) -> NSEntityDescription {
        var current = entity
        while let parent = current.superentity { current = parent }
        return current
    }

    static func tableName(of entity: NSEntityDescription) -> String { "Z" + (root(of: entity).name ?? "").uppercased() }

    /// The entity and its descendants.
    static func kinds(of entity: NSEntityDescription) -> [NSEntityDescription] {
        [entity] + entity.subentities.flatMap { kinds(of: $0) }
    }

    /// Properties stored in the entity's table row that the entity itself declares.
    static func ownStoredProperties(_ entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.properties.filter { property in
            guard property.entity === entity, !property.isTransient else { return false }
            if let attribute = property as? NSAttributeDescription {
                return attribute.attributeType != .undefinedAttributeType && attribute.attributeType != .objectIDAttributeType
            }
            if let relationship = property as? NSRelationshipDescription { return !relationship.isToMany }
            return false
        }
    }

    // MARK: Columns

    private func resolveColumns() throws {
        for root in model.entities where root.superentity == nil {
            let table = Self.tableName(of: root)
            guard tables[table] != nil else {
                problems.append("no table \(table) for the hierarchy of \(root.name ?? "?")")
                continue
            }
            let present = try database.columns(of: table).map(\.name)
            tableColumns[table] = present
            let presentSet = Set(present)
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            var owner: [String: NSEntityDescription] = [:]
            let hierarchy = Self.kinds(of: root).sorted { number(of: $0) < number(of: $1) }
            // §3: `Z` + upper-cased name; a later property whose name collides after upper-casing gets a numeric
            // suffix. The order (entity number, then property name) is this test's reading of "processing order";
            // `checkSuffixedColumns` verifies it against the data.
            for entity in hierarchy {
                let name = entity.name ?? ""
                for property in Self.ownStoredProperties(entity).sorted(by: { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }) {
                    let base = "Z" + property.name.uppercased()
                    var column = base, suffix = 1
                    while used.contains(column) {
                        column = base + String(suffix)
                        suffix += 1
                    }
                    used.insert(column)
                    if column != base { suffixedColumns.append("\(table).\(column) = \(name).\(property.name)") }
                    owner[column] = entity
                    columnKinds[table, default: [:]][column] = property is NSRelationshipDescription ? "to-one" : "attribute"
                    for kind in Self.kinds(of: entity) { columns[kind.name ?? "", default: [:]][property.name] = column }
                    if !presentSet.contains(column) {
                        problems.append("\(table) has no column \(column) for \(name).\(property.name)")
                    }
                    guard let relationship = property as? NSRelationshipDescription, let destination = relationship.destinationEntity else { continue }
                    // §5: polymorphic to-one (destination with sub-entities) and ordered inverse.
                    if !destination.subentities.isEmpty {
                        let entityColumn = "Z\(number(of: destination))_" + relationship.name.uppercased()
                        used.insert(entityColumn)
                        columnKinds[table, default: [:]][entityColumn] = "entity"
                        if presentSet.contains(entityColumn) {
                            for kind in Self.kinds(of: entity) { entityColumns[kind.name ?? "", default: [:]][relationship.name] = entityColumn }
                        } else {
                            problems.append("\(table) has no polymorphic column \(entityColumn) for \(name).\(relationship.name)")
                        }
                    }
                    if let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered {
                        let orderColumn = "Z_FOK_" + relationship.name.uppercased()
                        used.insert(orderColumn)
                        columnKinds[table, default: [:]][orderColumn] = "order"
                        if presentSet.contains(orderColumn) {
                            for kind in Self.kinds(of: entity) { orderColumns[kind.name ?? "", default: [:]][relationship.name] = orderColumn }
                        } else {
                            problems.append("\(table) has no order column \(orderColumn) for \(name).\(relationship.name)")
                        }
                    }
                }
            }
            var entities: [Int64: Int] = [:]
            for row in try database.rows("SELECT Z_PK, Z_ENT FROM \(table)") {
                entities[row[0].integer ?? 0] = Int(row[1].integer ?? 0)
            }
            rowEntities[table] = entities
            try checkSuffixedColumns(table: table, owner: owner, base: Dictionary(grouping: owner.keys) { $0.trimmingCharacters(in: .decimalDigits) })
        }
    }

    /// A column of a sub-entity's property holds values only in rows of that entity (and its descendants):
    /// checked for every group of colliding names, which confirms which property got the suffix.
    private func checkSuffixedColumns(table: String, owner: [String: NSEntityDescription], base: [String: [String]]) throws {
        for (_, group) in base where group.count > 1 {
            for column in group where tableColumns[table]?.contains(column) == true {
                guard let entity = owner[column], entity.superentity != nil else { continue }
                let allowed = Self.kinds(of: entity).map { String(number(of: $0)) }.joined(separator: ", ")
                let stray = try database.rows("SELECT COUNT(*) FROM \(table) WHERE \(column) IS NOT NULL AND Z_ENT NOT IN (\(allowed))").first?.first?.integer ?? 0
                if stray > 0 {
                    problems.append("\(table).\(column) (assigned to \(entity.name ?? "?")) has \(stray) values in rows of other entities: the suffix rule is wrong")
                }
            }
        }
    }

    func column(of property: String, in entity: NSEntityDescription) -> String? { columns[entity.name ?? ""]?[property] }

    // MARK: Join tables

    /// The join table of a many-to-many relationship: probes both candidate names (§5, self-referential naming
    /// changed between framework versions) and resolves key columns from `PRAGMA table_info`, accepting a
    /// numeric collision suffix (`Z_23USERS1`).
    func join(for relationship: NSRelationshipDescription) throws -> Join? {
        let key = "\(relationship.entity.name ?? "").\(relationship.name)"
        if let join = joins[key] { return join }
        guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity else { return nil }
        let candidates = [
            "Z_\(number(of: relationship.entity))" + relationship.name.uppercased(),
            "Z_\(number(of: inverse.entity))" + inverse.name.uppercased(),
        ]
        let existing = Set(candidates).filter { tables[$0] != nil }
        guard existing.count == 1, let table = existing.first else {
            problems.append("many-to-many \(key): \(existing.isEmpty ? "neither" : "both") of the join tables \(candidates.joined(separator: " / ")) exist")
            return nil
        }
        let present = try database.columns(of: table).map(\.name)
        func resolve(_ expected: String) -> String? {
            if present.contains(expected) { return expected }
            let suffixed = present.filter { $0.hasPrefix(expected) && !$0.dropFirst(expected.count).isEmpty && $0.dropFirst(expected.count).allSatisfy(\.isNumber) }
            if suffixed.count == 1 {
                suffixedColumns.append("\(table).\(suffixed[0]) = keys of \(key)")
                return suffixed[0]
            }
            return nil
        }
        // §5: column `Z_<n_dest(r)><UPPER(r)>` holds the keys of r's destination.
        let memberExpected = "Z_\(number(of: destination))" + relationship.name.uppercased()
        let sourceExpected = "Z_\(number(of: relationship.entity))" + inverse.name.uppercased()
        guard let member = resolve(memberExpected), let source = resolve(sourceExpected), member != source else {
            problems.append("join table \(table) of \(key) lacks \(memberExpected)/\(sourceExpected) (has \(present.joined(separator: ", ")))")
            return nil
        }
        var order: String?
        if relationship.isOrdered {
            let expected = "Z_FOK_" + member.dropFirst(2)
            if present.contains(expected) { order = expected } else { problems.append("join table \(table) lacks order column \(expected) for \(key)") }
        }
        let join = Join(table: table, sourceColumn: source, memberColumn: member, orderColumn: order)
        joins[key] = join
        return join
    }

    // MARK: Rows

    /// The object a row of `table` is, or nil if no such row exists.
    func objectRef(table: String, primaryKey: Int64) -> RawObjectRef? {
        guard let number = rowEntities[table]?[primaryKey], let entity = entity(number: number) else { return nil }
        return RawObjectRef(entity: entity.name ?? "", primaryKey: primaryKey)
    }

    /// Number of rows whose `Z_ENT` is exactly the entity's number.
    func rowCount(of entity: NSEntityDescription) -> Int {
        let number = number(of: entity)
        return rowEntities[Self.tableName(of: entity)]?.values.filter { $0 == number }.count ?? 0
    }

    /// Every row of one concrete entity (`Z_ENT` = its number), decoded by hand.
    func rows(of entity: NSEntityDescription) throws -> [RawRow] {
        let table = Self.tableName(of: entity)
        guard let present = tableColumns[table] else { return [] }
        let name = entity.name ?? ""
        let attributes = entity.properties.compactMap { $0 as? NSAttributeDescription }.filter { !$0.isTransient && columns[name]?[$0.name] != nil }
        let toOnes = entity.properties.compactMap { $0 as? NSRelationshipDescription }.filter { !$0.isToMany && !$0.isTransient }
        let toManys = entity.properties.compactMap { $0 as? NSRelationshipDescription }.filter { $0.isToMany && !$0.isTransient }
        for relationship in toManys where relationship.inverseRelationship == nil {
            notes.append("\(relationship.entity.name ?? "").\(relationship.name): to-many without inverse, storage not established (§15); not compared")
        }
        var selected = ["Z_PK", "Z_OPT"]
        for attribute in attributes { selected.append(columns[name]![attribute.name]!) }
        for relationship in toOnes {
            selected.append(columns[name]?[relationship.name] ?? "NULL")
            selected.append(entityColumns[name]?[relationship.name] ?? "NULL")
        }
        selected = selected.map { $0 == "NULL" || present.contains($0) ? $0 : "NULL" }
        var result: [RawRow] = []
        for values in try database.rows("SELECT \(selected.joined(separator: ", ")) FROM \(table) WHERE Z_ENT = ? ORDER BY Z_PK", [.integer(Int64(number(of: entity)))]) {
            var row = RawRow(primaryKey: values[0].integer ?? 0, version: values[1])
            var index = 2
            for attribute in attributes {
                row.attributes[attribute.name] = decode(values[index], attribute: attribute)
                index += 1
            }
            for relationship in toOnes {
                let key = values[index], entityNumber = values[index + 1]
                index += 2
                guard case .integer(let primaryKey) = key, let destination = relationship.destinationEntity else {
                    row.toOne[relationship.name] = .some(nil)
                    continue
                }
                let destinationTable = Self.tableName(of: destination)
                var ref = objectRef(table: destinationTable, primaryKey: primaryKey)
                if case .integer(let number) = entityNumber, let concrete = self.entity(number: Int(number)) {
                    if let found = ref, found.entity != concrete.name {
                        problems.append("\(name).\(relationship.name) of p\(row.primaryKey): \(entityColumns[name]?[relationship.name] ?? "?") says \(concrete.name ?? "?"), the row says \(found.entity)")
                    }
                    ref = RawObjectRef(entity: concrete.name ?? "", primaryKey: primaryKey)
                } else if ref == nil {
                    // Dangling key (no such row): the object is identified by the declared destination.
                    notes.append("\(name).\(relationship.name) of p\(row.primaryKey) points at missing row \(destinationTable) p\(primaryKey)")
                    ref = RawObjectRef(entity: destination.name ?? "", primaryKey: primaryKey)
                }
                row.toOne[relationship.name] = .some(ref)
            }
            result.append(row)
        }
        // To-many relationships, from the destination's side.
        for relationship in toManys where relationship.inverseRelationship != nil {
            let members = try members(of: relationship, sources: result.map(\.primaryKey))
            for index in result.indices { result[index].toMany[relationship.name] = members[result[index].primaryKey] ?? [] }
        }
        return result
    }

    /// The members of a to-many relationship for each source primary key, ordered by their order keys when the
    /// relationship is ordered (§5), then by primary key.
    private func members(of relationship: NSRelationshipDescription, sources: [Int64]) throws -> [Int64: [RawObjectRef]] {
        guard let destination = relationship.destinationEntity else { return [:] }
        let destinationTable = Self.tableName(of: destination)
        let allowed = Set(Self.kinds(of: destination).map { $0.name ?? "" })
        var keyed: [Int64: [(order: Int64?, ref: RawObjectRef)]] = [:]
        guard let inverse = relationship.inverseRelationship else {
            notes.append("\(relationship.entity.name ?? "").\(relationship.name): to-many without inverse, storage not established (§15); not compared")
            return [:]
        }
        if !inverse.isToMany {
            // One-to-many: the destination table's to-one column of the inverse (and its Z_FOK_ order key).
            guard let column = columns[destination.name ?? ""]?[inverse.name] else { return [:] }
            let order = relationship.isOrdered ? orderColumns[destination.name ?? ""]?[inverse.name] : nil
            for row in try database.rows("SELECT Z_PK, \(column), \(order ?? "NULL") FROM \(destinationTable) WHERE \(column) IS NOT NULL") {
                guard let pk = row[0].integer, let owner = row[1].integer, let ref = objectRef(table: destinationTable, primaryKey: pk), allowed.contains(ref.entity) else { continue }
                keyed[owner, default: []].append((row[2].integer, ref))
            }
        } else {
            guard let join = try join(for: relationship) else { return [:] }
            for row in try database.rows("SELECT \(join.sourceColumn), \(join.memberColumn), \(join.orderColumn ?? "NULL") FROM \"\(join.table)\"") {
                guard let owner = row[0].integer, let pk = row[1].integer else { continue }
                guard let ref = objectRef(table: destinationTable, primaryKey: pk), allowed.contains(ref.entity) else {
                    notes.append("join table \(join.table) row \(owner)→\(pk): no \(destination.name ?? "") row p\(pk)")
                    continue
                }
                keyed[owner, default: []].append((row[2].integer, ref))
            }
        }
        var result: [Int64: [RawObjectRef]] = [:]
        let wanted = Set(sources)
        for (owner, members) in keyed where wanted.contains(owner) {
            if relationship.isOrdered, members.contains(where: { $0.order == nil }) {
                notes.append("\(relationship.entity.name ?? "").\(relationship.name) of p\(owner): members without an order key")
            }
            result[owner] = members.sorted { lhs, rhs in
                if relationship.isOrdered, lhs.order != rhs.order { return (lhs.order ?? .min) < (rhs.order ?? .min) }
                return lhs.ref.primaryKey < rhs.ref.primaryKey
            }.map(\.ref)
        }
        return result
    }

    /// The file names (UUIDs) of every external-storage reference (`0x02` marker, §4) in the store.
    func externalReferences() throws -> [String] {
        var names: [String] = []
        for entity in model.entities {
            for case let attribute as NSAttributeDescription in entity.properties
            where attribute.entity === entity && attribute.allowsExternalBinaryDataStorage && !attribute.isTransient {
                guard let column = columns[entity.name ?? ""]?[attribute.name], tableColumns[Self.tableName(of: entity)]?.contains(column) == true else { continue }
                for row in try database.rows("SELECT \(column) FROM \(Self.tableName(of: entity)) WHERE substr(\(column), 1, 1) = x'02'") {
                    if case .externalReference(let name) = decode(row[0], attribute: attribute) { names.append(name) }
                }
            }
        }
        return names
    }

    /// Where Apple keeps the file of an external-storage reference: `.<store name without extension>_SUPPORT/
    /// _EXTERNAL_DATA/<UUID>` next to the store (§1).
    static func externalFile(_ name: String, store: URL) -> URL {
        store.deletingLastPathComponent()
            .appendingPathComponent(".\(store.deletingPathExtension().lastPathComponent)_SUPPORT")
            .appendingPathComponent("_EXTERNAL_DATA")
            .appendingPathComponent(name)
    }

    // MARK: Hand decoding (§4)

    func decode(_ raw: RawValue, attribute: NSAttributeDescription) -> ExpectedValue {
        if raw.isNull { return .null }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            switch raw {
            case .integer(let value): return .integer(value)
            case .real(let value): return .integer(Int64(value))
            default: return .undecodable("unexpected \(raw) in an integer column")
            }
        case .booleanAttributeType:
            switch raw {
            case .integer(let value): return .boolean(value != 0)
            default: return .undecodable("unexpected \(raw) in a boolean column")
            }
        case .doubleAttributeType, .floatAttributeType:
            let value: Double
            switch raw {
            case .real(let real): value = real
            case .integer(let integer): value = Double(integer)
            default: return .undecodable("unexpected \(raw) in a FLOAT column")
            }
            return attribute.attributeType == .floatAttributeType ? .float(Float(value)) : .double(value)
        case .decimalAttributeType:
            switch raw {
            case .real(let value): return .decimal("\(value)")
            case .integer(let value): return .decimal("\(value)")
            case .text: return .decimal(raw.string ?? "")
            default: return .undecodable("unexpected \(raw) in a DECIMAL column")
            }
        case .stringAttributeType:
            switch raw {
            case .text: return .string(raw.string ?? "")
            default: return .undecodable("unexpected \(raw) in a VARCHAR column")
            }
        case .dateAttributeType:
            // Seconds since 2001-01-01, REAL or (whole seconds) INTEGER.
            switch raw {
            case .real(let value): return .date(value)
            case .integer(let value): return .date(Double(value))
            default: return .undecodable("unexpected \(raw) in a TIMESTAMP column")
            }
        case .binaryDataAttributeType:
            let bytes: Data
            switch raw {
            case .blob(let data), .text(let data): bytes = data
            default: return .undecodable("unexpected \(raw) in a BLOB column")
            }
            guard attribute.allowsExternalBinaryDataStorage, let marker = bytes.first else { return .data(bytes) }
            switch marker {
            case 0x01: return .data(Data(bytes.dropFirst()))
            case 0x02:
                let name = bytes.dropFirst().prefix { $0 != 0 }
                return .externalReference(String(decoding: name, as: UTF8.self))
            default: return .undecodable("unknown external-storage marker \(marker)")
            }
        case .UUIDAttributeType:
            guard case .blob(let data) = raw, data.count == 16 else { return .undecodable("unexpected \(raw) in a UUID column") }
            let b = Array(data)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .URIAttributeType:
            return .url(raw.string ?? "")
        case .transformableAttributeType:
            switch raw {
            case .blob(let data), .text(let data): return .transformed(data)
            default: return .undecodable("unexpected \(raw) in a transformable column")
            }
        default:
            return .undecodable("unexpected attribute type \(attribute.attributeType.rawValue)")
        }
    }
}
