import Foundation
import OpenCoreData
import Testing

// A value of one of an attribute type's usual Swift types is recognized by its type alone (no dynamic cast), and must
// be stored exactly as the general conversion stores it: integers wrapped to the attribute's width, a `Double` in a
// float attribute rounded to a `Float`, a `Bool` as 0 or 1. Checked through `setValue(_:forKey:)` and through a batch
// insert's dictionaries, against values worked out here, read back and compared in the store.

@Suite("Values of the usual Swift types")
struct UsualValueTypesTests {
    /// An entity with one attribute per type.
    static let model: NSManagedObjectModel = {
        let entity = NSEntityDescription()
        entity.name = "Sample"
        let types: [(String, NSAttributeType)] = [
            ("small", .integer16AttributeType), ("medium", .integer32AttributeType), ("large", .integer64AttributeType),
            ("flag", .booleanAttributeType), ("real", .doubleAttributeType), ("single", .floatAttributeType),
            ("text", .stringAttributeType), ("stamp", .dateAttributeType), ("bytes", .binaryDataAttributeType),
            ("token", .UUIDAttributeType), ("link", .URIAttributeType),
        ]
        entity.properties = types.map { name, type in
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }()

    /// Values as a user passes them, and what reading them back after a save must give.
    static let samples: [(key: String, value: any Sendable, expected: any Sendable)] = [
        ("small", 70_000, 4_464),                         // Int wrapped to 16 bits: 70,000 − 65,536
        ("medium", Int64(5_000_000_000), 705_032_704),    // Int64 wrapped to 32 bits: 5,000,000,000 − 4,294,967,296
        ("large", Int32(-7), -7),
        ("flag", true, true),
        ("real", 0.1, 0.1),
        ("single", 0.1, 0.10000000149011612),             // a Double rounded to the nearest Float
        ("text", "naïve", "naïve"),
        ("stamp", Date(timeIntervalSinceReferenceDate: 12.5), Date(timeIntervalSinceReferenceDate: 12.5)),
        ("bytes", Data([1, 2, 3]), Data([1, 2, 3])),
        ("token", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        ("link", URL(string: "https://example.com/a")!, URL(string: "https://example.com/a")!),
    ]

    @Test func setValueForKeyStoresEachUsualType() throws {
        let stack = try ConformanceStack(.sqlite, model: Self.model)
        let context = stack.newContext()
        try context.performAndWait {
            let sample = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
            for (key, value, _) in Self.samples { sample.setValue(value, forKey: key) }
            try context.save()
        }
        try expectStoredSamples(in: stack)
    }

    @Test func aBatchInsertStoresEachUsualType() throws {
        let stack = try ConformanceStack(.sqlite, model: Self.model)
        let context = stack.newContext()
        try context.performAndWait {
            var done = false
            let request = NSBatchInsertRequest(entityName: "Sample") { (dictionary: NSMutableDictionary) -> Bool in
                if done { return true }
                for (key, value, _) in Self.samples { dictionary[key] = value }
                done = true
                return false
            }
            _ = try context.execute(request)
        }
        try expectStoredSamples(in: stack)
    }

    private func expectStoredSamples(in stack: ConformanceStack) throws {
        let context = stack.newContext()
        try context.performAndWait {
            let samples = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Sample"))
            try #require(samples.count == 1)
            for (key, _, expected) in Self.samples {
                let read = samples[0].value(forKey: key)
                switch expected {
                case let expected as Int: #expect((read as? NSNumber)?.int64Value == Int64(expected), "\(key)")
                case let expected as Bool: #expect((read as? NSNumber)?.boolValue == expected, "\(key)")
                case let expected as Double: #expect((read as? NSNumber)?.doubleValue == expected, "\(key)")
                case let expected as String: #expect(read as? String == expected, "\(key)")
                case let expected as Date: #expect(read as? Date == expected, "\(key)")
                case let expected as Data: #expect(read as? Data == expected, "\(key)")
                case let expected as UUID: #expect(read as? UUID == expected, "\(key)")
                case let expected as URL: #expect(read as? URL == expected, "\(key)")
                default: Issue.record("no comparison for \(key)")
                }
                // The stored value itself, compared in the store: reading back converts a number to the attribute's
                // width again, which would hide a value stored unwrapped or unrounded.
                let request = NSFetchRequest<NSManagedObject>(entityName: "Sample")
                request.predicate = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: key), rightExpression: NSExpression(forConstantValue: expected),
                                                          modifier: .direct, type: .equalTo, options: [])
                #expect(try context.count(for: request) == 1, "\(key) is stored as \(expected)")
            }
        }
    }
}
