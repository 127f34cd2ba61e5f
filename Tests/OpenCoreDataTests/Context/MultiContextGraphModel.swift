import Foundation

@testable import OpenCoreData

// The reference of the multi-context graph test (MultiContextGraphTests.swift): the store's graph, and for each
// context the graph it shows — the graph it is based on (the store's for a context of the coordinator, its parent's
// for a child) with its unsaved changes on top. It is written from Apple's semantics, not from the library:
//
// - A context shows its base with its own changes on top: a to-one it set, a many-to-many pair it added or removed,
//   a value it edited keep its value; everything else follows the base. A to-many's members are the base's members
//   plus the objects this context moved into it and minus those it moved out.
// - An ordered relationship this context changed (its "dirty" lists) keeps this context's order for the members it
//   still has; members that joined in the base follow, in the base's order. One it did not change shows the base's
//   order.
// - When the base changes (a merge, a refresh, a child's parent changing), the context shows the new base with its
//   changes on top (`rebase`): a change the new base already holds is no change any more.
// - Undo and redo put back the values an event changed, when nothing else has changed them since (the test undoes
//   only then: otherwise Apple leaves the outcome unspecified).

/// The two entities.
enum MCEntity: String, Hashable {
    case owner = "Owner", member = "Member"
}

/// A pair of a many-to-many relationship.
struct MCPair: Hashable, Comparable, CustomStringConvertible {
    let member: Int
    let owner: Int
    static func < (a: MCPair, b: MCPair) -> Bool { (a.member, a.owner) < (b.member, b.owner) }
    var description: String { "\(member)-\(owner)" }
}

/// The two ordered relationships of an owner.
enum MCList: String, Hashable, CaseIterable {
    /// `Owner.entries` (ordered one-to-many; inverse `Member.list`).
    case entries
    /// `Owner.playlist` (ordered many-to-many; inverse `Member.playlists`).
    case playlist
}

/// A graph: live objects, their values and their relationships.
struct MCGraph: Equatable {
    var entities: [Int: MCEntity] = [:]
    var values: [Int: Int64] = [:]
    /// `Member.owner` (inverse of the unordered `Owner.members`).
    var owner: [Int: Int] = [:]
    /// `Member.list` (inverse of the ordered `Owner.entries`).
    var list: [Int: Int] = [:]
    /// `Member.groups` / `Owner.groupMembers`.
    var groups: Set<MCPair> = []
    /// `Owner.entries` and `Owner.playlist`, by owner, in order (an entry for every live owner).
    var entries: [Int: [Int]] = [:]
    var playlist: [Int: [Int]] = [:]

    func ids(_ entity: MCEntity) -> [Int] { entities.filter { $0.value == entity }.keys.sorted() }
    func isLive(_ id: Int) -> Bool { entities[id] != nil }

    func lists(_ list: MCList) -> [Int: [Int]] { list == .entries ? entries : playlist }
    subscript(list list: MCList, owner owner: Int) -> [Int] {
        get { (list == .entries ? entries[owner] : playlist[owner]) ?? [] }
        set { if list == .entries { entries[owner] = newValue } else { playlist[owner] = newValue } }
    }

    func members(of owner: Int) -> Set<Int> { Set(self.owner.filter { $0.value == owner }.keys) }
    func groups(of member: Int) -> Set<Int> { Set(groups.filter { $0.member == member }.map(\.owner)) }
    func groupMembers(of owner: Int) -> Set<Int> { Set(groups.filter { $0.owner == owner }.map(\.member)) }
    func playlists(of member: Int) -> Set<Int> { Set(playlist.filter { $0.value.contains(member) }.keys) }
    var playlistPairs: Set<MCPair> {
        Set(playlist.flatMap { owner, members in members.map { MCPair(member: $0, owner: owner) } })
    }

    // MARK: Primitive changes, with the inverse kept (as the library's inverse maintenance does)

    mutating func insert(_ id: Int, _ entity: MCEntity, value: Int64) {
        entities[id] = entity
        values[id] = value
        if entity == .owner {
            entries[id] = []
            playlist[id] = []
        }
    }

