import Foundation
import OpenCoreData

/// Inserts, fetches, changes, deletes and saves models (SwiftData's `ModelContext`), over a Core Data context on the
/// container's coordinator: Core Data tracks the changes, keeps relationships' other sides, applies delete rules and
/// uniqueness constraints (an insert of a model with a `.unique` value equal to a stored one updates that one), and
/// saves in one transaction.
///
/// Not `Sendable`: use a context on the thread or actor that made it (`mainContext` on the main actor, a
/// `@ModelActor`'s context in its actor), and pass ``PersistentIdentifier``s between them.
///
/// ```swift
/// let context = ModelContext(container)
/// let trip = Trip(name: "Lisbon")
/// context.insert(trip)
/// try context.save()
/// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
/// ```
public final class ModelContext: Hashable {
    /// The container the context works on.
    public let container: ModelContainer
    /// The Core Data context underneath.
    let managedObjectContext: NSManagedObjectContext
    /// The model instance of each object of this context that has one alive.
    private var models: [ObjectIdentifier: WeakModel] = [:]
    private var modelCountAfterPurge = 0
    /// Other contexts' saves not merged yet.
    let inbox = SaveInbox()
    /// Where this context's autosave runs: where the context is used — the main actor for the main context and for
    /// a context made on the main thread, a model actor's queue for its context; nowhere for others.
    var autosaveRunner: AutosaveRunner = .none
    private var autosaveScheduled = false
    /// The results observers over this context (told after each change event), and whether an event is scheduled.
    var changeObservers = ContextChangeObservers()
    /// The context's identity to a custom data store (``editingState``).
    let editingStateID = UUID()
    /// The descriptor of the fetch in progress, lent to a custom data store's adapter.
    var lentDescriptor: Any?

    /// Whether the context saves by itself after changes (false by default; true for the container's `mainContext`).
    ///
    /// A change schedules a save where the context is used — on the main actor for the main context (and any context
    /// made on the main thread), on a `@ModelActor`'s executor for its context — so a burst of changes is saved once,
    /// after the code making them returns (DEVIATIONS.md SD2: a context made elsewhere has no such place, and does not
    /// autosave).
    ///
    /// ```swift
    /// container.mainContext.insert(Trip(name: "Lisbon"))   // saved on the main actor's next turn
    /// ```
    public var autosaveEnabled = false

    /// A context on `container`'s store, used where it is made (`isolation`: the caller's actor, found by the compiler).
    public init(_ container: ModelContainer, isolation: isolated (any Actor)? = #isolation) {
        self.container = container
        if Thread.isMainThread || isolation.map({ $0 === MainActor.shared }) == true { autosaveRunner = .mainActor }
        managedObjectContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        managedObjectContext.persistentStoreCoordinator = container.coordinator
        // Names the container's saves in the history, so that its feed of other writers' saves can skip them.
        managedObjectContext.name = container.contextName
        // An insert that collides with a stored model on a unique attribute updates that model (SwiftData's upsert).
        managedObjectContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        container.inboxes.add(inbox)
        registerForDataStore()
    }

    /// Merges the saves other contexts of the container made since this context last caught up: their rows are
    /// read again (this context's unsaved changes stay on top), their deletions leave it.
    func catchUp() {
        guard let saved = inbox.drain() else { return }
        managedObjectContext.mergeChanges(fromContextDidSave: Notification(name: .NSManagedObjectContextDidSave, object: nil, userInfo: [
            NSInsertedObjectIDsKey: saved.inserted, NSUpdatedObjectIDsKey: saved.updated, NSDeletedObjectIDsKey: saved.deleted,
        ]))
        changeObservers.tell()
    }

    deinit {
        unregisterForDataStore()
        if let token = changeObservers.notificationToken { NotificationCenter.default.removeObserver(token) }
    }

    public static func == (lhs: ModelContext, rhs: ModelContext) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The undo manager that records the context's changes (none by default): `undo()` reverts the last group of
    /// changes, as in Core Data.
    ///
    /// ```swift
    /// context.undoManager = UndoManager()
    /// trip.name = "Porto"
    /// context.processPendingChanges()
    /// context.undoManager?.undo()   // trip.name is back
    /// ```
    public var undoManager: UndoManager? {
        get { managedObjectContext.undoManager }
        set { managedObjectContext.undoManager = newValue }
    }

    // MARK: Changes

