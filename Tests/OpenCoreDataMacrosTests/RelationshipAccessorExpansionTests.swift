import Testing

/// How `@ManagedRelationshipAccessor` writes the bodies of Xcode's generated to-many accessors.
@Suite("@ManagedRelationshipAccessor expansion")
struct RelationshipAccessorExpansionTests {
    @Test("Xcode's accessors for an unordered to-many relationship")
    func unorderedToMany() {
        assertExpansion(
            """
            extension Country {
                @ManagedRelationshipAccessor public func addToMoods(_ value: Mood)
                @ManagedRelationshipAccessor public func removeFromMoods(_ value: Mood)
                @ManagedRelationshipAccessor public func addToMoods(_ values: NSSet)
                @ManagedRelationshipAccessor public func removeFromMoods(_ values: NSSet)
            }
            """,
            expandedSource: """
                extension Country {
                    public func addToMoods(_ value: Mood) {
                        _addManagedObject(value, toRelationship: "moods")
                    }
                    public func removeFromMoods(_ value: Mood) {
                        _removeManagedObject(value, fromRelationship: "moods")
                    }
                    public func addToMoods(_ values: NSSet) {
                        _addManagedObjects(values, toRelationship: "moods")
                    }
                    public func removeFromMoods(_ values: NSSet) {
                        _removeManagedObjects(values, fromRelationship: "moods")
                    }
                }
                """
        )
    }

    @Test("Xcode's accessors for an ordered to-many relationship")
    func orderedToMany() {
        assertExpansion(
            """
            extension Order {
                @ManagedRelationshipAccessor public func insertIntoItems(_ value: Item, at idx: Int)
                @ManagedRelationshipAccessor public func removeFromItems(at idx: Int)
                @ManagedRelationshipAccessor public func insertIntoItems(_ values: [Item], at indexes: NSIndexSet)
                @ManagedRelationshipAccessor public func removeFromItems(at indexes: NSIndexSet)
                @ManagedRelationshipAccessor public func replaceItems(at idx: Int, with value: Item)
                @ManagedRelationshipAccessor public func replaceItems(at indexes: NSIndexSet, with values: [Item])
                @ManagedRelationshipAccessor public func addToItems(_ value: Item)
                @ManagedRelationshipAccessor public func removeFromItems(_ value: Item)
                @ManagedRelationshipAccessor public func addToItems(_ values: NSOrderedSet)
                @ManagedRelationshipAccessor public func removeFromItems(_ values: NSOrderedSet)
            }
            """,
            expandedSource: """
                extension Order {
                    public func insertIntoItems(_ value: Item, at idx: Int) {
                        _insertManagedObject(value, at: idx, intoRelationship: "items")
                    }
                    public func removeFromItems(at idx: Int) {
                        _removeManagedObject(at: idx, fromRelationship: "items")
                    }
                    public func insertIntoItems(_ values: [Item], at indexes: NSIndexSet) {
                        _insertManagedObjects(values, at: indexes, intoRelationship: "items")
                    }
                    public func removeFromItems(at indexes: NSIndexSet) {
                        _removeManagedObjects(at: indexes, fromRelationship: "items")
                    }
                    public func replaceItems(at idx: Int, with value: Item) {
                        _replaceManagedObject(at: idx, with: value, inRelationship: "items")
                    }
                    public func replaceItems(at indexes: NSIndexSet, with values: [Item]) {
                        _replaceManagedObjects(at: indexes, with: values, inRelationship: "items")
                    }
                    public func addToItems(_ value: Item) {
                        _addManagedObject(value, toRelationship: "items")
                    }
                    public func removeFromItems(_ value: Item) {
                        _removeManagedObject(value, fromRelationship: "items")
                    }
                    public func addToItems(_ values: NSOrderedSet) {
                        _addManagedObjects(values, toRelationship: "items")
                    }
                    public func removeFromItems(_ values: NSOrderedSet) {
                        _removeManagedObjects(values, fromRelationship: "items")
                    }
                }
                """
        )
    }