    /// Deletes `id` with the nullify rule on every relationship.
    mutating func delete(_ id: Int) {
        guard let entity = entities.removeValue(forKey: id) else { return }
        values[id] = nil
        switch entity {
        case .member:
            owner[id] = nil
            if let listOwner = list.removeValue(forKey: id) { entries[listOwner]?.removeAll { $0 == id } }
            groups = groups.filter { $0.member != id }
            for key in playlist.keys { playlist[key]?.removeAll { $0 == id } }
        case .owner:
            owner = owner.filter { $0.value != id }
            list = list.filter { $0.value != id }
            entries[id] = nil
            groups = groups.filter { $0.owner != id }
            playlist[id] = nil
        }
    }

    /// `member.list = owner`: leaves its old list, joins the end of the new one (or at `index`).
    mutating func setList(_ member: Int, _ newOwner: Int?, at index: Int? = nil) {
        if let old = list[member] { entries[old]?.removeAll { $0 == member } }
        list[member] = newOwner
        if let newOwner {
            var members = entries[newOwner] ?? []
            members.insert(member, at: min(max(index ?? members.count, 0), members.count))
            entries[newOwner] = members
        }
    }

    /// The pair's membership in `Owner.playlist` (added at the end, or at `index`).
    mutating func setPlaylist(_ pair: MCPair, _ present: Bool, at index: Int? = nil) {
        var members = playlist[pair.owner] ?? []
        let had = members.contains(pair.member)
        if had && !present { members.removeAll { $0 == pair.member } }
        if !had && present { members.insert(pair.member, at: min(max(index ?? members.count, 0), members.count)) }
        playlist[pair.owner] = members
    }

    mutating func setGroup(_ pair: MCPair, _ present: Bool) {
        if present { groups.insert(pair) } else { groups.remove(pair) }
    }

    /// Invariants of a graph (a broken one is a bug of the test).
    func selfCheck() -> [String] {
        var problems: [String] = []
        for (member, target) in owner where entities[member] != .member || entities[target] != .owner { problems.append("owner \(member)→\(target)") }
        for (member, target) in list where entities[member] != .member || entities[target] != .owner { problems.append("list \(member)→\(target)") }
        for pair in groups where entities[pair.member] != .member || entities[pair.owner] != .owner { problems.append("group \(pair)") }
        for id in ids(.owner) {
            let members = entries[id] ?? []
            if Set(members).count != members.count || Set(members) != Set(list.filter { $0.value == id }.keys) {
                problems.append("entries of \(id) \(members) vs list \(list.filter { $0.value == id }.keys.sorted())")
            }
            let playlistMembers = playlist[id] ?? []
            if Set(playlistMembers).count != playlistMembers.count || playlistMembers.contains(where: { entities[$0] != .member }) {
                problems.append("playlist of \(id) \(playlistMembers)")
            }
        }
        if Set(entries.keys) != Set(ids(.owner)) || Set(playlist.keys) != Set(ids(.owner)) { problems.append("lists of dead owners") }
        return problems
    }
}

// MARK: Facts (what an undo group puts back)

/// One value of the graph: an object's value, a to-one, a pair, an ordered list.
enum MCFact: Hashable, CustomStringConvertible {
    case value(Int), owner(Int), list(Int), group(MCPair), order(MCList, Int)

    var description: String {
        switch self {
        case .value(let id): "\(id).value"
        case .owner(let id): "\(id).owner"
        case .list(let id): "\(id).list"
        case .group(let pair): "group \(pair)"
        case .order(let list, let id): "\(id).\(list.rawValue)"
        }
    }

    /// The value of the fact for an object that has just been inserted.
    var emptyValue: MCFactValue {
        switch self {
        case .value: .number(nil)
        case .owner, .list: .reference(nil)
        case .group: .present(false)
        case .order: .order([])
        }
    }

    /// The objects the fact belongs to.
    var objects: [Int] {
        switch self {
        case .value(let id), .owner(let id), .list(let id), .order(_, let id): [id]
        case .group(let pair): [pair.member, pair.owner]
        }
    }
}

