extension SQLiteSchema {
    /// The statements that create a new store's tables and indexes, in Apple's current layout and naming.
    ///
    /// For example, for the Moody model:
    /// ```sql
    /// CREATE TABLE ZMOOD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZRATING INTEGER, ZCOUNTRY INTEGER, ZDATE TIMESTAMP, … )
    /// CREATE INDEX ZMOOD_ZCOUNTRY_INDEX ON ZMOOD (ZCOUNTRY)
    /// ```
    func creationStatements() -> [String] {
        var statements = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
        ]
        for table in tables {
            let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + table.columns.map { "\($0.name) \($0.type)" }
            statements.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
        }
        for join in joinTables {
            var columns = ["\(join.firstColumn) INTEGER", "\(join.secondColumn) INTEGER"]
            if let order = join.orderColumn { columns.append("\(order) INTEGER") }
            if let order = join.inverseOrderColumn { columns.append("\(order) INTEGER") }
            columns.append("PRIMARY KEY (\(join.firstColumn), \(join.secondColumn))")
            statements.append("CREATE TABLE \(join.name) ( \(columns.joined(separator: ", ")) )")
        }
        for own in ownJoinTables {
            var columns = ["\(own.sourceColumn) INTEGER", "\(own.destinationColumn) INTEGER"]
            if let order = own.orderColumn { columns.append("\(order) INTEGER") }
            columns.append("PRIMARY KEY (\(own.sourceColumn), \(own.destinationColumn))")
            statements.append("CREATE TABLE \(own.name) ( \(columns.joined(separator: ", ")) )")
        }
        statements += indexStatements()
        statements += triggerStatements()
        return statements
    }

    /// Whether a derived attribute is maintained by Apple's SQL triggers (the `.@count` family).
    func isTriggerMaintained(_ attribute: NSDerivedAttributeDescription) -> Bool {
        DerivedAttributes.countDerivation(of: attribute) != nil
    }

    /// Apple's derived-attribute triggers for `<to-many>.@count` derivations (store-format.md §4), exactly as Core
    /// Data writes them: the count follows inserts, re-parenting and deletes of the destination rows.
    func triggerStatements() -> [String] {
        var statements: [String] = []
        for entity in entitiesInOrder {
            for case let attribute as NSDerivedAttributeDescription in entity.properties where attribute.entity === entity {
                guard let derivation = DerivedAttributes.countDerivation(of: attribute), let destination = derivation.relationship.destinationEntity,
                    let valueColumn = columnName(of: attribute.name, in: entity), let keyColumn = columnName(of: derivation.inverse.name, in: destination)
                else { continue }
                let source = table(for: entity).name, parameter = table(for: destination).name
                let entityName = entity.name ?? "", name = attribute.name
                let notify = { (function: String, key: String) in
                    "SELECT \(function)('\(source)', Z_ENT, Z_PK, '\(name)', \(valueColumn)) FROM \(source) WHERE Z_PK = \(key);"
                }
                let updated = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
                statements.append("CREATE TRIGGER IF NOT EXISTS Z_DA_\(parameter)_\(entityName)_\(name)_PARAMETER_INSERT AFTER INSERT ON \(parameter) FOR EACH ROW WHEN (NEW.\(keyColumn) NOT NULL) BEGIN UPDATE \(source) SET \(valueColumn) = IFNULL(\(valueColumn), 0) + 1 WHERE Z_PK = NEW.\(keyColumn); \(notify(updated, "NEW.\(keyColumn)")) END")
                statements.append("CREATE TRIGGER IF NOT EXISTS Z_DA_\(parameter)_\(entityName)_\(name)_PARAMETER_UPDATE_INCREMENT AFTER UPDATE OF \(keyColumn) ON \(parameter) FOR EACH ROW WHEN (NEW.\(keyColumn) NOT NULL) BEGIN UPDATE \(source) SET \(valueColumn) = \(valueColumn) + 1 WHERE Z_PK = NEW.\(keyColumn); \(notify(updated, "NEW.\(keyColumn)")) END")
                statements.append("CREATE TRIGGER IF NOT EXISTS Z_DA_\(parameter)_\(entityName)_\(name)_PARAMETER_UPDATE_DECREMENT AFTER UPDATE OF \(keyColumn) ON \(parameter) FOR EACH ROW WHEN (OLD.\(keyColumn) NOT NULL) BEGIN UPDATE \(source) SET \(valueColumn) = \(valueColumn) - 1 WHERE Z_PK = OLD.\(keyColumn); \(notify(updated, "OLD.\(keyColumn)")) END")
                statements.append("CREATE TRIGGER IF NOT EXISTS Z_DA_\(parameter)_\(entityName)_\(name)_PARAMETER_DELETE AFTER DELETE ON \(parameter) FOR EACH ROW WHEN (OLD.\(keyColumn) NOT NULL) BEGIN UPDATE \(source) SET \(valueColumn) = \(valueColumn) - 1 WHERE Z_PK = OLD.\(keyColumn); \(notify(updated, "OLD.\(keyColumn)")) END")
                statements.append("CREATE TRIGGER IF NOT EXISTS Z_DA_\(source)_\(entityName)_\(name)_SOURCE_INSERT AFTER INSERT ON \(source) FOR EACH ROW BEGIN UPDATE \(source) SET \(valueColumn) = (SELECT IFNULL(COUNT(\(keyColumn)), 0) FROM \(parameter) WHERE \(keyColumn) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; \(notify("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", "NEW.Z_PK")) END")
            }
        }
        return statements
    }

    /// The `CREATE INDEX` statements of the current Core Data generation (store-format.md §6).
    func indexStatements() -> [String] {
        var statements: [String] = []
        for table in tables {
            if table.isPolymorphic {
                statements.append("CREATE INDEX IF NOT EXISTS \(table.name)_Z_ENT_INDEX ON \(table.name) (Z_ENT)")
            }
            for column in table.columns {
                if case .toOne = column.kind {
                    statements.append("CREATE INDEX IF NOT EXISTS \(table.name)_\(column.name)_INDEX ON \(table.name) (\(column.name))")
                }
            }
            for entity in table.entities {
                let entityName = entity.name ?? ""
                let columnOf: (String) -> String? = { property in self.columnName(of: property, in: entity) }
                // An indexed property, and the property of a single-element fetch index (Core Data reports it as
                // indexed), get `Z_<Entity>_<property>`.
                var indexedProperties = entity.properties.filter { $0.entity === entity && $0.isIndexed && !$0.isTransient }.map(\.name)
                for index in entity.indexes where index.elements.count == 1 {
                    if let name = index.elements[0].propertyName, !indexedProperties.contains(name) { indexedProperties.append(name) }
                }
                for name in indexedProperties {
                    guard let column = columnOf(name) else { continue }
                    statements.append("CREATE INDEX IF NOT EXISTS Z_\(entityName)_\(name) ON \(table.name) (\(column) COLLATE BINARY ASC)")
                }
                for compound in entity.compoundIndexes {
                    let names = compound.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" }
                    let columns = names.compactMap(columnOf)
                    guard columns.count == names.count, !columns.isEmpty else { continue }
                    statements.append("CREATE INDEX IF NOT EXISTS Z_\(entityName)_\(names.joined(separator: "_")) ON \(table.name) (\(columns.map { "\($0) COLLATE BINARY ASC" }.joined(separator: ", ")))")
                }
                for index in entity.indexes {
                    let elements = index.elements.compactMap { element -> String? in
                        guard let name = element.propertyName, let column = columnOf(name) else { return nil }
                        return "\(column) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
                    }
                    guard elements.count == index.elements.count, !elements.isEmpty else { continue }
                    statements.append("CREATE INDEX IF NOT EXISTS Z_\(entityName)_\(index.name) ON \(table.name) (\(elements.joined(separator: ", ")))")
                }
                for constraint in entity.uniquenessConstraintNames where !constraint.isEmpty {
                    let columns = constraint.compactMap(columnOf)
                    guard columns.count == constraint.count else { continue }
                    statements.append("CREATE UNIQUE INDEX IF NOT EXISTS Z_\(entityName)_UNIQUE_\(constraint.joined(separator: "_")) ON \(table.name) (\(columns.map { "\($0) COLLATE BINARY ASC" }.joined(separator: ", ")))")
                }
            }
        }
        for join in joinTables {
            statements.append("CREATE INDEX IF NOT EXISTS \(join.name)_\(join.secondColumn)_INDEX ON \(join.name) (\(join.secondColumn), \(join.firstColumn))")
        }
        for own in ownJoinTables {
            statements.append("CREATE INDEX IF NOT EXISTS \(own.name)_\(own.destinationColumn)_INDEX ON \(own.name) (\(own.destinationColumn), \(own.sourceColumn))")
        }
        return statements
    }

    /// The column of a stored attribute or to-one relationship of `entity` (inherited ones included).
    func columnName(of propertyName: String, in entity: NSEntityDescription) -> String? {
        let table = self.table(for: entity)
        guard let property = entity.propertiesByName[propertyName] else { return nil }
        return table.columns.first { column in
            switch column.kind {
            case .attribute(let attribute): return attribute === property
            case .toOne(let relationship): return relationship === property
            default: return false
            }
        }?.name
    }
}
