import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The errors `@ManagedRelationshipAccessor` reports, where it reports them, and what its fix-its produce.
///
/// On an error the macro writes no body, so the expanded source is the method without the attribute.
@Suite("@ManagedRelationshipAccessor diagnostics")
struct RelationshipAccessorDiagnosticTests {
    /// The heading of every shape list.
    static let shapesHeading = "supported shapes (T is the related entity's class):"

    /// Every supported shape, as the unknown-name diagnostic lists them.
    static let allShapes = """

          addTo<Key>(_ value: T)
          addTo<Key>(_ values: NSSet | NSOrderedSet | Set<T> | [T])
          removeFrom<Key>(_ value: T)
          removeFrom<Key>(_ values: NSSet | NSOrderedSet | Set<T> | [T])
          removeFrom<Key>(at idx: Int)
          removeFrom<Key>(at indexes: NSIndexSet | IndexSet)
          insertInto<Key>(_ value: T, at idx: Int)
          insertInto<Key>(_ values: [T], at indexes: NSIndexSet | IndexSet)
          replace<Key>(at idx: Int, with value: T)
          replace<Key>(at indexes: NSIndexSet | IndexSet, with values: [T])
        """

    @Test("a method with a body is rejected, with a fix-it that removes the body")
    func methodWithBody() {
        assertExpansion(
            """
            class Country: NSManagedObject {
                @ManagedRelationshipAccessor func addToMoods(_ value: Mood) { print(value) }
            }
            """,
            expandedSource: """
                class Country: NSManagedObject {
                    func addToMoods(_ value: Mood) { print(value) }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@ManagedRelationshipAccessor' method 'addToMoods' cannot have a body; the macro generates it",
                    line: 2,
                    column: 65,
                    fixIts: [FixItSpec(message: "remove the body")]
                )
            ],
            fixedSource: """
                class Country: NSManagedObject {
                    @ManagedRelationshipAccessor func addToMoods(_ value: Mood)
                }
                """
        )
    }

    @Test("the body fix-it keeps a where clause, and a 'static' method with a body gets both errors")
    func bodyAfterWhereClause() {
        assertExpansion(
            """
            class Country: NSManagedObject {
                @ManagedRelationshipAccessor static func addToMoods<M>(_ value: M) where M: Mood {
                    print(value)
                }
            }
            """,
            expandedSource: """
                class Country: NSManagedObject {
                    static func addToMoods<M>(_ value: M) where M: Mood {
                        print(value)
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'addToMoods' cannot be 'static': managed properties and relationship accessors belong to an object",
                    line: 2,
                    column: 34,
                    fixIts: [FixItSpec(message: "remove 'static'")]
                ),
                DiagnosticSpec(
                    message: "'@ManagedRelationshipAccessor' method 'addToMoods' cannot have a body; the macro generates it",
                    line: 2,
                    column: 86,
                    fixIts: [FixItSpec(message: "remove the body")]
                ),
            ],
            fixedSource: """
                class Country: NSManagedObject {
                    @ManagedRelationshipAccessor func addToMoods<M>(_ value: M) where M: Mood
                }
                """
        )
    }

