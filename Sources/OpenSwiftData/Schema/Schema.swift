import Foundation
import OpenCoreData

/// The models of a container (SwiftData's `Schema`): each `@Model` class is an entity, each persisted property an
/// attribute or a relationship. Models reached through relationships are included without being listed.
///
/// A schema becomes the `NSManagedObjectModel` Core Data stores with, so its store is
/// Core Data's SQLite format, readable by `OpenCoreData` and the `coredata` tool.
///
/// ```swift
/// let schema = Schema([Trip.self])            // Trip's stops' model comes along
/// schema.entities.map(\.name)                 // ["Trip", "Stop"]
/// let container = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// ```
public final class Schema: Hashable, @unchecked Sendable {
    // @unchecked Sendable: every stored property is set in the initializer and never changed.

    /// The entities, in the order the models were found (listed ones first).
    public let entities: [Entity]
    /// The schema's version (from a ``VersionedSchema``, else 1.0.0).
    public let version: Version
    /// The model classes, by entity name.
    let modelTypes: [String: any PersistentModel.Type]
    /// The Core Data model the entities make.
    let managedObjectModel: NSManagedObjectModel

    /// A schema of `types` and every model their relationships reach.
    ///
    /// ```swift
    /// let schema = Schema([Trip.self, Stop.self], version: Schema.Version(1, 0, 0))
    /// ```
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var found: [any PersistentModel.Type] = []
        var seen = Set<ObjectIdentifier>()
        func visit(_ type: any PersistentModel.Type) {
            guard seen.insert(ObjectIdentifier(type)).inserted else { return }
            // A model's superclass model comes first (its entity is the superentity).
            if let superclass = ModelLayout.superclassModel(of: type) { visit(superclass) }
            found.append(type)
            for property in ModelLayout.of(type).properties {
                if let destination = property.kind.destination { visit(destination) }
            }
        }
        for type in types { visit(type) }
        self.version = version
        var modelTypes: [String: any PersistentModel.Type] = [:]
        for type in found { modelTypes[Schema.entityName(of: type)] = type }
        self.modelTypes = modelTypes
        entities = found.map { Entity(type: $0) }
        managedObjectModel = ManagedObjectModelBuilder.model(for: entities, version: version)
    }

    /// A schema of `types`.
    ///
    /// ```swift
    /// let schema = Schema(Trip.self, Stop.self)
    /// ```
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// The schema of a versioned schema: its models and version.
    ///
    /// ```swift
    /// let schema = Schema(versionedSchema: TripsV2.self)
    /// ```
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    /// The entities by name.
    public var entitiesByName: [String: Entity] {
        Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entity name of a model class: its name, as SwiftData names it.
    ///
    /// ```swift
    /// Schema.entityName(for: Trip.self)   // "Trip"
    /// ```
    public static func entityName(for type: any PersistentModel.Type) -> String { entityName(of: type) }

    static func entityName(of type: Any.Type) -> String {
        let name = String(describing: type)
        return name.split(separator: ".").last.map(String.init) ?? name
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version && lhs.entities.map(\.name) == rhs.entities.map(\.name)
            && lhs.managedObjectModel.entityVersionHashesByName == rhs.managedObjectModel.entityVersionHashesByName
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(entities.map(\.name))
    }

    /// A schema's version: major, minor and patch (`"2.1.0"`).
    ///
    /// ```swift
    /// Schema.Version(2, 1, 0) > Schema.Version(2, 0, 3)   // true
    /// ```
    public struct Version: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        public let major: Int
        public let minor: Int
        public let patch: Int

        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        public var description: String { "\(major).\(minor).\(patch)" }
    }

    /// One persisted property as `@Model` lists it: its name, key path, initial value and options
    /// (a ``Schema/Attribute`` or ``Schema/Relationship`` from `@Attribute`/`@Relationship`, else nil).
    ///
    /// ```swift
    /// Trip.schemaMetadata.map(\.name)   // ["name", "stops"]
    /// ```
    public struct PropertyMetadata: @unchecked Sendable {
        // @unchecked Sendable: `defaultValue` and `metadata` are the macro's constants, never mutated.
        public let name: String
        public let keypath: AnyKeyPath
        public let defaultValue: Any?
        public let metadata: Any?

        public init(name: String, keypath: AnyKeyPath, defaultValue: Any?, metadata: Any?) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
        }
    }
}
