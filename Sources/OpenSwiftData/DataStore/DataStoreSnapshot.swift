import Foundation

/// The values of one model at a point in time, as a ``DataStore`` receives and returns them (SwiftData's
/// `DataStoreSnapshot`): `Codable` and `Sendable`, identified by the model's ``PersistentIdentifier``.
///
/// ``DefaultSnapshot`` serves most stores. A store with its own snapshot type makes it from a model's backing data
/// (reading each property with `getValue(forKey:)`), and encodes it with ``DataStoreSnapshotCodingKey``: the
/// identifier under `.persistentIdentifier`, each property's value under `.modeledProperty(name)` — a relationship as
/// the `PersistentIdentifier` (to-one) or `[PersistentIdentifier]` (to-many) of its models. That encoding is how a
/// context reads the values of any snapshot type (DEVIATIONS.md SD17).
///
/// ```swift
/// let copy = snapshot.copy(persistentIdentifier: permanentID, remappedIdentifiers: remapped)
/// ```
public protocol DataStoreSnapshot: Codable, Sendable {
    /// The identifier of the model the values are of.
    var persistentIdentifier: PersistentIdentifier { get }
    /// The values of the model `backingData` holds. `relatedBackingDatas` collects the backing data of models the
    /// snapshot refers to, by identifier.
    init(from: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData])
    /// The same values under `persistentIdentifier`, with references to the models `remappedIdentifiers` maps
    /// (temporary identifiers of models inserted by the same save) replaced by their new identifiers.
    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?) -> Self
}

/// The keys snapshots are encoded with (SwiftData's `DataStoreSnapshotCodingKey`): the model's identifier, and each
/// modeled property by name.
///
/// ```swift
/// var container = encoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
/// try container.encode(persistentIdentifier, forKey: .persistentIdentifier)
/// try container.encode(name, forKey: .modeledProperty("name"))
/// ```
public enum DataStoreSnapshotCodingKey: CodingKey, CustomStringConvertible, Sendable, Hashable {
    /// The key of the model's ``PersistentIdentifier``.
    case persistentIdentifier
    /// The key of the value of the modeled property with this name.
    case modeledProperty(String)

    /// The string the identifier's key is spelled with (a property of that name would be spelled the same: models
    /// have no such property, as `persistentModelID` is not a stored one).
    private static let identifierKey = "persistentIdentifier"

    public var stringValue: String {
        switch self {
        case .persistentIdentifier: Self.identifierKey
        case .modeledProperty(let name): name
        }
    }

    public init?(stringValue: String) {
        self = stringValue == Self.identifierKey ? .persistentIdentifier : .modeledProperty(stringValue)
    }

    public var intValue: Int? { nil }

    public init?(intValue: Int) { nil }

    public var description: String { stringValue }
}

/// What a snapshot's values are (SwiftData's `DataStoreSnapshotValue`): `Codable` and `Sendable`.
public typealias DataStoreSnapshotValue = Codable & Sendable
