import Foundation
import OpenCoreData

/// The snapshot most ``DataStore``s use (SwiftData's `DefaultSnapshot`): a model's identifier and the value of each of
/// its persisted properties, as Core Data keeps them — relationships as their models' identifiers. `Codable`, so a
/// store can keep snapshots as they are (as JSON, say), and they decode without the schema.
///
/// ```swift
/// let data = try JSONEncoder().encode(Array(snapshots.values))
/// let back = try JSONDecoder().decode([DefaultSnapshot].self, from: data)
/// ```
public struct DefaultSnapshot: DataStoreSnapshot {
    /// The identifier of the model the values are of.
    public let persistentIdentifier: PersistentIdentifier
    /// The value of each persisted property, by name.
    let values: [String: SnapshotValue]

    init(persistentIdentifier: PersistentIdentifier, values: [String: SnapshotValue]) {
        self.persistentIdentifier = persistentIdentifier
        self.values = values
    }

    /// The values of the model `backingData` holds (its context's object's): every persisted attribute, and the
    /// identifiers of each relationship's models.
    public init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData]) {
        guard let object = (backingData as? any ModelStorage)?.managedObject else {
            // An instance never inserted has no stored values yet.
            self.init(persistentIdentifier: backingData.persistentModelID
                      ?? PersistentIdentifier(unsavedModelOf: ObjectIdentifier(backingData as AnyObject), entityName: ""), values: [:])
            return
        }
        self.init(object)
        relatedBackingDatas[persistentIdentifier] = backingData
    }

    /// The values of a context's object.
    init(_ object: NSManagedObject) {
        var values: [String: SnapshotValue] = [:]
        for (name, attribute) in object.entity.attributesByName where !attribute.isTransient {
            values[name] = SnapshotValue(attributeValue: object.value(forKey: name), of: attribute)
        }
        for (name, relationship) in object.entity.relationshipsByName where !relationship.isTransient {
            let value = object.value(forKey: name)
            if relationship.isToMany {
                let members = (value as? NSSet)?.allObjects ?? (value as? NSOrderedSet)?.array ?? []
                values[name] = .models(members.compactMap { ($0 as? NSManagedObject).map { PersistentIdentifier($0.objectID) } }.sorted())
            } else {
                values[name] = (value as? NSManagedObject).map { .model(PersistentIdentifier($0.objectID)) } ?? .null
            }
        }
        persistentIdentifier = PersistentIdentifier(object.objectID)
        self.values = values
    }

    /// These values with `other`'s over them (a store's snapshot may carry only some properties).
    func merging(_ other: DefaultSnapshot) -> DefaultSnapshot {
        DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values.merging(other.values) { _, new in new })
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        persistentIdentifier = try container.decode(PersistentIdentifier.self, forKey: .persistentIdentifier)
        var values: [String: SnapshotValue] = [:]
        for key in container.allKeys {
            guard case .modeledProperty(let name) = key else { continue }
            values[name] = try container.decode(SnapshotValue.self, forKey: key)
        }
        self.values = values
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        try container.encode(persistentIdentifier, forKey: .persistentIdentifier)
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            try container.encode(value, forKey: .modeledProperty(name))
        }
    }

    /// The same values under `persistentIdentifier`, with the relationship identifiers `remappedIdentifiers` maps
    /// replaced.
    ///
    /// ```swift
    /// stored[permanentID] = snapshot.copy(persistentIdentifier: permanentID, remappedIdentifiers: remapped)
    /// ```
    public func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]? = [:]) -> DefaultSnapshot {
        guard let remappedIdentifiers, !remappedIdentifiers.isEmpty else {
            return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values)
        }
        return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values.mapValues { $0.remapping(remappedIdentifiers) })
    }
}
