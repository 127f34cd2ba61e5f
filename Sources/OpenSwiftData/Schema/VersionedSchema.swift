import Foundation

/// One version of an app's models (SwiftData's `VersionedSchema`): its version number and its model classes,
/// usually nested in the enum that conforms.
///
/// ```swift
/// enum TripsV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///     @Model final class Trip { var name: String; init(name: String) { self.name = name } }
/// }
/// let schema = Schema(versionedSchema: TripsV1.self)
/// ```
public protocol VersionedSchema: SendableMetatype {
    /// The version number.
    static var versionIdentifier: Schema.Version { get }
    /// The model classes of this version.
    static var models: [any PersistentModel.Type] { get }
}
