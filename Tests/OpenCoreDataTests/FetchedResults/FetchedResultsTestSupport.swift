@testable import OpenCoreData
import Foundation
import Testing

// A small model for fetched results controller tests, built in code:
//
//   Region ──owners──▶> Owner ──items──▶> Item        (inverses: Owner.region, Item.owner; nullify)
//
// Item: uid (unique, the last sort key so every order is total), rank, group (section key), active (membership),
// note (edited in place). Owner: name, weight. Region: name.

enum FRCModel {
    static let shared: NSManagedObjectModel = make()

    static func make() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, default value: Any? = nil) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            attribute.defaultValue = value
            return attribute
        }
        func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = toMany ? 0 : 1
            relationship.deleteRule = .nullifyDeleteRule
            relationship.isOptional = true
            return relationship
        }
        func entity(_ name: String) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            return entity
        }
        let item = entity("Item"), owner = entity("Owner"), region = entity("Region")
        let itemOwner = relationship("owner", to: owner, toMany: false), ownerItems = relationship("items", to: item, toMany: true)
        itemOwner.inverseRelationship = ownerItems
        ownerItems.inverseRelationship = itemOwner
        let ownerRegion = relationship("region", to: region, toMany: false), regionOwners = relationship("owners", to: owner, toMany: true)
        ownerRegion.inverseRelationship = regionOwners
        regionOwners.inverseRelationship = ownerRegion
        item.properties = [
            attribute("uid", .integer64AttributeType, optional: false, default: 0), attribute("rank", .integer16AttributeType, optional: false, default: 0),
            attribute("group", .stringAttributeType), attribute("active", .booleanAttributeType, optional: false, default: true),
            attribute("note", .stringAttributeType), itemOwner,
        ]
        owner.properties = [attribute("name", .stringAttributeType), attribute("weight", .integer16AttributeType, optional: false, default: 0),
                            ownerItems, ownerRegion]
        region.properties = [attribute("name", .stringAttributeType), regionOwners]
        let model = NSManagedObjectModel()
        model.entities = [item, owner, region]
        return model
    }
}

/// A coordinator with one store on the FRC model and a private-queue context.
struct FRCStack {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    let directory: URL?

    init(sqlite: Bool = false) throws {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: FRCModel.shared)
        if sqlite {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frc-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            self.directory = directory
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: directory.appendingPathComponent("FRC.sqlite"), options: nil)
        } else {
            directory = nil
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        }
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func removeFiles() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    @discardableResult
    static func insert(_ entityName: String, into context: NSManagedObjectContext, _ values: [String: Any] = [:]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entityName, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    @discardableResult
    static func item(_ uid: Int64, rank: Int = 0, group: String? = "A", active: Bool = true, owner: NSManagedObject? = nil,
                     in context: NSManagedObjectContext) -> NSManagedObject {
        var values: [String: Any] = ["uid": uid, "rank": Int16(rank), "active": active]
        if let group { values["group"] = group }
        if let owner { values["owner"] = owner }
        return insert("Item", into: context, values)
    }
}

extension NSManagedObject {
    var uid: Int64 { (value(forKey: "uid") as? Int64) ?? -1 }
}

/// One event a delegate received.
enum FRCEvent: CustomStringConvertible {
    case willChange
    case didChange
    case section(NSFetchedResultsChangeType, index: Int, name: String)
    case object(NSManagedObject, NSFetchedResultsChangeType, IndexPath?, IndexPath?)

    var description: String {
        switch self {
        case .willChange: return "will"
        case .didChange: return "did"
        case .section(let type, let index, let name): return "section \(type) \(index) '\(name)'"
        case .object(let object, let type, let old, let new):
            return "object \(type) \(old.map { "\($0)" } ?? "-") → \(new.map { "\($0)" } ?? "-") #\(object.isFault ? "fault" : "\(object.uid)")"
        }
    }
}

