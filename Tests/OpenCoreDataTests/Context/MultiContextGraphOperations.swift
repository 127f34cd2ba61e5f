import Foundation

@testable import OpenCoreData

/// The operations of the multi-context graph test.
enum MCOperation: String, CaseIterable {
    case setOwner, setList, insertEntry, exchangeEntries, setEntries, toggleGroup, setGroups
    case insertPlaylist, removePlaylist, exchangePlaylist, memberPlaylist, editValue, insert, delete
    case undo, redo, save, staleSave, rollback, reset, refreshFault, refreshMerge, refreshAll, touch, merge

    var weight: Int {
        switch self {
        case .setOwner, .setList: 8
        case .toggleGroup, .save: 6
        case .editValue, .undo: 5
        case .insertEntry, .exchangeEntries, .insertPlaylist, .touch: 4
        case .setEntries, .exchangePlaylist, .memberPlaylist, .insert, .redo, .staleSave, .merge: 3
        case .setGroups, .removePlaylist, .delete, .refreshFault, .refreshMerge: 2
        case .rollback, .reset, .refreshAll: 1
        }
    }
}

extension MultiContextGraphRun {
    /// Picks an operation for `context`, runs it (on the context and the reference) and returns its name; operations
    /// that cannot be done in the current state are drawn again.
    func runStep(in context: Int) -> String {
        // Redo comes in runs after undo, so that it finds something to redo.
        let stale = context == Self.child ? childLag != .none : !(pending[context] ?? []).isEmpty
        func weight(_ operation: MCOperation) -> Int {
            switch operation {
            case .redo where !states[context].redoStack.isEmpty: 20
            case .staleSave where stale && states[context].hasChanges: 10
            default: operation.weight
            }
        }
        let total = MCOperation.allCases.reduce(0) { $0 + weight($1) }
        for _ in 0..<30 {
            var pick = Int.random(in: 0..<total, using: &generator)
            var chosen = MCOperation.touch
            for operation in MCOperation.allCases {
                if pick < weight(operation) { chosen = operation; break }
                pick -= weight(operation)
            }
            if ![.staleSave, .touch, .merge].contains(chosen) { prepare(context) }
            if failure != nil { return chosen.rawValue }
            if attempt(chosen, in: context) { return chosen.rawValue }
        }
        return "nothing"
    }

    private var random: Int { Int.random(in: 0..<1_000_000, using: &generator) }

    private func pick<T>(_ values: [T]) -> T? { values.randomElement(using: &generator) }

    /// The object `id` in `context` (a fault if not registered).
    func object(_ id: Int, in context: NSManagedObjectContext) -> NSManagedObject { context.object(with: objectIDs[id]!) }

    /// Objects another context deleted and has not saved: no other context may touch them.
    private func frozen(for context: Int) -> Set<Int> {
        states.indices.filter { $0 != context }.reduce(into: Set<Int>()) { $0.formUnion(states[$1].pendingDeletions) }
    }

    /// The live objects of `entity` the context may change.
    private func candidates(_ entity: MCEntity, in context: Int) -> [Int] {
        let frozen = frozen(for: context)
        return states[context].view.ids(entity).filter { !frozen.contains($0) }
    }

    /// Applies a change to the context (in one event) and to the reference — unless it would change an object another
    /// context deleted and has not saved (the other side of a moved object's old relationship, say): then nothing.
    @discardableResult
    private func change(_ context: Int, _ description: String, library: (NSManagedObjectContext) -> Void, reference: (inout MCGraph) -> Void) -> Bool {
        var trial = states[context]
        trial.change(reference)
        guard trial.touched.subtracting(states[context].touched).isDisjoint(with: frozen(for: context)) else { return false }
        let managed = contexts[context]
        managed.performAndWait { library(managed) }
        states[context] = trial
        note("context \(context): \(description)")
        if context == Self.parent && childLag == .none { childLag = .parentChanges }
        return true
    }

