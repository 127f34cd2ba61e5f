/// How a save writes one entity's rows: the columns in binding order and the three statements, made once per
/// schema instead of once per row.
///
/// For `Item(name, rating, owner →)`:
/// ```sql
/// INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZRATING, ZOWNER) VALUES (?, ?, ?, ?, ?, ?)
/// UPDATE ZITEM SET Z_OPT = ?, ZNAME = ?, ZRATING = ?, ZOWNER = ? WHERE Z_PK = ? AND IFNULL(Z_OPT, 0) = ?
/// DELETE FROM ZITEM WHERE Z_PK = ? AND IFNULL(Z_OPT, 0) = ?
/// ```
/// (the update and the delete match only the version the context read: optimistic locking in the same statement).
final class RowWritePlan {
    /// Where a column's value comes from in a snapshot.
    enum Source {
        /// An attribute (derived attributes are written by the store itself and have no source).
        case attribute(slot: Int, attribute: NSAttributeDescription, external: Bool)
        /// A to-one relationship's destination key.
        case toOneKey(slot: Int)
        /// A to-one relationship's destination entity number (a destination hierarchy with several entities).
        case toOneEntity(slot: Int)
    }

    let mapping: SQLiteSchema.EntityMapping
    let entityNumber: Int64
    let sources: [Source]
    let insertSQL: String
    let updateSQL: String
    let deleteSQL: String
    /// Whether some attribute may keep its value in an external file.
    let hasExternalStorage: Bool

    init(mapping: SQLiteSchema.EntityMapping, schema: SQLiteSchema) {
        self.mapping = mapping
        entityNumber = Int64(mapping.number)
        var sources: [Source] = []
        var columns: [Int] = []
        let attributes = mapping.entity.layout.attributes
        for (slot, column) in mapping.attributeColumns.enumerated() {
            guard let column, !(attributes[slot] is NSDerivedAttributeDescription) else { continue }
            sources.append(.attribute(slot: slot, attribute: attributes[slot], external: attributes[slot].allowsExternalBinaryDataStorage))
            columns.append(column)
        }
        for (slot, toOne) in mapping.toOneColumns.enumerated() {
            guard let toOne else { continue }
            sources.append(.toOneKey(slot: slot))
            columns.append(toOne.key)
            if let entityColumn = toOne.entity {
                sources.append(.toOneEntity(slot: slot))
                columns.append(entityColumn)
            }
        }
        self.sources = sources
        let table = mapping.table
        let names = columns.map { table.columns[$0].name }
        insertSQL = "INSERT INTO \(table.name) (Z_PK, Z_ENT, Z_OPT\(names.map { ", \($0)" }.joined())) VALUES (?, ?, ?\(String(repeating: ", ?", count: names.count)))"
        updateSQL = "UPDATE \(table.name) SET Z_OPT = ?\(names.map { ", \($0) = ?" }.joined()) WHERE Z_PK = ? AND IFNULL(Z_OPT, 0) = ?"
        deleteSQL = "DELETE FROM \(table.name) WHERE Z_PK = ? AND IFNULL(Z_OPT, 0) = ?"
        hasExternalStorage = attributes.contains { $0.allowsExternalBinaryDataStorage }
    }
}
