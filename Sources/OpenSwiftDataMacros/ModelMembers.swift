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
        DeclSyntax(
            stringLiteral: """
                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    \(metadataArray(root: className))
                }
                """
        )
    }

    /// The members of a class other models may inherit from (not `final`), or of a model inheriting from one (with
    /// `superclass`): the schema metadata as an overridable class property, built by a generic function that roots
    /// every key path at the class asking (`\BusinessTrip.name` for an inherited `name`), so that key paths written
    /// through a subclass name its inherited properties too.
    func inheritableMembers(superclass: String?) -> [DeclSyntax] {
        let inherited = superclass.map { "\($0)._$schemaMetadata(rootedAt: S.self) + " } ?? ""
        var members: [DeclSyntax] = [
            DeclSyntax(
                stringLiteral: """
                    public \(superclass == nil ? "" : "override ")class var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                        \(className)._$schemaMetadata(rootedAt: \(className).self)
                    }
                    """
            ),
            DeclSyntax(
                stringLiteral: """
                    public static func _$schemaMetadata<S: \(className)>(rootedAt _: S.Type) -> [OpenSwiftData.Schema.PropertyMetadata] {
                        \(inherited)\(metadataArray(root: "S"))
                    }
                    """
            ),
        ]
        if superclass == nil {
            members.append("public typealias _$BackingModel = \(raw: className)")
            members.append(
                """
                public func _$moveSubclassValues() {
                }
                """
            )
        } else {
            members.append(
                """
                public override func _$moveSubclassValues() {
                    super._$moveSubclassValues()
                    OpenSwiftData._moveSubclassValues(from: _$backingData, into: self)
                }
                """
            )
        }
        return members
    }

    /// `init(backingData:)` of a model inheriting from another: initializes its own placeholders, drops the values
    /// its properties' initial values put in its own storage (the row's values are in `backingData`), then calls the
    /// superclass's (the backing data is the root model's type, as the initializer overrides the root's).
    var inheritedBackingDataInitializer: DeclSyntax {
        let placeholders = properties.map { "    \($0.storageName) = OpenSwiftData._SwiftDataNoType()\n" }.joined()
        return DeclSyntax(
            stringLiteral: """
                public required init(backingData: any OpenSwiftData.BackingData<_$BackingModel>) {
                \(placeholders)    _$backingData = \(className).createBackingData()
                    super.init(backingData: backingData)
                }
                """
        )
    }

    /// The array literal of the metadata entries, key paths rooted at `root`.
    private func metadataArray(root: String) -> String {
        let entries = properties.map { metadataEntry(for: $0, root: root) }
        return entries.isEmpty ? "[]" : "[\n" + entries.map { "        " + $0 }.joined(separator: ",\n") + "\n    ]"
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
    private func metadataEntry(for property: PersistedProperty, root: String) -> String {
        let name = StringLiteralExprSyntax(content: property.name).trimmedDescription
        let keyPath = "\\\(root).\(property.identifier.text)"
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
