import Foundation
import OpenCoreData

extension Schema {
    /// A persisted property that refers to other models (SwiftData's `Schema.Relationship`), and the options
    /// `@Relationship` gives it.
    ///
    /// ```swift
    /// @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
    /// ```
    public final class Relationship: Hashable, CustomStringConvertible {
        /// The property's name.
        public internal(set) var name: String = ""
        /// What deleting the model does to the models this relationship refers to.
        public let deleteRule: DeleteRule
        /// The fewest models a to-many relationship may have when saved (0: no minimum).
        public let minimumModelCount: Int?
        /// The most models a to-many relationship may have when saved (0: no maximum).
        public let maximumModelCount: Int?
        /// The name the property had in the previous version of the schema.
        public let originalName: String?
        /// The key path of the other side, as given to `@Relationship(inverse:)`.
        public let inverseKeyPath: AnyKeyPath?
        /// A string that changes the version hash.
        public let hashModifier: String?
        /// The options `@Relationship` gave.
        public let options: [Option]
        /// The entity name of the models it refers to.
        public internal(set) var destination: String = ""
        /// The name of the other side (given or inferred), if there is one.
        public internal(set) var inverseName: String?
        /// Whether it refers to one model (else to an array of them).
        public internal(set) var isToOneRelationship: Bool = true
        /// Whether it may be nil (a to-one declared optional).
        public internal(set) var isOptional: Bool = true

        /// The options of a `@Relationship` (what the macro passes on).
        ///
        /// ```swift
        /// let relationship = Schema.Relationship(deleteRule: .cascade, inverse: \Stop.trip)
        /// ```
        public init(_ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
                    originalName: String? = nil, inverse: AnyKeyPath? = nil, hashModifier: String? = nil) {
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
        }

        /// A copy for one property of an entity.
        func named(_ name: String) -> Relationship {
            let copy = Relationship(options: options, deleteRule: deleteRule, minimumModelCount: minimumModelCount, maximumModelCount: maximumModelCount,
                                    originalName: originalName, inverse: inverseKeyPath, hashModifier: hashModifier)
            copy.name = name
            return copy
        }

        private init(options: [Option], deleteRule: DeleteRule, minimumModelCount: Int?, maximumModelCount: Int?, originalName: String?,
                     inverse: AnyKeyPath?, hashModifier: String?) {
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
        }

        public var description: String { "Relationship(\(name) → \(destination)\(isToOneRelationship ? "" : "[]"), \(deleteRule))" }

        public static func == (lhs: Relationship, rhs: Relationship) -> Bool {
            lhs.name == rhs.name && lhs.destination == rhs.destination && lhs.deleteRule == rhs.deleteRule && lhs.inverseName == rhs.inverseName
                && lhs.isToOneRelationship == rhs.isToOneRelationship && lhs.minimumModelCount == rhs.minimumModelCount
                && lhs.maximumModelCount == rhs.maximumModelCount && lhs.originalName == rhs.originalName
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(destination)
        }

        /// What deleting a model does to the models its relationship refers to (Core Data's delete rules).
        public enum DeleteRule: String, Hashable, Codable, Sendable {
            /// They stay; they stop referring back (the default).
            case nullify
            /// They are deleted too.
            case cascade
            /// The deletion fails to save while the relationship refers to any.
            case deny
            /// Nothing is done to them.
            case noAction
        }

        /// Relationship options.
        public struct Option: Hashable, Sendable {
            let name: String
            /// No two models refer to the same destination through this relationship.
            public static let unique = Option(name: "unique")
        }
    }
}