    // swiftlint:disable:next cyclomatic_complexity
    private func attempt(_ operation: MCOperation, in context: Int) -> Bool {
        let view = states[context].view
        let owners = candidates(.owner, in: context), members = candidates(.member, in: context)
        switch operation {
        case .setOwner:
            guard let member = pick(members) else { return false }
            let current = view.owner[member]
            let target: Int? = random % 5 == 0 ? nil : pick(owners)
            guard target != current else { return false }
            let way = random % 3
            return change(context, "\(member).owner = \(target.map(String.init) ?? "nil") (\(way))", library: { moc in
                let object = self.object(member, in: moc)
                if let target, way == 1 {
                    self.object(target, in: moc).mutableSetValue(forKey: "members").add(object)
                } else if target == nil, let current, way == 2 {
                    self.object(current, in: moc).mutableSetValue(forKey: "members").remove(object)
                } else {
                    object.setValue(target.map { self.object($0, in: moc) }, forKey: "owner")
                }
            }, reference: { $0.owner[member] = target })
        case .setList:
            guard let member = pick(members) else { return false }
            let current = view.list[member]
            let target: Int? = random % 5 == 0 ? nil : pick(owners)
            guard target != current else { return false }
            let way = random % 2
            return change(context, "\(member).list = \(target.map(String.init) ?? "nil") (\(way))", library: { moc in
                let object = self.object(member, in: moc)
                if way == 1, let target {
                    self.object(target, in: moc).mutableOrderedSetValue(forKey: "entries").add(object)
                } else if way == 1, let current {
                    self.object(current, in: moc).mutableOrderedSetValue(forKey: "entries").remove(object)
                } else {
                    object.setValue(target.map { self.object($0, in: moc) }, forKey: "list")
                }
            }, reference: { $0.setList(member, target) })
        case .insertEntry:
            guard let owner = pick(owners) else { return false }
            let list = view.entries[owner] ?? []
            guard let member = pick(members.filter { !list.contains($0) }) else { return false }
            let index = Int.random(in: 0...list.count, using: &generator)
            return change(context, "\(owner).entries.insert(\(member), at: \(index))", library: { moc in
                self.object(owner, in: moc).mutableOrderedSetValue(forKey: "entries").insert(self.object(member, in: moc), at: index)
            }, reference: { $0.setList(member, owner, at: index) })
        case .exchangeEntries, .exchangePlaylist:
            let list: MCList = operation == .exchangeEntries ? .entries : .playlist
            guard let owner = pick(owners.filter { view[list: list, owner: $0].count > 1 }) else { return false }
            let count = view[list: list, owner: owner].count
            let first = Int.random(in: 0..<count, using: &generator)
            let second = (first + Int.random(in: 1..<count, using: &generator)) % count
            return change(context, "\(owner).\(list.rawValue).exchange(\(first), \(second))", library: { moc in
                self.object(owner, in: moc).mutableOrderedSetValue(forKey: list.rawValue).exchangeObject(at: first, withObjectAt: second)
            }, reference: { $0[list: list, owner: owner].swapAt(first, second) })
        case .setEntries:
            guard let owner = pick(owners) else { return false }
            let current = view.entries[owner] ?? []
            var newList = current.filter { _ in random % 4 != 0 }
            newList += members.filter { !current.contains($0) && random % 5 == 0 }
            newList.shuffle(using: &generator)
            guard newList != current else { return false }
            return change(context, "\(owner).entries = \(newList)", library: { moc in
                let objects = newList.map { self.object($0, in: moc) }
                self.object(owner, in: moc).setValue(NSOrderedSet(array: objects), forKey: "entries")
            }, reference: { graph in
                for member in current where !newList.contains(member) { graph.setList(member, nil) }
                for member in newList { graph.setList(member, owner) }
                graph.entries[owner] = newList
            })
        case .toggleGroup:
            guard let member = pick(members), let owner = pick(owners) else { return false }
            let pair = MCPair(member: member, owner: owner)
            let present = view.groups.contains(pair)
            let fromMember = random % 2 == 0
            return change(context, "\(present ? "remove" : "add") group \(pair) from the \(fromMember ? "member" : "owner")", library: { moc in
                let memberObject = self.object(member, in: moc), ownerObject = self.object(owner, in: moc)
                let set = fromMember ? memberObject.mutableSetValue(forKey: "groups") : ownerObject.mutableSetValue(forKey: "groupMembers")
                let other = fromMember ? ownerObject : memberObject
                if present { set.remove(other) } else { set.add(other) }
            }, reference: { $0.setGroup(pair, !present) })
        case .setGroups:
            guard let member = pick(members) else { return false }
            let current = view.groups(of: member)
            let frozen = frozen(for: context)
            // Destinations the context may not touch keep their membership.
            var newGroups = Set(owners.filter { _ in random % 3 == 0 })
            newGroups.formUnion(current.filter { frozen.contains($0) })
            guard newGroups != current else { return false }
            return change(context, "\(member).groups = \(newGroups.sorted())", library: { moc in
                self.object(member, in: moc).setValue(NSSet(array: newGroups.map { self.object($0, in: moc) }), forKey: "groups")
            }, reference: { graph in
                for owner in current.union(newGroups) { graph.setGroup(MCPair(member: member, owner: owner), newGroups.contains(owner)) }
            })
        case .insertPlaylist:
            guard let owner = pick(owners) else { return false }
            let list = view.playlist[owner] ?? []
            guard let member = pick(members.filter { !list.contains($0) }) else { return false }
            let index = Int.random(in: 0...list.count, using: &generator)
            return change(context, "\(owner).playlist.insert(\(member), at: \(index))", library: { moc in
                self.object(owner, in: moc).mutableOrderedSetValue(forKey: "playlist").insert(self.object(member, in: moc), at: index)
            }, reference: { $0.setPlaylist(MCPair(member: member, owner: owner), true, at: index) })
        case .removePlaylist:
            guard let owner = pick(owners), let member = pick((view.playlist[owner] ?? []).filter(members.contains)) else { return false }
            let fromMember = random % 2 == 0
            return change(context, "remove \(member) from \(owner).playlist from the \(fromMember ? "member" : "owner")", library: { moc in
                let memberObject = self.object(member, in: moc), ownerObject = self.object(owner, in: moc)
                if fromMember {
                    memberObject.mutableSetValue(forKey: "playlists").remove(ownerObject)
                } else {
                    ownerObject.mutableOrderedSetValue(forKey: "playlist").remove(memberObject)
                }
            }, reference: { $0.setPlaylist(MCPair(member: member, owner: owner), false) })
        case .memberPlaylist:
            guard let member = pick(members), let owner = pick(owners.filter { !(view.playlist[$0] ?? []).contains(member) }) else { return false }
            return change(context, "\(member).playlists.add(\(owner))", library: { moc in
                self.object(member, in: moc).mutableSetValue(forKey: "playlists").add(self.object(owner, in: moc))
            }, reference: { $0.setPlaylist(MCPair(member: member, owner: owner), true) })
        case .editValue:
            guard let id = pick(owners + members) else { return false }
            let value = freshValue()
            return change(context, "\(id).value = \(value)", library: { moc in self.object(id, in: moc).setValue(value, forKey: "value") },
                   reference: { $0.values[id] = value })
        case .insert:
            return insert(in: context, owners: owners)
        case .delete:
            return delete(in: context)
        case .undo, .redo:
            return undoOrRedo(operation == .undo, in: context)
        case .save:
            return save(context)
        case .staleSave:
            return staleSave(context)
        case .rollback, .reset:
            // A parent does not discard an insertion its child has built on (Apple leaves the child's objects that
            // point at it undefined).
            if context == Self.parent && !states[context].pendingInsertions.isDisjoint(with: states[Self.child].touched) { return false }
            let managed = contexts[context]
            let before = states[context].view
            managed.performAndWait { operation == .rollback ? managed.rollback() : managed.reset() }
            states[context].discardChanges()
            note("context \(context): \(operation.rawValue)")
            if context == Self.parent && states[context].view != before { parentChangedOtherwise() }
        case .refreshFault:
            // Only unchanged objects: refreshing a changed object without merging drops its changes on one side of
            // its relationships only, which Apple leaves as it is.
            guard let id = pick(view.entities.keys.filter { !states[context].touched.contains($0) }.sorted()) else { return false }
            let managed = contexts[context]
            managed.performAndWait { managed.refresh(self.object(id, in: managed), mergeChanges: false) }
            note("context \(context): refresh(\(id), mergeChanges: false)")
        case .refreshMerge:
            guard let id = pick(view.entities.keys.sorted()) else { return false }
            let managed = contexts[context]
            managed.performAndWait { managed.refresh(self.object(id, in: managed), mergeChanges: true) }
            note("context \(context): refresh(\(id), mergeChanges: true)")
        case .refreshAll:
            let managed = contexts[context]
            managed.performAndWait { managed.refreshAllObjects() }
            note("context \(context): refreshAllObjects()")
        case .touch:
            touch(context)
        case .merge:
            guard context == Self.parent || context == Self.manual, !(pending[context] ?? []).isEmpty else { return false }
            deliverPendingMerges(to: context)
        }
        return true
    }

