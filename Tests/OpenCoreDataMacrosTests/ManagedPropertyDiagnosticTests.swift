import OpenCoreDataMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The errors `@Managed` reports, where it reports them, and what its fix-its produce.
///
/// On an error the macro adds no accessors, so the expanded source is the declaration without the attribute.
@Suite("@Managed property diagnostics")
struct ManagedPropertyDiagnosticTests {
    @Test("'let' is rejected, with a fix-it to 'var'")
    func letProperty() {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed let date: Date
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    let date: Date
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' property 'date' must be declared with 'var'; Core Data can change its value",
                    line: 2,
                    column: 14,
                    fixIts: [FixItSpec(message: "replace 'let' with 'var'")]
                )
            ],
            fixedSource: """
                class Mood: NSManagedObject {
                    @Managed var date: Date
                }
                """
        )
    }

    @Test("an initial value is rejected, with a fix-it that removes it")
    func initialValue() {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed var rating: Int16 = 3 // stars
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    var rating: Int16 = 3 // stars
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' property 'rating' cannot have an initial value; set a default value in the model instead",
                    line: 2,
                    column: 32,
                    fixIts: [FixItSpec(message: "remove the initial value")]
                )
            ],
            fixedSource: """
                class Mood: NSManagedObject {
                    @Managed var rating: Int16 // stars
                }
                """
        )
    }

    @Test(
        "a property with its own getter, setter or observers is rejected",
        arguments: ["{ 3 }", "{ get { 3 } set { } }", "{ didSet { print(rating) } }", "{ willSet { } }"]
    )
    func existingAccessors(accessors: String) {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed var rating: Int16 \(accessors)
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    var rating: Int16 \(accessors)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        '@Managed' property 'rating' cannot have its own getter, setter or observers; \
                        '@Managed' provides the accessors
                        """,
                    line: 2,
                    column: 32
                )
            ]
        )
    }

    @Test("'static' and 'class' are rejected, with a fix-it that removes them", arguments: ["static", "class"])
    func typeProperty(modifier: String) {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed public \(modifier) var count: Int
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    public \(modifier) var count: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        'count' cannot be '\(modifier)': managed properties and relationship accessors belong to an object
                        """,
                    line: 2,
                    column: 21,
                    fixIts: [FixItSpec(message: "remove '\(modifier)'")]
                )
            ],
            fixedSource: """
                class Mood: NSManagedObject {
                    @Managed public var count: Int
                }
                """
        )
    }

    @Test("'lazy', 'weak' and 'unowned' are rejected, with a fix-it that removes them", arguments: ["lazy", "weak", "unowned"])
    func storedOnlyModifier(modifier: String) {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed \(modifier) var country: Country?
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    \(modifier) var country: Country?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        '@Managed' property 'country' cannot be '\(modifier)': its value is stored by the managed object context
                        """,
                    line: 2,
                    column: 14,
                    fixIts: [FixItSpec(message: "remove '\(modifier)'")]
                )
            ],
            fixedSource: """
                class Mood: NSManagedObject {
                    @Managed var country: Country?
                }
                """
        )
    }

    @Test("a property without a type annotation is rejected")
    func missingType() {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed var note
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    var note
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' property 'note' needs an explicit type, e.g. 'var note: String'",
                    line: 2,
                    column: 18
                )
            ]
        )
    }

    @Test("every problem of a declaration is reported at once, and the fix-its apply together")
    func severalProblems() {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed static let name = "mood"
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    static let name = "mood"
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'name' cannot be 'static': managed properties and relationship accessors belong to an object",
                    line: 2,
                    column: 14,
                    fixIts: [FixItSpec(message: "remove 'static'")]
                ),
                DiagnosticSpec(
                    message: "'@Managed' property 'name' must be declared with 'var'; Core Data can change its value",
                    line: 2,
                    column: 21,
                    fixIts: [FixItSpec(message: "replace 'let' with 'var'")]
                ),
                DiagnosticSpec(
                    message: "'@Managed' property 'name' needs an explicit type, e.g. 'var name: String'",
                    line: 2,
                    column: 25
                ),
                DiagnosticSpec(
                    message: "'@Managed' property 'name' cannot have an initial value; set a default value in the model instead",
                    line: 2,
                    column: 30,
                    fixIts: [FixItSpec(message: "remove the initial value")]
                ),
            ],
            fixedSource: """
                class Mood: NSManagedObject {
                    @Managed var name
                }
                """
        )
    }

    @Test("a property named just 'primitive' is rejected")
    func barePrimitive() {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed var primitive: Int
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    var primitive: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        'primitive' is not a primitive accessor name; name it 'primitive' followed by the \
                        capitalized key, e.g. 'primitiveDate' for 'date'
                        """,
                    line: 2,
                    column: 18
                )
            ]
        )
    }

    /// The test harness rejects this itself before it calls an accessor macro, so the macro is called directly.
    @Test("several properties in one declaration are rejected")
    func multipleBindings() throws {
        let source: SourceFileSyntax = """
            class Point: NSManagedObject {
                @Managed var x: Double, y: Double
            }
            """
        let type = try #require(source.statements.first?.item.as(ClassDeclSyntax.self))
        let variable = try #require(type.memberBlock.members.first?.decl.as(VariableDeclSyntax.self))
        let attribute = try #require(variable.attributes.first?.as(AttributeSyntax.self))
        let context = BasicMacroExpansionContext(lexicalContext: [Syntax(type)])

        let accessors = try ManagedMacro.expansion(of: attribute, providingAccessorsOf: variable, in: context)

        #expect(accessors.isEmpty)
        #expect(context.diagnostics.map(\.message) == [
            "'@Managed' applies to one property per declaration; declare each property with its own 'var'"
        ])
        #expect(context.diagnostics.map(\.node.trimmedDescription) == ["x: Double, y: Double"])
    }

    @Test("a tuple pattern is rejected")
    func tuplePattern() {
        assertExpansion(
            """
            class Point: NSManagedObject {
                @Managed var (x, y): (Double, Double)
            }
            """,
            expandedSource: """
                class Point: NSManagedObject {
                    var (x, y): (Double, Double)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' applies to a property with a simple name, not to a tuple pattern",
                    line: 2,
                    column: 18
                )
            ]
        )
    }

    @Test("a key that is not a plain string literal is rejected", arguments: ["key", #""a\(b)""#, "\"a\" + \"b\""])
    func keyNotALiteral(argument: String) {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed(\(argument)) var date: Date
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    var date: Date
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: #"the key of '@Managed' must be a string literal without interpolation, e.g. @Managed("remote_id")"#,
                    line: 2,
                    column: 14
                )
            ]
        )
    }

    @Test("an empty key is rejected")
    func emptyKey() {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed("") var date: Date
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    var date: Date
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "the key of '@Managed' cannot be empty", line: 2, column: 14)
            ]
        )
    }

    @Test(
        "use outside a class or an extension is rejected",
        arguments: [
            ("struct Point", "struct 'Point'"),
            ("enum Shape", "enum 'Shape'"),
            ("actor Store", "actor 'Store'"),
            ("protocol Dated", "protocol 'Dated'"),
        ]
    )
    func notInClass(container: String, description: String) {
        assertExpansion(
            """
            \(container) {
                @Managed var date: Date
            }
            """,
            expandedSource: """
                \(container) {
                    var date: Date
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        '@Managed' can only be used in an NSManagedObject subclass or an extension of one, \
                        not in \(description)
                        """,
                    line: 2,
                    column: 5
                )
            ]
        )
    }

    @Test("use at top level or in a function is rejected")
    func notInType() {
        assertExpansion(
            """
            @Managed var date: Date
            func f() {
                @Managed var count: Int
            }
            """,
            expandedSource: """
                var date: Date
                func f() {
                    var count: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        '@Managed' can only be used in an NSManagedObject subclass or an extension of one, \
                        not in top-level code
                        """,
                    line: 1,
                    column: 1
                ),
                DiagnosticSpec(
                    message: """
                        '@Managed' can only be used in an NSManagedObject subclass or an extension of one, \
                        not in a local scope
                        """,
                    line: 3,
                    column: 5
                ),
            ]
        )
    }

    @Test("a subscript is rejected")
    func subscriptDeclaration() {
        assertExpansion(
            """
            class Mood: NSManagedObject {
                @Managed subscript(key: String) -> Int
            }
            """,
            expandedSource: """
                class Mood: NSManagedObject {
                    subscript(key: String) -> Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Managed' applies to properties; it cannot be attached to a subscript",
                    line: 2,
                    column: 5
                )
            ]
        )
    }
}