    /// Inserts `model` (and the models its relationships refer to that are not inserted yet); it is saved with the
    /// next `save()`. Inserting a model twice does nothing.
    ///
    /// ```swift
    /// context.insert(Trip(name: "Lisbon"))
    /// ```
    public func insert<T: PersistentModel>(_ model: T) {
        catchUp()
        // The model's class, which may inherit from T (its entity is then a subentity of T's).
        let type = Swift.type(of: model as any PersistentModel)
        model._$moveSubclassValues()
        guard let backing = model.persistentBackingData as? any ModelStorage else {
            preconditionFailure("\(type) has backing data of another kind; insert models made by their initializers.")
        }
        if let object = backing.managedObject {
            precondition(backing.context === self, "A model can be inserted into one context only; insert \(type) in its own context, or look it up by its persistentModelID.")
            if object.isDeleted { managedObjectContext.insert(object) }
            return
        }
        let entityName = Schema.entityName(of: type)
        guard let entity = container.coordinator.managedObjectModel.entitiesByName[entityName] else {
            preconditionFailure("\(type) is not in the container's schema; list it (or a model that refers to it) when making the container.")
        }
        noteChanged()
        let object = NSManagedObject(entity: entity, insertInto: managedObjectContext)
        let pending = backing.attach(to: object, in: self)
        register(model, for: object)
        for property in ModelLayout.of(type).properties {
            guard let value = pending[property.name] else { continue }
            ModelValues.write(value, to: property, of: object, in: self)
        }
    }

    /// Deletes `model`: the deletion is saved with the next `save()`, and the delete rules of its relationships apply.
    ///
    /// ```swift
    /// context.delete(trip)   // its stops go too with a cascade rule
    /// ```
    public func delete<T: PersistentModel>(_ model: T) {
        catchUp()
        guard let backing = model.persistentBackingData as? any ModelStorage, let object = backing.managedObject, backing.context === self else { return }
        noteChanged()
        managedObjectContext.delete(object)
    }

