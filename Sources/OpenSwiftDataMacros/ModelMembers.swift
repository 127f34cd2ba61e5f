import SwiftSyntax
import SwiftSyntaxBuilder

/// The members `@Model` adds to a class, written for its persisted properties.
///
/// For `@Model final class Trip { var name: String }`:
///
/// ```swift
/// @OpenSwiftData.Transient
/// private var _$backingData: any OpenSwiftData.BackingData<Trip> = Trip.createBackingData()
///
/// public var persistentBackingData: any OpenSwiftData.BackingData<Trip> {
///     get { _$backingData }
///     set { _$backingData = newValue }
/// }
///
/// public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
///     [
///         OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)
///     ]
/// }
///
/// public required init(backingData: any OpenSwiftData.BackingData<Trip>) {
///     _name = OpenSwiftData._SwiftDataNoType()
///     self.persistentBackingData = backingData
/// }
///
/// @OpenSwiftData.Transient
/// private let _$observationRegistrar = Observation.ObservationRegistrar()
/// ```
struct ModelMembers {
    /// The class's name, as written.
    let className: String
    /// The persisted properties, in declaration order.
    let properties: [PersistedProperty]

    /// The stored backing data, which starts as the instance's own storage.
    var backingDataStorage: DeclSyntax {
        """
        @OpenSwiftData.Transient
        private var _$backingData: any OpenSwiftData.BackingData<\(raw: className)> = \(raw: className).createBackingData()
        """
    }

    /// `PersistentModel.persistentBackingData`, over the stored backing data.
    var persistentBackingData: DeclSyntax {
        """
        public var persistentBackingData: any OpenSwiftData.BackingData<\(raw: className)> {
            get { _$backingData }
            set { _$backingData = newValue }
        }
        """
    }

    /// `PersistentModel.schemaMetadata`: one entry per persisted property.
    var schemaMetadata: DeclSyntax {
        let entries = properties.map(metadataEntry)
        let array = entries.isEmpty ? "[]" : "[\n" + entries.map { "        " + $0 }.joined(separator: ",\n") + "\n    ]"
        return DeclSyntax(
            stringLiteral: """
                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    \(array)
                }
                """
        )
    }

    /// `PersistentModel.init(backingData:)`: initializes each placeholder, then adopts the backing data.
    var backingDataInitializer: DeclSyntax {
        let placeholders = properties.map { "    \($0.storageName) = OpenSwiftData._SwiftDataNoType()\n" }.joined()
        return DeclSyntax(
            stringLiteral: """
                public required init(backingData: any OpenSwiftData.BackingData<\(className)>) {
                \(placeholders)    self.persistentBackingData = backingData
                }
                """
        )
    }

    /// The registrar the accessors report accesses and mutations to.
    var observationRegistrar: DeclSyntax {
        """
        @OpenSwiftData.Transient
        private let _$observationRegistrar = Observation.ObservationRegistrar()
        """
    }

    /// The `Schema.PropertyMetadata(…)` expression for `property`.
    private func metadataEntry(for property: PersistedProperty) -> String {
        let name = StringLiteralExprSyntax(content: property.name).trimmedDescription
        let keyPath = "\\\(className).\(property.identifier.text)"
        let defaultValue = DefaultValueExpression.argument(for: property)
        return "OpenSwiftData.Schema.PropertyMetadata(name: \(name), keypath: \(keyPath), "
            + "defaultValue: \(defaultValue), metadata: \(metadata(for: property)))"
    }

    /// The `metadata:` argument: the property's `@Relationship(…)` or `@Attribute(…)` as a schema value, else `nil`.
    private func metadata(for property: PersistedProperty) -> String {
        let attributes = property.variable.attributes
        for marker in [SchemaMarker.relationship, .attribute] {
            guard let attribute = marker.occurrences(in: attributes).first else { continue }
            let arguments: String
            if case .argumentList(let list) = attribute.arguments {
                arguments = list.trimmedDescription
            } else {
                arguments = ""
            }
            return "OpenSwiftData.Schema.\(marker.rawValue)(\(arguments))"
        }
        return "nil"
    }
}