    @Test("Swift collections and IndexSet are accepted, also module-qualified")
    func swiftCollections() {
        assertExpansion(
            """
            class Country: NSManagedObject {
                @ManagedRelationshipAccessor func addToMoods(_ values: Set<Mood>)
                @ManagedRelationshipAccessor func removeFromMoods(_ values: [Mood])
                @ManagedRelationshipAccessor func addToTags(_ values: Swift.Array<Tag>)
                @ManagedRelationshipAccessor func removeFromTags(_ values: Foundation.NSSet)
                @ManagedRelationshipAccessor func removeFromItems(at indexes: IndexSet)
                @ManagedRelationshipAccessor func insertIntoItems(_ values: Array<Item>, at indexes: Foundation.IndexSet)
                @ManagedRelationshipAccessor func replaceItems(at indexes: IndexSet, with values: [Item])
                @ManagedRelationshipAccessor func removeFromItems(at idx: Swift.Int)
            }
            """,
            expandedSource: """
                class Country: NSManagedObject {
                    func addToMoods(_ values: Set<Mood>) {
                        _addManagedObjects(values, toRelationship: "moods")
                    }
                    func removeFromMoods(_ values: [Mood]) {
                        _removeManagedObjects(values, fromRelationship: "moods")
                    }
                    func addToTags(_ values: Swift.Array<Tag>) {
                        _addManagedObjects(values, toRelationship: "tags")
                    }
                    func removeFromTags(_ values: Foundation.NSSet) {
                        _removeManagedObjects(values, fromRelationship: "tags")
                    }
                    func removeFromItems(at indexes: IndexSet) {
                        _removeManagedObjects(at: indexes, fromRelationship: "items")
                    }
                    func insertIntoItems(_ values: Array<Item>, at indexes: Foundation.IndexSet) {
                        _insertManagedObjects(values, at: indexes, intoRelationship: "items")
                    }
                    func replaceItems(at indexes: IndexSet, with values: [Item]) {
                        _replaceManagedObjects(at: indexes, with: values, inRelationship: "items")
                    }
                    func removeFromItems(at idx: Swift.Int) {
                        _removeManagedObject(at: idx, fromRelationship: "items")
                    }
                }
                """
        )
    }

    @Test("the body forwards the method's own parameter names")
    func parameterNames() {
        assertExpansion(
            """
            class Order: NSManagedObject {
                @ManagedRelationshipAccessor func insertIntoItems(_ item: Item, at position: Int)
                @ManagedRelationshipAccessor func replaceItems(at: Int, with replacement: Item)
                @ManagedRelationshipAccessor func addToItems(_ `default`: Item)
            }
            """,
            expandedSource: """
                class Order: NSManagedObject {
                    func insertIntoItems(_ item: Item, at position: Int) {
                        _insertManagedObject(item, at: position, intoRelationship: "items")
                    }
                    func replaceItems(at: Int, with replacement: Item) {
                        _replaceManagedObject(at: at, with: replacement, inRelationship: "items")
                    }
                    func addToItems(_ `default`: Item) {
                        _addManagedObject(`default`, toRelationship: "items")
                    }
                }
                """
        )
    }

    @Test("the relationship name is the rest of the method name with its first character lower-cased")
    func multiWordKey() {
        assertExpansion(
            """
            class Order: NSManagedObject {
                @ManagedRelationshipAccessor func addToLineItems(_ value: LineItem)
                @ManagedRelationshipAccessor func replaceURLs(at idx: Int, with value: Link)
            }
            """,
            expandedSource: """
                class Order: NSManagedObject {
                    func addToLineItems(_ value: LineItem) {
                        _addManagedObject(value, toRelationship: "lineItems")
                    }
                    func replaceURLs(at idx: Int, with value: Link) {
                        _replaceManagedObject(at: idx, with: value, inRelationship: "uRLs")
                    }
                }
                """
        )
    }

    @Test("an explicit key names the relationship")
    func explicitKey() {
        assertExpansion(
            """
            class Order: NSManagedObject {
                @ManagedRelationshipAccessor("line_items") func addToLineItems(_ value: LineItem)
            }
            """,
            expandedSource: """
                class Order: NSManagedObject {
                    func addToLineItems(_ value: LineItem) {
                        _addManagedObject(value, toRelationship: "line_items")
                    }
                }
                """
        )
    }

    @Test("a Void result, effects and other attributes are allowed")
    func voidResultAndEffects() {
        assertExpansion(
            """
            class Country: NSManagedObject {
                @ManagedRelationshipAccessor func addToMoods(_ value: Mood) -> Void
                @ManagedRelationshipAccessor func removeFromMoods(_ value: Mood) -> ()
                @available(*, deprecated) @ManagedRelationshipAccessor final func addToTags(_ value: Tag) throws
            }
            """,
            expandedSource: """
                class Country: NSManagedObject {
                    func addToMoods(_ value: Mood) -> Void {
                        _addManagedObject(value, toRelationship: "moods")
                    }
                    func removeFromMoods(_ value: Mood) -> () {
                        _removeManagedObject(value, fromRelationship: "moods")
                    }
                    @available(*, deprecated) final func addToTags(_ value: Tag) throws {
                        _addManagedObject(value, toRelationship: "tags")
                    }
                }
                """
        )
    }
}
