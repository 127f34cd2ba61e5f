/// The changes between two states of a controller's results, in the form Apple's delegate receives them — and minimal:
/// rows that were not touched by the change set get no event; a touched row that stays in its section and keeps its
/// place relative to the rows that do not move gets one `.update`; the fewest touched rows move.
///
/// Index paths follow UIKit's batch updates: section and row deletions and the sources of moves (and updates) are in
/// the old state, section and row insertions and the destinations of moves (and updates) in the new one.
struct FetchedResultsChanges {
    struct ObjectChange {
        let object: NSManagedObject
        let type: NSFetchedResultsChangeType
        /// The position in the old state (deletes, moves, updates).
        let oldIndex: Int?
        /// The position in the new state (inserts, moves, updates).
        let newIndex: Int?
    }

    /// Old indices of the sections that disappeared, ascending.
    var deletedSections: [Int] = []
    /// New indices of the sections that appeared, ascending.
    var insertedSections: [Int] = []
    /// Deletes (by old position), then inserts (by new position), then moves (by new position), then updates (by old
    /// position).
    var objectChanges: [ObjectChange] = []
    /// The touched objects present before and after (moved or not) that changed: a snapshot reloads them.
    var changedObjects: [NSManagedObject] = []

    var isEmpty: Bool { deletedSections.isEmpty && insertedSections.isEmpty && objectChanges.isEmpty }

    /// Compares two states. `touched` are the objects the change set concerned; `changed` (a subset) those whose content
    /// changed, which are reported as `.update` when they do not move.
    init(from old: FetchedResultsState, to new: FetchedResultsState, touched: Set<ObjectIdentifier>, changed: Set<ObjectIdentifier>) {
        let oldSections = Set(old.sectionKeys), newSections = Set(new.sectionKeys)
        deletedSections = old.sectionKeys.indices.filter { !newSections.contains(old.sectionKeys[$0]) }
        insertedSections = new.sectionKeys.indices.filter { !oldSections.contains(new.sectionKeys[$0]) }

        let oldIndex = old.indexByObject
        let newIndex = new.indexByObject
        var deletes: [ObjectChange] = []
        var inserts: [ObjectChange] = []
        for (position, object) in old.objects.enumerated() where newIndex[ObjectIdentifier(object)] == nil {
            deletes.append(ObjectChange(object: object, type: .delete, oldIndex: position, newIndex: nil))
        }

        // Objects in both states, in their new order, with their old positions.
        var survivors: [(new: Int, old: Int, weight: Int)] = []
        var forcedMoves: [(new: Int, old: Int)] = []
        let anchorWeight = new.objects.count + 1
        var oldSection = 0, newSection = 0
        for (position, object) in new.objects.enumerated() {
            while newSection + 1 < new.sectionCount && new.sectionStarts[newSection + 1] <= position { newSection += 1 }
            let key = ObjectIdentifier(object)
            guard let oldPosition = oldIndex[key] else {
                inserts.append(ObjectChange(object: object, type: .insert, oldIndex: nil, newIndex: position))
                continue
            }
            oldSection = old.section(ofFlatIndex: oldPosition)
            if old.sectionKeys[oldSection] != new.sectionKeys[newSection] {
                forcedMoves.append((position, oldPosition))
            } else {
                // Untouched rows weigh more than all touched rows together, so the rows kept in place include every
                // untouched row whenever their order allows it (it always does unless ties were reordered).
                survivors.append((position, oldPosition, touched.contains(key) ? 1 : anchorWeight))
            }
        }

        let kept = Self.heaviestIncreasingSubsequence(survivors.map { ($0.old, $0.weight) }, oldCount: old.objects.count)
        var moves: [ObjectChange] = forcedMoves.map {
            ObjectChange(object: new.objects[$0.new], type: .move, oldIndex: $0.old, newIndex: $0.new)
        }
        var updates: [ObjectChange] = []
        for (index, survivor) in survivors.enumerated() {
            let object = new.objects[survivor.new]
            let key = ObjectIdentifier(object)
            if !kept[index] {
                moves.append(ObjectChange(object: object, type: .move, oldIndex: survivor.old, newIndex: survivor.new))
            } else if changed.contains(key) {
                updates.append(ObjectChange(object: object, type: .update, oldIndex: survivor.old, newIndex: survivor.new))
            }
        }
        moves.sort { $0.newIndex! < $1.newIndex! }
        updates.sort { $0.oldIndex! < $1.oldIndex! }
        objectChanges = deletes + inserts + moves + updates
        changedObjects = (moves + updates).map(\.object).filter { changed.contains(ObjectIdentifier($0)) }
    }

    /// Which elements (old positions, in new order, with weights) form the heaviest strictly increasing subsequence of
    /// old positions. O(n log n) with a Fenwick tree of prefix maxima over old positions.
    static func heaviestIncreasingSubsequence(_ elements: [(old: Int, weight: Int)], oldCount: Int) -> [Bool] {
        guard !elements.isEmpty else { return [] }
        var tree = [(weight: Int, element: Int)](repeating: (0, -1), count: oldCount + 1)
        var best = [Int](repeating: 0, count: elements.count)
        var previous = [Int](repeating: -1, count: elements.count)
        for (index, element) in elements.enumerated() {
            // The best chain ending below this old position.
            var position = element.old, top = (weight: 0, element: -1)
            while position > 0 {
                if tree[position].weight > top.weight { top = tree[position] }
                position -= position & -position
            }
            best[index] = top.weight + element.weight
            previous[index] = top.element
            position = element.old + 1
            while position <= oldCount {
                if best[index] > tree[position].weight { tree[position] = (best[index], index) }
                position += position & -position
            }
        }
        var kept = [Bool](repeating: false, count: elements.count)
        var current = best.indices.max { best[$0] < best[$1] } ?? -1
        while current >= 0 {
            kept[current] = true
            current = previous[current]
        }
        return kept
    }
}
