import Foundation
import Testing

@testable import OpenCoreData

/// How the SQLite store reads a prefetched to-many relationship kept in an inverse column: by key (`IN (…)` through
/// the column's index) for a few sources, in one pass over the destination table when the sources are at least half
/// of their table's rows. Both give each source exactly its members. Checked on the SQL and on the objects.
@Suite("Prefetching a to-many relationship: by key for a few sources, one table pass for most")
struct PrefetchScanTests {
    /// Shelves A, B, C with items A0…A3, B0…B3, C0…C3 (FetchOptionsTests' stack), the shelves fetched by `predicate`
    /// with their items prefetched: what each shelf holds, the SELECTs that read rows, and the items registered.
    static func prefetch(shelves predicate: OpenCoreData.NSPredicate?) throws -> (items: [String: Set<String>], selects: [String], registered: Set<String>) {
        let stack = try FetchOptionsTests.Stack()
        return try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Shelf")
            request.predicate = predicate
            request.relationshipKeyPathsForPrefetching = ["items"]
            let shelves = try stack.context.fetch(request)
            let selects = stack.selects()
            let registered = Set(stack.context.registeredObjects.filter { $0.entity.name == "Item" && !$0.isFault }.compactMap { $0.value(forKey: "name") as? String })
            var items: [String: Set<String>] = [:]
            for shelf in shelves {
                let members = (shelf.value(forKey: "items") as? NSSet)?.allObjects as? [NSManagedObject] ?? []
                items[shelf.value(forKey: "name") as? String ?? "?"] = Set(members.compactMap { $0.value(forKey: "name") as? String })
            }
            #expect(stack.selects().isEmpty, "the items were prefetched")
            return (items, selects, registered)
        }
    }

    static func items(of shelf: String) -> Set<String> { Set((0..<4).map { "\(shelf)\($0)" }) }

    @Test("all sources: one pass over the table, no IN list, no index")
    func allSourcesScanTheTable() throws {
        let (items, selects, registered) = try Self.prefetch(shelves: nil)
        #expect(items == ["A": Self.items(of: "A"), "B": Self.items(of: "B"), "C": Self.items(of: "C")])
        #expect(selects.count == 2, "\(selects)")
        let members = try #require(selects.last)
        #expect(members.contains("FROM ZITEM d NOT INDEXED WHERE d.ZSHELF IS NOT NULL") && !members.contains(" IN ("), "\(members)")
        #expect(registered == Self.items(of: "A").union(Self.items(of: "B")).union(Self.items(of: "C")))
    }

    @Test("two sources of three: the pass leaves the third source's rows out")
    func mostSourcesSkipOthersRows() throws {
        let (items, selects, registered) = try Self.prefetch(shelves: NSPredicate(format: "name != 'B'"))
        #expect(items == ["A": Self.items(of: "A"), "C": Self.items(of: "C")])
        #expect(selects.last?.contains("NOT INDEXED") == true, "\(selects)")
        #expect(registered == Self.items(of: "A").union(Self.items(of: "C")), "B's items were not realized")
    }

    @Test("one source of three: by key, through the index, in key order")
    func fewSourcesReadByKey() throws {
        let (items, selects, registered) = try Self.prefetch(shelves: NSPredicate(format: "name == 'B'"))
        #expect(items == ["B": Self.items(of: "B")])
        let members = try #require(selects.last)
        #expect(members.contains("WHERE d.ZSHELF IN (?1)") && members.hasSuffix("ORDER BY d.ZSHELF, d.Z_PK") && !members.contains("NOT INDEXED"), "\(members)")
        #expect(registered == Self.items(of: "B"))
    }
}
