/// Persistent history across an in-place migration: `ACHANGE` rows name objects by entity number (`ZENTITY`) and
/// primary key (`ZENTITYPK`), and describe updates (`ZCOLUMNS`) and deletions (`ZTOMBSTONE<n>`) by the entity's
/// property order. The migration keeps primary keys, but the destination model numbers its entities anew (in name
/// order, sub-entities after their parent) and may add, remove or rename properties — so every change row is
/// rewritten in destination terms, in the migration's transaction:
///
/// - `ZENTITY`: the source entity's number becomes its destination entity's (per the entity mappings); changes of
///   entities the migration removes get 0, a number no entity has, and are left out of fetched history, as changes
///   of entities the model does not have always are (DEVIATIONS.md M8);
/// - `ZCOLUMNS` (OpenCoreData's encoding): each updated source property becomes the destination property its
///   mapping fills from it; properties that no longer exist are dropped;
/// - `ZTOMBSTONE<n>`: each preserved destination attribute takes the old value of the source attribute it is
///   mapped from (converted as the rows are), columns are added when the destination preserves more attributes.
extension SQLiteLightweightMigration {
    /// How the changes of one source entity become changes of its destination entity.
    private struct HistoryPlan {
        let number: Int
        /// Destination property index by source property index (`ZCOLUMNS` bits).
        let properties: [Int: Int]
        let source: HistoryEntityLayout
        let destination: HistoryEntityLayout
        /// For each destination tombstone slot: the source tombstone slot and the SQL conversion of its value.
        let tombstones: [(slot: Int, conversion: String)?]
    }

    /// Rewrites `ACHANGE` in destination terms (nothing to do when the store has no history tables).
    func rewriteHistory() throws {
        let tables = try connection.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('ACHANGE', 'ATRANSACTION')")
        guard tables.count == 2 else { return }
        var plans: [Int: HistoryPlan] = [:]
        for entity in destination.entitiesInOrder where !entity.isAbstract {
            guard let sourceEntity = sourceEntityByDestination[ObjectIdentifier(entity)], !sourceEntity.isAbstract,
                let entityMapping = mappingByDestination[ObjectIdentifier(entity)]
            else { continue }
            plans[source.number(of: sourceEntity)] = plan(from: sourceEntity, to: entity, entityMapping)
        }
        var tombstoneColumns = try existingTombstoneColumns()
        let needed = plans.values.map(\.destination.tombstoneAttributes.count).max() ?? 0
        while tombstoneColumns < needed {
            try connection.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(tombstoneColumns) BLOB")
            tombstoneColumns += 1
        }
        let tombstoneList = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0)" }.joined()
        let rows = try connection.fetchAll("SELECT Z_PK, ZENTITY, ZCHANGETYPE, ZCOLUMNS\(tombstoneList) FROM ACHANGE")
        let assignments = (["ZENTITY = ?", "ZCOLUMNS = ?"] + (0..<tombstoneColumns).map { "ZTOMBSTONE\($0) = ?" }).joined(separator: ", ")
        let update = try connection.prepare("UPDATE ACHANGE SET \(assignments) WHERE Z_PK = ?")
        for row in rows {
            guard case .integer(let key) = row[0], case .integer(let oldNumber) = row[1] else { continue }
            // ZENTITY, ZCOLUMNS, ZTOMBSTONE0…
            let current = [row[1], row[3]] + row[4...]
            var values = current
            guard let plan = plans[Int(oldNumber)] else {
                // An entity the migration removes (or that the source model does not have).
                guard oldNumber != 0 else { continue }
                values[0] = .integer(0)
                try write(values, key: key, with: update)
                continue
            }
            values[0] = .integer(Int64(plan.number))
            if case .blob(let bytes) = row[3], let updated = plan.source.decodeColumns(bytes) {
                let indexes = Set(updated.compactMap { plan.source.propertyIndex[$0.name] }.compactMap { plan.properties[$0] })
                values[1] = .blob(plan.destination.encodeColumns(indexes))
            }
            if case .integer(2) = row[2] {
                let old = Array(row[4...])
                for slot in 0..<tombstoneColumns {
                    guard slot < plan.tombstones.count, let (from, conversion) = plan.tombstones[slot], from < old.count else {
                        values[2 + slot] = .null
                        continue
                    }
                    values[2 + slot] = try converted(old[from], with: conversion)
                }
            }
            if values != current { try write(values, key: key, with: update) }
        }
    }

    private func write(_ values: [SQLiteValue], key: Int64, with update: SQLiteStatement) throws {
        try update.bind(values + [.integer(key)])
        try update.execute()
        update.reset()
    }

    private func plan(from sourceEntity: NSEntityDescription, to entity: NSEntityDescription, _ entityMapping: NSEntityMapping) -> HistoryPlan {
        let old = HistoryEntityLayout(entity: sourceEntity, schema: source), new = HistoryEntityLayout(entity: entity, schema: destination)
        var properties: [Int: Int] = [:]
        for (index, property) in new.properties.enumerated() {
            let key: String?
            switch property {
            case is NSAttributeDescription: key = MappingInference.sourceKey(of: entityMapping.attributeMapping(named: property.name)?.valueExpression)
            default: key = Self.relationshipSource(of: entityMapping.relationshipMapping(named: property.name)?.valueExpression)
            }
            if let key, let oldIndex = old.propertyIndex[key] { properties[oldIndex] = index }
        }
        var tombstones: [(slot: Int, conversion: String)?] = []
        for (attribute, _) in new.tombstoneAttributes {
            guard let key = MappingInference.sourceKey(of: entityMapping.attributeMapping(named: attribute.name)?.valueExpression),
                let slot = old.tombstoneAttributes.firstIndex(where: { $0.attribute.name == key })
            else {
                tombstones.append(nil)
                continue
            }
            tombstones.append((slot, Self.converted("?1", from: old.tombstoneAttributes[slot].attribute.attributeType, to: attribute.attributeType)))
        }
        return HistoryPlan(number: destination.number(of: entity), properties: properties, source: old, destination: new, tombstones: tombstones)
    }

    /// A stored value converted as the migration converts its column (SQL `CAST` for a changed type).
    private func converted(_ value: SQLiteValue, with conversion: String) throws -> SQLiteValue {
        guard conversion != "?1", value != .null else { return value }
        return try connection.fetchAll("SELECT \(conversion)", arguments: [value]).first?.first ?? .null
    }

    private func existingTombstoneColumns() throws -> Int {
        let names = Set(try connection.fetchAll("PRAGMA table_info(ACHANGE)").compactMap { row -> String? in
            if case .text(let name) = row[1] { return name }
            return nil
        })
        var count = 0
        while names.contains("ZTOMBSTONE\(count)") { count += 1 }
        return count
    }
}
