import Foundation
import Testing

@testable import OpenCoreData

/// A class with a `@Managed` property of every type the typed getters cover, plus conversions they hand to the
/// generic path, and a name longer than an inline string.
final class TypedGauge: NSManagedObject {
    @Managed var text: String
    @Managed var optionalText: String?
    @Managed var int: Int
    @Managed var optionalInt: Int?
    @Managed var small: Int16
    @Managed var optionalSmall: Int16?
    @Managed var medium: Int32
    @Managed var optionalMedium: Int32?
    @Managed var large: Int64
    @Managed var optionalLarge: Int64?
    @Managed var real: Double
    @Managed var optionalReal: Double?
    @Managed var single: Float
    @Managed var optionalSingle: Float?
    @Managed var flag: Bool
    @Managed var optionalFlag: Bool?
    @Managed var day: Date
    @Managed var optionalDay: Date?
    @Managed var blob: Data
    @Managed var optionalBlob: Data?
    @Managed var identifier: UUID
    @Managed var optionalIdentifier: UUID?
    @Managed var link: URL
    @Managed var optionalLink: URL?
    @Managed var amount: Decimal
    @Managed var optionalAmount: Decimal?
    /// An Int16 attribute read as `Int`, a double read as `Float` (conversions, not the stored type).
    @Managed("small") var smallAsInt: Int
    @Managed("real") var realAsFloat: Float
    @Managed var aPropertyNameLongerThanFifteenBytes: String?
    /// Cross-type setters: a Bool into an integer attribute, an Int into a double, a Double into a float, an Int into
    /// a decimal (the general conversion).
    @Managed("int") var intFromBool: Bool
    @Managed("real") var realFromInt: Int
    @Managed("single") var singleFromDouble: Double
    @Managed("amount") var amountFromInt: Int

    /// Keys `didChangeValue(forKey:)` saw (Apple's generated setters call it; so do ours).
    var changedKeys: [String] = []

    override func didChangeValue(forKey key: String) {
        changedKeys.append(key)
        super.didChangeValue(forKey: key)
    }
}