    @Test("'static' and 'class' methods are rejected, with a fix-it that removes the modifier", arguments: ["static", "class"])
    func typeMethod(modifier: String) {
        assertExpansion(
            """
            class Country: NSManagedObject {
                @ManagedRelationshipAccessor public \(modifier) func addToMoods(_ value: Mood)
            }
            """,
            expandedSource: """
                class Country: NSManagedObject {
                    public \(modifier) func addToMoods(_ value: Mood)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        'addToMoods' cannot be '\(modifier)': managed properties and relationship accessors belong to an object
                        """,
                    line: 2,
                    column: 41,
                    fixIts: [FixItSpec(message: "remove '\(modifier)'")]
                )
            ],
            fixedSource: """
                class Country: NSManagedObject {
                    @ManagedRelationshipAccessor public func addToMoods(_ value: Mood)
                }
                """
        )
    }

    @Test(
        "a name without a known prefix and a capitalized relationship is rejected, listing every shape",
        arguments: ["frobnicate", "addTo", "addtoMoods", "removeMoods", "insertInto_items"]
    )
    func unknownName(name: String) {
        assertExpansion(
            """
            class Country: NSManagedObject {
                @ManagedRelationshipAccessor func \(name)(_ value: Mood)
            }
            """,
            expandedSource: """
                class Country: NSManagedObject {
                    func \(name)(_ value: Mood)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        '@ManagedRelationshipAccessor' cannot tell which relationship '\(name)' accesses: \
                        the name must be 'addTo', 'removeFrom', 'insertInto' or 'replace' followed by the \
                        capitalized relationship name; \(Self.shapesHeading)
                        """ + Self.allShapes,
                    line: 2,
                    column: 39
                )
            ]
        )
    }

    @Test(
        "a known name with unsupported parameters or result is rejected, listing the shapes for that name",
        arguments: [
            ("addToMoods(value: Mood)", ["addToMoods(_ value: T)", "addToMoods(_ values: NSSet | NSOrderedSet | Set<T> | [T])"]),
            ("addToMoods(_ value: Mood) -> Bool", ["addToMoods(_ value: T)", "addToMoods(_ values: NSSet | NSOrderedSet | Set<T> | [T])"]),
            ("addToMoods(_ value: inout Mood)", ["addToMoods(_ value: T)", "addToMoods(_ values: NSSet | NSOrderedSet | Set<T> | [T])"]),
            ("addToMoods(_ values: Mood...)", ["addToMoods(_ value: T)", "addToMoods(_ values: NSSet | NSOrderedSet | Set<T> | [T])"]),
            ("addToMoods(_ value: Mood, _ other: Mood)", ["addToMoods(_ value: T)", "addToMoods(_ values: NSSet | NSOrderedSet | Set<T> | [T])"]),
            (
                "removeFromItems(at idx: UInt)",
                [
                    "removeFromItems(_ value: T)", "removeFromItems(_ values: NSSet | NSOrderedSet | Set<T> | [T])",
                    "removeFromItems(at idx: Int)", "removeFromItems(at indexes: NSIndexSet | IndexSet)",
                ]
            ),
            (
                "insertIntoItems(_ value: Item)",
                ["insertIntoItems(_ value: T, at idx: Int)", "insertIntoItems(_ values: [T], at indexes: NSIndexSet | IndexSet)"]
            ),
            (
                "insertIntoItems(_ values: NSOrderedSet, at indexes: NSIndexSet)",
                ["insertIntoItems(_ value: T, at idx: Int)", "insertIntoItems(_ values: [T], at indexes: NSIndexSet | IndexSet)"]
            ),
            (
                "replaceItems(at idx: Int, with values: [Item])",
                ["replaceItems(at idx: Int, with value: T)", "replaceItems(at indexes: NSIndexSet | IndexSet, with values: [T])"]
            ),
        ]
    )
    func unsupportedShape(signature: String, shapes: [String]) {
        assertExpansion(
            """
            class Order: NSManagedObject {
                @ManagedRelationshipAccessor func \(signature)
            }
            """,
            expandedSource: """
                class Order: NSManagedObject {
                    func \(signature)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@ManagedRelationshipAccessor' does not support '\(signature)'; \(Self.shapesHeading)"
                        + shapes.map { "\n  \($0)" }.joined(),
                    line: 2,
                    column: 39
                )
            ]
        )
    }

    @Test("a parameter without an internal name is rejected")
    func unnamedParameter() {
        assertExpansion(
            """
            class Order: NSManagedObject {
                @ManagedRelationshipAccessor func insertIntoItems(_ value: Item, at _: Int)
            }
            """,
            expandedSource: """
                class Order: NSManagedObject {
                    func insertIntoItems(_ value: Item, at _: Int)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        every parameter of '@ManagedRelationshipAccessor' method 'insertIntoItems' needs a name; \
                        the generated body forwards it
                        """,
                    line: 2,
                    column: 73
                )
            ]
        )
    }

    @Test("use outside a class or an extension is rejected")
    func notInClass() {
        assertExpansion(
            """
            struct Country {
                @ManagedRelationshipAccessor func addToMoods(_ value: Mood)
            }
            @ManagedRelationshipAccessor func addToMoods(_ value: Mood)
            """,
            expandedSource: """
                struct Country {
                    func addToMoods(_ value: Mood)
                }
                func addToMoods(_ value: Mood)
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        '@ManagedRelationshipAccessor' can only be used in an NSManagedObject subclass or an \
                        extension of one, not in struct 'Country'
                        """,
                    line: 2,
                    column: 5
                ),
                DiagnosticSpec(
                    message: """
                        '@ManagedRelationshipAccessor' can only be used in an NSManagedObject subclass or an \
                        extension of one, not in top-level code
                        """,
                    line: 4,
                    column: 1
                ),
            ]
        )
    }

    @Test("a key that is not a non-empty string literal is rejected")
    func invalidKey() {
        assertExpansion(
            """
            class Order: NSManagedObject {
                @ManagedRelationshipAccessor(itemsKey) func addToItems(_ value: Item)
                @ManagedRelationshipAccessor("") func removeFromItems(_ value: Item)
            }
            """,
            expandedSource: """
                class Order: NSManagedObject {
                    func addToItems(_ value: Item)
                    func removeFromItems(_ value: Item)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        the key of '@ManagedRelationshipAccessor' must be a string literal without interpolation, \
                        e.g. @ManagedRelationshipAccessor("remote_id")
                        """,
                    line: 2,
                    column: 34
                ),
                DiagnosticSpec(
                    message: "the key of '@ManagedRelationshipAccessor' cannot be empty",
                    line: 3,
                    column: 34
                ),
            ]
        )
    }

    @Test("an initializer is rejected")
    func initializer() {
        assertExpansion(
            """
            class Order: NSManagedObject {
                @ManagedRelationshipAccessor init(items: [Item])
            }
            """,
            expandedSource: """
                class Order: NSManagedObject {
                    init(items: [Item])
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        '@ManagedRelationshipAccessor' applies to methods such as 'addToItems(_:)'; \
                        it cannot be attached here
                        """,
                    line: 2,
                    column: 5
                )
            ]
        )
    }
}
