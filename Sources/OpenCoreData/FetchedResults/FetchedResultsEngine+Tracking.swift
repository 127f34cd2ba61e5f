/// How a controller follows its context: the end-of-event `ObjectsDidChange` notification (local changes, merges,
/// refreshes, rollbacks), the merge notification with object IDs (objects merged as faults or not registered, which
/// `ObjectsDidChange` does not list), and the context's own saves.
extension FetchedResultsEngine {
    func startObserving() {
        guard observers.isEmpty else { return }
        let box = WeakEngine(self)
        let center = NotificationCenter.default
        func observe(_ name: Notification.Name, _ handler: @escaping @Sendable (FetchedResultsEngine, Notification) -> Void) -> NSObjectProtocol {
            center.addObserver(forName: name, object: nil, queue: nil) { note in
                guard let poster = note.object as AnyObject?, ObjectIdentifier(poster) == box.contextIdentity, let engine = box.engine else { return }
                handler(engine, note)
            }
        }
        observers = [
            observe(.NSManagedObjectContextObjectsDidChange) { $0.contextObjectsDidChange($1) },
            observe(.NSManagedObjectContextDidMergeChangesObjectIDs) { $0.contextDidMergeChanges($1) },
            observe(.NSManagedObjectContextDidSave) { $0.contextDidSave($1) },
        ]
    }

    /// Runs `work` after the delivery in progress when a delegate changed the context from a callback.
    private func whenNotDelivering(_ work: @escaping () -> Void) -> Bool {
        guard isDelivering else { return true }
        deferredWork.append(work)
        return false
    }

    /// Whether a change notification must be processed; when nobody listens the results just become stale.
    private var shouldProcessChanges: Bool {
        guard state != nil, configuration != nil else { return false }
        guard isTracking else {
            isStale = true
            return false
        }
        resumeTrackingIfStale()
        return true
    }

    // MARK: Notifications

    func contextObjectsDidChange(_ note: Notification) {
        handledByLastObjectsNotification = []
        guard whenNotDelivering({ [weak self] in self?.contextObjectsDidChange(note) }), shouldProcessChanges, let configuration else { return }
        let info = note.userInfo ?? [:]
        if info[NSInvalidatedAllObjectsKey] != nil {
            let everything = Set((state?.objects ?? []).map(ObjectIdentifier.init))
            apply(candidates: state?.objects ?? [], changed: everything, refetch: true)
            return
        }
        let inserted = Self.objects(info[NSInsertedObjectsKey]), updated = Self.objects(info[NSUpdatedObjectsKey])
        let deleted = Self.objects(info[NSDeletedObjectsKey]), refreshed = Self.objects(info[NSRefreshedObjectsKey])
        let invalidated = Self.objects(info[NSInvalidatedObjectsKey])
        var candidates = CandidateList()
        for object in deleted + invalidated where configuration.matchesEntity(object) { candidates.add(object, changed: false) }
        for object in inserted + updated + refreshed where configuration.matchesEntity(object) { candidates.add(object, changed: true) }
        var everything = false
        if let related = configuration.related, !related.isEmpty {
            for object in inserted + updated + refreshed {
                let keys = Set(object.changedValuesForCurrentEvent().keys)
                guard let reached = related.objects(reaching: object, changedKeys: keys.isEmpty ? nil : keys) else {
                    everything = true
                    break
                }
                for root in reached where configuration.matchesEntity(root) { candidates.add(root, changed: true) }
            }
        }
        rememberHandled(candidates.objects)
        apply(candidates: candidates.objects, changed: candidates.changed, refetch: false, reevaluatingEverything: everything)
    }

    /// Remembers the objects this event's `ObjectsDidChange` reported, for the merge notification that may follow it in
    /// the same event; forgotten when the event is over (so a later merge that reports only faults is not mistaken for
    /// this one). A confinement context has no queue to wait for: at worst a merge then misses an `.update`.
    private func rememberHandled(_ objects: [NSManagedObject]) {
        handledByLastObjectsNotification = Set(objects.map(ObjectIdentifier.init))
        guard !objects.isEmpty, !handledClearScheduled, context.concurrencyType != .confinementConcurrencyType else { return }
        handledClearScheduled = true
        let engine = WeakEngine(self)
        context.perform {
            guard let engine = engine.engine else { return }
            engine.handledClearScheduled = false
            engine.handledByLastObjectsNotification = []
        }
    }