@Suite struct TypedAccessorTests {
    static let model: NSManagedObjectModel = {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        let entity = NSEntityDescription()
        entity.name = "TypedGauge"
        entity.managedObjectClassName = String(reflecting: TypedGauge.self)
        let types: [(String, NSAttributeType)] = [
            ("text", .stringAttributeType), ("int", .integer64AttributeType), ("small", .integer16AttributeType),
            ("medium", .integer32AttributeType), ("large", .integer64AttributeType), ("real", .doubleAttributeType),
            ("single", .floatAttributeType), ("flag", .booleanAttributeType), ("day", .dateAttributeType),
            ("blob", .binaryDataAttributeType), ("identifier", .UUIDAttributeType), ("link", .URIAttributeType),
            ("amount", .decimalAttributeType),
        ]
        entity.properties = types.flatMap { name, type in
            [attribute(name, type), attribute("optional" + name.prefix(1).uppercased() + name.dropFirst(), type)]
        } + [attribute("aPropertyNameLongerThanFifteenBytes", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        NSManagedObjectModel.registerManagedObjectClasses([TypedGauge.self])
        return model
    }()

    /// A gauge saved with every property set, read back realized by a fresh context of the same coordinator.
    private func roundTrip(_ fill: (TypedGauge) -> Void) throws -> (NSManagedObjectContext, TypedGauge) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        try writer.performAndWait {
            fill(TypedGauge(context: writer))
            try writer.save()
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let gauge = try reader.performAndWait {
            let request = NSFetchRequest<TypedGauge>(entityName: "TypedGauge")
            request.returnsObjectsAsFaults = false
            return try #require(try reader.fetch(request).first)
        }
        return (reader, gauge)
    }

    @Test func everyTypedGetterReadsTheSavedValue() throws {
        let day = Date(timeIntervalSinceReferenceDate: 12_345)
        let identifier = UUID()
        let link = try #require(URL(string: "https://example.com/a"))
        let (context, gauge) = try roundTrip { gauge in
            gauge.text = "t"; gauge.optionalText = "o"
            gauge.int = -5; gauge.optionalInt = 6
            gauge.small = 300; gauge.optionalSmall = -7
            gauge.medium = 70_000; gauge.optionalMedium = 8
            gauge.large = 1 << 40; gauge.optionalLarge = 9
            gauge.real = 2.5; gauge.optionalReal = -0.25
            gauge.single = 1.5; gauge.optionalSingle = 3.25
            gauge.flag = true; gauge.optionalFlag = false
            gauge.day = day; gauge.optionalDay = day
            gauge.blob = Data([1, 2]); gauge.optionalBlob = Data([3])
            gauge.identifier = identifier; gauge.optionalIdentifier = identifier
            gauge.link = link; gauge.optionalLink = link
            gauge.amount = Decimal(string: "12.34")!; gauge.optionalAmount = Decimal(7)
            gauge.aPropertyNameLongerThanFifteenBytes = "long"
        }
        context.performAndWait {
            #expect(gauge.text == "t" && gauge.optionalText == "o")
            #expect(gauge.int == -5 && gauge.optionalInt == 6)
            #expect(gauge.small == 300 && gauge.optionalSmall == -7)
            #expect(gauge.medium == 70_000 && gauge.optionalMedium == 8)
            #expect(gauge.large == 1 << 40 && gauge.optionalLarge == 9)
            #expect(gauge.real == 2.5 && gauge.optionalReal == -0.25)
            #expect(gauge.single == 1.5 && gauge.optionalSingle == 3.25)
            #expect(gauge.flag == true && gauge.optionalFlag == false)
            #expect(gauge.day == day && gauge.optionalDay == day)
            #expect(gauge.blob == Data([1, 2]) && gauge.optionalBlob == Data([3]))
            #expect(gauge.identifier == identifier && gauge.optionalIdentifier == identifier)
            #expect(gauge.link == link && gauge.optionalLink == link)
            #expect(gauge.amount == Decimal(string: "12.34")! && gauge.optionalAmount == Decimal(7))
            #expect(gauge.smallAsInt == 300, "an Int16 attribute converts to Int")
            #expect(gauge.realAsFloat == 2.5, "a double attribute converts to Float")
            #expect(gauge.aPropertyNameLongerThanFifteenBytes == "long")
        }
    }

    @Test func nilScalarsReadAsZeroAndNilOptionalsAsNil() throws {
        let (context, gauge) = try roundTrip { gauge in
            gauge.text = "only this"
            gauge.day = Date(timeIntervalSinceReferenceDate: 0)
            gauge.blob = Data()
            gauge.identifier = UUID()
            gauge.link = URL(fileURLWithPath: "/")
        }
        context.performAndWait {
            #expect(gauge.int == 0 && gauge.small == 0 && gauge.medium == 0 && gauge.large == 0)
            #expect(gauge.real == 0 && gauge.single == 0 && gauge.flag == false && gauge.amount == 0)
            #expect(gauge.optionalText == nil && gauge.optionalInt == nil && gauge.optionalSmall == nil && gauge.optionalMedium == nil)
            #expect(gauge.optionalLarge == nil && gauge.optionalReal == nil && gauge.optionalSingle == nil && gauge.optionalFlag == nil)
            #expect(gauge.optionalDay == nil && gauge.optionalBlob == nil && gauge.optionalIdentifier == nil && gauge.optionalLink == nil)
            #expect(gauge.optionalAmount == nil && gauge.aPropertyNameLongerThanFifteenBytes == nil)
        }
    }

    @Test func keysBuiltAtRunTimeFindTheSameProperties() throws {
        let (context, gauge) = try roundTrip { gauge in
            gauge.text = "dynamic"
            gauge.aPropertyNameLongerThanFifteenBytes = "long and dynamic"
        }
        context.performAndWait {
            let short = String(["t", "e", "x", "t"])
            let long = ["aProperty", "NameLonger", "ThanFifteenBytes"].joined()
            #expect(gauge.value(forKey: short) as? String == "dynamic")
            #expect(gauge.value(forKey: long) as? String == "long and dynamic")
            #expect(gauge.entity.layout.slots["nonexistent"] == nil)
            #expect(gauge.entity.layout.slots["tex"] == nil && gauge.entity.layout.slots["texts"] == nil)
        }
    }

    /// A context on the model's in-memory store, with an undo manager.
    private func scratchContext() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = UndoManager()
        return context
    }

    @Test func typedSettersStoreWhatKeyValueCodingStores() throws {
        let context = try scratchContext()
        context.performAndWait {
            let typed = TypedGauge(context: context), coded = TypedGauge(context: context)
            typed.small = 300; coded.setValue(300, forKey: "small")
            typed.smallAsInt = 70_000; coded.setValue(70_000, forKey: "small")   // wraps to Int16, as KVC does
            typed.medium = -9; coded.setValue(-9, forKey: "medium")
            typed.intFromBool = true; coded.setValue(true, forKey: "int")
            typed.realFromInt = 3; coded.setValue(3, forKey: "real")
            typed.singleFromDouble = 0.1; coded.setValue(0.1, forKey: "single")  // rounded to Float
            typed.amountFromInt = 12; coded.setValue(12, forKey: "amount")
            typed.flag = true; coded.setValue(true, forKey: "flag")
            typed.optionalText = "x"; coded.setValue("x", forKey: "optionalText")
            typed.optionalText = nil; coded.setValue(nil, forKey: "optionalText")
            typed.blob = Data([9]); coded.setValue(Data([9]), forKey: "blob")
            typed.optionalDay = Date(timeIntervalSinceReferenceDate: 5); coded.setValue(Date(timeIntervalSinceReferenceDate: 5), forKey: "optionalDay")
            typed.amount = Decimal(string: "1.5")!; coded.setValue(Decimal(string: "1.5")!, forKey: "amount")
            #expect(typed.attributeValues == coded.attributeValues)
            #expect(typed.small == 4_464 && typed.single == Float(0.1) && typed.amount == Decimal(string: "1.5")!)
        }
    }

    @Test func typedSettersTrackChangesNotifyAndUndo() throws {
        let context = try scratchContext()
        try context.performAndWait {
            let gauge = TypedGauge(context: context)
            gauge.text = "saved"
            try context.save()
            context.processPendingChanges()
            gauge.changedKeys = []
            gauge.text = "changed"
            gauge.large = 7
            gauge.optionalReal = nil
            #expect(gauge.changedKeys == ["text", "large", "optionalReal"])
            #expect(gauge.isUpdated && context.updatedObjects.contains(gauge))
            #expect(gauge.changedValues()["text"] as? String == "changed")
            context.processPendingChanges()   // ends the event: its undo is one group
            context.undoManager?.undo()
            #expect(gauge.text == "saved" && gauge.large == 0)
        }
    }

    @Test func keyPathProbesStillRecordTheKey() {
        _ = Self.model
        #expect(TypedGauge.keyPathString(for: \TypedGauge.large) == "large")
        #expect(TypedGauge.keyPathString(for: \TypedGauge.optionalText) == "optionalText")
        #expect(TypedGauge.keyPathString(for: \TypedGauge.aPropertyNameLongerThanFifteenBytes) == "aPropertyNameLongerThanFifteenBytes")
    }
}
