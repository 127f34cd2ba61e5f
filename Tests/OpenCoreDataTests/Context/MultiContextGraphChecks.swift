import Foundation

@testable import OpenCoreData

// The checks of the multi-context graph test: what a context shows — every live object, both sides of every
// relationship (in order for the ordered ones), fetch results — against the reference; and after each save to the
// store, what a new context (and now and then a new coordinator) reads from the file.

extension MultiContextGraphRun {
    /// Compares what `context` shows with the reference's view of it (a context that has not caught up is skipped).
    func check(_ context: Int, label: String) {
        guard failure == nil, isCaughtUp(context) else { return }
        let managed = contexts[context]
        let expected = states[context].view
        var order = expected.entities.keys.sorted()
        order.shuffle(using: &generator)
        let reversed = Bool.random(using: &generator)
        let (graph, problems) = managed.performAndWait { read(in: managed, objects: order, readOwnerSideFirst: reversed, checkIdentity: true) }
        let differences = Self.differences(graph, expected)
        if !problems.isEmpty || !differences.isEmpty {
            fail("\(label): context \(context) does not show what the reference predicts:\n  " + (problems + differences).prefix(14).joined(separator: "\n  ")
                + "\n" + diagnosis(context))
        }
    }

    /// The reference's state of a context and how the store file differs from the reference's store (for a failure).
    func diagnosis(_ context: Int) -> String {
        let state = states[context]
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        let ids = store.entities.keys.sorted()
        let (stored, _) = fresh.performAndWait {
            fresh.persistentStoreCoordinator = coordinator
            return read(in: fresh, objects: ids, readOwnerSideFirst: false, checkIdentity: false)
        }
        let storeDifferences = Self.differences(stored, store)
        let overrides = Self.differences(state.view, state.base).prefix(20)
        return """
              Reference of context \(context): touched \(state.touched.sorted()), dirty \(state.dirty.map { "\($0.owner).\($0.list.rawValue)" }.sorted()), \
            undo \(state.undoStack.count), redo \(state.redoStack.count)
              its changes (view vs base): \(overrides.joined(separator: "; "))
              base playlists \(state.base.playlist.sorted { $0.key < $1.key }), entries \(state.base.entries.sorted { $0.key < $1.key })
              the store file vs the reference's store: \(storeDifferences.isEmpty ? "same" : storeDifferences.prefix(10).joined(separator: "; "))
            """
    }

