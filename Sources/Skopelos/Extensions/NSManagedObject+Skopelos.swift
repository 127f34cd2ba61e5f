import OpenCoreData

/// Lets the `SK_` helpers return the caller's own class (`User.SK_all(context)` is `[User]`).
public protocol NSManagedObjectExtendable {}

extension NSManagedObject: NSManagedObjectExtendable {}

// The seed's managed-object helpers, always explicit on the context: call them inside a read or write block with
// the context the block received. Errors (a failed fetch, a class no entity of the model uses) go to
// `handleError(_:)` of the service whose block runs (else of the service that owns the context), and the helper
// returns an empty result.
extension NSManagedObjectExtendable where Self: NSManagedObject {
    /// This object in `otherContext` (giving it a permanent ID first if it has none yet); nil when it is not there.
    ///
    /// For example:
    /// ```swift
    /// dal.write { context in user.SK_inContext(context)?.SK_remove(context) }
    /// ```
    public func SK_inContext(_ otherContext: NSManagedObjectContext) -> Self? {
        do {
            if objectID.isTemporaryID, let ownContext = managedObjectContext {
                try ownContext.performAndWait { try ownContext.obtainPermanentIDs(for: [self]) }
            }
            return try otherContext.existingObject(with: objectID) as? Self
        } catch {
            DALService.report(error as NSError, in: otherContext)
            return nil
        }
    }

    /// Inserts a new object of this class's entity into `context`.
    ///
    /// For example:
    /// ```swift
    /// let user = User.SK_create(context)
    /// ```
    @discardableResult
    public static func SK_create(_ context: NSManagedObjectContext) -> Self {
        guard let entity = entityDescription(in: context) else {
            preconditionFailure("No entity of the context's model has the managed object class '\(Self.self)'.")
        }
        return Self(entity: entity, insertInto: context)
    }

    /// The number of objects of this entity.
    ///
    /// For example:
    /// ```swift
    /// let count = User.SK_numberOfEntities(context)
    /// ```
    public static func SK_numberOfEntities(_ context: NSManagedObjectContext) -> Int {
        count(request(context), context)
    }

    /// The number of objects of this entity that match `predicate`.
    ///
    /// For example:
    /// ```swift
    /// let adults = User.SK_numberOfEntities(NSPredicate(format: "age >= 18"), context: context)
    /// ```
    public static func SK_numberOfEntities(_ predicate: NSPredicate, context: NSManagedObjectContext) -> Int {
        count(request(context, predicate: predicate), context)
    }

    /// Deletes this object from `context`.
    ///
    /// For example:
    /// ```swift
    /// user.SK_remove(context)
    /// ```
    public func SK_remove(_ context: NSManagedObjectContext) {
        context.delete(self)
    }

    /// Deletes every object of this entity from `context`.
    ///
    /// For example:
    /// ```swift
    /// User.SK_removeAll(context)
    /// ```
    public static func SK_removeAll(_ context: NSManagedObjectContext) {
        guard let request = request(context) else { return }
        request.includesPropertyValues = false
        fetch(request, context).forEach(context.delete)
    }

    /// Every object of this entity.
    ///
    /// For example:
    /// ```swift
    /// let users = User.SK_all(context)
    /// ```
    public static func SK_all(_ context: NSManagedObjectContext) -> [Self] {
        fetch(request(context), context)
    }

    /// The objects of this entity that match `predicate`.
    ///
    /// For example:
    /// ```swift
    /// let does = User.SK_all(NSPredicate(format: "lastname == %@", "Doe"), context: context)
    /// ```
    public static func SK_all(_ predicate: NSPredicate, context: NSManagedObjectContext) -> [Self] {
        fetch(request(context, predicate: predicate), context)
    }

    /// The objects that match `predicate`, sorted by `sortTerm` (the seed's sort terms: `"key"` or
    /// `"key1,key2:NO"`, a `:YES`/`:NO` suffix overriding `ascending` for that key).
    ///
    /// For example:
    /// ```swift
    /// let users = User.SK_all(context, predicate: NSPredicate(format: "age > 30"), sortTerm: "lastname,age:NO", ascending: true)
    /// ```
    public static func SK_all(_ context: NSManagedObjectContext, predicate: NSPredicate, sortTerm: String, ascending: Bool) -> [Self] {
        fetch(request(context, predicate: predicate, sortTerms: sortTerm, ascending: ascending), context)
    }