enum MCFactValue: Equatable, CustomStringConvertible {
    case number(Int64?), reference(Int?), present(Bool), order([Int])

    var description: String {
        switch self {
        case .number(let value): value.map(String.init) ?? "nil"
        case .reference(let id): id.map(String.init) ?? "nil"
        case .present(let present): "\(present)"
        case .order(let ids): "\(ids)"
        }
    }
}

extension MCGraph {
    /// Every fact of the objects `ids` (all live objects by default).
    func facts(of ids: Set<Int>? = nil) -> [MCFact: MCFactValue] {
        var result: [MCFact: MCFactValue] = [:]
        for (id, entity) in entities where ids?.contains(id) ?? true {
            result[.value(id)] = .number(values[id])
            switch entity {
            case .member:
                result[.owner(id)] = .reference(owner[id])
                result[.list(id)] = .reference(list[id])
            case .owner:
                result[.order(.entries, id)] = .order(entries[id] ?? [])
                result[.order(.playlist, id)] = .order(playlist[id] ?? [])
                for member in self.ids(.member) { result[.group(MCPair(member: member, owner: id))] = .present(groups.contains(MCPair(member: member, owner: id))) }
            }
        }
        return result
    }

    func value(of fact: MCFact) -> MCFactValue {
        switch fact {
        case .value(let id): .number(values[id])
        case .owner(let id): .reference(owner[id])
        case .list(let id): .reference(list[id])
        case .group(let pair): .present(groups.contains(pair))
        case .order(let list, let id): .order(self[list: list, owner: id])
        }
    }

    /// Sets facts as they are (an undo puts back every side of each change it undoes, so the graph stays whole).
    mutating func set(_ facts: [MCFact: MCFactValue]) {
        for (fact, value) in facts {
            switch (fact, value) {
            case (.value(let id), .number(let number)): values[id] = number
            case (.owner(let id), .reference(let target)): owner[id] = target
            case (.list(let id), .reference(let target)): list[id] = target
            case (.group(let pair), .present(let present)): setGroup(pair, present)
            case (.order(let list, let id), .order(let ids)): self[list: list, owner: id] = ids
            default: preconditionFailure("fact \(fact) with value \(value)")
            }
        }
    }
}

/// Facts an event changed: the values before and after it.
struct MCUndoGroup {
    var before: [MCFact: MCFactValue]
    var after: [MCFact: MCFactValue]
    var objects: Set<Int> { Set(before.keys.flatMap(\.objects)) }
}

// MARK: A context's state

/// What the reference knows of one context.
struct MCContextState {
    /// The graph its unsaved changes are on top of: the store's when it last caught up with it (or its parent's).
    var base: MCGraph
    /// The graph it shows.
    var view: MCGraph
    /// The ordered lists it changed since its last save, rollback or reset.
    var dirty: Set<MCListKey> = []
    /// The objects it changed (both sides of every relationship change) since its last save: Apple's
    /// `updatedObjects`, `insertedObjects` and `deletedObjects` together.
    var touched: Set<Int> = []
    var undoStack: [MCUndoGroup] = []
    var redoStack: [MCUndoGroup] = []

    init(graph: MCGraph) {
        base = graph
        view = graph
    }

    var hasChanges: Bool { !touched.isEmpty }
    /// Objects the context deleted and has not saved.
    var pendingDeletions: Set<Int> { Set(base.entities.keys).subtracting(view.entities.keys) }
    /// Objects the context inserted and has not saved.
    var pendingInsertions: Set<Int> { Set(view.entities.keys).subtracting(base.entities.keys) }

    /// Applies a change made in this context (one event): marks what it touched and the lists it changed, and
    /// records the undo group (when `undoable`; a new group empties the redo stack).
    mutating func change(undoable: Bool = true, _ body: (inout MCGraph) -> Void) {
        let before = view
        body(&view)
        record(from: before, undoable: undoable)
    }

