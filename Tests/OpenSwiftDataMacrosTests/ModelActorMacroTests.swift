import OpenSwiftDataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// How `@ModelActor` expands an actor, and what it rejects.
@Suite("@ModelActor")
struct ModelActorMacroTests {
    @Test("an actor gets its executor, its container, init(modelContainer:) and the ModelActor conformance")
    func actor() {
        assertExpansion(
            """
            @ModelActor
            actor Importer {
                func run() {}
            }
            """,
            expandedSource: """
                actor Importer {
                    func run() {}

                    nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor

                    nonisolated let modelContainer: OpenSwiftData.ModelContainer

                    init(modelContainer: OpenSwiftData.ModelContainer) {
                        let modelContext = OpenSwiftData.ModelContext(modelContainer)
                        self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Importer: OpenSwiftData.ModelActor {
                }
                """
        )
    }

    @Test("a public actor's members are public (the conformance and other modules need them)")
    func publicActor() {
        assertExpansion(
            """
            @ModelActor
            public actor Store {
            }
            """,
            expandedSource: """
                public actor Store {

                    public nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor

                    public nonisolated let modelContainer: OpenSwiftData.ModelContainer

                    public init(modelContainer: OpenSwiftData.ModelContainer) {
                        let modelContext = OpenSwiftData.ModelContext(modelContainer)
                        self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Store: OpenSwiftData.ModelActor {
                }
                """
        )
    }

    @Test("an actor that already declares the conformance gets no extension")
    func conformanceDeclared() {
        assertExpansion(
            """
            @ModelActor
            actor Importer: ModelActor {
            }
            """,
            expandedSource: """
                actor Importer: ModelActor {

                    nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor

                    nonisolated let modelContainer: OpenSwiftData.ModelContainer

                    init(modelContainer: OpenSwiftData.ModelContainer) {
                        let modelContext = OpenSwiftData.ModelContext(modelContainer)
                        self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }
                """,
            macros: swiftDataMacros(replacing: "ModelActor", with: MacroSpec(type: ModelActorMacro.self))
        )
    }

    @Test(
        "a class, struct or enum is rejected and nothing is added",
        arguments: ["final class Importer", "struct Importer", "enum Importer"]
    )
    func notAnActor(header: String) {
        assertExpansion(
            """
            @ModelActor
            \(header) {
            }
            """,
            expandedSource: """
                \(header) {
                }
                """,
            diagnostics: [DiagnosticSpec(message: "'@ModelActor' can only be applied to an actor", line: 1, column: 1)]
        )
    }
}