/// Records every callback, one array per change set (`willChange` … `didChange`).
final class FRCRecorder: NSFetchedResultsControllerDelegate {
    var deliveries: [[FRCEvent]] = []
    private var current: [FRCEvent]?
    var strayEvents = 0

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        if current != nil { strayEvents += 1 }
        current = [.willChange]
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        guard current != nil else { strayEvents += 1; return }
        current?.append(.section(type, index: sectionIndex, name: sectionInfo.name))
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard current != nil, let object = anObject as? NSManagedObject else { strayEvents += 1; return }
        current?.append(.object(object, type, indexPath, newIndexPath))
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        guard var events = current else { strayEvents += 1; return }
        events.append(.didChange)
        deliveries.append(events)
        current = nil
    }

    func take() -> [[FRCEvent]] {
        defer { deliveries = [] }
        return deliveries
    }
}

/// Sections of rows: what a table shows.
struct FRCTable: Equatable, CustomStringConvertible {
    struct Section: Equatable {
        var name: String
        var rows: [NSManagedObject]
    }
    var sections: [Section]

    init(sections: [Section]) { self.sections = sections }

    /// The controller's current sections.
    init(_ controller: NSFetchedResultsController<NSManagedObject>) {
        sections = (controller.sections ?? []).map { Section(name: $0.name, rows: ($0.objects ?? []).map { $0 as! NSManagedObject }) }
    }

    /// A fresh fetch of the controller's request, grouped like the controller groups it.
    static func freshFetch(_ request: NSFetchRequest<NSManagedObject>, sectionNameKeyPath: String?, in context: NSManagedObjectContext) throws -> FRCTable {
        let objects = try context.fetch(request)
        guard let keyPath = sectionNameKeyPath else { return FRCTable(sections: [Section(name: "", rows: objects)]) }
        var sections: [Section] = []
        for object in objects {
            let name = FetchedResultsEngine.sectionName(of: object, keyPath: keyPath)
            if sections.last?.name == name { sections[sections.count - 1].rows.append(object) } else { sections.append(Section(name: name, rows: [object])) }
        }
        return FRCTable(sections: sections)
    }

    static func == (a: FRCTable, b: FRCTable) -> Bool {
        a.sections.count == b.sections.count && zip(a.sections, b.sections).allSatisfy { x, y in
            x.name == y.name && x.rows.count == y.rows.count && zip(x.rows, y.rows).allSatisfy { $0 === $1 }
        }
    }

    var description: String {
        sections.map { "\($0.name): \($0.rows.map { $0.isFault && $0.managedObjectContext == nil ? "?" : "\($0.uid)" }.joined(separator: ","))" }.joined(separator: " | ")
    }

    func object(at indexPath: IndexPath) -> NSManagedObject? {
        guard indexPath.count == 2, sections.indices.contains(indexPath[0]), sections[indexPath[0]].rows.indices.contains(indexPath[1]) else { return nil }
        return sections[indexPath[0]].rows[indexPath[1]]
    }

    var allRows: [NSManagedObject] { sections.flatMap(\.rows) }
}