    /// Records what changed from `before` to the current view as this context's own change.
    mutating func record(from before: MCGraph, undoable: Bool) {
        let changedObjects = Set(before.entities.keys).symmetricDifference(view.entities.keys)
        let old = before.facts(), new = view.facts()
        var group = MCUndoGroup(before: [:], after: [:])
        touched.formUnion(changedObjects)
        for fact in Set(old.keys).union(new.keys) where old[fact] != new[fact] {
            group.before[fact] = old[fact]
            group.after[fact] = new[fact]
            // A fact of an object inserted or deleted counts from its empty value (a new owner's pairs are all absent).
            let from = old[fact] ?? fact.emptyValue, to = new[fact] ?? fact.emptyValue
            if from != to { touched.formUnion(Self.objects(of: fact, changedFrom: from, to: to)) }
        }
        // An object inserted and deleted again before a save is no change at all (Apple's context forgets it).
        touched = touched.filter { base.isLive($0) || view.isLive($0) }
        for case .order(let list, let owner) in group.before.keys { dirty.insert(MCListKey(list: list, owner: owner)) }
        guard undoable else { return }
        if !changedObjects.isEmpty {
            // The test empties the undo manager after an insertion or a deletion (their undo across saves and
            // merges is another test's subject: RandomGraphTests).
            undoStack.removeAll()
            redoStack.removeAll()
        } else if !group.before.isEmpty {
            undoStack.append(group)
            redoStack.removeAll()
        }
    }

    /// Whether the top undo group can be undone cleanly: every fact it changed still has the value it left.
    var canUndo: Bool {
        guard let group = undoStack.last else { return false }
        return group.after.allSatisfy { view.isLive(objectsOf: $0.key) && view.value(of: $0.key) == $0.value }
    }

    var canRedo: Bool {
        guard let group = redoStack.last else { return false }
        return group.before.allSatisfy { view.isLive(objectsOf: $0.key) && view.value(of: $0.key) == $0.value }
    }

    mutating func undo() {
        let group = undoStack.removeLast()
        let before = view
        view.set(group.before)
        redoStack.append(group)
        noteRestored(from: before)
    }

    mutating func redo() {
        let group = redoStack.removeLast()
        let before = view
        view.set(group.after)
        undoStack.append(group)
        noteRestored(from: before)
    }

    private mutating func noteRestored(from before: MCGraph) {
        let old = before.facts(), new = view.facts()
        for fact in Set(old.keys).union(new.keys) where old[fact] != new[fact] {
            touched.formUnion(Self.objects(of: fact, changedFrom: old[fact], to: new[fact]))
            if case .order(let list, let owner) = fact { dirty.insert(MCListKey(list: list, owner: owner)) }
        }
    }

    /// The objects a change of `fact` changes: its own, and for an ordered list the members that joined or left it
    /// (their inverse side changed too; Apple's `updatedObjects` has both sides).
    static func objects(of fact: MCFact, changedFrom old: MCFactValue?, to new: MCFactValue?) -> Set<Int> {
        var result = Set(fact.objects)
        switch (old, new) {
        case (.order(let before)?, .order(let after)?): result.formUnion(Set(before).symmetricDifference(after))
        case (.reference(let before)?, .reference(let after)?): result.formUnion([before, after].compactMap { $0 })
        case (nil, .reference(let after)?), (.reference(let after)?, nil): result.formUnion([after].compactMap { $0 })
        case (nil, .order(let ids)?), (.order(let ids)?, nil): result.formUnion(ids)
        default: break
        }
        return result
    }

    /// The context's changes are gone (rollback, reset): it shows its base.
    mutating func discardChanges() {
        view = base
        dirty = []
        touched = []
        undoStack = []
        redoStack = []
    }

    /// The context saved: what it shows is its base now.
    mutating func saved() {
        base = view
        dirty = []
        touched = []
    }

    /// The context caught up with a new base: it shows `newBase` with its own changes on top.
    mutating func rebase(to newBase: MCGraph) {
        let newView = MCContextState.apply(changesOf: view, over: base, to: newBase, dirty: dirty)
        // A to-one this context changed keeps its value over the new base: where the new base moved the member to
        // another owner, that owner loses it with this context's save too, so it is changed.
        for toOne in [\MCGraph.owner, \MCGraph.list] {
            for (member, stored) in newBase[keyPath: toOne]
            where newView.isLive(stored) && newView[keyPath: toOne][member] != stored && base[keyPath: toOne][member] != stored {
                touched.insert(stored)
            }
        }
        view = newView
        base = newBase
    }

