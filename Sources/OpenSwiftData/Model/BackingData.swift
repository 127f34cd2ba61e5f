import Foundation

/// Where a model instance's values live (SwiftData's `BackingData`): `@Model` properties read and write through it.
///
/// A new instance has its own storage; inserting it into a ``ModelContext`` moves its values into the context's
/// object for the row, and instances a fetch returns are made over that object (``PersistentModel/init(backingData:)``).
///
/// ```swift
/// let backing = trip.persistentBackingData
/// backing.getValue(forKey: \Trip.name)
/// ```
public protocol BackingData<Model> {
    /// The model class whose values this holds.
    associatedtype Model: PersistentModel

    /// Empty storage for a new instance of `modelType`.
    init(for modelType: Model.Type)

    /// The identifier of the row, once the instance is inserted into a context (nil before).
    var persistentModelID: PersistentIdentifier? { get set }

    /// What the storage is: the values of a new instance, or the object of its context (an `NSManagedObject`).
    var metadata: Any { get }

    /// The value of the persisted property at `key`.
    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value

    /// Sets the persisted property at `key`.
    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value)
}