    /// Deletes every `model` the predicate matches (all of them when nil), with the next `save()`.
    ///
    /// ```swift
    /// try context.delete(model: Trip.self, where: #Predicate { $0.name == "" })
    /// ```
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        catchUp()
        let request: NSFetchRequest<NSManagedObject> = try FetchDescriptor<T>(predicate: predicate).fetchRequest(.managedObjectResultType)
        request.includesSubentities = includeSubclasses
        for object in try managedObjectContext.fetch(request) {
            noteChanged()
            managedObjectContext.delete(object)
        }
    }

    /// Whether there are unsaved insertions, changes or deletions.
    public var hasChanges: Bool {
        catchUp()
        return managedObjectContext.hasChanges
    }

    /// The models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { managedObjectContext.insertedObjects.map(model(for:)) }
    /// The models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { managedObjectContext.updatedObjects.map(model(for:)) }
    /// The models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { managedObjectContext.deletedObjects.map(model(for:)) }

    /// Saves the insertions, changes and deletions in one transaction. Throws Core Data's error (validation,
    /// conflicts, the store's) and keeps the changes when it fails.
    ///
    /// ```swift
    /// try context.save()
    /// ```
    public func save() throws {
        catchUp()
        guard managedObjectContext.hasChanges else { return }
        NotificationCenter.default.post(name: Self.willSave, object: self)
        let inserted = managedObjectContext.insertedObjects, updated = managedObjectContext.updatedObjects, deleted = managedObjectContext.deletedObjects
        let deletedIDs = deleted.map { PersistentIdentifier($0.objectID) }
        try managedObjectContext.save()
        container.inboxes.post(SavedChanges(inserted: Set(inserted.map(\.objectID)), updated: Set(updated.map(\.objectID)),
                                            deleted: Set(deleted.map(\.objectID))), from: inbox)
        container.mainContextCatchUp()
        NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: [
            NotificationKey.insertedIdentifiers.rawValue: inserted.map { PersistentIdentifier($0.objectID) },
            NotificationKey.updatedIdentifiers.rawValue: updated.map { PersistentIdentifier($0.objectID) },
            NotificationKey.deletedIdentifiers.rawValue: deletedIDs,
        ])
    }

    /// Discards the unsaved changes: inserted models leave the context, changed and deleted ones are as saved.
    public func rollback() {
        managedObjectContext.rollback()
    }

    /// Runs `block`, then saves; when `block` or the save throws, the changes are rolled back and the error rethrown.
    ///
    /// ```swift
    /// try context.transaction {
    ///     context.insert(Trip(name: "Porto"))
    ///     context.delete(old)
    /// }
    /// ```
    public func transaction(block: () throws -> Void) throws {
        do {
            try block()
            try save()
        } catch {
            rollback()
            throw error
        }
    }

    /// Finishes the current event: other contexts' saves are merged, delete rules and relationship changes are
    /// applied, and observers (``ResultsObserver``s over this context) told.
    ///
    /// ```swift
    /// context.insert(Trip(name: "Porto"))
    /// context.processPendingChanges()   // an observer of the context's trips has the new one
    /// ```
    public func processPendingChanges() {
        catchUp()
        managedObjectContext.processPendingChanges()
    }

    /// Schedules the autosave after a change (once per burst of changes), and the end of the event when results
    /// observers wait for it.
    func noteChanged() {
        if changeObservers.needsEventScheduled { scheduleEventEnd() }
        guard autosaveEnabled, !autosaveScheduled else { return }
        autosaveScheduled = autosaveRunner.later(UncheckedContext(context: self)) { $0.autosave() }
    }

    /// Where a context's autosave runs.
    enum AutosaveRunner {
        case mainActor, queue(DispatchQueue), none

        /// Runs `work` with the context later, where it is used; false (nothing scheduled) when it has no such place.
        func later(_ context: UncheckedContext, _ work: @escaping @Sendable (ModelContext) -> Void) -> Bool {
            switch self {
            case .mainActor: Task { @MainActor in context.context.map(work) }
            case .queue(let queue): queue.async { context.context.map(work) }
            case .none: return false
            }
            return true
        }
    }

    /// The context, handed to the place it is used anyway (its thread or actor's queue) to save there.
    struct UncheckedContext: @unchecked Sendable {
        // @unchecked Sendable: only ever read on the context's own thread or queue (AutosaveRunner).
        weak var context: ModelContext?
    }

    /// The autosave: saves the changes, if any. A failed autosave keeps them (`hasChanges` stays
    /// true) for the next `save()`, which throws the error, as Apple's autosave does not report it either.
    func autosave() {
        autosaveScheduled = false
        guard autosaveEnabled, managedObjectContext.hasChanges else { return }
        try? save()
    }

    // MARK: Models by identifier

    /// The model with `persistentModelID`: the registered one, else one over its row (read when first used).
    ///
    /// ```swift
    /// let trip = context.model(for: id) as? Trip
    /// ```
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        catchUp()
        guard let objectID = resolve(persistentModelID) else {
            preconditionFailure("\(persistentModelID) does not name a row of this context's stores.")
        }
        return model(for: managedObjectContext.object(with: objectID))
    }

    /// The model with `persistentModelID` if this context has it registered (nil otherwise, or if it is not a `T`).
    ///
    /// ```swift
    /// let trip: Trip? = context.registeredModel(for: id)
    /// ```
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        catchUp()
        guard let objectID = resolve(persistentModelID), let object = managedObjectContext.registeredObject(for: objectID) else { return nil }
        return model(for: object) as? T
    }

    /// The model with `persistentModelID` if its row exists (registered, or read from the store now); nil otherwise.
    func existingModel(for persistentModelID: PersistentIdentifier) -> (any PersistentModel)? {
        catchUp()
        guard let objectID = resolve(persistentModelID), let object = try? managedObjectContext.existingObject(with: objectID) else { return nil }
        return model(for: object)
    }

    private func resolve(_ identifier: PersistentIdentifier) -> NSManagedObjectID? {
        if let objectID = identifier.objectID { return objectID }
        return identifier.uriRepresentation.flatMap { container.coordinator.managedObjectID(forURIRepresentation: $0) }
    }

    // MARK: Objects and models

    /// The model of one of this context's objects (made on first use).
    func model(for object: NSManagedObject) -> any PersistentModel {
        if let model = models[ObjectIdentifier(object)]?.model as? any PersistentModel { return model }
        guard let type = container.schema.modelTypes[object.entity.name ?? ""] else {
            preconditionFailure("No model class in the schema has the entity \(object.entity.name ?? "?").")
        }
        let model = makeModel(type, over: object)
        register(model, for: object)
        return model
    }

    private func makeModel<M: PersistentModel>(_ type: M.Type, over object: NSManagedObject) -> M {
        M(backingData: ModelBackingData<M>(object: object, context: self))
    }

    /// The object of `model` in this context: its own, or (a model not inserted yet) the one inserting it makes.
    func managedObject<M: PersistentModel>(for model: M) -> NSManagedObject {
        guard let backing = model.persistentBackingData as? any ModelStorage else {
            preconditionFailure("\(M.self) has backing data of another kind.")
        }
        if let object = backing.managedObject {
            if backing.context === self { return object }
            precondition(!object.objectID.isTemporaryID, "A model of another context that was never saved cannot be related to one of this context.")
            return managedObjectContext.object(with: object.objectID)
        }
        insert(model)
        return backing.managedObject!
    }

    private func register(_ model: AnyObject, for object: NSManagedObject) {
        models[ObjectIdentifier(object)] = WeakModel(model: model)
        if models.count > 2 * max(modelCountAfterPurge, 64) {
            models = models.filter { $0.value.model != nil }
            modelCountAfterPurge = models.count
        }
    }

    // MARK: Notifications

    /// Posted before a context saves (the object is the context).
    public static let willSave = Notification.Name("OpenSwiftData.ModelContext.willSave")
    /// Posted after a context saved; the user info lists the identifiers under ``NotificationKey`` keys.
    public static let didSave = Notification.Name("OpenSwiftData.ModelContext.didSave")

    /// The keys of ``didSave``'s user info.
    public enum NotificationKey: String, Sendable {
        case queryGeneration, invalidatedAllIdentifiers, insertedIdentifiers, updatedIdentifiers, deletedIdentifiers
    }
}

/// A model instance held weakly (the context does not keep models alive; their objects keep their rows' values).
private struct WeakModel {
    weak var model: AnyObject?
}
