import Foundation
import Testing

@testable import OpenCoreData

// The table behind a context's ordered object sets answers as a Dictionary keyed by object identity would, through
// growth and through removals that shift entries back (random operations, checked against a Dictionary after each).

@Suite("Object index table")
struct ObjectIndexTableTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomOperationsAgreeWithADictionary(seed: UInt64) {
        let objects = (0..<3_000).map { _ in NSObject() }
        var random = SplitMix64(seed: seed)
        var table = ObjectIndexTable()
        var expected: [ObjectIdentifier: Int] = [:]
        for step in 0..<40_000 {
            let key = ObjectIdentifier(objects[Int(random.next() % UInt64(objects.count))])
            switch random.next() % 10 {
            case 0..<5:
                let added = table.insert(key, step)
                #expect(added == (expected[key] == nil), "insert at step \(step)")
                if added { expected[key] = step }
            case 5..<9:
                let removed = table.removeValue(for: key)
                #expect(removed == expected.removeValue(forKey: key), "removal at step \(step)")
            default:
                #expect(table[key] == expected[key], "look-up at step \(step)")
            }
            #expect(table.count == expected.count)
            if step % 4_000 == 0 {
                // Every key, present or not, as the dictionary has it.
                #expect(objects.allSatisfy { table[ObjectIdentifier($0)] == expected[ObjectIdentifier($0)] }, "all keys at step \(step)")
            }
        }
        #expect(objects.allSatisfy { table[ObjectIdentifier($0)] == expected[ObjectIdentifier($0)] })
        table.removeAll()
        #expect(table.isEmpty && table[ObjectIdentifier(objects[0])] == nil)
    }

    @Test(arguments: [0, 1_000])
    func aFullRunEmptiesAndRefills(minimumCapacity: Int) {
        let objects = (0..<1_000).map { _ in NSObject() }
        var table = ObjectIndexTable(minimumCapacity: minimumCapacity)
        for (index, object) in objects.enumerated() {
            let added = table.insert(ObjectIdentifier(object), index)
            #expect(added)
        }
        let addedAgain = table.insert(ObjectIdentifier(objects[7]), -1)
        #expect(!addedAgain, "a present key keeps its value")
        #expect(table[ObjectIdentifier(objects[7])] == 7)
        for (index, object) in objects.enumerated().reversed() {
            let removed = table.removeValue(for: ObjectIdentifier(object))
            #expect(removed == index)
        }
        let removedAgain = table.removeValue(for: ObjectIdentifier(objects[0]))
        #expect(table.isEmpty && removedAgain == nil)
        for (index, object) in objects.enumerated() { table.insert(ObjectIdentifier(object), index * 2) }
        #expect(objects.indices.allSatisfy { table[ObjectIdentifier(objects[$0])] == $0 * 2 })
    }
}