    /// A merge lists every object ID it merged; objects that were faults (or not registered) in this context are not in
    /// the merge's `ObjectsDidChange`, yet their new values may move them in or out of the results.
    func contextDidMergeChanges(_ note: Notification) {
        let handled = handledByLastObjectsNotification
        handledByLastObjectsNotification = []
        guard whenNotDelivering({ [weak self] in self?.contextDidMergeChanges(note) }), shouldProcessChanges, let configuration else { return }
        let info = note.userInfo ?? [:]
        let objectIDs = NSManagedObjectContext.objectIDs(info[NSInsertedObjectIDsKey]).union(NSManagedObjectContext.objectIDs(info[NSUpdatedObjectIDsKey]))
        var candidates = CandidateList()
        var everything = false
        for objectID in objectIDs.sorted(by: { $0.uriRepresentation().absoluteString < $1.uriRepresentation().absoluteString }) {
            let isFetchedEntity = configuration.matchesEntity(objectID)
            guard isFetchedEntity || configuration.related?.isEmpty == false else { continue }
            let object = context.registeredObject(for: objectID) ?? context.object(with: objectID)
            guard object.managedObjectContext === context, !object.isDeleted else { continue }
            if isFetchedEntity {
                candidates.add(object, changed: !handled.contains(ObjectIdentifier(object)))
            }
            if let related = configuration.related, !related.isEmpty {
                guard let reached = related.objects(reaching: object, changedKeys: nil) else {
                    everything = true
                    continue
                }
                for root in reached where configuration.matchesEntity(root) {
                    candidates.add(root, changed: !handled.contains(ObjectIdentifier(root)))
                }
            }
        }
        apply(candidates: candidates.objects, changed: candidates.changed, refetch: false, reevaluatingEverything: everything)
        scheduleCacheWrite()
    }

    func contextDidSave(_ note: Notification) {
        guard whenNotDelivering({ [weak self] in self?.contextDidSave(note) }) else { return }
        if let configuration, configuration.refetches, state != nil, shouldProcessChanges {
            // Results that ignore pending changes (or are limited) change when the store does.
            let info = note.userInfo ?? [:]
            var candidates = CandidateList()
            for key in [NSInsertedObjectsKey, NSUpdatedObjectsKey, NSDeletedObjectsKey] {
                for object in Self.objects(info[key]) where configuration.matchesEntity(object) {
                    candidates.add(object, changed: key == NSUpdatedObjectsKey)
                }
            }
            apply(candidates: candidates.objects, changed: candidates.changed, refetch: true)
        }
        scheduleCacheWrite()
    }

    static func objects(_ value: Any?) -> [NSManagedObject] {
        switch value {
        case let set as Set<NSManagedObject>: return Array(set).sorted { $0.objectID.uriRepresentation().absoluteString < $1.objectID.uriRepresentation().absoluteString }
        case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
        case let array as [NSManagedObject]: return array
        default: return []
        }
    }

    // MARK: Applying a change set

    /// Computes the results after a change set that concerned `candidates` (`changed` of them changed their content)
    /// and reports the difference.
    /// With `reevaluatingEverything` (a related object changed behind a relationship without an inverse), every object
    /// of the entity is placed again, with the context's current values.
    func apply(candidates: [NSManagedObject], changed: Set<ObjectIdentifier>, refetch: Bool, reevaluatingEverything: Bool = false) {
        guard let old = state, let configuration else { return }
        guard !candidates.isEmpty || refetch || reevaluatingEverything else { return }
        var candidates = candidates
        if reevaluatingEverything && !configuration.refetches {
            do {
                var all = CandidateList()
                for object in candidates + old.objects { all.add(object, changed: false) }
                for object in try withoutReprocessingEvent({ try everyObject(of: configuration) }) { all.add(object, changed: false) }
                candidates = all.objects
            } catch {
                Self.logger.error("NSFetchedResultsController could not fetch the objects to evaluate again: \(error)")
                return
            }
        }
        let new: FetchedResultsState
        if refetch || configuration.refetches {
            do {
                new = try withoutReprocessingEvent { try fetchState(entityOf: configuration) }
            } catch {
                Self.logger.error("NSFetchedResultsController could not fetch its results again: \(error)")
                return
            }
        } else {
            guard let placed = placing(candidates, in: old, configuration: configuration) else { return }
            new = placed
        }
        if let outOfOrder = new.outOfOrderSection, old.outOfOrderSection == nil {
            Self.logger.error("NSFetchedResultsController: the object at index \(outOfOrder.index) has an out of order section name '\(outOfOrder.name)'. Objects must be sorted by section name.")
        }
        let changes = FetchedResultsChanges(from: old, to: new, touched: Set(candidates.map(ObjectIdentifier.init)), changed: changed)
        replaceState(with: new)
        guard !changes.isEmpty else { return }
        deliver(changes, from: old, to: new)
        scheduleCacheWrite()
    }

