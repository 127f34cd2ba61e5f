import Foundation
import Testing

@testable import OpenCoreData

/// A new store created for a model has the schema Apple's Core Data gave the real store it wrote for that model
/// (corpus): the same tables, per table the same column names and declared types (and primary-key columns), the
/// same `Z_PRIMARYKEY` rows (`Z_ENT`, `Z_NAME`, `Z_SUPER`; `Z_MAX` is data) and the same indexes of the current
/// generation — by name, table, columns, uniqueness and column specification (`COLLATE BINARY ASC`).
///
/// Both schemas are read the same way (`RawDatabase`: `sqlite_master`, `PRAGMA table_info/index_list/index_info`).
///
/// What counts as a migration artefact of the Apple store (store-format.md §11, §2.1, §6) and is left out:
/// - **Column order**: columns appended by `ALTER TABLE` during a migration (Wire `ZUSER … , ZDOMAIN`) — columns
///   are compared as sets (Core Data addresses them by name, §3).
/// - **Orphan columns**: a column of Apple's table that no property of the model can produce under the naming
///   rules (§3, §5) is a leftover of a deleted attribute (§11). A column that *a model property* should own is
///   never an artefact: if only one side has it, the test fails.
/// - **Quoted table names**: `CREATE TABLE IF NOT EXISTS "Z_15USERS"` (tables created by a migration) — names are
///   compared unquoted, so this is invisible.
/// - **Stale index generations** (current-generation stores, fw ≥ 752):
///   - a join-table index whose name is not `<table>_<first indexed column>_INDEX` was named with entity numbers
///     of an older model version and not renamed (`Z_14ADDEDUSERS_Z_22ADDEDUSERS_INDEX` on `Z_15ADDEDUSERS`, §2.1);
///   - `<TABLE>_<ATTRIBUTE COLUMN>_INDEX` for an indexed *attribute* and `<TABLE>_<COL>_<COL>…` for a compound
///     index are the fw 637–641 names (§6), which survive migrations next to the new ones;
///   - `UNIQUE` table constraints (SQLite's `sqlite_autoindex_…_N`, origin `u`) are the fw 637–641 form of
///     uniqueness constraints (§6).
/// - **Stale `Z_NAME`**: accepted when it is the entity's renaming identifier (§2.1).
/// - **Old-generation store** (Moody v5, fw 637): all its indexes use the old naming, so for it indexes are
///   compared by (table, columns, uniqueness) only — names, collation and order clauses are a generation
///   difference (§6), not a schema difference.
///
/// Anything else that differs fails the test: that is the library's schema disagreeing with Apple's.
@Suite("Schema parity: new stores vs Apple-written stores", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct SchemaParityTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var store: String
        var model: String
        /// Whether the store was written by a framework that used the old (fw 637–641) index naming.
        var oldIndexGeneration: Bool
        var testDescription: String { store }
    }

    static let cases: [Case] = [
        Case(store: "objcio__core-data__Moody_5.moody", model: "objcio__core-data__Moody__Migrations-Moody_5.xml", oldIndexGeneration: true),
        Case(store: "wireapp__wire-ios-data-model__store2-101-0.wiredatabase", model: "wireapp__wire-ios-data-model__zmessaging__zmessaging2.101.0.xml", oldIndexGeneration: false),
        Case(store: "duckduckgo__BrowserServicesKit__Bookmarks_V5.sqlite", model: "duckduckgo__BrowserServicesKit__BookmarksModel__BookmarksModel_5.xml", oldIndexGeneration: false),
    ]

    /// A schema as read from a file.
    struct Schema {
        var tables: [String: [String: (type: String, primaryKey: Int)]] = [:]
        /// The CREATE TABLE statement of each table, as `sqlite_master` keeps it.
        var tableSQL: [String: String] = [:]
        var indexes: [RawIndex] = []
        var primaryKeys: [Int: (name: String, superNumber: Int)] = [:]
        var frameworkVersion = 0

        init(_ database: RawDatabase) throws {
            tableSQL = try database.tables()
            for table in tableSQL.keys {
                var columns: [String: (type: String, primaryKey: Int)] = [:]
                for row in try database.rows("PRAGMA table_info(\"\(table)\")") {
                    columns[row[1].string ?? ""] = (row[2].string ?? "", Int(row[5].integer ?? 0))
                }
                tables[table] = columns
                indexes += try database.indexes(of: table)
            }
            for row in try database.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") {
                primaryKeys[Int(row[0].integer ?? 0)] = (row[1].string ?? "", Int(row[2].integer ?? 0))
            }
            if let plist = try database.rows("SELECT Z_PLIST FROM Z_METADATA").first?.first, case .blob(let data) = plist,
                let metadata = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
            {
                frameworkVersion = (metadata["NSPersistenceFrameworkVersion"] as? NSNumber)?.intValue ?? (metadata["NSPersistenceFrameworkVersion"] as? Int ?? 0)
            }
        }
    }

    @Test("a new store has Apple's tables, columns, Z_PRIMARYKEY rows and current-generation indexes", arguments: cases)
    func parity(_ parityCase: Case) throws {
        let model = try Corpus.model(parityCase.model)
        // Apple's store (a copy) and the mapping of the model onto it, for the naming rules.
        let appleURL = try Corpus.storeCopy(parityCase.store)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: appleURL.path + suffix) {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: appleURL.path + suffix)
        }
        let appleDatabase = try RawDatabase(path: appleURL.path)
        let apple = try Schema(appleDatabase)
        let mapping = try RawStoreReader(url: appleURL, model: model)

        // A new store created by the library.
        let newURL = try TemporaryDirectory.make().appendingPathComponent("New.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Corpus.model(parityCase.model))
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: newURL, options: nil)
        let ours = try Schema(RawDatabase(path: newURL.path))

        var differences: [String] = []
        var artefacts: [String] = []

        // Tables. A self-referential many-to-many join table that a migration created (quoted name) under the
        // other candidate name is an artefact (§5: the naming rule changed between framework versions, and the
        // migrated fw 1145 Wire store's `Z_24TRUSTEDBYCLIENTS` fits neither rule, while fresh fw 752–1251 stores
        // use the larger name); its columns must still match.
        var onlyApple = Set(apple.tables.keys).subtracting(ours.tables.keys)
        var onlyOurs = Set(ours.tables.keys).subtracting(apple.tables.keys)
        var renamedJoins: [(apple: String, ours: String)] = []
        for entity in model.entities {
            for case let relationship as NSRelationshipDescription in entity.properties where relationship.entity === entity && relationship.isToMany {
                guard let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.entity === entity, relationship.name < inverse.name else { continue }
                let number = mapping.number(of: entity)
                let names = ["Z_\(number)" + relationship.name.uppercased(), "Z_\(number)" + inverse.name.uppercased()]
                for (a, o) in [(names[0], names[1]), (names[1], names[0])] where onlyApple.contains(a) && onlyOurs.contains(o) {
                    if apple.tableSQL[a]?.contains("\"\(a)\"") == true {
                        artefacts.append("self-referential join table \(a) (created by a migration, quoted) is \(o) in the new store (§5, §11)")
                        renamedJoins.append((a, o))
                        onlyApple.remove(a)
                        onlyOurs.remove(o)
                    }
                }
            }
        }
        for table in onlyApple.sorted() { differences.append("table \(table) only in Apple's store") }
        for table in onlyOurs.sorted() { differences.append("table \(table) only in the new store") }
        for join in renamedJoins {
            let a = apple.tables[join.apple]!.mapValues(\.type), o = ours.tables[join.ours]!.mapValues(\.type)
            if a != o { differences.append("join table \(join.apple) / \(join.ours): columns Apple \(a.sorted { $0.key < $1.key }), new store \(o.sorted { $0.key < $1.key })") }
        }
        let renamedTables = Set(renamedJoins.flatMap { [$0.apple, $0.ours] })

        // Columns, per table.
        var columnCount = 0
        for table in Set(apple.tables.keys).intersection(ours.tables.keys).sorted() {
            let appleColumns = apple.tables[table]!, ourColumns = ours.tables[table]!
            let modelColumns = mapping.columnKinds[table].map { Set($0.keys) }
            for column in Set(appleColumns.keys).subtracting(ourColumns.keys).sorted() {
                if let modelColumns, !modelColumns.contains(column) {
                    artefacts.append("orphan column \(table).\(column) (no model property maps to it, §11)")
                } else {
                    differences.append("column \(table).\(column) \(appleColumns[column]!.type) only in Apple's store")
                }
            }
            for column in Set(ourColumns.keys).subtracting(appleColumns.keys).sorted() {
                differences.append("column \(table).\(column) \(ourColumns[column]!.type) only in the new store")
            }
            for column in Set(appleColumns.keys).intersection(ourColumns.keys).sorted() {
                columnCount += 1
                let a = appleColumns[column]!, o = ourColumns[column]!
                if a.type != o.type { differences.append("column \(table).\(column): Apple \(a.type), new store \(o.type)") }
                if a.primaryKey != o.primaryKey { differences.append("column \(table).\(column): primary-key position Apple \(a.primaryKey), new store \(o.primaryKey)") }
            }
        }

        // Z_PRIMARYKEY rows.
        for number in Set(apple.primaryKeys.keys).union(ours.primaryKeys.keys).sorted() {
            guard let a = apple.primaryKeys[number], let o = ours.primaryKeys[number] else {
                differences.append("Z_PRIMARYKEY row \(number) only in \(apple.primaryKeys[number] == nil ? "the new store" : "Apple's store")")
                continue
            }
            if a.name != o.name {
                if model.entitiesByName[o.name]?.renamingIdentifier == a.name {
                    artefacts.append("stale Z_NAME \(a.name) for entity \(o.name) (§2.1)")
                } else {
                    differences.append("Z_PRIMARYKEY row \(number): Apple \(a.name), new store \(o.name)")
                }
            }
            if a.superNumber != o.superNumber { differences.append("Z_PRIMARYKEY row \(number) (\(o.name)): Z_SUPER Apple \(a.superNumber), new store \(o.superNumber)") }
        }

        // Indexes.
        var appleCurrent: [RawIndex] = []
        for index in apple.indexes {
            if renamedTables.contains(index.table) {
                artefacts.append("\(index.name) on \(index.table): index of the migration-named join table")
                continue
            }
            if parityCase.oldIndexGeneration {
                appleCurrent.append(index)
                continue
            }
            if let artefact = Self.artefact(index, kinds: mapping.columnKinds[index.table] ?? [:]) {
                artefacts.append("\(index.name) on \(index.table): \(artefact)")
            } else {
                appleCurrent.append(index)
            }
        }
        if parityCase.oldIndexGeneration {
            // fw 637: compare what is indexed, not how the generation names it.
            func key(_ index: RawIndex) -> String { "\(index.isUnique ? "UNIQUE " : "")\(index.table) (\(index.columns.joined(separator: ", ")))" }
            let appleKeys = Set(appleCurrent.map(key)), ourKeys = Set(ours.indexes.map(key))
            for missing in appleKeys.subtracting(ourKeys).sorted() { differences.append("index \(missing) only in Apple's store") }
            for extra in ourKeys.subtracting(appleKeys).sorted() { differences.append("index \(extra) only in the new store") }
            artefacts.append("fw \(apple.frameworkVersion) index names (\(apple.indexes.map(\.name).sorted().joined(separator: ", "))) compared by columns only (§6 generation)")
        } else {
            let appleByName = Dictionary(appleCurrent.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let ourByName = Dictionary(ours.indexes.filter { !renamedTables.contains($0.table) }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for name in Set(appleByName.keys).subtracting(ourByName.keys).sorted() { differences.append("index \(appleByName[name]!) only in Apple's store") }
            for name in Set(ourByName.keys).subtracting(appleByName.keys).sorted() { differences.append("index \(ourByName[name]!) only in the new store") }
            for name in Set(appleByName.keys).intersection(ourByName.keys).sorted() {
                let a = appleByName[name]!, o = ourByName[name]!
                if a.table != o.table || a.columns != o.columns || a.isUnique != o.isUnique || a.specification != o.specification {
                    differences.append("index \(name): Apple \(a), new store \(o)")
                }
            }
        }

        print("schema parity: \(parityCase.store) (fw \(apple.frameworkVersion)): \(apple.tables.count) tables, \(columnCount) common columns, \(apple.primaryKeys.count) Z_PRIMARYKEY rows, \(appleCurrent.count) Apple indexes compared, \(ours.indexes.count) new-store indexes; \(artefacts.count) artefacts excluded, \(differences.count) differences")
        for artefact in artefacts.sorted() { print("schema parity: \(parityCase.store): artefact: \(artefact)") }
        for difference in differences { Issue.record("\(parityCase.store): \(difference)") }
        _ = coordinator
    }

    /// Why an index of a current-generation Apple store is a migration artefact, or nil if it is one the new
    /// store must have (see the suite's comment).
    static func artefact(_ index: RawIndex, kinds: [String: String]) -> String? {
        let table = index.table
        if index.origin == "u" { return "UNIQUE table constraint: fw 637–641 form of a uniqueness constraint (§6)" }
        if table.range(of: #"^Z_[0-9]+"#, options: .regularExpression) != nil {
            // Join table: current name is <table>_<first indexed column>_INDEX.
            if index.name == "\(table)_\(index.columns.first ?? "")_INDEX" { return nil }
            return "join-table index named with an older model version's entity numbers, not renamed (§2.1, §11)"
        }
        if index.name.range(of: #"^Z_[A-Za-z]"#, options: .regularExpression) != nil { return nil }
        if index.name == "\(table)_Z_ENT_INDEX" { return nil }
        if index.columns.count == 1, index.name == "\(table)_\(index.columns[0])_INDEX" {
            if kinds[index.columns[0]] == "to-one" { return nil }
            return "fw 637–641 name of an indexed attribute (§6), kept by migrations next to the current one"
        }
        if index.name == ([table] + index.columns).joined(separator: "_") {
            return "fw 637–641 name of a compound index (§6), kept by migrations"
        }
        return nil
    }
}
