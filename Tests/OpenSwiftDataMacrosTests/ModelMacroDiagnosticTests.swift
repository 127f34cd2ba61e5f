import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The errors `@Model` reports, where it reports them, and what it still expands.
///
/// On a declaration it cannot make a model (not a class, a generic class) it adds nothing at all; a rejected
/// property is left out of the schema while the rest of the class is expanded, so that the only errors are the
/// macro's.
@Suite("@Model diagnostics")
struct ModelMacroDiagnosticTests {
    @Test(
        "a struct, enum, actor or protocol is rejected and nothing is added",
        arguments: [
            ("struct Trip", "var name: String"),
            ("enum Trip", "case a"),
            ("actor Trip", "var name: String"),
            ("protocol Trip", "var name: String { get }"),
        ]
    )
    func notAClass(header: String, member: String) {
        assertExpansion(
            """
            @Model
            \(header) {
                \(member)
            }
            """,
            expandedSource: """
                \(header) {
                    \(member)
                }
                """,
            diagnostics: [DiagnosticSpec(message: "'@Model' can only be applied to a class", line: 1, column: 1)]
        )
    }

    @Test("a generic class is rejected and nothing is added")
    func genericClass() {
        assertExpansion(
            """
            @Model
            final class Box<Value> {
                var value: Int
            }
            """,
            expandedSource: """
                final class Box<Value> {
                    var value: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' does not support generic classes; remove the generic parameters of 'Box'",
                    line: 2,
                    column: 16
                )
            ]
        )
    }

    @Test("a stored 'let' is rejected, with a fix-it to 'var', and left out of the schema")
    func letProperty() {
        assertExpansion(
            """
            @Model
            final class Trip {
                let id: UUID
                var name: String
            }
            """,
            expandedSource: """
                final class Trip {
                    let id: UUID
                    @_PersistedProperty
                    var name: String
                """
                + modelMembers(
                    of: "Trip",
                    metadata: [#"OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)"#],
                    placeholders: ["_name"]
                )
                + modelConformances(of: "Trip"),
            diagnostics: [
                DiagnosticSpec(
                    message: "'let' properties of a @Model class are not persisted; use 'var'",
                    line: 3,
                    column: 5,
                    fixIts: [FixItSpec(message: "replace 'let' with 'var'")]
                )
            ],
            macros: swiftDataMacros(only: ["Model"]),
            fixedSource: """
                @Model
                final class Trip {
                    var id: UUID
                    var name: String
                }
                """
        )
    }

    @Test("a 'let' that is a type property, @Transient or the macros' own storage is accepted and not persisted")
    func acceptedLets() {
        assertExpansion(
            """
            @Model
            final class Trip {
                static let version = 1
                @Transient let session = Session()
                private let _$extra = 0
            }
            """,
            expandedSource: """
                final class Trip {
                    static let version = 1
                    @Transient let session = Session()
                    private let _$extra = 0
                """
                + modelMembers(of: "Trip", metadata: [], placeholders: [])
                + modelConformances(of: "Trip"),
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test(
        "a stored property with observers is rejected and left out of the schema",
        arguments: ["{ didSet { print(name) } }", "{ willSet { } }", "{ willSet { } didSet { } }"]
    )
    func observers(observers: String) {
        assertExpansion(
            """
            @Model
            final class Trip {
                var name: String \(observers)
            }
            """,
            expandedSource: """
                final class Trip {
                    var name: String \(observers)
                """
                + modelMembers(of: "Trip", metadata: [], placeholders: [])
                + modelConformances(of: "Trip"),
            diagnostics: [
                DiagnosticSpec(
                    message: "a persisted property cannot have observers; mark it @Transient",
                    line: 3,
                    column: 22
                )
            ],
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test("several properties in one declaration are rejected")
    func multipleBindings() {
        assertExpansion(
            """
            @Model
            final class Trip {
                var start, end: Date
            }
            """,
            expandedSource: """
                final class Trip {
                    var start, end: Date
                """
                + modelMembers(of: "Trip", metadata: [], placeholders: [])
                + modelConformances(of: "Trip"),
            diagnostics: [
                DiagnosticSpec(
                    message: "a @Model class needs one persisted property per declaration; declare each property with its own 'var'",
                    line: 3,
                    column: 9
                )
            ],
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test("a tuple pattern is rejected")
    func tuplePattern() {
        assertExpansion(
            """
            @Model
            final class Trip {
                var (start, end) = (0, 1)
            }
            """,
            expandedSource: """
                final class Trip {
                    var (start, end) = (0, 1)
                """
                + modelMembers(of: "Trip", metadata: [], placeholders: [])
                + modelConformances(of: "Trip"),
            diagnostics: [
                DiagnosticSpec(
                    message: "a persisted property needs a simple name, not a tuple pattern; declare each property with its own 'var'",
                    line: 3,
                    column: 9
                )
            ],
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test(
        "a weak or unowned property is rejected",
        arguments: [
            ("weak var owner: Owner?", "weak"),
            ("unowned var owner: Owner", "unowned"),
            ("unowned(unsafe) var owner: Owner", "unowned(unsafe)"),
        ]
    )
    func referenceOwnership(declaration: String, modifier: String) {
        assertExpansion(
            """
            @Model
            final class Trip {
                \(declaration)
            }
            """,
            expandedSource: """
                final class Trip {
                    \(declaration)
                """
                + modelMembers(of: "Trip", metadata: [], placeholders: [])
                + modelConformances(of: "Trip"),
            diagnostics: [
                DiagnosticSpec(
                    message: "a persisted property cannot be '\(modifier)'; mark it @Transient",
                    line: 3,
                    column: 5
                )
            ],
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test("a property that would be persisted inside '#if' (nested too) is rejected; a @Transient one is not")
    func conditionalCompilation() {
        assertExpansion(
            """
            @Model
            final class Trip {
                var name: String
                #if DEBUG
                var note: String = ""
                @Transient var trace: [String] = []
                var summary: String { note }
                #else
                #if os(Linux)
                var linuxOnly = 0
                #endif
                #endif
            }
            """,
            expandedSource: """
                final class Trip {
                    @_PersistedProperty
                    var name: String
                    #if DEBUG
                    var note: String = ""
                    @Transient var trace: [String] = []
                    var summary: String { note }
                    #else
                    #if os(Linux)
                    var linuxOnly = 0
                    #endif
                    #endif
                """
                + modelMembers(
                    of: "Trip",
                    metadata: [#"OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)"#],
                    placeholders: ["_name"]
                )
                + modelConformances(of: "Trip"),
            diagnostics: [
                DiagnosticSpec(
                    message: "persisted property 'note' cannot be declared inside '#if'; move it out of the '#if' block or mark it @Transient",
                    line: 5,
                    column: 9
                ),
                DiagnosticSpec(
                    message: "persisted property 'linuxOnly' cannot be declared inside '#if'; move it out of the '#if' block or mark it @Transient",
                    line: 10,
                    column: 9
                ),
            ],
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test("each rejected property is reported once, in declaration order, and the valid ones are still persisted")
    func severalProblems() {
        assertExpansion(
            """
            @Model
            final class Trip {
                let id: UUID
                var name: String
                weak var owner: Owner?
            }
            """,
            expandedSource: """
                final class Trip {
                    let id: UUID
                    @_PersistedProperty
                    var name: String
                    weak var owner: Owner?
                """
                + modelMembers(
                    of: "Trip",
                    metadata: [#"OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)"#],
                    placeholders: ["_name"]
                )
                + modelConformances(of: "Trip"),
            diagnostics: [
                DiagnosticSpec(
                    message: "'let' properties of a @Model class are not persisted; use 'var'",
                    line: 3,
                    column: 5,
                    fixIts: [FixItSpec(message: "replace 'let' with 'var'")]
                ),
                DiagnosticSpec(message: "a persisted property cannot be 'weak'; mark it @Transient", line: 5, column: 5),
            ],
            macros: swiftDataMacros(only: ["Model"])
        )
    }
}