    private func insert(in context: Int, owners: [Int]) -> Bool {
        let entity: MCEntity = random % 3 == 0 ? .owner : .member
        let id = freshID(), value = freshValue()
        let owner: Int? = entity == .member && random % 2 == 0 ? pick(owners) : nil
        let list: Int? = entity == .member && random % 3 == 0 ? pick(owners) : nil
        let managed = contexts[context]
        var objectID: NSManagedObjectID?
        managed.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity.rawValue, into: managed)
            object.setValue(id, forKey: "id")
            object.setValue(value, forKey: "value")
            if let owner { object.setValue(self.object(owner, in: managed), forKey: "owner") }
            if let list { object.setValue(self.object(list, in: managed), forKey: "list") }
            // Permanent IDs at once, as Apple advises with child contexts: a temporary ID would be another object's
            // ID in a context that later fetches the saved row.
            do { try managed.obtainPermanentIDs(for: [object]) } catch { fail("obtainPermanentIDs threw \(error)") }
            objectID = object.objectID
            managed.processPendingChanges()
            managed.undoManager?.removeAllActions()
        }
        objectIDs[id] = objectID
        states[context].change { graph in
            graph.insert(id, entity, value: value)
            if let owner { graph.owner[id] = owner }
            if let list { graph.setList(id, list) }
        }
        note("context \(context): insert \(entity.rawValue) \(id) (owner \(owner.map(String.init) ?? "-"), list \(list.map(String.init) ?? "-"))")
        if context == Self.parent && childLag == .none { childLag = .parentChanges }
        return true
    }

    /// Deletes an object no other context has changed (Apple leaves a deletion that meets another context's unsaved
    /// change of the same object to the merge policy: the concurrency stress suite's subject).
    private func delete(in context: Int) -> Bool {
        let others = states.indices.filter { $0 != context }.reduce(into: Set<Int>()) { $0.formUnion(states[$1].touched) }
        let frozen = frozen(for: context)
        guard let id = pick(states[context].view.entities.keys.filter { !others.contains($0) && !frozen.contains($0) }.sorted()) else { return false }
        // Nor one whose delete rule would change an object another context deleted (nullify a relationship to it).
        var trial = states[context]
        trial.change { $0.delete(id) }
        guard trial.touched.subtracting(states[context].touched).isDisjoint(with: frozen) else { return false }
        let managed = contexts[context]
        managed.performAndWait {
            managed.delete(self.object(id, in: managed))
            managed.processPendingChanges()
            managed.undoManager?.removeAllActions()
        }
        states[context] = trial
        note("context \(context): delete \(id)")
        if context == Self.parent && childLag == .none { childLag = .parentChanges }
        return true
    }

    private func undoOrRedo(_ undo: Bool, in context: Int) -> Bool {
        guard undo ? states[context].canUndo : states[context].canRedo else { return false }
        // Not when it would change an object another context deleted since.
        var trial = states[context]
        if undo { trial.undo() } else { trial.redo() }
        guard trial.touched.subtracting(states[context].touched).isDisjoint(with: frozen(for: context)) else { return false }
        let managed = contexts[context]
        let available = managed.performAndWait { undo ? managed.undoManager?.canUndo ?? false : managed.undoManager?.canRedo ?? false }
        guard available else {
            fail("context \(context) cannot \(undo ? "undo" : "redo"), but the reference has \(undo ? states[context].undoStack.count : states[context].redoStack.count) group(s)")
            return true
        }
        managed.performAndWait { undo ? managed.undo() : managed.redo() }
        states[context] = trial
        note("context \(context): \(undo ? "undo" : "redo")")
        if context == Self.parent && childLag == .none { childLag = .parentChanges }
        return true
    }

    /// Saves a context that has caught up: a child into its parent, the others into the store.
    private func save(_ context: Int) -> Bool {
        guard states[context].hasChanges || random % 4 == 0 else { return false }
        let managed = contexts[context]
        do {
            try managed.performAndWait { try managed.save() }
        } catch {
            fail("context \(context): save() threw \(error)")
            return true
        }
        note("context \(context): save")
        didSave(context, stale: false)
        return true
    }

    /// After a successful save: the store (or the parent) has the context's changes; contexts that merge
    /// automatically catch up.
    private func didSave(_ context: Int, stale: Bool) {
        let state = states[context]
        if context == Self.child {
            states[Self.parent].change(undoable: false) { parentView in
                parentView = stale ? MCContextState.apply(changesOf: state.view, over: state.base, to: parentView, dirty: state.dirty) : state.view
            }
            states[context].saved()
            return
        }
        store = stale ? MCContextState.apply(changesOf: state.view, over: state.base, to: store, dirty: state.dirty) : state.view
        states[context].saved()
        checkStore(label: "after context \(context) saved")
        collectSaves()
        if context != Self.autoMerging {
            contexts[Self.autoMerging].performAndWait {}
            states[Self.autoMerging].rebase(to: store)
        }
        if context == Self.parent {
            // The child merges its parent's save on its own queue.
            contexts[Self.child].performAndWait {}
            states[Self.child].rebase(to: states[Self.parent].view)
            childLag = .none
        }
    }

    /// Saves before catching up: the save fails exactly when an object it writes was saved elsewhere since the
    /// context read it (the error merge policy lists exactly those); then the context merges and saves again.
    private func staleSave(_ context: Int) -> Bool {
        let managed = contexts[context]
        if context == Self.child {
            guard childLag != .none, states[context].hasChanges else { return false }
            prepare(Self.parent)
            guard childLag != .none else { return false }
            do {
                try managed.performAndWait { try managed.save() }
            } catch {
                fail("context \(context): a save into the parent (which changed since the child read it) threw \(error)")
                return true
            }
            note("child: save into a parent that changed since")
            didSave(context, stale: true)
            return true
        }
        collectSaves()
        guard context != Self.autoMerging, !(pending[context] ?? []).isEmpty, states[context].hasChanges else { return false }
        let state = states[context]
        var byObjectID: [NSManagedObjectID: Int] = [:]
        for (id, objectID) in objectIDs { byObjectID[objectID] = id }
        // The objects the save writes that others saved since the context caught up.
        let conflicting = changedObjects(context, byObjectID).intersection(pendingWrites[context] ?? []).subtracting(state.pendingInsertions)
        let outcome: Result<Void, NSError> = managed.performAndWait {
            do { try managed.save(); return .success(()) } catch let error as NSError { return .failure(error) }
        }
        switch outcome {
        case .success:
            guard conflicting.isEmpty else {
                fail("context \(context): a save before merging succeeded although \(conflicting.sorted()) were saved elsewhere since it read them")
                return true
            }
            note("context \(context): save before merging \(pending[context]!.count) save(s), no conflict")
            didSave(context, stale: true)
        case .failure(let error):
            let reported = Set(((error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]) ?? []).compactMap { byObjectID[$0.sourceObject.objectID] })
            guard error.code == NSManagedObjectMergeError, reported == conflicting, !conflicting.isEmpty else {
                fail("context \(context): a save before merging threw \(error.code) with conflicts \(reported.sorted()); expected \(conflicting.isEmpty ? "success" : "133020 with \(conflicting.sorted())")")
                return true
            }
            note("context \(context): save before merging fails with conflicts \(conflicting.sorted()); merges and saves again")
            let touched = states[context].touched
            deliverPendingMerges(to: context)
            states[context].touched.formUnion(touched)
            return save(context)
        }
        return true
    }

    /// Reads relationships of random objects, firing faults at random moments (nothing is checked: the context may
    /// not have caught up).
    private func touch(_ context: Int) {
        if context == Self.child { prepare(Self.parent) }
        let managed = contexts[context]
        let ids = states[context].view.entities.keys.sorted().filter { _ in random % 3 == 0 }
        let memberKeys = MultiContextGraphSchema.memberRelationships.map(\.name), ownerKeys = MultiContextGraphSchema.ownerRelationships.map(\.name)
        let keys = ids.map { id in (states[context].view.entities[id] == .owner ? ownerKeys : memberKeys).randomElement(using: &generator)! }
        managed.performAndWait {
            for (id, key) in zip(ids, keys) {
                let value = self.object(id, in: managed).value(forKey: key)
                _ = (value as? NSSet)?.count ?? (value as? NSOrderedSet)?.count
            }
        }
        note("context \(context): reads \(zip(ids, keys).map { "\($0).\($1)" }.joined(separator: ", "))")
    }
}
