import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Attribute`, `@Relationship` and `@Transient` on their own: markers that expand to nothing (what they mean is
/// read by `@Model`, see ``ModelMacroExpansionTests``), and the misuse they report.
@Suite("@Attribute, @Relationship and @Transient")
struct SchemaMarkerMacroTests {
    @Test("each marker expands to nothing, whatever the property's type")
    func markersAddNothing() {
        assertExpansion(
            """
            final class Trip {
                @Attribute(.unique) var code: String = ""
                @Relationship(deleteRule: .cascade) var stops: [Stop] = []
                @Relationship var count: Int = 0
                @Transient var isExpanded = false
            }
            """,
            expandedSource: """
                final class Trip {
                    var code: String = ""
                    var stops: [Stop] = []
                    var count: Int = 0
                    var isExpanded = false
                }
                """
        )
    }

    @Test("@Attribute and @Relationship on the same property is an error, reported once at the @Attribute")
    func attributeAndRelationship() {
        assertExpansion(
            """
            final class Trip {
                @Relationship(deleteRule: .cascade) @Attribute(.unique) var stops: [Stop] = []
            }
            """,
            expandedSource: """
                final class Trip {
                    var stops: [Stop] = []
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "a property cannot have both '@Attribute' and '@Relationship'; use '@Relationship' for a relationship and '@Attribute' for an attribute",
                    line: 2,
                    column: 41
                )
            ]
        )
    }

    @Test(
        "a marker on something other than a property is an error",
        arguments: [("@Attribute(.unique)", "Attribute"), ("@Relationship()", "Relationship"), ("@Transient", "Transient")]
    )
    func notOnProperty(attribute: String, name: String) {
        assertExpansion(
            """
            final class Trip {
                \(attribute) func rename() {}
            }
            """,
            expandedSource: """
                final class Trip {
                    func rename() {}
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "'@\(name)' applies to a property of a @Model class", line: 2, column: 5)
            ]
        )
    }
}