    /// The next state without a fetch: the objects the change set did not concern keep their order (and section names);
    /// the concerned ones that belong to the results are placed among them by the sort descriptors. A concerned object
    /// whose sort keys equal an unconcerned one's keeps its old relative place. Nil when nothing changes.
    func placing(_ candidates: [NSManagedObject], in old: FetchedResultsState, configuration: TrackingConfiguration) -> FetchedResultsState? {
        let predicate = memoryPredicate(configuration.predicate)
        let oldIndex = old.indexByObject
        var leaving = Set<Int>()
        var entering: [(object: NSManagedObject, name: String, old: Int, sequence: Int)] = []
        for (sequence, object) in candidates.enumerated() {
            let oldPosition = oldIndex[ObjectIdentifier(object)]
            if let oldPosition { leaving.insert(oldPosition) }
            guard isMember(object, predicate: predicate, configuration: configuration) else { continue }
            let name = sectionNameKeyPath.map { Self.sectionName(of: object, keyPath: $0) } ?? ""
            entering.append((object, name, oldPosition ?? Int.max, sequence))
        }
        if leaving.isEmpty && entering.isEmpty { return nil }

        let descriptors = configuration.sortDescriptors
        func compareKeys(_ a: NSManagedObject, _ b: NSManagedObject) -> ComparisonResult {
            for descriptor in descriptors {
                let order = (try? descriptor.compareThrowing(a, to: b)) ?? .orderedSame
                if order != .orderedSame { return order }
            }
            return .orderedSame
        }
        entering.sort { a, b in
            switch compareKeys(a.object, b.object) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return (a.old, a.sequence) < (b.old, b.sequence)
            }
        }

        // The unconcerned objects, in their old order.
        var stable: [Int] = []
        stable.reserveCapacity(old.objects.count - leaving.count)
        for position in old.objects.indices where !leaving.contains(position) { stable.append(position) }

        var objects: [NSManagedObject] = []
        var names: [String] = []
        objects.reserveCapacity(stable.count + entering.count)
        names.reserveCapacity(stable.count + entering.count)
        var next = 0
        for item in entering {
            // The first unconcerned object the entering one goes before (binary search; the positions only grow).
            var low = next, high = stable.count
            while low < high {
                let middle = (low + high) / 2
                let other = stable[middle]
                let goesBefore: Bool
                switch compareKeys(item.object, old.objects[other]) {
                case .orderedAscending: goesBefore = true
                case .orderedDescending: goesBefore = false
                case .orderedSame: goesBefore = item.old < other
                }
                if goesBefore { high = middle } else { low = middle + 1 }
            }
            while next < low {
                objects.append(old.objects[stable[next]])
                names.append(old.names[stable[next]])
                next += 1
            }
            objects.append(item.object)
            names.append(item.name)
        }
        while next < stable.count {
            objects.append(old.objects[stable[next]])
            names.append(old.names[stable[next]])
            next += 1
        }
        return FetchedResultsState(objects: objects, names: names, isSectioned: old.isSectioned)
    }

    /// Every object of the fetched entity in the context (saved or not), whatever the predicate.
    private func everyObject(of configuration: TrackingConfiguration) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>()
        request.entity = configuration.entity
        request.includesSubentities = configuration.includesSubentities
        return try context.fetch(request)
    }

    /// Whether an object belongs to the results as the context now has it.
    func isMember(_ object: NSManagedObject, predicate: NSPredicate?, configuration: TrackingConfiguration) -> Bool {
        guard object.managedObjectContext === context, !object.isDeleted, configuration.matchesEntity(object) else { return false }
        guard let predicate else { return true }
        do {
            return try predicate.evaluateThrowing(with: object)
        } catch {
            Self.logger.error("NSFetchedResultsController could not evaluate its predicate on \(object.objectID): \(error)")
            return false
        }
    }

    /// The predicate as evaluated on objects in memory: object IDs replaced by this context's objects.
    private func memoryPredicate(_ predicate: NSPredicate?) -> NSPredicate? {
        predicate.map { predicate in
            PredicateRewriting.rewrite(predicate) { [context] value in
                if let objectID = value as? NSManagedObjectID { return context.object(with: objectID) }
                return value
            }
        }
    }

    /// Runs a fetch from inside a notification of the context's end of event (the context does not process the
    /// event a second time: a fetch there sees the event's changes as they are).
    func withoutReprocessingEvent<T>(_ work: () throws -> T) throws -> T {
        try work()
    }
}

/// The objects a change set concerns, each once, in the order they were found.
struct CandidateList {
    private(set) var objects: [NSManagedObject] = []
    private(set) var changed = Set<ObjectIdentifier>()
    private var seen = Set<ObjectIdentifier>()

    mutating func add(_ object: NSManagedObject, changed isChanged: Bool) {
        let key = ObjectIdentifier(object)
        if seen.insert(key).inserted { objects.append(object) }
        if isChanged { changed.insert(key) }
    }
}
