import Testing

@testable import OpenCoreDataMacros

/// The naming rules of ``ManagedKey``, on their own.
@Suite("ManagedKey naming rules")
struct ManagedKeyTests {
    @Test(
        "a property name is its key unless it is primitive<Key>",
        arguments: [
            ("date", "date", false),
            ("primitiveDate", "date", true),
            ("primitiveURLString", "uRLString", true),
            ("primitiveÉtat", "état", true),
            ("primitiveness", "primitiveness", false),
            ("primitive_id", "primitive_id", false),
            ("primitive", "primitive", false),
            ("isPrimitive", "isPrimitive", false),
        ]
    )
    func propertyKey(name: String, key: String, isPrimitive: Bool) {
        let result = ManagedKey.property(named: name)
        #expect(result.key == key)
        #expect(result.isPrimitive == isPrimitive)
    }

    @Test(
        "only the first character is lower-cased",
        arguments: [("Moods", "moods"), ("LineItems", "lineItems"), ("URLs", "uRLs"), ("X", "x"), ("", "")]
    )
    func lowercasingFirstCharacter(name: String, key: String) {
        #expect(ManagedKey.lowercasingFirstCharacter(name[...]) == key)
    }

    @Test("a prefix counts only when a capitalized word follows it")
    func suffix() {
        #expect(ManagedKey.suffix(of: "addToMoods", after: "addTo") == "Moods")
        #expect(ManagedKey.suffix(of: "addTo", after: "addTo") == nil)
        #expect(ManagedKey.suffix(of: "addTomato", after: "addTo") == nil)
        #expect(ManagedKey.suffix(of: "removeFromItems", after: "addTo") == nil)
    }
}
