import Foundation

@testable import OpenCoreData

/// One randomized run of the multi-context graph test (see MultiContextGraphTests.swift): four contexts on one
/// SQLite store and the reference (MultiContextGraphModel.swift), driven step by step from one seed.
///
/// The contexts: 0 merges the other contexts' saves automatically (`automaticallyMergesChangesFromParent`); 1 and 2
/// merge them when the test hands them the did-save notifications (`mergeChanges(fromContextDidSave:)`), which it
/// does late, at random; 3 is a child of 1, merging 1's saves automatically. Every context has an undo manager.
///
/// A context changes its graph only once it has caught up with everything saved elsewhere (a context's view of
/// objects it read before another save is its cache, not a specified value); then its changes — and every check —
/// are determined by the reference. A context may save before catching up: the reference predicts whether the save
/// conflicts (the error merge policy) and what the store holds afterwards.
final class MultiContextGraphRun {
    let seed: UInt64
    var generator: SeededGenerator
    let coordinator: NSPersistentStoreCoordinator
    let url: URL
    let contexts: [NSManagedObjectContext]
    static let autoMerging = 0, parent = 1, manual = 2, child = 3

    var states: [MCContextState]
    var store = MCGraph()
    /// Did-save notifications not yet handed to contexts 1 and 2, and the objects those saves wrote.
    var pending: [Int: [Notification]] = [1: [], 2: []]
    var pendingWrites: [Int: Set<Int>] = [1: [], 2: []]
    /// How far the child is behind its parent: not at all, by the parent's own changes (which the parent's next save
    /// lists, so that merging it catches the child up), or by more (the test then refreshes the child at once).
    var childLag = ChildLag.none
    enum ChildLag { case none, parentChanges }

    var objectIDs: [Int: NSManagedObjectID] = [:]
    var nextID = 1
    var nextValue: Int64 = 1
    var step = 0
    var storeChecks = 0
    /// `OPENCOREDATA_MULTICONTEXT_TRACE=1` prints every operation as it runs.
    static let traces = ProcessInfo.processInfo.environment["OPENCOREDATA_MULTICONTEXT_TRACE"] == "1"
    var log: [String] = []
    private(set) var failure: String?
    var counts: [String: Int] = [:]
    private let saves = LockedNotifications()
    private var observer: NSObjectProtocol?
    /// A fetched results controller on context 0, checked after every step.
    private(set) var fetchedResults: MCFetchedResultsWatch!

