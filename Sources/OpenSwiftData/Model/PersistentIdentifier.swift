import Foundation
import OpenCoreData

/// The identity of a model's row (SwiftData's `PersistentIdentifier`): `Sendable` and `Codable`, so it crosses actors
/// and processes; a context gives back its model with ``ModelContext/model(for:)``.
///
/// An inserted instance has a temporary identifier until its context saves it. Identifiers compare by the row's
/// URI (`x-coredata://<store>/<Entity>/p<key>`), as Core Data's object IDs do.
///
/// ```swift
/// try context.save()
/// let id = trip.persistentModelID
/// let data = try JSONEncoder().encode(id)
/// let same = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
/// context.model(for: same) as? Trip   // the same trip
/// ```
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable {
    private enum Storage: Hashable, Sendable {
        /// A row (or an inserted object) of a context.
        case object(NSManagedObjectID)
        /// Decoded from its URI: resolved by the context that looks it up.
        case uri(URL, entityName: String)
        /// An instance never inserted (unique while it lives).
        case unsaved(ObjectIdentifier, entityName: String)
    }

    private let storage: Storage

    init(_ objectID: NSManagedObjectID) { storage = .object(objectID) }

    private init(storage: Storage) { self.storage = storage }

    init(unsavedModelOf instance: ObjectIdentifier, entityName: String) {
        storage = .unsaved(instance, entityName: entityName)
    }

    /// The Core Data object ID, when known (not for a decoded identifier nor an instance never inserted).
    var objectID: NSManagedObjectID? {
        if case .object(let objectID) = storage { return objectID }
        return nil
    }

    /// The row's URI, for an identifier of a row or an inserted instance.
    var uriRepresentation: URL? {
        switch storage {
        case .object(let objectID): objectID.uriRepresentation()
        case .uri(let url, _): url
        case .unsaved: nil
        }
    }

    /// The name of the model's entity (its class name).
    public var entityName: String {
        switch storage {
        case .object(let objectID): objectID.entity.name ?? ""
        case .uri(_, let entityName), .unsaved(_, let entityName): entityName
        }
    }

    /// The identifier of the store that holds the row (nil for an instance never saved).
    public var storeIdentifier: String? {
        if isTemporary { return nil }
        if case .object(let objectID) = storage, let adapter = objectID.persistentStore as? DataStoreAdapter {
            return adapter.dataStore.identifier
        }
        guard let host = uriRepresentation?.host else { return nil }
        return host.removingPercentEncoding ?? host
    }

    /// Whether the identifier is temporary: the instance has not been saved.
    public var isTemporary: Bool {
        switch storage {
        case .object(let objectID): objectID.isTemporaryID || DataStoreAdapter.isProvisional(objectID)
        case .uri(let url, _): url.lastPathComponent.hasPrefix("t")
        case .unsaved: true
        }
    }

    /// The identifier a custom ``DataStore`` gives a model it saves: its store's identifier, the model's entity name
    /// and the store's key for the model (a `UUID`, a number or a string, say — told apart by its description).
    ///
    /// ```swift
    /// let id = try PersistentIdentifier.identifier(for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: UUID())
    /// ```
    public static func identifier<T>(for storeIdentifier: String, entityName: String, primaryKey: T) throws -> PersistentIdentifier
        where T: Comparable & CustomStringConvertible & Codable & Hashable {
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
        let host = storeIdentifier.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed)
        let entity = entityName.addingPercentEncoding(withAllowedCharacters: allowed)
        let key = primaryKey.description.addingPercentEncoding(withAllowedCharacters: allowed)
        guard !storeIdentifier.isEmpty, !entityName.isEmpty, let host, let entity, let key,
              let url = URL(string: "x-coredata://\(host)/\(entity)/s\(key)") else {
            throw SwiftDataError(.loadIssueModelContainer, "'\(storeIdentifier)', '\(entityName)' and '\(primaryKey)' do not make a persistent identifier.")
        }
        return PersistentIdentifier(storage: .uri(url, entityName: entityName))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs.storage, rhs.storage) {
        // The same row seen through two containers (two coordinators) has two object IDs and one URI.
        case (.object(let a), .object(let b)): a == b || (!a.isTemporaryID && a.uriRepresentation() == b.uriRepresentation())
        case (.unsaved(let a, _), .unsaved(let b, _)): a == b
        case (.unsaved, _), (_, .unsaved): false
        default: lhs.uriRepresentation == rhs.uriRepresentation
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .unsaved(let instance, _): hasher.combine(instance)
        default: hasher.combine(uriRepresentation)
        }
    }

    /// Orders by entity name, then by URI (stable for rows of one store).
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.entityName, lhs.uriRepresentation?.absoluteString ?? "") < (rhs.entityName, rhs.uriRepresentation?.absoluteString ?? "")
    }

    private enum CodingKeys: String, CodingKey { case uri, entityName }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storage = .uri(try container.decode(URL.self, forKey: .uri), entityName: try container.decode(String.self, forKey: .entityName))
    }

    /// Encodes the row's URI and entity name; an instance never inserted has neither, and throws.
    public func encode(to encoder: any Encoder) throws {
        guard let uri = uriRepresentation else {
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath,
                                                         debugDescription: "A model that was never inserted into a context has no persistent identifier to encode."))
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uri, forKey: .uri)
        try container.encode(entityName, forKey: .entityName)
    }
}

/// In a converted `#Predicate`, an identifier compares as the row's object ID (`$0.persistentModelID == id`,
/// `$0.trip?.persistentModelID == id`).
/// A decoded identifier compares as the object ID its URI names in a live container's store.
extension PersistentIdentifier: _PredicateConstantValue {
    public var _predicateConstantValue: Any? {
        objectID ?? uriRepresentation.flatMap { StoreDirectory.shared.objectID(for: $0) } ?? uriRepresentation
    }
}
