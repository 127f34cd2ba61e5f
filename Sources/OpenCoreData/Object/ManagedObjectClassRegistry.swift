import Synchronization
@_spi(OpenSwiftData) import OpenCoreDataSupport

/// Finds the `NSManagedObject` subclass of an entity (from its `managedObjectClassName`) and the entity of a
/// subclass. Model files carry class names without a reliable module, so the lookup tries, in order: classes
/// registered with `NSManagedObjectModel.registerManagedObjectClasses(_:)`, `NSClassFromString` with the name
/// as written, and `NSClassFromString("<module>.<name>")` for the registered modules and the main executable.
enum ManagedObjectClassRegistry {
    private struct State {
        /// Registered classes by their qualified and unqualified names.
        var classesByName: [String: NSManagedObject.Type] = [:]
        /// Module names to try for unqualified class names.
        var moduleNames: [String] = []
        /// Resolved classes per entity. Keyed by the entity's address, so the entity is kept (weakly) to tell it from a
        /// later entity at the same address once a model has gone away.
        var classByEntity: [ObjectIdentifier: CachedClass] = [:]
        /// Models in use (frozen), for `entity()`.
        var models: [WeakModel] = []
        /// `entity(for:in:)` answers for a model given, by class: (class, weakly held model, entity).
        var entityByClass: [ObjectIdentifier: [CachedEntity]] = [:]
    }

    private struct CachedClass {
        weak var entity: NSEntityDescription?
        let objectClass: NSManagedObject.Type
    }

    private struct CachedEntity {
        weak var model: NSManagedObjectModel?
        let entity: NSEntityDescription
    }

    private struct WeakModel {
        weak var model: NSManagedObjectModel?
    }

    private static let state = Locked(State())

    /// Changes whenever a registration may change an entity's class: what a context's ``FaultClassCache`` compares
    /// its answer's generation with.
    static let generation = Atomic<Int>(0)

    /// Registers classes so entities whose `managedObjectClassName` names them use them.
    static func register(_ classes: [NSManagedObject.Type]) {
        state.withLock { state in
            for objectClass in classes {
                let qualified = String(reflecting: objectClass)
                state.classesByName[qualified] = objectClass
                state.classesByName[unqualified(qualified)] = objectClass
                if let module = qualified.split(separator: ".").first.map(String.init), !state.moduleNames.contains(module) {
                    state.moduleNames.append(module)
                }
            }
            state.classByEntity.removeAll()
            generation.add(1, ordering: .releasing)
        }
    }

    /// Records a model as in use (called when a model is frozen).
    static func noteModelInUse(_ model: NSManagedObjectModel) {
        state.withLock { state in
            state.models.removeAll { $0.model == nil || $0.model === model }
            state.models.append(WeakModel(model: model))
        }
    }

    /// The class of `entity`'s objects (`NSManagedObject` when the class cannot be found, as Apple does).
    static func managedObjectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        let key = ObjectIdentifier(entity)
        if let cached = state.withLock({ $0.classByEntity[key] }), cached.entity === entity { return cached.objectClass }
        let resolved = resolve(entity.managedObjectClassName ?? "NSManagedObject", entity: entity)
        state.withLock { state in
            if state.classByEntity.count >= 4_096 { state.classByEntity = state.classByEntity.filter { $0.value.entity != nil } }
            state.classByEntity[key] = CachedClass(entity: entity, objectClass: resolved)
        }
        return resolved
    }

    private static func resolve(_ name: String, entity: NSEntityDescription) -> NSManagedObject.Type {
        if name == "NSManagedObject" || name.isEmpty { return NSManagedObject.self }
        let (registered, modules) = state.withLock { ($0.classesByName, $0.moduleNames) }
        if let found = registered[name] ?? registered[unqualified(name)] { return found }
        var candidates = [name]
        let executableModule = Bundle.main.executableURL?.deletingPathExtension().lastPathComponent
            .replacingOccurrences(of: "-", with: "_")
        for module in modules + [executableModule].compactMap({ $0 }) {
            candidates.append("\(module).\(unqualified(name))")
        }
        for candidate in candidates {
            if let found = NSClassFromString(candidate) as? NSManagedObject.Type { return found }
        }
        return NSManagedObject.self
    }

    /// The entity whose class is `objectClass`, in `model` or (when nil) in the models in use.
    static func entity(for objectClass: AnyClass, in model: NSManagedObjectModel?) -> NSEntityDescription? {
        // `Item(context:)` asks once per object: a model's answer is kept (the model is frozen once in use).
        guard let model, model.isFrozen else { return lookUpEntity(for: objectClass, in: model) }
        let key = ObjectIdentifier(objectClass)
        let cached = state.withLock { state in state.entityByClass[key]?.first { $0.model === model }?.entity }
        if let cached { return cached }
        guard let entity = lookUpEntity(for: objectClass, in: model) else { return nil }
        state.withLock { state in
            state.entityByClass[key, default: []].removeAll { $0.model == nil }
            state.entityByClass[key, default: []].append(CachedEntity(model: model, entity: entity))
        }
        return entity
    }

    private static func lookUpEntity(for objectClass: AnyClass, in model: NSManagedObjectModel?) -> NSEntityDescription? {
        let qualified = String(reflecting: objectClass)
        let short = unqualified(qualified)
        let models = model.map { [$0] } ?? state.withLock { $0.models.compactMap(\.model) }.reversed()
        for model in models {
            let entities = model.entities
            if let exact = entities.first(where: { $0.managedObjectClassName == qualified }) { return exact }
            if let match = entities.first(where: { $0.managedObjectClassName.map(unqualified) == short }) { return match }
        }
        return nil
    }

    /// The class name without its module prefix.
    static func unqualified(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }
}

extension NSManagedObjectModel {
    /// Registers your `NSManagedObject` subclasses, so entities whose class name (`representedClassName` in
    /// the model file) names them are instantiated as those classes. Needed when the class lives in a module
    /// other than the main executable's (Linux has no Objective-C runtime to look classes up by name).
    ///
    /// For example:
    /// ```swift
    /// NSManagedObjectModel.registerManagedObjectClasses([Mood.self, Country.self, Continent.self])
    /// ```
    public static func registerManagedObjectClasses(_ classes: [NSManagedObject.Type]) {
        ManagedObjectClassRegistry.register(classes)
    }
}

/// The class of the faults a context makes, kept for the entity it made one for last: the class registry's answer
/// takes a lock and a hash look-up, about 3 % of a fetch when paid per fault. Checked against the registry's
/// ``ManagedObjectClassRegistry/generation``, so a registration made since is seen.
///
/// Each context has its own, used only on the context's queue (hence the unchecked field).
final class FaultClassCache {
    @exclusivity(unchecked) private var last: (entity: NSEntityDescription, generation: Int, objectClass: NSManagedObject.Type)?
    /// Whether the context makes plain `NSManagedObject`s whatever the entity's class (the migration manager's
    /// contexts: Apple's migration works on instances of `NSManagedObject`, not of the app's subclasses).
    @exclusivity(unchecked) var makesPlainObjects = false

    /// The class of `entity`'s objects (``ManagedObjectClassRegistry/managedObjectClass(for:)``).
    func objectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        if makesPlainObjects { return NSManagedObject.self }
        let generation = ManagedObjectClassRegistry.generation.load(ordering: .acquiring)
        if let last, last.entity === entity, last.generation == generation { return last.objectClass }
        let objectClass = ManagedObjectClassRegistry.managedObjectClass(for: entity)
        last = (entity, generation, objectClass)
        return objectClass
    }
}
