import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `#Unique<Model>(…)` and `#Index<Model>(…)`: groups of key paths rooted at the model type.
@Suite("#Unique and #Index")
struct UniqueAndIndexMacroTests {
    @Test("#Unique lists each constraint's key paths, rooted at the model")
    func unique() {
        assertExpansion(
            #"""
            final class Trip {
                #Unique<Trip>([\.name, \.start], [\.code])
            }
            """#,
            expandedSource: #"""
                final class Trip {
                    public static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        [[\Trip.name, \Trip.start], [\Trip.code]]
                    }
                }
                """#
        )
    }

    @Test("#Index lists each index's key paths, rooted at the model")
    func index() {
        assertExpansion(
            #"""
            final class Trip {
                #Index<Trip>([\.name], [\.start, \.end])
            }
            """#,
            expandedSource: #"""
                final class Trip {
                    public static var _$indices: [[AnyKeyPath]] {
                        [[\Trip.name], [\Trip.start, \Trip.end]]
                    }
                }
                """#
        )
    }

    @Test("a key path with its own root is kept; a longer path is rooted as a whole; no argument is no group")
    func rootsAndPaths() {
        assertExpansion(
            #"""
            final class Trip {
                #Unique<Trip>([\Trip.name, \.address.city, \.`default`])
                #Index<Trip>()
            }
            """#,
            expandedSource: #"""
                final class Trip {
                    public static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        [[\Trip.name, \Trip.address.city, \Trip.`default`]]
                    }
                    public static var _$indices: [[AnyKeyPath]] {
                        []
                    }
                }
                """#
        )
    }

    @Test("without the model type as generic argument, nothing is declared", arguments: ["Unique", "Index"])
    func missingModelType(macro: String) {
        assertExpansion(
            """
            final class Trip {
                #\(macro)([\\Trip.name])
            }
            """,
            expandedSource: """
                final class Trip {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'#\(macro)' needs the model type as its generic argument, e.g. '#\(macro)<Trip>([\\.name])'",
                    line: 2,
                    column: 6
                )
            ]
        )
    }

    @Test("an argument that is not an array literal of key paths is reported and nothing is declared")
    func notAKeyPathArray() {
        assertExpansion(
            #"""
            final class Trip {
                #Index<Trip>(\.name, [name])
            }
            """#,
            expandedSource: """
                final class Trip {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: #"each argument of '#Index' must be an array literal of key paths, e.g. '[\.name, \.start]'"#,
                    line: 2,
                    column: 18
                ),
                DiagnosticSpec(
                    message: #"each argument of '#Index' must be an array literal of key paths, e.g. '[\.name, \.start]'"#,
                    line: 2,
                    column: 26
                ),
            ]
        )
    }
}
