import Foundation
import Testing

@testable import OpenCoreData

/// A context's change sets keep objects once, in the order they changed; the last inserted object is remembered so
/// that inserting it again needs no hash look-up, and forgotten when it leaves.
@Suite struct OrderedObjectSetTests {
    private func objects(_ count: Int) -> [NSManagedObject] {
        let entity = NSEntityDescription()
        entity.name = "Thing"
        return (0..<count).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
    }

    @Test func objectsAreKeptOnceInOrder() {
        let (a, b, c) = { let o = objects(3); return (o[0], o[1], o[2]) }()
        var set = OrderedObjectSet()
        func insert(_ object: NSManagedObject) -> Bool { set.insert(object) }
        func remove(_ object: NSManagedObject) -> Bool { set.remove(object) }
        func popFirst() -> NSManagedObject? { set.popFirst() }
        #expect(insert(a))
        #expect(!insert(a), "the last inserted object again")
        #expect(insert(b))
        #expect(!insert(a))
        #expect(!insert(b))
        #expect(set.array.map(ObjectIdentifier.init) == [a, b].map(ObjectIdentifier.init) && set.count == 2)
        #expect(remove(b))
        #expect(!set.contains(b))
        #expect(insert(b), "a removed object is inserted again, though it was the last one inserted")
        #expect(insert(c))
        #expect(remove(a))
        #expect(popFirst() === b)
        #expect(popFirst() === c)
        #expect(popFirst() == nil)
        #expect(insert(c), "popped objects are gone")
        set.removeAll()
        #expect(set.isEmpty)
        #expect(insert(c))
        #expect(set.count == 1)
    }
}
