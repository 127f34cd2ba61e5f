import OpenCoreData

// The schema and the independent reference model of `RandomGraphTests`.
//
// The reference implements Apple's documented Core Data graph semantics on plain values (object ids, no managed
// objects): inverse maintenance, delete rules at the end of an event, undo/redo as a stack of whole graph states,
// save and rollback. It never reads anything back through the API under test.

/// The shape of a relationship end.
enum RandomGraphRelationshipKind: Sendable {
    case toOne, toMany, ordered
}

/// One end of a relationship of the random graph's model.
struct RandomGraphRelationship: Hashable, Sendable, CustomStringConvertible {
    let entity: String
    let name: String
    let destination: String
    let inverseName: String
    let kind: RandomGraphRelationshipKind
    let rule: NSDeleteRule

    var isToMany: Bool { kind != .toOne }
    var isOrdered: Bool { kind == .ordered }
    var inverse: RandomGraphRelationship { RandomGraphSchema.relationship(destination, inverseName) }
    var description: String { "\(entity).\(name)" }
}

/// The model every random graph run uses, described once for both the Core Data model and the reference.
///
/// Relationship kinds and delete rules covered:
/// - one-to-one:           Author.profile (cascade)     ↔ Profile.author (nullify)
/// - one-to-one, reflexive: Tag.twin (nullify), its own inverse
/// - one-to-many:          Author.books (deny)          ↔ Book.author (nullify)
/// - ordered one-to-many:  Author.articles (cascade)    ↔ Article.author (no action)
/// - many-to-many:         Author.groups (nullify)      ↔ Group.members (cascade)
/// - many-to-many:         Book.tags (nullify)          ↔ Tag.books (nullify)
enum RandomGraphSchema {
    static let entities = ["Author", "Profile", "Book", "Article", "Group", "Tag"]

    static let relationships: [RandomGraphRelationship] = [
        .init(entity: "Author", name: "profile", destination: "Profile", inverseName: "author", kind: .toOne, rule: .cascadeDeleteRule),
        .init(entity: "Profile", name: "author", destination: "Author", inverseName: "profile", kind: .toOne, rule: .nullifyDeleteRule),
        .init(entity: "Author", name: "books", destination: "Book", inverseName: "author", kind: .toMany, rule: .denyDeleteRule),
        .init(entity: "Book", name: "author", destination: "Author", inverseName: "books", kind: .toOne, rule: .nullifyDeleteRule),
        .init(entity: "Author", name: "articles", destination: "Article", inverseName: "author", kind: .ordered, rule: .cascadeDeleteRule),
        .init(entity: "Article", name: "author", destination: "Author", inverseName: "articles", kind: .toOne, rule: .noActionDeleteRule),
        .init(entity: "Author", name: "groups", destination: "Group", inverseName: "members", kind: .toMany, rule: .nullifyDeleteRule),
        .init(entity: "Group", name: "members", destination: "Author", inverseName: "groups", kind: .toMany, rule: .cascadeDeleteRule),
        .init(entity: "Book", name: "tags", destination: "Tag", inverseName: "books", kind: .toMany, rule: .nullifyDeleteRule),
        .init(entity: "Tag", name: "books", destination: "Book", inverseName: "tags", kind: .toMany, rule: .nullifyDeleteRule),
        .init(entity: "Tag", name: "twin", destination: "Tag", inverseName: "twin", kind: .toOne, rule: .nullifyDeleteRule),
    ]

    static let relationshipsByEntity: [String: [RandomGraphRelationship]] = Dictionary(grouping: relationships, by: \.entity)

    static func relationship(_ entity: String, _ name: String) -> RandomGraphRelationship {
        guard let relationship = relationshipsByEntity[entity]?.first(where: { $0.name == name }) else {
            preconditionFailure("The random graph schema has no relationship \(entity).\(name)")
        }
        return relationship
    }

