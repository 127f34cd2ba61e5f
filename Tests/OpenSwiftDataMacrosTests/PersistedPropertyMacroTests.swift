import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// How `@_PersistedProperty` (what `@Model` attaches to each persisted property) expands, and where it refuses to.
@Suite("@_PersistedProperty expansion")
struct PersistedPropertyMacroTests {
    @Test("a property becomes an init accessor, a getter and a setter over the backing data, plus its placeholder")
    func property() {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty
                var name: String
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
                }
                """#
        )
    }

    @Test("a backquoted name keeps its backquotes in key paths and loses them in the placeholder's name")
    func backquotedName() {
        assertExpansion(
            """
            final class Setting {
                @_PersistedProperty
                var `default`: Bool
            }
            """,
            expandedSource: #"""
                final class Setting {
                    var `default`: Bool {
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
                }
                """#
        )
    }

    /// The compiler keeps the initial value and hands it to the init accessor; the harness drops it once a
    /// property has a getter, which is why `= 0` is missing below.
    @Test("modifiers stay; a property with an initial value and no type expands the same way")
    func initialValueAndModifiers() {
        assertExpansion(
            """
            final class Counter {
                @_PersistedProperty
                public private(set) var count = 0
            }
            """,
            expandedSource: #"""
                final class Counter {
                    public private(set) var count {
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
                }
                """#
        )
    }

    @Test(
        "a 'let' or a property with observers is reported once and not expanded",
        arguments: [
            "let name: String",
            "var name: String { didSet { } }",
        ]
    )
    func misplaced(declaration: String) {
        assertExpansion(
            """
            final class Trip {
                @_PersistedProperty \(declaration)
            }
            """,
            expandedSource: """
                final class Trip {
                    \(declaration)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@_PersistedProperty' applies to a single stored 'var' without accessors; '@Model' adds it for you",
                    line: 2,
                    column: 5
                )
            ]
        )
    }
}
