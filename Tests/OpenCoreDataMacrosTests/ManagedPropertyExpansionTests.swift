import Testing

/// How `@Managed` expands valid properties: ordinary, primitive and explicitly keyed.
@Suite("@Managed property expansion")
struct ManagedPropertyExpansionTests {
    @Test("a stored-looking property becomes a getter and a setter through the context")
    func attribute() {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed var date: Date
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    var date: Date {
                        get {
                            _managedValue(forKey: "date")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "date")
                        }
                    }
                }
                """
        )
    }

    @Test(
        "every attribute and relationship type expands the same way",
        arguments: [
            "Date", "Double?", "Int16", "String?", "Country?", "Set<Mood>", "NSSet", "NSOrderedSet",
            "[Color]?", "Date!", "[String: Int]", "Data", "UUID?", "URL", "Decimal", "Bool",
        ]
    )
    func anyType(type: String) {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed var value: \(type)
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    var value: \(type) {
                        get {
                            _managedValue(forKey: "value")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "value")
                        }
                    }
                }
                """
        )
    }

    @Test("access modifiers, override and other attributes stay as written")
    func modifiersAreKept() {
        assertExpansion(
            """
            final class Mood: NSManagedObject {
                @Managed public var rating: Int16
                @Managed private(set) var colors: [Color]?
                @available(*, deprecated) @Managed public internal(set) var note: String?
                @Managed override var name: String
            }
            """,
            expandedSource: """
                final class Mood: NSManagedObject {
                    public var rating: Int16 {
                        get {
                            _managedValue(forKey: "rating")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "rating")
                        }
                    }
                    private(set) var colors: [Color]? {
                        get {
                            _managedValue(forKey: "colors")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "colors")
                        }
                    }
                    @available(*, deprecated) public internal(set) var note: String? {
                        get {
                            _managedValue(forKey: "note")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "note")
                        }
                    }
                    override var name: String {
                        get {
                            _managedValue(forKey: "name")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "name")
                        }
                    }
                }
                """
        )
    }

    @Test("properties in an extension, as in Xcode's +CoreDataProperties files")
    func inExtension() {
        assertExpansion(
            """
            extension Country {
                @Managed public var moods: Set<Mood>?
            }
            """,
            expandedSource: """
                extension Country {
                    public var moods: Set<Mood>? {
                        get {
                            _managedValue(forKey: "moods")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "moods")
                        }
                    }
                }
                """
        )
    }

    @Test("a class nested in a function is a class")
    func localClass() {
        assertExpansion(
            """
            func makeModel() {
                final class Tag: NSManagedObject {
                    @Managed var title: String
                }
            }
            """,
            expandedSource: """
                func makeModel() {
                    final class Tag: NSManagedObject {
                        var title: String {
                            get {
                                _managedValue(forKey: "title")
                            }
                            set {
                                _setManagedValue(newValue, forKey: "title")
                            }
                        }
                    }
                }
                """
        )
    }

    @Test("a backticked name accesses the key without backticks")
    func backtickedName() {
        assertExpansion(
            """
            class Setting: NSManagedObject {
                @Managed var `default`: Bool
            }
            """,
            expandedSource: """
                class Setting: NSManagedObject {
                    var `default`: Bool {
                        get {
                            _managedValue(forKey: "default")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "default")
                        }
                    }
                }
                """
        )
    }

    @Test("primitive<Key> accesses the primitive value of the key with its first character lower-cased")
    func primitiveAccessors() {
        assertExpansion(
            """
            extension Mood {
                @Managed var primitiveDate: Date
                @Managed private var primitiveURLString: String?
                @Managed var primitiveLineItems: NSOrderedSet
            }
            """,
            expandedSource: """
                extension Mood {
                    var primitiveDate: Date {
                        get {
                            _managedPrimitiveValue(forKey: "date")
                        }
                        set {
                            _setManagedPrimitiveValue(newValue, forKey: "date")
                        }
                    }
                    private var primitiveURLString: String? {
                        get {
                            _managedPrimitiveValue(forKey: "uRLString")
                        }
                        set {
                            _setManagedPrimitiveValue(newValue, forKey: "uRLString")
                        }
                    }
                    var primitiveLineItems: NSOrderedSet {
                        get {
                            _managedPrimitiveValue(forKey: "lineItems")
                        }
                        set {
                            _setManagedPrimitiveValue(newValue, forKey: "lineItems")
                        }
                    }
                }
                """
        )
    }

    @Test("a name that merely starts with 'primitive' is an ordinary property")
    func notPrimitive() {
        assertExpansion(
            """
            class Paint: NSManagedObject {
                @Managed var primitiveness: Double
                @Managed var primitive_id: Int64
            }
            """,
            expandedSource: """
                class Paint: NSManagedObject {
                    var primitiveness: Double {
                        get {
                            _managedValue(forKey: "primitiveness")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "primitiveness")
                        }
                    }
                    var primitive_id: Int64 {
                        get {
                            _managedValue(forKey: "primitive_id")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "primitive_id")
                        }
                    }
                }
                """
        )
    }

    @Test("an explicit key replaces the property name, and is re-escaped as a literal")
    func explicitKey() {
        assertExpansion(
            #"""
            class Mood: NSManagedObject {
                @Managed("remote_id") var remoteID: String?
                @Managed(#"display "name""#) var displayName: String
            }
            """#,
            expandedSource: ##"""
                class Mood: NSManagedObject {
                    var remoteID: String? {
                        get {
                            _managedValue(forKey: "remote_id")
                        }
                        set {
                            _setManagedValue(newValue, forKey: "remote_id")
                        }
                    }
                    var displayName: String {
                        get {
                            _managedValue(forKey: #"display "name""#)
                        }
                        set {
                            _setManagedValue(newValue, forKey: #"display "name""#)
                        }
                    }
                }
                """##
        )
    }

    @Test("an explicit key on a primitive accessor names the key whose primitive value is accessed")
    func explicitKeyOnPrimitive() {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed("remote_id") var primitiveRemoteID: String?
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    var primitiveRemoteID: String? {
                        get {
                            _managedPrimitiveValue(forKey: "remote_id")
                        }
                        set {
                            _setManagedPrimitiveValue(newValue, forKey: "remote_id")
                        }
                    }
                }
                """
        )
    }
}