    /// The model, built with Apple's model API.
    static func makeModel() -> NSManagedObjectModel {
        var entityByName: [String: NSEntityDescription] = [:]
        for name in entities {
            let entity = NSEntityDescription()
            entity.name = name
            entity.managedObjectClassName = "NSManagedObject"
            entityByName[name] = entity
        }
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        var descriptions: [RandomGraphRelationship: NSRelationshipDescription] = [:]
        for spec in relationships {
            let relationship = NSRelationshipDescription()
            relationship.name = spec.name
            relationship.destinationEntity = entityByName[spec.destination]
            relationship.maxCount = spec.isToMany ? 0 : 1
            relationship.minCount = 0
            relationship.isOrdered = spec.isOrdered
            relationship.deleteRule = spec.rule
            relationship.isOptional = true
            descriptions[spec] = relationship
        }
        for (spec, relationship) in descriptions {
            relationship.inverseRelationship = descriptions[spec.inverse]
        }
        for name in entities {
            let attributes: [NSPropertyDescription] = [
                attribute("id", .integer64AttributeType), attribute("value", .integer64AttributeType), attribute("name", .stringAttributeType),
            ]
            entityByName[name]!.properties = attributes + (relationshipsByEntity[name] ?? []).map { descriptions[$0]! }
        }
        let model = NSManagedObjectModel()
        model.entities = entities.map { entityByName[$0]! }
        return model
    }
}

/// One object of the reference graph.
struct RandomGraphObject: Equatable {
    let entity: String
    var value: Int64
    var name: String?
    /// Destination ids per relationship name: at most one for to-one, sorted for unordered to-many, in order for
    /// ordered to-many. A missing key means empty.
    var links: [String: [Int64]] = [:]

    func members(_ name: String) -> [Int64] { links[name] ?? [] }
}

/// A whole reference graph: the objects of the context, live ones and deleted ones not yet saved.
struct RandomGraphState: Equatable {
    var objects: [Int64: RandomGraphObject] = [:]
    /// Deleted, not yet saved (their links are kept: live objects may still point at them under no-action and
    /// deny rules).
    var deleted: Set<Int64> = []

    func isLive(_ id: Int64) -> Bool { objects[id] != nil && !deleted.contains(id) }

    func liveIDs(_ entity: String) -> [Int64] {
        objects.filter { $0.value.entity == entity && !deleted.contains($0.key) }.map(\.key).sorted()
    }

    var liveObjects: [Int64: RandomGraphObject] { objects.filter { !deleted.contains($0.key) } }
}

/// The reference model: Apple's documented semantics, applied to `RandomGraphState` values.
struct RandomGraphReference {
    var state = RandomGraphState()
    /// The graph as last saved (what a fresh context must see).
    var saved: [Int64: RandomGraphObject] = [:]
    /// Pre-event states, newest last (one per undo group).
    var undoStack: [RandomGraphState] = []
    /// States undone, newest last.
    var redoStack: [RandomGraphState] = []
    /// Ids whose deletion was saved (the object is gone from the store and no longer belongs to the context).
    var forgotten: Set<Int64> = []
    /// Objects deleted during the current event, whose delete rules apply at the end of the event.
    private var eventDeletes: [Int64] = []
    /// The state when the current event began.
    private var eventStart: RandomGraphState?

    // MARK: Events

    /// Starts an event that changes the graph (an undo group).
    mutating func beginEvent() {
        precondition(eventStart == nil, "nested reference event")
        eventStart = state
    }

    /// Ends the event: applies delete rules (Apple's processPendingChanges) and records the undo group.
    mutating func endEvent() {
        guard let start = eventStart else { preconditionFailure("no reference event") }
        propagateDeletes()
        eventStart = nil
        undoStack.append(start)
        redoStack.removeAll()  // UndoManager: a new change clears the redo stack
    }

    /// Ends an event that turned out to change nothing (no undo group).
    mutating func abandonEvent() {
        precondition(eventDeletes.isEmpty, "an event that deleted something changed the graph")
        eventStart = nil
    }

    /// `context.undo()`: the state before the last event.
    mutating func undo() {
        guard let previous = undoStack.popLast() else { return }
        redoStack.append(state)
        state = previous
    }

    /// `context.redo()`: the state after the last undone event.
    mutating func redo() {
        guard let next = redoStack.popLast() else { return }
        undoStack.append(state)
        state = next
    }

    /// `context.rollback()`: the saved graph, and an empty undo manager.
    mutating func rollback() {
        state = RandomGraphState(objects: saved, deleted: [])
        undoStack.removeAll()
        redoStack.removeAll()
    }

    /// Deleted objects whose deny relationships still have live destinations: `save()` must fail with 1600.
    var denyViolations: [Int64] {
        state.deleted.sorted().filter { id in
            guard let object = state.objects[id] else { return false }
            return RandomGraphSchema.relationshipsByEntity[object.entity, default: []].contains { relationship in
                relationship.rule == .denyDeleteRule && object.members(relationship.name).contains { state.isLive($0) }
            }
        }
    }

