@_spi(OpenSwiftData) import OpenCoreDataSupport

/// The variable names a migration's expressions can use (Apple's constants).
public let NSMigrationManagerKey = "manager"
/// The variable holding the source instance in a property mapping's value expression.
public let NSMigrationSourceObjectKey = "source"
/// The variable holding the destination instance.
public let NSMigrationDestinationObjectKey = "destination"
/// The variable holding the current entity mapping.
public let NSMigrationEntityMappingKey = "entityMapping"
/// The variable holding the current property mapping.
public let NSMigrationPropertyMappingKey = "propertyMapping"
/// The variable holding the entity migration policy.
public let NSMigrationEntityPolicyKey = "entityPolicy"

/// Customises how one entity mapping migrates its instances. Subclass it and override the stages; name the
/// subclass in the mapping (`entityMigrationPolicyClassName`) and register it under that name, since Linux
/// cannot look classes up by name:
/// ```swift
/// final class Country5ToCountry6Policy: NSEntityMigrationPolicy {
///     override func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping,
///                                       manager: NSMigrationManager) throws {
///         try super.createRelationships(forDestination: dInstance, in: mapping, manager: manager)
///         // …
///     }
/// }
/// NSEntityMigrationPolicy.register(Country5ToCountry6Policy.self, forClassName: "Migrations.Country5ToCountry6Policy")
/// ```
open class NSEntityMigrationPolicy: NSObject {
    public required override init() { super.init() }

    private static let registry = Locked<[String: NSEntityMigrationPolicy.Type]>([:])

    /// Registers a policy class under the name mapping models use for it (Xcode writes `Module.ClassName`).
    public static func register(_ policyClass: NSEntityMigrationPolicy.Type, forClassName name: String) {
        registry.withLock { $0[name] = policyClass }
    }

    /// The policy class registered under `name` (also found by its unqualified name).
    static func policyClass(named name: String) -> NSEntityMigrationPolicy.Type? {
        registry.withLock { registry in
            if let found = registry[name] { return found }
            let unqualified = name.split(separator: ".").last.map(String.init) ?? name
            return registry.first { ($0.key.split(separator: ".").last.map(String.init) ?? $0.key) == unqualified }?.value
        }
    }

    /// Called before the mapping's instances are created.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Creates the destination instance of `sInstance`: a new object of the mapping's destination entity whose
    /// attributes are the values of the mapping's attribute expressions; associates the two.
    open func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        guard let destinationName = mapping.destinationEntityName else { return }
        let destination = NSEntityDescription.insertNewObject(forEntityName: destinationName, into: manager.destinationContext)
        for propertyMapping in mapping.attributeMappings ?? [] {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            let value = try manager.evaluate(expression, source: sInstance, destination: destination, entityMapping: mapping, propertyMapping: propertyMapping, policy: self)
            destination.setValue(destination.entity.attributesByName[name].map { Self.converted(value, to: $0.attributeType) } ?? value, forKey: name)
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Called after every instance of the mapping was created.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Sets the relationships of a destination instance from the mapping's relationship expressions,
    /// evaluated against its source instance.
    open func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        guard let sInstance = manager.sourceInstances(forEntityMappingName: mapping.name ?? "", destinationInstances: [dInstance]).first else { return }
        for propertyMapping in mapping.relationshipMappings ?? [] {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression,
                let relationship = dInstance.entity.relationshipsByName[name]
            else { continue }
            let value = try manager.evaluate(expression, source: sInstance, destination: dInstance, entityMapping: mapping, propertyMapping: propertyMapping, policy: self)
            let members = Self.objects(in: value)
            if relationship.isToMany {
                if relationship.isOrdered {
                    dInstance.mutableOrderedSetValue(forKey: name).addObjects(from: members)
                } else {
                    dInstance.mutableSetValue(forKey: name).addObjects(from: members)
                }
            } else {
                dInstance.setValue(members.first, forKey: name)
            }
        }
    }

    /// Called after every relationship of the mapping was created.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called before the destination is validated and saved.
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called when the mapping is done.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// A value converted to an attribute type a lightweight migration can change it to (numbers ↔ strings,
    /// strings ↔ URIs); other values are returned as they are.
    static func converted(_ value: Any?, to type: NSAttributeType) -> Any? {
        guard let value, !ValueConversion.isNull(value) else { return nil }
        switch type {
        case .stringAttributeType:
            if let url = value as? URL { return url.absoluteString }
            if value is String { return value }
            if let number = PredicateNumber(value) {
                let double = number.doubleValue
                return double == double.rounded() && abs(double) < 1e15 ? String(Int64(double)) : String(double)
            }
            return value
        case .URIAttributeType:
            if let text = value as? String { return URL(string: text) }
            return value
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            if let text = value as? String { return Int64(text.trimmingCharacters(in: .whitespaces)).map { NSNumber(value: $0) } ?? Double(text).map { NSNumber(value: Int64($0)) } }
            return value
        case .doubleAttributeType, .floatAttributeType, .decimalAttributeType:
            if let text = value as? String { return Double(text.trimmingCharacters(in: .whitespaces)).map { NSNumber(value: $0) } }
            return value
        default:
            return value
        }
    }

    /// The managed objects in an expression's value (one object, an array, a set or an ordered set).
    static func objects(in value: Any?) -> [NSManagedObject] {
        switch value {
        case let object as NSManagedObject: return [object]
        case let array as [Any]: return array.compactMap { $0 as? NSManagedObject }
        case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
        case let set as Set<NSManagedObject>: return Array(set)
        case let ordered as NSOrderedSet: return ordered.array.compactMap { $0 as? NSManagedObject }
        default: return []
        }
    }
}