    /// `changed` is `old` with some changes on top; returns `target` with the same changes on top. Objects deleted in
    /// `target` are gone, with the changes that involve them.
    static func apply(changesOf changed: MCGraph, over old: MCGraph, to target: MCGraph, dirty: Set<MCListKey>) -> MCGraph {
        let inserted = Set(changed.entities.keys).subtracting(old.entities.keys)
        let deleted = Set(old.entities.keys).subtracting(changed.entities.keys)
        var result = MCGraph()
        for (id, entity) in target.entities where !deleted.contains(id) { result.entities[id] = entity }
        for id in inserted { result.entities[id] = changed.entities[id] }
        func overridden<Value: Equatable>(_ id: Int, _ value: (MCGraph) -> Value) -> Bool {
            inserted.contains(id) || (old.isLive(id) && value(changed) != value(old))
        }
        for id in result.entities.keys {
            result.values[id] = overridden(id, { $0.values[id] }) ? changed.values[id] : target.values[id]
            if result.entities[id] == .owner {
                result.entries[id] = []
                result.playlist[id] = []
            }
        }
        for member in result.ids(.member) {
            let owner = overridden(member, { $0.owner[member] }) ? changed.owner[member] : target.owner[member]
            result.owner[member] = owner.flatMap { result.isLive($0) ? $0 : nil }
            let list = overridden(member, { $0.list[member] }) ? changed.list[member] : target.list[member]
            result.list[member] = list.flatMap { result.isLive($0) ? $0 : nil }
        }
        /// A pair's value: the changed graph's if it changed the pair (or the pair involves an object it inserted),
        /// the target's otherwise.
        func pairValue(_ pair: MCPair, changed inChanged: Bool, old inOld: Bool, target inTarget: Bool) -> Bool {
            let isOverridden = inserted.contains(pair.member) || inserted.contains(pair.owner) || inChanged != inOld
            return isOverridden ? inChanged : inTarget
        }
        let changedPlaylist = changed.playlistPairs, oldPlaylist = old.playlistPairs, targetPlaylist = target.playlistPairs
        var playlistMembership = Set<MCPair>()
        for pair in changed.groups.union(old.groups).union(target.groups).union(changedPlaylist).union(oldPlaylist).union(targetPlaylist) {
            guard result.entities[pair.member] == .member, result.entities[pair.owner] == .owner else { continue }
            if pairValue(pair, changed: changed.groups.contains(pair), old: old.groups.contains(pair), target: target.groups.contains(pair)) {
                result.groups.insert(pair)
            }
            if pairValue(pair, changed: changedPlaylist.contains(pair), old: oldPlaylist.contains(pair), target: targetPlaylist.contains(pair)) {
                playlistMembership.insert(pair)
            }
        }
        for owner in result.ids(.owner) {
            for list in MCList.allCases {
                let members: Set<Int> = list == .entries ? Set(result.list.filter { $0.value == owner }.keys)
                    : Set(playlistMembership.filter { $0.owner == owner }.map(\.member))
                var order: [Int] = []
                if dirty.contains(MCListKey(list: list, owner: owner)) || inserted.contains(owner) {
                    order = changed[list: list, owner: owner].filter(members.contains)
                }
                order += target[list: list, owner: owner].filter { members.contains($0) && !order.contains($0) }
                // Members in neither list cannot arise (a member joins a list through a change of it); sorted, should
                // they ever, so that the run stays deterministic and the check names them.
                order += members.subtracting(order).sorted()
                result[list: list, owner: owner] = order
            }
        }
        return result
    }
}

/// An ordered list of one owner.
struct MCListKey: Hashable {
    let list: MCList
    let owner: Int
}

extension MCGraph {
    /// Whether the objects of `fact` are live.
    func isLive(objectsOf fact: MCFact) -> Bool { fact.objects.allSatisfy(isLive) }
}