    /// Links from live objects to deleted ones, as (live source, relationship of the source, deleted destination).
    /// Only the no-action and deny rules leave such links (the documented exception to "no deleted object is
    /// reachable", until the graph is repaired or the save fails).
    var danglingLinks: [(source: Int64, relationship: RandomGraphRelationship, destination: Int64)] {
        var result: [(Int64, RandomGraphRelationship, Int64)] = []
        for (id, object) in state.objects.sorted(by: { $0.key < $1.key }) where !state.deleted.contains(id) {
            for relationship in RandomGraphSchema.relationshipsByEntity[object.entity, default: []] {
                for destination in object.members(relationship.name) where !state.isLive(destination) {
                    result.append((id, relationship, destination))
                }
            }
        }
        return result
    }

    /// Whether making `target` the current state would point a live object at an object whose deletion has been
    /// saved since. Apple leaves that undefined (the destination no longer belongs to the context), so the test
    /// does not undo or redo into such a state.
    func isSafeToRestore(_ target: RandomGraphState) -> Bool {
        for (id, object) in target.objects where !target.deleted.contains(id) {
            for destinations in object.links.values {
                for destination in destinations where !target.isLive(destination) {
                    if target.objects[destination] == nil || forgotten.contains(destination) { return false }
                }
            }
        }
        return true
    }

    /// A successful `save()`: deleted objects leave the graph, and the live graph is what the store holds.
    mutating func didSave() {
        for id in state.deleted {
            state.objects[id] = nil
            forgotten.insert(id)
        }
        state.deleted = []
        for id in state.objects.keys { forgotten.remove(id) }
        saved = state.objects
    }

    // MARK: Changes (Apple's inverse maintenance)

    mutating func insert(_ id: Int64, entity: String, value: Int64, name: String?) {
        state.objects[id] = RandomGraphObject(entity: entity, value: value, name: name)
    }

    mutating func setValue(_ value: Int64, of id: Int64) { state.objects[id]!.value = value }
    mutating func setName(_ name: String?, of id: Int64) { state.objects[id]!.name = name }

    /// `context.delete(_:)`: marks the object; its delete rules apply at the end of the event.
    mutating func delete(_ id: Int64) {
        guard !state.deleted.contains(id) else { return }
        state.deleted.insert(id)
        eventDeletes.append(id)
    }

    /// `source.setValue(destination, forKey:)` on a to-one relationship.
    mutating func setToOne(_ source: Int64, _ relationship: RandomGraphRelationship, _ destination: Int64?) {
        precondition(!relationship.isToMany)
        let old = state.objects[source]!.members(relationship.name).first
        guard old != destination else { return }
        rawSet(source, relationship, destination.map { [$0] } ?? [])
        if let old { inverseRemove(old, relationship.inverse, source) }
        if let destination { inverseAdd(destination, relationship.inverse, source, stealingFrom: relationship) }
    }

    /// Adding `destination` to a to-many relationship (at `index` for ordered ones, else at the end).
    mutating func add(_ source: Int64, _ relationship: RandomGraphRelationship, _ destination: Int64, at index: Int? = nil) {
        precondition(relationship.isToMany)
        guard !state.objects[source]!.members(relationship.name).contains(destination) else { return }
        rawAdd(source, relationship, destination, at: index)
        inverseAdd(destination, relationship.inverse, source, stealingFrom: relationship)
    }

    /// Removing `destination` from a to-many relationship.
    mutating func remove(_ source: Int64, _ relationship: RandomGraphRelationship, _ destination: Int64) {
        precondition(relationship.isToMany)
        guard state.objects[source]!.members(relationship.name).contains(destination) else { return }
        rawRemove(source, relationship, destination)
        inverseRemove(destination, relationship.inverse, source)
    }

    /// `source.setValue(NSSet/NSOrderedSet, forKey:)` on a to-many relationship.
    mutating func replace(_ source: Int64, _ relationship: RandomGraphRelationship, with members: [Int64]) {
        precondition(relationship.isToMany)
        let old = state.objects[source]!.members(relationship.name)
        let removed = old.filter { !members.contains($0) }
        let added = members.filter { !old.contains($0) }
        rawSet(source, relationship, relationship.isOrdered ? members : members.sorted())
        for destination in removed { inverseRemove(destination, relationship.inverse, source) }
        for destination in added { inverseAdd(destination, relationship.inverse, source, stealingFrom: relationship) }
    }