    init(seed: UInt64) throws {
        self.seed = seed
        generator = SeededGenerator(seed: seed)
        url = try TemporaryDirectory.make().appendingPathComponent("MultiContext.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MultiContextGraphSchema.model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        self.coordinator = coordinator
        var contexts = (0..<3).map { _ in NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType) }
        for context in contexts { context.performAndWait { context.persistentStoreCoordinator = coordinator } }
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.performAndWait { child.parent = contexts[Self.parent] }
        contexts.append(child)
        for (index, context) in contexts.enumerated() {
            context.performAndWait {
                context.undoManager = UndoManager()
                context.name = "context \(index)"
                context.automaticallyMergesChangesFromParent = index == Self.autoMerging || index == Self.child
            }
        }
        self.contexts = contexts
        states = []
        try seedStore()
        states = Array(repeating: MCContextState(graph: store), count: contexts.count)
        fetchedResults = try MCFetchedResultsWatch(context: contexts[Self.autoMerging])
        let topLevel = contexts.prefix(3).map(ObjectIdentifier.init)
        let box = saves
        observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) { note in
            guard let saver = note.object as? NSManagedObjectContext, topLevel.contains(ObjectIdentifier(saver)) else { return }
            box.append(UncheckedSendableBox(note))
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// Four owners and ten members, related at random.
    private func seedStore() throws {
        let context = contexts[Self.manual]
        var graph = MCGraph()
        try context.performAndWait {
            var objects: [Int: NSManagedObject] = [:]
            for index in 0..<14 {
                let entity: MCEntity = index < 4 ? .owner : .member
                let object = NSEntityDescription.insertNewObject(forEntityName: entity.rawValue, into: context)
                let id = freshID(), value = freshValue()
                object.setValue(id, forKey: "id")
                object.setValue(value, forKey: "value")
                objects[id] = object
                graph.insert(id, entity, value: value)
            }
            let owners = graph.ids(.owner)
            for member in graph.ids(.member) {
                if Bool.random(using: &generator), let owner = owners.randomElement(using: &generator) {
                    objects[member]!.setValue(objects[owner], forKey: "owner")
                    graph.owner[member] = owner
                }
                if Bool.random(using: &generator), let owner = owners.randomElement(using: &generator) {
                    objects[member]!.setValue(objects[owner], forKey: "list")
                    graph.setList(member, owner)
                }
                for owner in owners where Int.random(in: 0..<3, using: &generator) == 0 {
                    objects[member]!.mutableSetValue(forKey: "groups").add(objects[owner]!)
                    graph.setGroup(MCPair(member: member, owner: owner), true)
                }
                for owner in owners where Int.random(in: 0..<3, using: &generator) == 0 {
                    objects[owner]!.mutableOrderedSetValue(forKey: "playlist").add(objects[member]!)
                    graph.setPlaylist(MCPair(member: member, owner: owner), true)
                }
            }
            try context.save()
            for (id, object) in objects { objectIDs[id] = object.objectID }
            context.reset()
            context.undoManager?.removeAllActions()
        }
        store = graph
        _ = saves.take()
    }

    func freshID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    func freshValue() -> Int64 {
        defer { nextValue += 1 }
        return nextValue
    }

    // MARK: Driving

    func run(operations: Int) {
        for index in 0..<operations {
            step = index
            let context = pickContext()
            let operation = runStep(in: context)
            counts[operation, default: 0] += 1
            if failure != nil { return }
            if context == Self.autoMerging && operation == MCOperation.reset.rawValue {
                do { try fetchedResults.refetch() } catch { fail("performFetch after reset failed: \(error)") }
            }
            if let problem = fetchedResults.check() { fail("the fetched results controller on context 0, after step \(step): \(problem)") }
            if failure != nil { return }
            afterStep(context)
            if failure != nil { return }
        }
        for index in contexts.indices { prepare(index) }
        for index in contexts.indices { check(index, label: "at the end") }
    }

    private func pickContext() -> Int { Int.random(in: 0..<contexts.count, using: &generator) }

    /// Checks the context that acted, and now and then another one (catching it up first).
    private func afterStep(_ context: Int) {
        var byObjectID: [NSManagedObjectID: Int] = [:]
        for (id, objectID) in objectIDs { byObjectID[objectID] = id }
        for (index, managed) in contexts.enumerated() {
            let (undo, redo) = managed.performAndWait { (managed.undoManager?.undoCount ?? 0, managed.undoManager?.redoCount ?? 0) }
            // The objects the context has changed (Apple's inserted, updated and deleted objects) are among those the
            // reference says it changed (both sides of every relationship change; a destination whose list, read
            // later, already had the member is not changed).
            let changed = changedObjects(index, byObjectID)
            if !changed.isSubset(of: states[index].touched) {
                fail("context \(index) has changed \(changed.sorted()), the reference says only \(states[index].touched.sorted())")
            }
            if undo != states[index].undoStack.count || redo != states[index].redoStack.count {
                fail("context \(index) has \(undo) undo and \(redo) redo groups, the reference \(states[index].undoStack.count) and \(states[index].redoStack.count)")
            }
        }
        if isCaughtUp(context) { check(context, label: "after step") }
        if Int.random(in: 0..<4, using: &generator) == 0 {
            let other = pickContext()
            prepare(other)
            check(other, label: "checking another context")
        }
        if step % 50 == 49 {
            for index in contexts.indices { prepare(index) }
            for index in contexts.indices { check(index, label: "every 50 steps") }
        }
        for (index, state) in states.enumerated() where step % 10 == 0 {
            let problems = state.view.selfCheck() + state.base.selfCheck()
            if !problems.isEmpty { fail("TEST BUG: the reference of context \(index) is inconsistent: \(problems.prefix(5))") }
        }
    }

    /// The test's ids of the objects a context has inserted, updated or deleted.
    func changedObjects(_ context: Int, _ byObjectID: [NSManagedObjectID: Int]) -> Set<Int> {
        let managed = contexts[context]
        return managed.performAndWait {
            Set(managed.insertedObjects.union(managed.updatedObjects).union(managed.deletedObjects).compactMap { byObjectID[$0.objectID] })
        }
    }

    /// Whether a context shows what the reference predicts: it has merged every save made elsewhere (and a child's
    /// parent has too, and the child caught up with it).
    func isCaughtUp(_ context: Int) -> Bool {
        switch context {
        case Self.child: isCaughtUp(Self.parent) && childLag == .none
        case Self.autoMerging: true
        default: pending[context, default: []].isEmpty
        }
    }

    /// Brings a context up to date: merges what others saved (a child: its parent first, then catches up with it).
    func prepare(_ context: Int) {
        collectSaves()
        switch context {
        case Self.autoMerging:
            // Its merges run on its queue as each save posts; one turn of the queue has run them all.
            contexts[context].performAndWait {}
            states[context].rebase(to: store)
        case Self.parent, Self.manual:
            deliverPendingMerges(to: context)
        default:
            prepare(Self.parent)
            if childLag != .none { catchUpChild() }
        }
    }

    /// Hands a context the did-save notifications it has not merged yet.
    func deliverPendingMerges(to context: Int) {
        let notes = pending[context] ?? []
        guard !notes.isEmpty else { return }
        let managed = contexts[context]
        for note in notes {
            managed.performAndWait {
                managed.mergeChanges(fromContextDidSave: note)
            }
        }
        pending[context] = []
        pendingWrites[context] = []
        counts["merge", default: 0] += 1
        let before = states[context].view
        states[context].rebase(to: store)
        note("context \(context) merges \(notes.count) save(s)")
        if context == Self.parent && states[context].view != before { parentChangedOtherwise() }
    }

    /// The parent's graph changed other than by its own changes (a merge, rollback, reset): the child catches up at
    /// once, before the parent saves (a save lists only the parent's own changes).
    func parentChangedOtherwise() {
        childLag = .parentChanges
        catchUpChild()
    }

    /// The child refreshes every object: it then shows its parent's graph with its own changes on top.
    func catchUpChild() {
        let child = contexts[Self.child]
        child.performAndWait { child.refreshAllObjects() }
        states[Self.child].rebase(to: states[Self.parent].view)
        childLag = .none
        note("child refreshes all objects to catch up with its parent")
    }

    /// Moves the did-save notifications posted since the last call to the manual contexts' queues.
    func collectSaves() {
        for box in saves.take() {
            let note = box.value
            guard let saver = note.object as? NSManagedObjectContext, let index = contexts.firstIndex(where: { $0 === saver }) else { continue }
            let written = savedIDs(note)
            if Self.traces { print("    context \(index)'s save wrote \(written.sorted())") }
            for other in [Self.parent, Self.manual] where other != index {
                pending[other, default: []].append(note)
                pendingWrites[other, default: []].formUnion(written)
            }
        }
    }

    /// The test's ids of the objects a did-save notification lists.
    private func savedIDs(_ note: Notification) -> Set<Int> {
        var byObjectID: [NSManagedObjectID: Int] = [:]
        for (id, objectID) in objectIDs { byObjectID[objectID] = id }
        var result = Set<Int>()
        for key in [NSInsertedObjectsKey, NSUpdatedObjectsKey, NSDeletedObjectsKey] {
            for object in (note.userInfo?[key] as? Set<NSManagedObject>) ?? [] {
                if let id = byObjectID[object.objectID] { result.insert(id) }
            }
        }
        return result
    }

    // MARK: Log and failure

    func note(_ line: String) {
        log.append("[\(step)] \(line)")
        if Self.traces { print("[\(step)] \(line)") }
        if log.count > 80 { log.removeFirst(log.count - 60) }
    }

    func fail(_ message: String) {
        guard failure == nil else { return }
        failure = """
            Multi-context graph (seed \(seed), step \(step)): \(message)
            Last operations:
              \(log.suffix(70).joined(separator: "\n  "))
            Rerun with OPENCOREDATA_MULTICONTEXT_SEED=\(seed) OPENCOREDATA_MULTICONTEXT_OPERATIONS=\(step + 1).
            """
    }

    var summary: String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            + "; fetched results controller: \(fetchedResults.deliveries) reports, \(fetchedResults.rowEvents) row and \(fetchedResults.sectionEvents) section events"
    }
}

/// Did-save notifications collected from the saving contexts' threads.
final class LockedNotifications: @unchecked Sendable {
    // @unchecked Sendable: every access holds `lock`; the notifications are only read on the test's thread.
    private let lock = NSLock()
    private var notes: [UncheckedSendableBox<Notification>] = []

    func append(_ note: UncheckedSendableBox<Notification>) { lock.withLock { notes.append(note) } }
    func take() -> [UncheckedSendableBox<Notification>] { lock.withLock { defer { notes = [] }; return notes } }
}
