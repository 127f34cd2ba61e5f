import Foundation
import Testing
@testable import OpenCoreData

/// The lock-free one-time cache behind `NSEntityDescription.layout`.
@Suite struct OnceReferenceTests {
    final class Box: Sendable {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    @Test func theFirstValueIsKeptAndComputedOnce() {
        let reference = OnceReference<Box>()
        var computations = 0
        let first = reference.value { computations += 1; return Box(1) }
        let second = reference.value { computations += 1; return Box(2) }
        #expect(first === second && second.number == 1)
        #expect(computations == 1)
    }

    @Test func racingFirstUsesAllGetTheStoredValue() async {
        for _ in 0..<50 {
            let reference = OnceReference<Box>()
            let numbers = await withTaskGroup(of: ObjectIdentifier.self) { group in
                for number in 0..<8 { group.addTask { ObjectIdentifier(reference.value { Box(number) }) } }
                return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
            #expect(numbers.count == 1, "every reader gets the one stored object")
        }
    }

    @Test func theStoredValueLivesAsLongAsTheReference() {
        weak var weakBox: Box?
        do {
            let reference = OnceReference<Box>()
            weakBox = reference.value { Box(3) }
            #expect(weakBox != nil, "held by the reference only")
        }
        #expect(weakBox == nil, "released with the reference")
    }

    @Test func anEntitySeesItsModelFreezeAndKeepsOneLayout() throws {
        let entity = NSEntityDescription()
        entity.name = "Note"
        let text = NSAttributeDescription()
        text.name = "text"
        text.attributeType = .stringAttributeType
        entity.properties = [text]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        #expect(!entity.isFrozen)
        _ = NSManagedObject(entity: entity, insertInto: nil)   // the first object freezes the model
        #expect(entity.isFrozen && model.isFrozen)
        #expect(entity.layout === entity.layout)
    }
}