struct FRCReplayError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Applies one delivery to a table with UIKit's batch-update rules, independently of the controller's code: section
/// and row deletions and move sources at old index paths (all removed at once), then section insertions and row
/// insertions and move destinations at new index paths, in ascending order; updates name the same object at their old
/// and new index paths. Throws on anything a table view would reject.
func frcReplay(_ table: FRCTable, _ events: [FRCEvent]) throws -> FRCTable {
    guard case .willChange? = events.first, case .didChange? = events.last else { throw FRCReplayError("delivery not bracketed by will/did") }
    var sawObject = false
    var deletedSections = Set<Int>(), insertedSections: [(Int, String)] = []
    var removals = Set<IndexPath>()
    var placements: [(IndexPath, NSManagedObject)] = []
    var updates: [(IndexPath, IndexPath, NSManagedObject)] = []
    for event in events.dropFirst().dropLast() {
        switch event {
        case .willChange, .didChange:
            throw FRCReplayError("nested will/did")
        case .section(let type, let index, let name):
            if sawObject { throw FRCReplayError("section event after object events") }
            switch type {
            case .delete:
                guard table.sections.indices.contains(index), table.sections[index].name == name else { throw FRCReplayError("bad section delete \(index) '\(name)'") }
                guard deletedSections.insert(index).inserted else { throw FRCReplayError("section \(index) deleted twice") }
            case .insert: insertedSections.append((index, name))
            default: throw FRCReplayError("section \(type)")
            }
        case .object(let object, let type, let old, let new):
            sawObject = true
            switch type {
            case .delete, .move, .update:
                guard let old, table.object(at: old) === object else { throw FRCReplayError("\(type): \(old.map { "\($0)" } ?? "nil") does not hold the object in the old state") }
            case .insert:
                guard old == nil else { throw FRCReplayError("insert with an old index path") }
            }
            switch type {
            case .delete:
                guard new == nil else { throw FRCReplayError("delete with a new index path") }
                guard removals.insert(old!).inserted else { throw FRCReplayError("row \(old!) removed twice") }
            case .insert:
                guard let new else { throw FRCReplayError("insert without new index path") }
                placements.append((new, object))
            case .move:
                guard let new else { throw FRCReplayError("move without new index path") }
                guard removals.insert(old!).inserted else { throw FRCReplayError("row \(old!) removed twice") }
                placements.append((new, object))
            case .update:
                guard let new else { throw FRCReplayError("update without new index path") }
                updates.append((old!, new, object))
            }
        }
    }
    var sections = table.sections.enumerated().map { index, section in
        FRCTable.Section(name: section.name, rows: section.rows.enumerated().filter { !removals.contains(IndexPath(indexes: [index, $0.offset])) }.map(\.element))
    }
    for index in deletedSections.sorted(by: >) {
        guard sections[index].rows.isEmpty else { throw FRCReplayError("deleted section \(index) still has rows the delivery did not remove") }
        sections.remove(at: index)
    }
    for (index, name) in insertedSections.sorted(by: { $0.0 < $1.0 }) {
        guard index <= sections.count else { throw FRCReplayError("section insert at \(index) beyond \(sections.count)") }
        sections.insert(FRCTable.Section(name: name, rows: []), at: index)
    }
    for (indexPath, object) in placements.sorted(by: { $0.0 < $1.0 }) {
        guard sections.indices.contains(indexPath[0]), indexPath[1] <= sections[indexPath[0]].rows.count else {
            throw FRCReplayError("row insert at \(indexPath) out of range")
        }
        sections[indexPath[0]].rows.insert(object, at: indexPath[1])
    }
    let result = FRCTable(sections: sections)
    for (_, new, object) in updates where result.object(at: new) !== object {
        throw FRCReplayError("update's new index path \(new) does not hold the object")
    }
    return result
}

/// The fewest rows that must move from `old` to `new` when `touched` rows may move and all others stay: rows that change
/// section move; of the rest, the largest set that keeps its relative order stays (untouched rows must all be in it).
/// Returns nil when untouched rows would have to move. Quadratic, independent of the controller's algorithm.
func frcMinimalMoves(from old: FRCTable, to new: FRCTable, touched: Set<ObjectIdentifier>) -> Int? {
    var oldPosition: [ObjectIdentifier: (section: String, index: Int)] = [:]
    var index = 0
    for section in old.sections {
        for object in section.rows {
            oldPosition[ObjectIdentifier(object)] = (section.name, index)
            index += 1
        }
    }
    var forced = 0
    var sequence: [(old: Int, touched: Bool)] = []
    for section in new.sections {
        for object in section.rows {
            guard let position = oldPosition[ObjectIdentifier(object)] else { continue }
            let isTouched = touched.contains(ObjectIdentifier(object))
            if position.section != section.name {
                if !isTouched { return nil }
                forced += 1
            } else {
                sequence.append((position.index, isTouched))
            }
        }
    }
    // Longest chain (by old position) that contains every untouched row: DP over "best chain ending here".
    let heavy = sequence.count + 1
    var best = [Int](repeating: 0, count: sequence.count)
    for i in sequence.indices {
        let weight = sequence[i].touched ? 1 : heavy
        best[i] = weight
        for j in 0..<i where sequence[j].old < sequence[i].old { best[i] = max(best[i], best[j] + weight) }
    }
    let untouched = sequence.filter { !$0.touched }.count
    let top = best.max() ?? 0
    guard top / heavy >= untouched || sequence.isEmpty else { return nil }
    let keptTouched = top - untouched * heavy
    let touchedCount = sequence.filter(\.touched).count
    return forced + touchedCount - keptTouched
}