    /// `destination.inverse` no longer holds `source`.
    private mutating func inverseRemove(_ destination: Int64, _ inverse: RandomGraphRelationship, _ source: Int64) {
        if inverse.isToMany {
            rawRemove(destination, inverse, source)
        } else if state.objects[destination]!.members(inverse.name) == [source] {
            rawSet(destination, inverse, [])
        }
    }

    /// `destination.inverse` now holds `source`; a to-one inverse that pointed elsewhere is stolen from its
    /// previous owner (`relationship` is the inverse's inverse, the side `source` is on).
    private mutating func inverseAdd(_ destination: Int64, _ inverse: RandomGraphRelationship, _ source: Int64, stealingFrom relationship: RandomGraphRelationship) {
        if inverse.isToMany {
            rawAdd(destination, inverse, source, at: nil)
            return
        }
        let previous = state.objects[destination]!.members(inverse.name).first
        guard previous != source else { return }
        rawSet(destination, inverse, [source])
        if let previous {
            if relationship.isToMany {
                rawRemove(previous, relationship, destination)
            } else if state.objects[previous]!.members(relationship.name) == [destination] {
                rawSet(previous, relationship, [])
            }
        }
    }

    // MARK: Delete propagation

    /// Apple's delete rules: nullify removes the deleted object from each destination's inverse (and clears the
    /// deleted object's side), cascade deletes the destinations (recursively), deny and no action change nothing
    /// (deny is checked by `save()`).
    private mutating func propagateDeletes() {
        var queue = eventDeletes
        eventDeletes = []
        var index = 0
        while index < queue.count {
            let id = queue[index]
            index += 1
            guard let object = state.objects[id] else { continue }
            for relationship in RandomGraphSchema.relationshipsByEntity[object.entity, default: []] {
                let destinations = state.objects[id]!.members(relationship.name)
                switch relationship.rule {
                case .nullifyDeleteRule:
                    for destination in destinations { inverseRemove(destination, relationship.inverse, id) }
                    rawSet(id, relationship, [])
                case .cascadeDeleteRule:
                    for destination in destinations where !state.deleted.contains(destination) {
                        state.deleted.insert(destination)
                        queue.append(destination)
                    }
                case .denyDeleteRule, .noActionDeleteRule:
                    break
                }
            }
        }
    }

    // MARK: Raw edits (one side only)

    private mutating func rawSet(_ id: Int64, _ relationship: RandomGraphRelationship, _ members: [Int64]) {
        state.objects[id]!.links[relationship.name] = members.isEmpty ? nil : members
    }

    private mutating func rawAdd(_ id: Int64, _ relationship: RandomGraphRelationship, _ member: Int64, at index: Int?) {
        var members = state.objects[id]!.members(relationship.name)
        guard !members.contains(member) else { return }
        if relationship.isOrdered {
            members.insert(member, at: min(max(index ?? members.count, 0), members.count))
        } else {
            members.append(member)
            members.sort()
        }
        rawSet(id, relationship, members)
    }

    private mutating func rawRemove(_ id: Int64, _ relationship: RandomGraphRelationship, _ member: Int64) {
        var members = state.objects[id]!.members(relationship.name)
        guard let position = members.firstIndex(of: member) else { return }
        members.remove(at: position)
        rawSet(id, relationship, members)
    }

    // MARK: Self-check

    /// The reference's own invariants (a failure here is a bug in the test, not in OpenCoreData): every link
    /// between live objects is mirrored by its inverse, and live objects point at deleted ones only through
    /// relationships whose inverse rule is no action or deny.
    func selfCheck() -> [String] {
        var problems: [String] = []
        for (id, object) in state.objects where !state.deleted.contains(id) {
            for relationship in RandomGraphSchema.relationshipsByEntity[object.entity, default: []] {
                for destination in object.members(relationship.name) {
                    guard let other = state.objects[destination] else {
                        problems.append("reference: #\(id).\(relationship.name) points at unknown #\(destination)")
                        continue
                    }
                    if state.deleted.contains(destination) {
                        let rule = relationship.inverse.rule
                        if rule != .noActionDeleteRule && rule != .denyDeleteRule {
                            problems.append("reference: live #\(id).\(relationship.name) reaches deleted #\(destination) (rule \(rule))")
                        }
                    } else if !other.members(relationship.inverseName).contains(id) {
                        problems.append("reference: #\(id).\(relationship.name) ∋ #\(destination) but not the inverse")
                    }
                }
            }
        }
        return problems
    }
}