    /// The objects whose `attribute` equals `value`, sorted by `sortTerms`.
    ///
    /// For example:
    /// ```swift
    /// let does = User.SK_all("lastname", isEqualTo: "Doe", sortTerms: "firstname", ascending: true, context: context)
    /// ```
    public static func SK_all(_ attribute: String, isEqualTo value: String, sortTerms: String, ascending: Bool,
                              context: NSManagedObjectContext) -> [Self] {
        fetch(request(context, predicate: NSPredicate(format: "%K = %@", attribute, value), sortTerms: sortTerms, ascending: ascending), context)
    }

    /// An object of this entity (the first the store returns), or nil when there is none.
    ///
    /// For example:
    /// ```swift
    /// let someone = User.SK_first(context)
    /// ```
    public static func SK_first(_ context: NSManagedObjectContext) -> Self? {
        fetch(request(context, limit: 1), context).first
    }

    /// The first object whose `attribute` equals `value`.
    ///
    /// For example:
    /// ```swift
    /// let john = User.SK_first("firstname", isEqualTo: "John", context: context)
    /// ```
    public static func SK_first(_ attribute: String, isEqualTo value: String, context: NSManagedObjectContext) -> Self? {
        fetch(request(context, predicate: NSPredicate(format: "%K = %@", attribute, value), limit: 1), context).first
    }

    /// The first object that matches `predicate` in the order of `sortTerms`.
    ///
    /// For example:
    /// ```swift
    /// let youngest = User.SK_first(NSPredicate(value: true), sortTerms: "age", ascending: true, context: context)
    /// ```
    public static func SK_first(_ predicate: NSPredicate, sortTerms: String, ascending: Bool, context: NSManagedObjectContext) -> Self? {
        fetch(request(context, predicate: predicate, sortTerms: sortTerms, ascending: ascending, limit: 1), context).first
    }

    // MARK: Private

    /// The entity of the context's model whose class is this class (by qualified, then unqualified class name,
    /// then an entity named like the class, as the seed's `nameOfClass`).
    private static func entityDescription(in context: NSManagedObjectContext) -> NSEntityDescription? {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else { return nil }
        let qualified = String(reflecting: Self.self)
        let short = String(describing: Self.self)
        let unqualified = { (name: String) in name.split(separator: ".").last.map(String.init) ?? name }
        return model.entities.first { $0.managedObjectClassName == qualified }
            ?? model.entities.first { $0.managedObjectClassName.map(unqualified) == short }
            ?? model.entitiesByName[short]
    }

    /// A fetch request for this class's entity, or nil (after reporting it) when the model has none.
    private static func request(_ context: NSManagedObjectContext, predicate: NSPredicate? = nil, sortTerms: String? = nil,
                                ascending: Bool = true, limit: Int = 0) -> NSFetchRequest<Self>? {
        guard let entity = entityDescription(in: context) else {
            DALService.report(NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "No entity of the context's model has the managed object class '\(Self.self)'.",
            ]), in: context)
            return nil
        }
        let request = NSFetchRequest<Self>()
        request.entity = entity
        request.predicate = predicate
        request.fetchLimit = limit
        if let sortTerms { request.sortDescriptors = SortTerms.sortDescriptors(sortTerms, ascending: ascending) }
        return request
    }

    private static func fetch(_ request: NSFetchRequest<Self>?, _ context: NSManagedObjectContext) -> [Self] {
        guard let request else { return [] }
        do {
            return try context.fetch(request)
        } catch {
            DALService.report(error as NSError, in: context)
            return []
        }
    }

    private static func count(_ request: NSFetchRequest<Self>?, _ context: NSManagedObjectContext) -> Int {
        guard let request else { return 0 }
        do {
            return try context.count(for: request)
        } catch {
            DALService.report(error as NSError, in: context)
            return 0
        }
    }
}