    /// After a save to the store: a new context reads the saved graph (every tenth time on a new coordinator, from
    /// the file).
    func checkStore(label: String) {
        guard failure == nil else { return }
        storeChecks += 1
        let coordinator: NSPersistentStoreCoordinator
        if storeChecks % 10 == 0 {
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: MultiContextGraphSchema.model)
            do {
                try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            } catch {
                return fail("\(label): the store file does not open: \(error)")
            }
        } else {
            coordinator = self.coordinator
        }
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        let ids = store.entities.keys.sorted()
        let (graph, problems) = fresh.performAndWait {
            fresh.persistentStoreCoordinator = coordinator
            return read(in: fresh, objects: ids, readOwnerSideFirst: false, checkIdentity: true)
        }
        let differences = Self.differences(graph, store)
        if !problems.isEmpty || !differences.isEmpty {
            fail("\(label): a new context\(coordinator === self.coordinator ? "" : " on a new coordinator") does not read the saved graph:\n  "
                + (problems + differences).prefix(14).joined(separator: "\n  "))
        }
    }

    /// The graph a context shows: its fetch results, and every relationship of `objects` read from both sides (on the
    /// context's queue). Also checks that both sides agree, that fetches return each live object once, and that every
    /// destination is the context's own live object for its id.
    private func read(in context: NSManagedObjectContext, objects ids: [Int], readOwnerSideFirst: Bool, checkIdentity: Bool) -> (MCGraph, [String]) {
        var problems: [String] = []
        var graph = MCGraph()
        var fetched: [Int: NSManagedObject] = [:]
        for entity in [MCEntity.owner, .member] {
            do {
                for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity.rawValue)) {
                    guard let id = Self.testID(object) else {
                        problems.append("a fetch of \(entity.rawValue) returned an object without id (deleted: \(object.isDeleted))")
                        continue
                    }
                    if fetched[id] != nil { problems.append("a fetch of \(entity.rawValue) returned \(id) twice") }
                    if object.isDeleted { problems.append("a fetch of \(entity.rawValue) returned deleted \(id)") }
                    fetched[id] = object
                    graph.entities[id] = entity
                }
            } catch {
                problems.append("fetching \(entity.rawValue) threw \(error)")
            }
        }
        if Set(fetched.keys) != Set(ids) {
            problems.append("fetches return \(fetched.keys.sorted()), expected \(ids.sorted())")
        }
        var objects: [Int: NSManagedObject] = [:]
        for id in ids {
            guard let objectID = objectIDs[id] else { continue }
            let object = context.object(with: objectID)
            objects[id] = object
            if let match = fetched[id], match !== object { problems.append("the fetch returned another object for \(id) than object(with:) (uniquing)") }
        }
        func destinationID(_ value: Any?, from id: Int, _ key: String) -> Int? {
            guard let object = value as? NSManagedObject else { return nil }
            guard let destination = Self.testID(object) else {
                problems.append("\(id).\(key) holds an object without id (deleted: \(object.isDeleted), in a context: \(object.managedObjectContext != nil))")
                return nil
            }
            if checkIdentity {
                if object.isDeleted { problems.append("\(id).\(key) holds \(destination), which is deleted") }
                if let known = objectIDs[destination], context.object(with: known) !== object {
                    problems.append("\(id).\(key) holds another object for \(destination) than the context's")
                }
            }
            return destination
        }
        func destinationIDs(_ value: Any?, from id: Int, _ key: String) -> [Int] {
            let elements = (value as? NSOrderedSet)?.array ?? (value as? NSSet)?.allObjects ?? []
            return elements.compactMap { destinationID($0, from: id, key) }
        }
        var ownerSide: [Int: (members: Set<Int>, groupMembers: Set<Int>)] = [:]
        var memberPlaylists: [Int: Set<Int>] = [:]
        let readOrder = readOwnerSideFirst
            ? ids.filter { objects[$0]?.entity.name == "Owner" } + ids.filter { objects[$0]?.entity.name != "Owner" }
            : ids
        for id in readOrder {
            guard let object = objects[id], object.managedObjectContext != nil else { continue }
            if object.isDeleted { problems.append("\(id) is deleted in the context") }
            let entity: MCEntity = object.entity.name == "Owner" ? .owner : .member
            graph.entities[id] = entity
            graph.values[id] = (object.value(forKey: "value") as? NSNumber)?.int64Value
            switch entity {
            case .member:
                graph.owner[id] = destinationID(object.value(forKey: "owner"), from: id, "owner")
                graph.list[id] = destinationID(object.value(forKey: "list"), from: id, "list")
                for owner in destinationIDs(object.value(forKey: "groups"), from: id, "groups") { graph.groups.insert(MCPair(member: id, owner: owner)) }
                memberPlaylists[id] = Set(destinationIDs(object.value(forKey: "playlists"), from: id, "playlists"))
            case .owner:
                graph.entries[id] = destinationIDs(object.value(forKey: "entries"), from: id, "entries")
                graph.playlist[id] = destinationIDs(object.value(forKey: "playlist"), from: id, "playlist")
                ownerSide[id] = (Set(destinationIDs(object.value(forKey: "members"), from: id, "members")),
                                 Set(destinationIDs(object.value(forKey: "groupMembers"), from: id, "groupMembers")))
            }
        }
        // Both sides of every relationship.
        for (owner, sides) in ownerSide {
            let members = graph.members(of: owner), groupMembers = graph.groupMembers(of: owner)
            if sides.members != members { problems.append("\(owner).members is \(sides.members.sorted()), but the members pointing at it are \(members.sorted())") }
            if sides.groupMembers != groupMembers {
                problems.append("\(owner).groupMembers is \(sides.groupMembers.sorted()), but the members listing it in groups are \(groupMembers.sorted())")
            }
        }
        for (member, playlists) in memberPlaylists where playlists != graph.playlists(of: member) {
            problems.append("\(member).playlists is \(playlists.sorted()), but the playlists listing it are \(graph.playlists(of: member).sorted())")
        }
        for owner in graph.ids(.owner) {
            let entries = graph.entries[owner] ?? []
            let pointing = Set(graph.list.filter { $0.value == owner }.keys)
            if Set(entries) != pointing { problems.append("\(owner).entries is \(entries), but the members whose list is \(owner) are \(pointing.sorted())") }
        }
        return (graph, problems)
    }

    /// The facts in which two graphs differ, each named with both values.
    static func differences(_ graph: MCGraph, _ expected: MCGraph) -> [String] {
        if graph == expected { return [] }
        var result: [String] = []
        let missing = Set(expected.entities.keys).subtracting(graph.entities.keys), extra = Set(graph.entities.keys).subtracting(expected.entities.keys)
        if !missing.isEmpty { result.append("missing objects \(missing.sorted())") }
        if !extra.isEmpty { result.append("objects that should not be there \(extra.sorted())") }
        let common = Set(graph.entities.keys).intersection(expected.entities.keys)
        let got = graph.facts(of: common), want = expected.facts(of: common)
        for fact in Set(got.keys).union(want.keys) where got[fact] != want[fact] {
            guard let wanted = want[fact] else { continue }
            result.append("\(fact) is \(got[fact].map(\.description) ?? "missing"), expected \(wanted)")
        }
        return result.sorted()
    }

    static func testID(_ object: NSManagedObject) -> Int? {
        (object.value(forKey: "id") as? NSNumber)?.intValue
    }
}
