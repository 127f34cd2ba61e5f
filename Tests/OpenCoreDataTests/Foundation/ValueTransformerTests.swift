import Testing
@testable import OpenCoreData

/// A mood color of objc.io's Moody app, stored as three bytes.
struct MoodyColor: Equatable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8
}

/// Moody's `ColorsTransformer`, written the way users write custom transformers: colors → 3 bytes each
/// (forward, what Core Data calls when saving), bytes → colors (reverse, when reading).
final class MoodyColorsTransformer: ValueTransformer {
    static let name = NSValueTransformerName(rawValue: "MoodyColorsTransformer")

    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let colors = value as? [MoodyColor] else { return nil }
        return Data(colors.flatMap { [$0.red, $0.green, $0.blue] })
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, data.count % 3 == 0 else { return nil }
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count, by: 3).map { MoodyColor(red: bytes[$0], green: bytes[$0 + 1], blue: bytes[$0 + 2]) }
    }
}

/// Doubles numbers and relies on the default `reverseTransformedValue(_:)`, which applies the forward one.
final class DoublingTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override func transformedValue(_ value: Any?) -> Any? { (value as? Int).map { $0 * 2 } }
}

@Suite struct ValueTransformerTests {
    @Test func namesSpellApplesConstants() {
        #expect(NSValueTransformerName.negateBooleanTransformerName.rawValue == "NSNegateBoolean")
        #expect(NSValueTransformerName.isNilTransformerName.rawValue == "NSIsNil")
        #expect(NSValueTransformerName.isNotNilTransformerName.rawValue == "NSIsNotNil")
        #expect(NSValueTransformerName.unarchiveFromDataTransformerName.rawValue == "NSUnarchiveFromData")
        #expect(NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue == "NSKeyedUnarchiveFromData")
        #expect(NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue == "NSSecureUnarchiveFromData")
        #expect(NSValueTransformerName("X") == NSValueTransformerName(rawValue: "X"))
        #expect(Set([NSValueTransformerName("X"), NSValueTransformerName(rawValue: "X")]).count == 1)
    }

    @Test func builtInTransformersAreRegisteredUnderApplesNames() {
        let names = ValueTransformer.valueTransformerNames()
        for name in [NSValueTransformerName.negateBooleanTransformerName, .isNilTransformerName, .isNotNilTransformerName,
                     .unarchiveFromDataTransformerName, .keyedUnarchiveFromDataTransformerName,
                     .secureUnarchiveFromDataTransformerName] {
            #expect(names.contains(name), "\(name.rawValue)")
            #expect(ValueTransformer(forName: name) != nil, "\(name.rawValue)")
        }
        #expect(ValueTransformer(forName: .secureUnarchiveFromDataTransformerName) is NSSecureUnarchiveFromDataTransformer)
    }

    @Test func registryRegistersReplacesAndRemoves() {
        let name = NSValueTransformerName("OpenCoreDataTests.registry")
        #expect(ValueTransformer(forName: name) == nil)
        let first = DoublingTransformer()
        ValueTransformer.setValueTransformer(first, forName: name)
        #expect(ValueTransformer(forName: name) === first)  // the registered instance itself
        #expect(ValueTransformer.valueTransformerNames().contains(name))
        let second = DoublingTransformer()
        ValueTransformer.setValueTransformer(second, forName: name)
        #expect(ValueTransformer(forName: name) === second)
        ValueTransformer.setValueTransformer(nil, forName: name)
        #expect(ValueTransformer(forName: name) == nil)
        #expect(!ValueTransformer.valueTransformerNames().contains(name))
    }

