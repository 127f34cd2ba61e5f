import Foundation
import Observation
import OpenCoreData

/// A class whose instances SwiftData stores: what the `@Model` macro makes of a class.
///
/// The macro writes the requirements: the backing data that holds the values, the schema metadata that lists the
/// persisted properties, and `init(backingData:)`, with which a context makes model instances for fetched rows.
///
/// ```swift
/// @Model final class Trip {
///     var name: String
///     init(name: String) { self.name = name }
/// }
/// let trip = Trip(name: "Lisbon")
/// context.insert(trip)
/// trip.persistentModelID   // the identifier of its row (temporary until saved)
/// ```
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable, KeyPathComponentNaming, PredicateEntityNaming, SendableMetatype {
    /// Makes a model instance over existing backing data (a fetched row).
    init(backingData: any BackingData<Self>)
    /// Where the instance's values live: its own storage until inserted, then its context's object.
    var persistentBackingData: any BackingData<Self> { get set }
    /// The persisted properties, in declaration order (written by `@Model`).
    static var schemaMetadata: [Schema.PropertyMetadata] { get }
    /// The key paths of each `#Unique` constraint (written by `#Unique`; none by default).
    static var _$uniquenessConstraints: [[AnyKeyPath]] { get }
    /// The key paths of each `#Index` (written by `#Index`; none by default).
    static var _$indices: [[AnyKeyPath]] { get }
    /// Moves the values a subclass's initializer set before its superclass's was called into the backing data
    /// (written by `@Model` for models other models inherit from; nothing to do by default).
    func _$moveSubclassValues()
}

extension PersistentModel {
    public static var _$uniquenessConstraints: [[AnyKeyPath]] { [] }
    public static var _$indices: [[AnyKeyPath]] { [] }
    public func _$moveSubclassValues() {}

    /// The backing data for a new instance of `P` (its values are kept in the instance until it is inserted).
    ///
    /// ```swift
    /// private var _$backingData: any BackingData<Trip> = Trip.createBackingData()   // as @Model writes it
    /// ```
    public static func createBackingData<P: PersistentModel>() -> some BackingData<P> {
        ModelBackingData<P>(for: P.self)
    }

    /// The identifier of the instance's row: temporary until its context saves it, then permanent.
    ///
    /// ```swift
    /// try context.save()
    /// let id = trip.persistentModelID   // Sendable: hand it to another actor, then `context.model(for: id)`
    /// ```
    public var persistentModelID: PersistentIdentifier {
        persistentBackingData.persistentModelID ?? PersistentIdentifier(unsavedModelOf: ObjectIdentifier(self), entityName: Schema.entityName(of: Self.self))
    }

    /// The identity of the instance (its ``persistentModelID``), for `Identifiable`.
    public var id: PersistentIdentifier { persistentModelID }

    /// The context the instance is inserted into, or nil.
    public var modelContext: ModelContext? {
        (persistentBackingData as? any ModelStorage)?.context
    }

    /// Whether the instance has unsaved changes (an unsaved insertion counts).
    public var hasChanges: Bool {
        (persistentBackingData as? any ModelStorage)?.managedObject?.hasChanges ?? false
    }

    /// Whether the instance was deleted from its context (and the deletion not saved yet), or deleted by a save.
    public var isDeleted: Bool {
        guard let object = (persistentBackingData as? any ModelStorage)?.managedObject else { return false }
        return object.isDeleted || (object.managedObjectContext == nil && !object.objectID.isTemporaryID)
    }

    /// The value of a persisted property (what the `@Model` getters call).
    ///
    /// ```swift
    /// trip.getValue(forKey: \.name)
    /// ```
    public func getValue<Value>(forKey key: KeyPath<Self, Value>) -> Value {
        _$moveSubclassValues()
        return persistentBackingData.getValue(forKey: key)
    }

    /// Sets a persisted property (what the `@Model` setters call).
    ///
    /// ```swift
    /// trip.setValue(forKey: \.name, to: "Porto")
    /// ```
    public func setValue<Value>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        _$moveSubclassValues()
        persistentBackingData.setValue(forKey: key, to: newValue)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // KeyPathComponentNaming: predicates and sort descriptors name key paths from the schema metadata.

    public static var namedKeyPaths: [AnyKeyPath] { schemaMetadata.map(\.keypath) }

    /// The entity `is` checks in predicates test for (`#Predicate { $0 is BusinessTrip }`): the class's.
    public static var predicateEntityName: String { Schema.entityName(of: Self.self) }

    /// The key-value coding name of a persisted property's key path; `persistentModelID` is the object itself (`self`).
    public static func keyPathString(for keyPath: AnyKeyPath) -> String? {
        if keyPath == \Self.persistentModelID { return "self" }
        return ModelLayout.of(Self.self).propertiesByKeyPath[keyPath]?.name
    }
}

/// Moves the values a subclass's initializer kept in `holder` (its own backing data, as the superclass's storage is
/// not reachable before `super.init`) into `model`'s backing data (what `@Model` writes for subclasses; not for
/// direct use).
public func _moveSubclassValues(from holder: Any, into model: some PersistentModel) {
    guard let holder = holder as? any ModelStorage, holder.hasPendingValues, let storage = model.persistentBackingData as? any ModelStorage,
          storage !== holder
    else { return }
    storage.receive(holder.takePendingValues(), layout: ModelLayout.of(type(of: model)))
}

/// The stored-property placeholder `@Model` gives each persisted property (its value lives in the backing data).
public struct _SwiftDataNoType: Sendable {
    public init() {}
}
