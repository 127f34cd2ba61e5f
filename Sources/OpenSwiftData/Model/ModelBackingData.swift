import Foundation
import OpenCoreData

/// What the framework reads of any model's backing data, whatever model class it was made for (a model inheriting
/// from another has the backing data of the class its instance was made by).
protocol ModelStorage: AnyObject {
    var managedObject: NSManagedObject? { get }
    var context: ModelContext? { get }
    var hasPendingValues: Bool { get }
    func takePendingValues() -> [String: Any]
    /// Takes `values` (a subclass initializer's): written to the object once inserted, else kept until then.
    func receive(_ values: [String: Any], layout: ModelLayout)
    func attach(to object: NSManagedObject, in context: ModelContext) -> [String: Any]
}

/// The backing data of every model instance: its own values until it is inserted, then the `NSManagedObject` of its
/// row in the inserting context, through which each property is read and written (the Core Data object graph does the
/// change tracking, inverse relationships, undo and saving).
///
/// ```swift
/// let trip = Trip(name: "Lisbon")        // values kept here
/// context.insert(trip)                   // moved into the context's object
/// (trip.persistentBackingData.metadata as? NSManagedObject)?.value(forKey: "name")   // "Lisbon"
/// ```
public final class ModelBackingData<Model: PersistentModel>: BackingData, ModelStorage {
    /// The values of an instance not inserted yet, by property name (models for relationships).
    private(set) var pendingValues: [String: Any] = [:]
    /// The object of the instance's row once inserted or fetched.
    private(set) var managedObject: NSManagedObject?
    /// The context the instance belongs to (kept alive by its models, as the models' values live in it).
    private(set) var context: ModelContext?
    private var identifier: PersistentIdentifier?

    public init(for modelType: Model.Type) {}

    /// Backing data over a context's object (a fetched or inserted row).
    init(object: NSManagedObject, context: ModelContext) {
        managedObject = object
        self.context = context
    }

    public var persistentModelID: PersistentIdentifier? {
        get { identifier ?? managedObject.map { PersistentIdentifier($0.objectID) } }
        set { identifier = newValue }
    }

    public var metadata: Any { managedObject ?? pendingValues }

    public func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value {
        let property = ModelLayout.property(for: key, of: Model.self)
        if let managedObject, let context {
            return ModelValues.read(property, of: managedObject, in: context, as: Value.self)
        }
        if let value = pendingValues[property.name] { return ModelValues.cast(value, to: Value.self, property: property) }
        return ModelValues.emptyValue(of: Value.self, property: property)
    }

    public func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        let property = ModelLayout.property(for: key, of: Model.self)
        if let managedObject, let context {
            ModelValues.write(newValue, to: property, of: managedObject, in: context)
        } else {
            pendingValues[property.name] = newValue
        }
    }

    var hasPendingValues: Bool { !pendingValues.isEmpty }

    func takePendingValues() -> [String: Any] {
        defer { pendingValues = [:] }
        return pendingValues
    }

    func receive(_ values: [String: Any], layout: ModelLayout) {
        if let managedObject, let context {
            for property in layout.properties {
                guard let value = values[property.name] else { continue }
                ModelValues.write(value, to: property, of: managedObject, in: context)
            }
        } else {
            pendingValues.merge(values) { _, new in new }
        }
    }

    /// Moves the instance's values into `object` of `context` (on insertion); returns the pending values so the
    /// context can write them once the instance is registered.
    func attach(to object: NSManagedObject, in context: ModelContext) -> [String: Any] {
        managedObject = object
        self.context = context
        identifier = nil
        defer { pendingValues = [:] }
        return pendingValues
    }
}
