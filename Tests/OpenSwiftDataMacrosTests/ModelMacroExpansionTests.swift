import OpenSwiftDataMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import Testing

/// How `@Model` expands a valid class: which properties it persists, the members it adds and the conformances.
///
/// The expansion harness differs from the compiler in layout only (it breaks `get { … }` over lines) and in one
/// visible point: when a property gets `get`/`set`, it drops the property's initial value, which the compiler keeps
/// and passes to the init accessor.
@Suite("@Model expansion")
struct ModelMacroExpansionTests {
    @Test("a typical model: persisted, marked, transient, computed, type and backquoted properties, fully expanded")
    func typicalModel() {
        assertExpansion(
            """
            @Model
            final class Trip {
                var name: String
                @Attribute(.unique, originalName: "c") var code: String = ""
                @Relationship(deleteRule: .cascade, inverse: \\Stop.trip)
                var stops: [Stop] = []
                var count = 0
                @Transient var isExpanded = false
                var title: String { name.uppercased() }
                static var sample: Trip? = nil
                var `default`: Int

                init(name: String) {
                    self.name = name
                    self.default = 1
                }
            }
            """,
            expandedSource: #"""
                final class Trip {
                    var name: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _name)
                        init(initialValue) {
                            _$backingData.setValue(forKey: \.name, to: initialValue)
                            _name = OpenSwiftData._SwiftDataNoType()
                        }
                        get {
                            _$observationRegistrar.access(self, keyPath: \.name)
                            return self.getValue(forKey: \.name)
                        }
                        set {
                            _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
                                self.setValue(forKey: \.name, to: newValue)
                            }
                        }
                    }