    @Test func registryIsSafeToUseFromManyThreads() async {
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let name = NSValueTransformerName("OpenCoreDataTests.concurrent.\(task)")
                    for _ in 0..<200 {
                        ValueTransformer.setValueTransformer(DoublingTransformer(), forName: name)
                        _ = ValueTransformer(forName: name)
                        _ = ValueTransformer.valueTransformerNames()
                        ValueTransformer.setValueTransformer(nil, forName: name)
                    }
                }
            }
        }
        #expect(!ValueTransformer.valueTransformerNames().contains { $0.rawValue.hasPrefix("OpenCoreDataTests.concurrent.") })
    }

    @Test func initForNameOnASubclassFindsOnlyThatSubclass() {
        #expect(NSSecureUnarchiveFromDataTransformer(forName: .secureUnarchiveFromDataTransformerName) != nil)
        #expect(NSSecureUnarchiveFromDataTransformer(forName: .isNilTransformerName) == nil)
    }

    @Test func defaultImplementations() {
        let identity = ValueTransformer()
        #expect(identity.transformedValue("same") as? String == "same")
        #expect(identity.transformedValue(nil) == nil)
        #expect(identity.reverseTransformedValue(5) as? Int == 5)
        #expect(ObjectIdentifier(ValueTransformer.transformedValueClass()) == ObjectIdentifier(NSObject.self))
        #expect(ValueTransformer.allowsReverseTransformation())

        let doubling = DoublingTransformer()
        #expect(doubling.transformedValue(21) as? Int == 42)
        #expect(doubling.reverseTransformedValue(21) as? Int == 42)  // the default reverse applies the forward one
        #expect(ObjectIdentifier(DoublingTransformer.transformedValueClass()) == ObjectIdentifier(NSNumber.self))
    }

    @Test func negateBoolean() throws {
        let negate = try #require(ValueTransformer(forName: .negateBooleanTransformerName))
        #expect(negate.transformedValue(true) as? Bool == false)
        #expect(negate.transformedValue(false) as? Bool == true)
        #expect(negate.transformedValue(NSNumber(value: true)) as? Bool == false)
        #expect(negate.transformedValue(0) as? Bool == true)
        #expect(negate.transformedValue(7) as? Bool == false)
        #expect(negate.transformedValue("YES") as? Bool == false)
        #expect(negate.transformedValue(nil) as? Bool == true)  // nil's boolValue is NO
        #expect(negate.transformedValue(Date()) == nil)
        #expect(negate.transformedValue(true) is NSNumber)
        #expect(negate.reverseTransformedValue(false) as? Bool == true)
        #expect(type(of: negate).allowsReverseTransformation())
        #expect(ObjectIdentifier(type(of: negate).transformedValueClass()) == ObjectIdentifier(NSNumber.self))
    }

    @Test func isNilAndIsNotNil() throws {
        let isNil = try #require(ValueTransformer(forName: .isNilTransformerName))
        let isNotNil = try #require(ValueTransformer(forName: .isNotNilTransformerName))
        let none: Int? = nil
        let boxedNone: Any = none as Any
        #expect(isNil.transformedValue(nil) as? Bool == true)
        #expect(isNil.transformedValue(none) as? Bool == true)
        #expect(isNil.transformedValue(boxedNone) as? Bool == true)
        #expect(isNil.transformedValue("x") as? Bool == false)
        #expect(isNil.transformedValue(NSNull()) as? Bool == false)  // NSNull is an object
        #expect(isNotNil.transformedValue(nil) as? Bool == false)
        #expect(isNotNil.transformedValue(Optional(3)) as? Bool == true)
        #expect(!type(of: isNil).allowsReverseTransformation())
        #expect(!type(of: isNotNil).allowsReverseTransformation())
    }

    /// The objc.io Moody app's colors: a custom transformer registered by name turns the 24 bytes Apple's Core
    /// Data stored into 8 colors and back into the same bytes.
    @Test func customColorsTransformerRegisteredByName() throws {
        ValueTransformer.setValueTransformer(MoodyColorsTransformer(), forName: MoodyColorsTransformer.name)
        let transformer = try #require(ValueTransformer(forName: MoodyColorsTransformer.name))
        #expect(transformer is MoodyColorsTransformer)
        #expect(ObjectIdentifier(type(of: transformer).transformedValueClass()) == ObjectIdentifier(NSData.self))

        let stored = Data(ArchiveFixtures.moodyColors)
        let colors = try #require(transformer.reverseTransformedValue(stored) as? [MoodyColor])
        #expect(colors.count == 8)
        #expect(colors.first == MoodyColor(red: 0x6B, green: 0x65, blue: 0x5A))
        #expect(colors.last == MoodyColor(red: 0x98, green: 0x99, blue: 0x9D))
        #expect(transformer.transformedValue(colors) as? Data == stored)
        #expect(transformer.reverseTransformedValue(Data([1, 2])) == nil)
    }

    @Test func keyedUnarchiveFromDataRoundTripsAndReadsAppleArchives() throws {
        let keyed = try #require(ValueTransformer(forName: .keyedUnarchiveFromDataTransformerName))
        let data = try #require(keyed.reverseTransformedValue(["b": [1, 2], "a": "x"] as [String: Any]) as? Data)
        let value = try #require(keyed.transformedValue(data) as? [String: Any])
        #expect(value["a"] as? String == "x")
        #expect(value["b"] as? [Int] == [1, 2])
        #expect(keyed.transformedValue(ArchiveFixtures.handBuiltUUID) as? UUID == UUID(uuidString: "E6E69196-8A95-4EB7-91B9-C22B5EA4612F"))

        // Not secure: any NSCoding class whose name resolves decodes, without an allowed-class list.
        let note = try #require(keyed.reverseTransformedValue(InsecureNote(text: "plain")) as? Data)
        #expect((keyed.transformedValue(note) as? InsecureNote)?.text == "plain")
        // A class nobody registered (a private Core Data class here) gives nil.
        #expect(keyed.transformedValue(ArchiveFixtures.appleHistoryToken) == nil)
        #expect(keyed.transformedValue(nil) == nil)
        #expect(keyed.transformedValue("not data") == nil)
        #expect(keyed.reverseTransformedValue(MoodyColor(red: 0, green: 0, blue: 0)) == nil)  // not NSCoding
    }

    @Test func unarchiveFromDataReadsKeyedArchivesAndRefusesTypedstream() throws {
        let transformer = try #require(ValueTransformer(forName: .unarchiveFromDataTransformerName))
        #expect(transformer.transformedValue(ArchiveFixtures.handBuiltMutableArray) as? [String] == ["x"])
        // An NSArchiver (typedstream) archive of the string "hi", as Apple's NSUnarchiveFromData reads it.
        let typedstream = Data([0x04, 0x0B] + Array("streamtyped".utf8)
            + [0x81, 0xE8, 0x03, 0x84, 0x01, 0x40, 0x84, 0x84, 0x84, 0x08] + Array("NSString".utf8)
            + [0x01, 0x84, 0x84, 0x08] + Array("NSObject".utf8) + [0x00, 0x85, 0x84, 0x01, 0x2B, 0x02] + Array("hi".utf8) + [0x86])
        #expect(transformer.transformedValue(typedstream) == nil)
        let written = try #require(transformer.reverseTransformedValue(["a", "b"]) as? Data)
        #expect(written.starts(with: Array("bplist00".utf8)))  // keyed, not typedstream (see DEVIATIONS)
        #expect(transformer.transformedValue(written) as? [String] == ["a", "b"])
    }
}

/// An NSCoding class that does not support secure coding.
final class InsecureNote: NSObject, NSCoding {
    let text: String

    init(text: String) {
        self.text = text
    }

    init?(coder: NSCoder) {
        guard let text = coder.decodeObject(forKey: "text") as? String else { return nil }
        self.text = text
    }

    func encode(with coder: NSCoder) {
        coder.encode(text, forKey: "text")
    }
}
