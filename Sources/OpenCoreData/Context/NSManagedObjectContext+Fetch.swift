extension NSManagedObjectContext {
    /// The context whose `perform`/`performAndWait` block is running on this thread, if any.
    @TaskLocal static var currentContext: UncheckedSendableBox<NSManagedObjectContext>?
    static var current: NSManagedObjectContext? { currentContext?.value }

    /// Fetches the objects (or IDs, dictionaries, count) a request describes. With `includesPendingChanges`
    /// (the default), unsaved changes count: inserted objects that match are included, deleted ones are not, and
    /// changed objects are matched against their current values.
    ///
    /// For example:
    /// ```swift
    /// let request = NSFetchRequest<Mood>(entityName: "Mood")
    /// request.predicate = NSPredicate(format: "country == %@", country)
    /// let moods = try context.fetch(request)
    /// ```
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        checkConfinement()
        if T.self is NSManagedObject.Type, request.resultType == .managedObjectResultType {
            return try FetchPlan(request: request, context: self).objectResults().cast(to: T.self)
        }
        return try executeFetch(request).map { result in
            guard let typed = result as? T else {
                preconditionFailure("The fetch request's results (\(ValueConversion.typeName(result))) are not \(T.self); check its resultType and generic type.")
            }
            return typed
        }
    }

    /// The number of objects a request would fetch.
    ///
    /// For example:
    /// ```swift
    /// let count = try context.count(for: Mood.fetchRequest())
    /// ```
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        checkConfinement()
        let plan = try FetchPlan(request: request, context: self)
        return try plan.count()
    }

    /// Executes a request (fetch requests here; batch requests with the fetch engine).
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        checkConfinement()
        if let asynchronous = request as? AnyAsynchronousFetchRequest {
            return asynchronous.start(in: self)
        }
        if let fetch = request as? AnyFetchRequest {
            return try fetch.finishedResult(in: self)
        }
        if BatchRequestExecution.handles(request) {
            return try BatchRequestExecution.execute(request, in: self)
        }
        if let history = request as? NSPersistentHistoryChangeRequest {
            return try history.execute(in: self)
        }
        throw CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError, "Unsupported request type \(type(of: request))")
    }

    /// Runs a fetch request and returns its results as `Any`.
    func executeFetch<T>(_ request: NSFetchRequest<T>) throws -> [Any] {
        let plan = try FetchPlan(request: request, context: self)
        return try plan.results()
    }

    /// The value of a fetched property of `object`: the fetch, with `$FETCH_SOURCE` bound to the object and
    /// `$FETCHED_PROPERTY` to the description, in the order of the request's sort descriptors. Key paths on
    /// `$FETCHED_PROPERTY` (`$FETCHED_PROPERTY.userInfo.search`) are read from the description first, so the store
    /// sees their values as constants (and the SQLite store can put them in its SQL).
    func fetchedPropertyValue(_ property: NSFetchedPropertyDescription, of object: NSManagedObject) -> [Any] {
        guard let entityName = property.fetchRequestEntityName else { return [] }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        request.sortDescriptors = property.fetchRequestSortDescriptors
        if let predicate = property.fetchRequestPredicate {
            let resolved = PredicateRewriting.rewrite(predicate, { $0 }, replacing: { expression in
                guard case .keyPath(let operand, let path) = expression.node, case .variable("FETCHED_PROPERTY") = operand.node else { return nil }
                return NSExpression(forConstantValue: try? KeyValueCodingEngine.value(of: property, forKeyPath: path))
            })
            request.predicate = resolved.withSubstitutionVariables(["FETCH_SOURCE": object, "FETCHED_PROPERTY": property])
        }
        do {
            return try executeFetch(request)
        } catch {
            preconditionFailure("The fetched property '\(property.name)' of \(object.objectID) could not be fetched: \(error.localizedDescription)")
        }
    }
}

extension NSManagedObject {
    /// The value of a fetched property (evaluated on access).
    func fetchedPropertyValue(_ property: NSFetchedPropertyDescription) -> Any? {
        guard let context = _context else { return [] }
        return context.fetchedPropertyValue(property, of: self)
    }
}


extension Array where Element == NSManagedObject {
    /// The objects as an array of `T`, a managed object class, without copying: an array of class references has
    /// the same representation whatever the class, once every element is known to be a `T` (checked once per
    /// class met, not cast and retained element by element).
    func cast<T>(to _: T.Type) -> [T] {
        withUnsafeBufferPointer { objects in
            var checked: ObjectIdentifier?
            for index in objects.indices {
                let objectClass = type(of: objects[index])
                guard ObjectIdentifier(objectClass) != checked else { continue }
                guard objectClass is T.Type else {
                    preconditionFailure("The fetch request's results (\(objectClass)) are not \(T.self); check its resultType and generic type.")
                }
                checked = ObjectIdentifier(objectClass)
            }
        }
        return unsafeBitCast(self, to: [T].self)
    }
}
