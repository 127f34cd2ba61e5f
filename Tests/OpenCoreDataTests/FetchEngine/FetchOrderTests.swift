import Foundation
import Testing

@testable import OpenCoreData

/// The order a SQLite fetch asks SQLite for: none without sort descriptors (as Apple's SQL, so a range on an indexed
/// attribute is read in index order with no sort step), and the descriptors then the primary key with them (so ties
/// come back in the same order every time). Checked on the SQL and on the rows.
@Suite("Fetch order on SQLite: unsorted fetches skip the sort, sorted ones break ties by primary key")
struct FetchOrderTests {
    /// `Reading(label, score, bucket)` with `score` indexed: 40 rows whose scores run downwards as labels run upwards,
    /// so index order and primary-key order differ; `bucket` is `index % 4`, four rows in each score tenth.
    struct Stack {
        let context: NSManagedObjectContext
        let store: SQLiteStore
        let log: CapturedLog
        static let count = 40

        static func score(_ index: Int) -> Double { Double(count - index) / Double(count) }
        static func label(_ index: Int) -> String { "r\(index)" }

        init() throws {
            let entity = NSEntityDescription()
            entity.name = "Reading"
            let label = NSAttributeDescription(), score = NSAttributeDescription(), bucket = NSAttributeDescription()
            (label.name, label.attributeType) = ("label", .stringAttributeType)
            (score.name, score.attributeType, score.isIndexed) = ("score", .doubleAttributeType, true)
            (bucket.name, bucket.attributeType) = ("bucket", .integer16AttributeType)
            entity.properties = [label, score, bucket]
            let model = NSManagedObjectModel()
            model.entities = [entity]
            (context, store) = try SQLiteTestStack.make(model, name: "order")
            try context.performAndWait { [context] in
                for index in 0..<Self.count {
                    let reading = NSEntityDescription.insertNewObject(forEntityName: "Reading", into: context)
                    reading.setValue(Self.label(index), forKey: "label")
                    reading.setValue(Self.score(index), forKey: "score")
                    reading.setValue(index % 4, forKey: "bucket")
                }
                try context.save()
                context.reset()
            }
            log = SQLiteTestStack.recordSQL(of: store, level: 3)
        }

        /// The labels a fetch returns, in order, with the SELECT it ran and the plan SQLite chose for it.
        func fetch(_ predicate: OpenCoreData.NSPredicate?, sortedBy sort: [OpenCoreData.NSSortDescriptor] = []) throws -> (labels: [String], sql: String, plan: String) {
            log.removeAll()
            let labels = try context.performAndWait { [context] in
                let request = NSFetchRequest<NSManagedObject>(entityName: "Reading")
                request.predicate = predicate
                request.sortDescriptors = sort
                defer { context.reset() }
                return try context.fetch(request).map { $0.value(forKey: "label") as? String ?? "?" }
            }
            let sql = log.messages.first { $0.hasPrefix("sql: SELECT") } ?? ""
            let plan = log.messages.first { $0.hasPrefix("details: EXPLAIN QUERY PLAN") } ?? ""
            return (labels, sql, plan)
        }
    }

    @Test("an unsorted range fetch on an indexed attribute has no ORDER BY and no sort step")
    func unsortedRangeReadsTheIndexWithoutSorting() throws {
        let stack = try Stack()
        let (labels, sql, plan) = try stack.fetch(NSPredicate(format: "score BETWEEN {0.25, 0.5}"))
        #expect(sql.contains("WHERE") && !sql.contains("ORDER BY"), "\(sql)")
        #expect(plan.contains("INDEX") && !plan.contains("TEMP B-TREE"), "\(plan)")
        let expected = (0..<Stack.count).filter { (0.25...0.5).contains(Stack.score($0)) }.map(Stack.label)
        #expect(expected.count == 11)
        #expect(Set(labels) == Set(expected) && labels.count == expected.count)
    }

    @Test("a sorted fetch orders by its descriptors, then by primary key among ties")
    func sortedFetchBreaksTiesByPrimaryKey() throws {
        let stack = try Stack()
        for ascending in [true, false] {
            let (labels, sql, _) = try stack.fetch(nil, sortedBy: [NSSortDescriptor(key: "bucket", ascending: ascending)])
            #expect(sql.hasSuffix("ORDER BY t0.ZBUCKET \(ascending ? "ASC" : "DESC"), t0.Z_PK"), "\(sql)")
            // Rows were saved in index order, so primary keys follow the index; scores run the other way.
            let buckets = ascending ? [0, 1, 2, 3] : [3, 2, 1, 0]
            let expected = buckets.flatMap { bucket in (0..<Stack.count).filter { $0 % 4 == bucket }.map(Stack.label) }
            #expect(labels == expected)
        }
    }
}
