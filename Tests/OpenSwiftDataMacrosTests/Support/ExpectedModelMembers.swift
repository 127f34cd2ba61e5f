/// The members `@Model` adds to a top-level class named `className`, written from the expansion contract and laid
/// out as the expansion harness prints them (4-space indentation, a blank line before and between members),
/// followed by the class's closing brace. It starts with a line break, to follow the class's last line.
///
/// `metadata` are the `Schema.PropertyMetadata(…)` entries and `placeholders` the `_name` storages that
/// `init(backingData:)` initializes, both in declaration order. The tests that spell out one whole expansion do
/// not use this; it keeps the tests about one part of it (a default value, a marker) to that part.
///
/// ```swift
/// expandedSource: """
///     final class Trip {
///         @_PersistedProperty
///         var name: String
///     \(modelMembers(of: "Trip", metadata: [#"…(name: "name", …)"#], placeholders: ["_name"]))
///     """
/// ```
func modelMembers(of className: String, metadata: [String], placeholders: [String]) -> String {
    let array = metadata.isEmpty
        ? "[]"
        : "[\n" + metadata.map { "            " + $0 }.joined(separator: ",\n") + "\n        ]"
    let initializations = placeholders.map { "        \($0) = OpenSwiftData._SwiftDataNoType()\n" }.joined()
    return """


            @OpenSwiftData.Transient
            private var _$backingData: any OpenSwiftData.BackingData<\(className)> = \(className).createBackingData()

            public var persistentBackingData: any OpenSwiftData.BackingData<\(className)> {
                get {
                    _$backingData
                }
                set {
                    _$backingData = newValue
                }
            }

            public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                \(array)
            }

            public required init(backingData: any OpenSwiftData.BackingData<\(className)>) {
        \(initializations)        self.persistentBackingData = backingData
            }

            @OpenSwiftData.Transient
            private let _$observationRegistrar = Observation.ObservationRegistrar()
        }
        """
}

/// The extension that declares both `@Model` conformances for `className`, preceded by a line break and a blank line.
func modelConformances(of className: String) -> String {
    """


    extension \(className): OpenSwiftData.PersistentModel, Observation.Observable {
    }
    """
}