                    @OpenSwiftData.Transient private var _name: OpenSwiftData._SwiftDataNoType
                    var code: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _code)
                        init(initialValue) {
                            _$backingData.setValue(forKey: \.code, to: initialValue)
                            _code = OpenSwiftData._SwiftDataNoType()
                        }
                        get {
                            _$observationRegistrar.access(self, keyPath: \.code)
                            return self.getValue(forKey: \.code)
                        }
                        set {
                            _$observationRegistrar.withMutation(of: self, keyPath: \.code) {
                                self.setValue(forKey: \.code, to: newValue)
                            }
                        }
                    }

                    @OpenSwiftData.Transient private var _code: OpenSwiftData._SwiftDataNoType
                    var stops: [Stop] {
                        @storageRestrictions(accesses: _$backingData, initializes: _stops)
                        init(initialValue) {
                            _$backingData.setValue(forKey: \.stops, to: initialValue)
                            _stops = OpenSwiftData._SwiftDataNoType()
                        }
                        get {
                            _$observationRegistrar.access(self, keyPath: \.stops)
                            return self.getValue(forKey: \.stops)
                        }
                        set {
                            _$observationRegistrar.withMutation(of: self, keyPath: \.stops) {
                                self.setValue(forKey: \.stops, to: newValue)
                            }
                        }
                    }

                    @OpenSwiftData.Transient private var _stops: OpenSwiftData._SwiftDataNoType
                    var count {
                        @storageRestrictions(accesses: _$backingData, initializes: _count)
                        init(initialValue) {
                            _$backingData.setValue(forKey: \.count, to: initialValue)
                            _count = OpenSwiftData._SwiftDataNoType()
                        }
                        get {
                            _$observationRegistrar.access(self, keyPath: \.count)
                            return self.getValue(forKey: \.count)
                        }
                        set {
                            _$observationRegistrar.withMutation(of: self, keyPath: \.count) {
                                self.setValue(forKey: \.count, to: newValue)
                            }
                        }
                    }

                    @OpenSwiftData.Transient private var _count: OpenSwiftData._SwiftDataNoType
                    var isExpanded = false
                    var title: String { name.uppercased() }
                    static var sample: Trip? = nil
                    var `default`: Int {
                        @storageRestrictions(accesses: _$backingData, initializes: _default)
                        init(initialValue) {
                            _$backingData.setValue(forKey: \.`default`, to: initialValue)
                            _default = OpenSwiftData._SwiftDataNoType()
                        }
                        get {
                            _$observationRegistrar.access(self, keyPath: \.`default`)
                            return self.getValue(forKey: \.`default`)
                        }
                        set {
                            _$observationRegistrar.withMutation(of: self, keyPath: \.`default`) {
                                self.setValue(forKey: \.`default`, to: newValue)
                            }
                        }
                    }

                    @OpenSwiftData.Transient private var _default: OpenSwiftData._SwiftDataNoType

                    init(name: String) {
                        self.name = name
                        self.default = 1
                    }

                    @OpenSwiftData.Transient
                    private var _$backingData: any OpenSwiftData.BackingData<Trip> = Trip.createBackingData()

                    public var persistentBackingData: any OpenSwiftData.BackingData<Trip> {
                        get {
                            _$backingData
                        }
                        set {
                            _$backingData = newValue
                        }
                    }

                    public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                        [
                            OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil),
                            OpenSwiftData.Schema.PropertyMetadata(name: "code", keypath: \Trip.code, defaultValue: "" as String, metadata: OpenSwiftData.Schema.Attribute(.unique, originalName: "c")),
                            OpenSwiftData.Schema.PropertyMetadata(name: "stops", keypath: \Trip.stops, defaultValue: [] as [Stop], metadata: OpenSwiftData.Schema.Relationship(deleteRule: .cascade, inverse: \Stop.trip)),
                            OpenSwiftData.Schema.PropertyMetadata(name: "count", keypath: \Trip.count, defaultValue: 0, metadata: nil),
                            OpenSwiftData.Schema.PropertyMetadata(name: "default", keypath: \Trip.`default`, defaultValue: nil, metadata: nil)
                        ]
                    }

                    public required init(backingData: any OpenSwiftData.BackingData<Trip>) {
                        _name = OpenSwiftData._SwiftDataNoType()
                        _code = OpenSwiftData._SwiftDataNoType()
                        _stops = OpenSwiftData._SwiftDataNoType()
                        _count = OpenSwiftData._SwiftDataNoType()
                        _default = OpenSwiftData._SwiftDataNoType()
                        self.persistentBackingData = backingData
                    }

                    @OpenSwiftData.Transient
                    private let _$observationRegistrar = Observation.ObservationRegistrar()
                }

                extension Trip: OpenSwiftData.PersistentModel, Observation.Observable {
                }
                """#
        )
    }

    @Test("@Model alone: '@_PersistedProperty' goes on each persisted property and on nothing else")
    func persistedPropertyAttributes() {
        assertExpansion(
            """
            @Model
            final class Trip {
                var name: String
                @Attribute(.unique) var code: String = ""
                public private(set) var count = 0
                @Transient var isExpanded = false
                @SwiftData.Transient var scratch: [Int] = []
                @OpenSwiftData.Transient var cache: [String: Int] = [:]
                var title: String { name }
                var total: Int { get { count } set { count = newValue } }
                static var shared: Trip?
                class var kind: String { "trip" }
                static let version = 1
                lazy var formatter = Formatter()
                private var _$secret = 0
                func rename(to name: String) { self.name = name }
            }
            """,
            expandedSource: #"""
                final class Trip {
                    @_PersistedProperty
                    var name: String
                    @Attribute(.unique)
                    @_PersistedProperty var code: String = ""
                    @_PersistedProperty
                    public private(set) var count = 0
                    @Transient var isExpanded = false
                    @SwiftData.Transient var scratch: [Int] = []
                    @OpenSwiftData.Transient var cache: [String: Int] = [:]
                    var title: String { name }
                    var total: Int { get { count } set { count = newValue } }
                    static var shared: Trip?
                    class var kind: String { "trip" }
                    static let version = 1
                    lazy var formatter = Formatter()
                    private var _$secret = 0
                    func rename(to name: String) { self.name = name }
                """#
                + modelMembers(
                    of: "Trip",
                    metadata: [
                        #"OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)"#,
                        #"OpenSwiftData.Schema.PropertyMetadata(name: "code", keypath: \Trip.code, defaultValue: "" as String, metadata: OpenSwiftData.Schema.Attribute(.unique))"#,
                        #"OpenSwiftData.Schema.PropertyMetadata(name: "count", keypath: \Trip.count, defaultValue: 0, metadata: nil)"#,
                    ],
                    placeholders: ["_name", "_code", "_count"]
                )
                + modelConformances(of: "Trip"),
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test("a class without persisted properties gets an empty schema and an initializer that only adopts the data")
    func noPersistedProperties() {
        assertExpansion(
            """
            @Model
            final class Marker {
            }
            """,
            expandedSource: """
                final class Marker {

                    @OpenSwiftData.Transient
                    private var _$backingData: any OpenSwiftData.BackingData<Marker> = Marker.createBackingData()

                    public var persistentBackingData: any OpenSwiftData.BackingData<Marker> {
                        get {
                            _$backingData
                        }
                        set {
                            _$backingData = newValue
                        }
                    }

                    public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                        []
                    }

                    public required init(backingData: any OpenSwiftData.BackingData<Marker>) {
                        self.persistentBackingData = backingData
                    }

                    @OpenSwiftData.Transient
                    private let _$observationRegistrar = Observation.ObservationRegistrar()
                }

                extension Marker: OpenSwiftData.PersistentModel, Observation.Observable {
                }
                """
        )
    }

    @Test(
        "the default value is the initial value, coerced to the annotated type (parenthesized unless a literal or postfix expression)",
        arguments: [
            ("var value: String", "nil"),
            ("var value = 0", "0"),
            (#"var value = "x""#, #""x""#),
            ("var value = Date.now", "Date.now"),
            ("var value = flag ? 1 : 2", "flag ? 1 : 2"),
            (#"var value: String = """#, #""" as String"#),
            ("var value: [Stop] = []", "[] as [Stop]"),
            ("var value: [String: Int] = [:]", "[:] as [String: Int]"),
            ("var value: Double = 1.5", "1.5 as Double"),
            ("var value: Bool = true", "true as Bool"),
            ("var value: Int? = nil", "nil as Int?"),
            ("var value: String! = nil", "nil as String?"),
            ("var value: Int = -1", "-1 as Int"),
            ("var value: Date = .now", ".now as Date"),
            ("var value: Date = Date()", "Date() as Date"),
            ("var value: Int = limits[0]", "limits[0] as Int"),
            ("var value: Int = Trip.limit", "Trip.limit as Int"),
            ("var value: Int = a + b", "(a + b) as Int"),
            ("var value: Int = flag ? 1 : 2", "(flag ? 1 : 2) as Int"),
            ("var value: Int = x as Int", "(x as Int) as Int"),
        ]
    )
    func defaultValue(declaration: String, expected: String) {
        assertExpansion(
            """
            @Model
            final class Item {
                \(declaration)
            }
            """,
            expandedSource: """
                final class Item {
                    @_PersistedProperty
                    \(declaration)
                """
                + modelMembers(
                    of: "Item",
                    metadata: [
                        #"OpenSwiftData.Schema.PropertyMetadata(name: "value", keypath: \Item.value, defaultValue: "#
                            + expected + ", metadata: nil)"
                    ],
                    placeholders: ["_value"]
                )
                + modelConformances(of: "Item"),
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    /// `if` and `switch` expressions may not be parenthesized, so they become the result of a closure called in
    /// place. (The expansion's formatter lays closures out over lines, in the compiler as here.)
    @Test(
        "a closure is parenthesized; an 'if' or 'switch' expression becomes the result of a closure called in place",
        arguments: [
            (
                "var value: () -> Int = { 1 }",
                #"""
                OpenSwiftData.Schema.PropertyMetadata(name: "value", keypath: \Item.value, defaultValue: ({
                                        1
                                    }) as () -> Int, metadata: nil)
                """#
            ),
            (
                "var value: Int = if flag { 1 } else { 2 }",
                #"""
                OpenSwiftData.Schema.PropertyMetadata(name: "value", keypath: \Item.value, defaultValue: { () -> Int in
                                    if flag {
                                        1
                                    } else {
                                        2
                                    }
                                }(), metadata: nil)
                """#
            ),
            (
                "var value = switch kind { case .a: 1; default: 2 }",
                #"""
                OpenSwiftData.Schema.PropertyMetadata(name: "value", keypath: \Item.value, defaultValue: {
                                    switch kind {
                                    case .a:
                                        1;
                                    default:
                                        2
                                    }
                                }(), metadata: nil)
                """#
            ),
        ]
    )
    func defaultValueNeedingAClosure(declaration: String, expectedEntry: String) {
        assertExpansion(
            """
            @Model
            final class Item {
                \(declaration)
            }
            """,
            expandedSource: """
                final class Item {
                    @_PersistedProperty
                    \(declaration)
                """
                + modelMembers(of: "Item", metadata: [expectedEntry], placeholders: ["_value"])
                + modelConformances(of: "Item"),
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test(
        "@Attribute and @Relationship, bare, empty or module-qualified, become the metadata with the same arguments",
        arguments: [
            ("@Attribute", "OpenSwiftData.Schema.Attribute()"),
            ("@Attribute()", "OpenSwiftData.Schema.Attribute()"),
            ("@Attribute(.externalStorage)", "OpenSwiftData.Schema.Attribute(.externalStorage)"),
            (
                #"@OpenSwiftData.Attribute(.unique, .spotlight, originalName: "old_value", hashModifier: "v2")"#,
                #"OpenSwiftData.Schema.Attribute(.unique, .spotlight, originalName: "old_value", hashModifier: "v2")"#
            ),
            ("@SwiftData.Attribute(.preserveValueOnDeletion)", "OpenSwiftData.Schema.Attribute(.preserveValueOnDeletion)"),
            ("@Relationship", "OpenSwiftData.Schema.Relationship()"),
            ("@Relationship()", "OpenSwiftData.Schema.Relationship()"),
            (
                #"@Relationship(.unique, deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 3, originalName: "o", inverse: \Stop.trip, hashModifier: nil)"#,
                #"OpenSwiftData.Schema.Relationship(.unique, deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 3, originalName: "o", inverse: \Stop.trip, hashModifier: nil)"#
            ),
            ("@OpenSwiftData.Relationship(deleteRule: .nullify)", "OpenSwiftData.Schema.Relationship(deleteRule: .nullify)"),
            ("@SwiftData.Relationship(inverse: \\Stop.trip)", "OpenSwiftData.Schema.Relationship(inverse: \\Stop.trip)"),
            ("@Other.Attribute(.unique)", "nil"),
            ("@available(*, deprecated)", "nil"),
        ]
    )
    func markerMetadata(marker: String, expected: String) {
        assertExpansion(
            """
            @Model
            final class Item {
                \(marker)
                var value: Stop?
            }
            """,
            expandedSource: """
                final class Item {
                    \(marker)
                    @_PersistedProperty
                    var value: Stop?
                """
                + modelMembers(
                    of: "Item",
                    metadata: [
                        #"OpenSwiftData.Schema.PropertyMetadata(name: "value", keypath: \Item.value, defaultValue: nil, metadata: "#
                            + expected + ")"
                    ],
                    placeholders: ["_value"]
                )
                + modelConformances(of: "Item"),
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test("a member the class declares itself (init(backingData:), schemaMetadata, persistentBackingData) is not added")
    func declaredMembersAreKept() {
        assertExpansion(
            #"""
            @Model
            final class Note {
                var text: String
                static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] { [] }
                var persistentBackingData: any OpenSwiftData.BackingData<Note> {
                    get { _$backingData }
                    set { _$backingData = newValue }
                }
                required init(backingData: any OpenSwiftData.BackingData<Note>) {
                    _text = OpenSwiftData._SwiftDataNoType()
                    self.persistentBackingData = backingData
                }
            }
            """#,
            expandedSource: #"""
                final class Note {
                    @_PersistedProperty
                    var text: String
                    static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] { [] }
                    var persistentBackingData: any OpenSwiftData.BackingData<Note> {
                        get { _$backingData }
                        set { _$backingData = newValue }
                    }
                    required init(backingData: any OpenSwiftData.BackingData<Note>) {
                        _text = OpenSwiftData._SwiftDataNoType()
                        self.persistentBackingData = backingData
                    }

                    @OpenSwiftData.Transient
                    private var _$backingData: any OpenSwiftData.BackingData<Note> = Note.createBackingData()

                    @OpenSwiftData.Transient
                    private let _$observationRegistrar = Observation.ObservationRegistrar()
                }

                extension Note: OpenSwiftData.PersistentModel, Observation.Observable {
                }
                """#,
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test("an initializer with another label or more parameters does not count as init(backingData:)")
    func otherInitializersDoNotCount() {
        assertExpansion(
            """
            @Model
            final class Note {
                init(data: Int) {}
                init(backingData: Int, extra: Int) {}
            }
            """,
            expandedSource: """
                final class Note {
                    init(data: Int) {}
                    init(backingData: Int, extra: Int) {}
                """
                + modelMembers(of: "Note", metadata: [], placeholders: [])
                + modelConformances(of: "Note"),
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test(
        "the extension declares exactly the conformances the compiler passes, module-qualified; none when it passes none",
        arguments: [
            ([], ""),
            (["PersistentModel"], "\n\nextension Log: OpenSwiftData.PersistentModel {\n}"),
            (["Observable"], "\n\nextension Log: Observation.Observable {\n}"),
            (
                ["OpenSwiftData.PersistentModel", "Observation.Observable"],
                "\n\nextension Log: OpenSwiftData.PersistentModel, Observation.Observable {\n}"
            ),
        ] as [([String], String)]
    )
    func conformanceExtension(conformances: [String], expectedExtension: String) {
        assertExpansion(
            """
            @Model
            final class Log {
            }
            """,
            expandedSource: """
                final class Log {

                    @OpenSwiftData.Transient
                    private var _$backingData: any OpenSwiftData.BackingData<Log> = Log.createBackingData()

                    public var persistentBackingData: any OpenSwiftData.BackingData<Log> {
                        get {
                            _$backingData
                        }
                        set {
                            _$backingData = newValue
                        }
                    }

                    public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                        []
                    }

                    public required init(backingData: any OpenSwiftData.BackingData<Log>) {
                        self.persistentBackingData = backingData
                    }

                    @OpenSwiftData.Transient
                    private let _$observationRegistrar = Observation.ObservationRegistrar()
                }
                """ + expectedExtension,
            macros: swiftDataMacros(
                replacing: "Model",
                with: MacroSpec(type: ModelMacro.self, conformances: conformances.map { TypeSyntax(stringLiteral: $0) })
            )
        )
    }

    @Test("#Unique and #Index inside a model expand next to @Model's members")
    func uniqueAndIndexInModel() {
        assertExpansion(
            """
            @Model
            final class Trip {
                #Unique<Trip>([\\.name])
                #Index<Trip>([\\.name])
                var name: String
            }
            """,
            expandedSource: #"""
                final class Trip {
                    public static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        [[\Trip.name]]
                    }
                    public static var _$indices: [[AnyKeyPath]] {
                        [[\Trip.name]]
                    }
                    @_PersistedProperty
                    var name: String
                """#
                + modelMembers(
                    of: "Trip",
                    metadata: [#"OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)"#],
                    placeholders: ["_name"]
                )
                + modelConformances(of: "Trip"),
            macros: swiftDataMacros(only: ["Model", "Unique", "Index"])
        )
    }
}
