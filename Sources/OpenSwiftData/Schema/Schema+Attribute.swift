import Foundation
import OpenCoreData

extension Schema {
    /// A persisted property that holds a value (SwiftData's `Schema.Attribute`), and the options `@Attribute` gives it.
    ///
    /// ```swift
    /// @Attribute(.unique, originalName: "title") var name: String
    /// Schema(Trip.self).entitiesByName["Trip"]?.attributesByName["name"]?.isUnique   // true
    /// ```
    public final class Attribute: Hashable, CustomStringConvertible {
        /// The property's name.
        public internal(set) var name: String = ""
        /// The options `@Attribute` gave.
        public let options: [Option]
        /// The name the property had in the previous version of the schema (a lightweight migration renames it).
        public let originalName: String?
        /// A string that changes the version hash (a migration of the values without a change of type).
        public let hashModifier: String?
        /// The property's Swift type (`String`, `Date?`, a `Codable` type, …).
        public internal(set) var valueType: Any.Type = Any.self
        /// Whether the property is optional.
        public internal(set) var isOptional: Bool = false
        /// The initial value the class declares, if any.
        public internal(set) var defaultValue: Any?

        /// The options of an `@Attribute` (what the macro passes on).
        ///
        /// ```swift
        /// let attribute = Schema.Attribute(.unique, .spotlight, originalName: "title")
        /// ```
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.options = options
            self.originalName = originalName
            self.hashModifier = hashModifier
        }

        init(options: [Option], originalName: String?, hashModifier: String?) {
            self.options = options
            self.originalName = originalName
            self.hashModifier = hashModifier
        }

        /// Whether no two models may have the same value (`.unique`): an insert of an equal value updates the model
        /// that has it (an upsert).
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether the value lives only in memory (`.ephemeral`): a transient attribute, never saved.
        public var isTransient: Bool { options.contains(.ephemeral) }
        /// Whether the value is stored as its `Codable` encoding (`.codable`).
        public var isCodable: Bool { options.contains(.codable) }

        public var description: String { "Attribute(\(name): \(valueType)\(isOptional ? "?" : "")\(options.isEmpty ? "" : ", \(options)"))" }

        public static func == (lhs: Attribute, rhs: Attribute) -> Bool {
            lhs.name == rhs.name && lhs.options == rhs.options && lhs.originalName == rhs.originalName
                && lhs.hashModifier == rhs.hashModifier && lhs.valueType == rhs.valueType && lhs.isOptional == rhs.isOptional
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(options)
        }

        /// How an attribute is stored (`@Attribute(.unique)`, …).
        public struct Option: Hashable, Sendable, CustomStringConvertible {
            enum Kind: Hashable, Sendable {
                case unique, externalStorage, ephemeral, spotlight, allowsCloudEncryption, preserveValueOnDeletion, codable
                case transformable(String)
            }

            let kind: Kind

            /// No two models have an equal value: inserting one upserts.
            public static let unique = Option(kind: .unique)
            /// Large data may be kept in a file beside the store (Core Data's external binary storage).
            public static let externalStorage = Option(kind: .externalStorage)
            /// The value is not saved (a transient attribute).
            public static let ephemeral = Option(kind: .ephemeral)
            /// The value is indexed by Spotlight (recorded in the model; Linux has no Spotlight).
            public static let spotlight = Option(kind: .spotlight)
            /// CloudKit encrypts the value (recorded in the model; there is no CloudKit on Linux).
            public static let allowsCloudEncryption = Option(kind: .allowsCloudEncryption)
            /// History keeps the value of a deleted model (a tombstone).
            public static let preserveValueOnDeletion = Option(kind: .preserveValueOnDeletion)
            /// The value is stored as its `Codable` encoding (JSON here), whatever its type — for types the schema
            /// cannot look into, such as classes that are not models. The stored value is opaque: not for
            /// predicates or sorts, and changing the type's shape is no migration (its coding must stay compatible).
            ///
            /// ```swift
            /// @Attribute(.codable) var placeIdentifier: PlaceIdentifier?
            /// ```
            public static var codable: Option { Option(kind: .codable) }

            /// The value is stored as the data `transformer` makes of it (Core Data's transformable attribute, whose
            /// value transformer is the one registered under the class's name; a container whose transformers are
            /// not registered throws ``SwiftDataError/loadIssueModelContainer``).
            ///
            /// ```swift
            /// ValueTransformer.setValueTransformer(ColorTransformer(), forName: NSValueTransformerName("ColorTransformer"))
            /// @Attribute(.transformable(by: ColorTransformer.self)) var color: Color
            /// ```
            public static func transformable(by transformer: ValueTransformer.Type) -> Option {
                Option(kind: .transformable(String(describing: transformer)))
            }

            /// The value is stored as the data the transformer registered under `transformerName` makes of it (register
            /// it with `ValueTransformer.setValueTransformer(_:forName:)` before making the container).
            ///
            /// ```swift
            /// ValueTransformer.setValueTransformer(ColorTransformer(), forName: NSValueTransformerName("Colors"))
            /// @Attribute(.transformable(by: "Colors")) var color: Color
            /// ```
            public static func transformable(by transformerName: String) -> Option {
                Option(kind: .transformable(transformerName))
            }

            /// The transformer name of a `.transformable(by:)` option (nil for the other options).
            var transformerName: String? {
                if case .transformable(let transformer) = kind { transformer } else { nil }
            }

            public var description: String {
                switch kind {
                case .unique: ".unique"
                case .externalStorage: ".externalStorage"
                case .ephemeral: ".ephemeral"
                case .spotlight: ".spotlight"
                case .allowsCloudEncryption: ".allowsCloudEncryption"
                case .preserveValueOnDeletion: ".preserveValueOnDeletion"
                case .codable: ".codable"
                case .transformable(let name): ".transformable(by: \(name))"
                }
            }
        }
    }
}
