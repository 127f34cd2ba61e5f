import Foundation
import OpenCoreData

/// The benchmark's entities as users write them with `@Managed`.
final class Item: NSManagedObject {
    @Managed var id: Int64
    @Managed var name: String
    @Managed var score: Double
    @Managed var createdAt: Date
    @Managed var flag: Bool
    @Managed var payload: Data
}

final class Parent: NSManagedObject {
    @Managed var name: String
    @Managed var children: Set<Child>
}

final class Child: NSManagedObject {
    @Managed var name: String
    @Managed var value: Double
    @Managed var parent: Parent?
}

/// OpenCoreData through its public API: a coordinator on an SQLite store and one private-queue context.
final class OpenCoreDataStack {
    static let model: NSManagedObjectModel = {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = false
            return attribute
        }
        let item = NSEntityDescription()
        item.name = "Item"
        item.managedObjectClassName = "Item"
        let score = attribute("score", .doubleAttributeType)
        // One index on score, as the raw and GRDB schemas have. (A one-property fetch index would get two: Apple's
        // layout adds `Z_Item_score` next to `Z_Item_byScore`, as Apple-written stores show.)
        score.isIndexed = true
        item.properties = [attribute("id", .integer64AttributeType), attribute("name", .stringAttributeType), score,
                           attribute("createdAt", .dateAttributeType), attribute("flag", .booleanAttributeType), attribute("payload", .binaryDataAttributeType)]
        let parent = NSEntityDescription(), child = NSEntityDescription()
        parent.name = "Parent"
        parent.managedObjectClassName = "Parent"
        child.name = "Child"
        child.managedObjectClassName = "Child"
        let children = NSRelationshipDescription(), owner = NSRelationshipDescription()
        children.name = "children"
        children.destinationEntity = child
        children.maxCount = 0
        children.deleteRule = .cascadeDeleteRule
        owner.name = "parent"
        owner.destinationEntity = parent
        owner.maxCount = 1
        children.inverseRelationship = owner
        owner.inverseRelationship = children
        parent.properties = [attribute("name", .stringAttributeType), children]
        child.properties = [attribute("name", .stringAttributeType), attribute("value", .doubleAttributeType), owner]
        let model = NSManagedObjectModel()
        model.entities = [item, parent, child]
        NSManagedObjectModel.registerManagedObjectClasses([Item.self, Parent.self, Child.self])
        return model
    }()

    let context: NSManagedObjectContext

    init(path: String) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path), options: nil)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    func insert(_ rows: [ItemRow]) throws {
        try context.performAndWait {
            for row in rows {
                let item = Item(context: context)
                item.id = row.id
                item.name = row.name
                item.score = row.score
                item.createdAt = row.createdAt
                item.flag = row.flag
                item.payload = row.payload
            }
            try context.save()
            context.reset()
        }
    }

    /// Fetches every item realized and reads every field (so values are decoded as the raw rows are).
    func fetchAll(asFaults: Bool) throws -> Int {
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.returnsObjectsAsFaults = asFaults
            let items = try context.fetch(request)
            var checksum = 0
            for item in items { checksum &+= Int(item.id) &+ item.name.utf8.count &+ Int(item.score) &+ item.payload.count &+ (item.flag ? 1 : 0) &+ Int(item.createdAt.timeIntervalSinceReferenceDate) }
            context.reset()
            return checksum
        }
    }

    func rangeFetch(_ low: Double, _ high: Double) throws -> Int {
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.predicate = NSPredicate(format: "score BETWEEN {%f, %f}", low, high)
            request.returnsObjectsAsFaults = false
            let items = try context.fetch(request)
            return items.reduce(0) { $0 &+ $1.name.utf8.count }
        }
    }

    /// The items grouped by flag, with the count, sum and average of their scores: a dictionary fetch with
    /// `propertiesToGroupBy` (the group-by workload).
    func groupByFlag() throws -> [NSDictionary] {
        try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Item")
            request.resultType = .dictionaryResultType
            func aggregate(_ function: String, _ name: String, _ type: NSAttributeType) -> NSExpressionDescription {
                let description = NSExpressionDescription()
                description.name = name
                description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: "score")])
                description.expressionResultType = type
                return description
            }
            request.propertiesToFetch = ["flag", aggregate("count:", "count", .integer64AttributeType),
                                         aggregate("sum:", "sum", .doubleAttributeType), aggregate("average:", "average", .doubleAttributeType)]
            request.propertiesToGroupBy = ["flag"]
            return try context.fetch(request)
        }
    }

    func editAll() throws {
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.returnsObjectsAsFaults = false
            for item in try context.fetch(request) {
                item.score += 1
                item.name += "!"
            }
            try context.save()
            context.reset()
        }
    }

    func deleteAll() throws {
        try context.performAndWait {
            let request = NSFetchRequest<Item>(entityName: "Item")
            for item in try context.fetch(request) { context.delete(item) }
            try context.save()
            context.reset()
        }
    }

    func insertFamilies(parents: Int, children: Int) throws {
        try context.performAndWait {
            let owners = (0..<parents).map { index -> Parent in
                let parent = Parent(context: context)
                parent.name = "parent \(index)"
                return parent
            }
            for index in 0..<children {
                let child = Child(context: context)
                child.name = "child \(index)"
                child.value = Double(index)
                child.parent = owners[index % parents]
            }
            try context.save()
            context.reset()
        }
    }

    /// The prefetching traversal in phases, each timed (`--profile traversephases`), then a fetch of the same children
    /// realized without touching their relationship: what the object graph costs per row before relationships.
    func traversePhases() throws -> [String: Double] {
        try context.performAndWait {
            var phases: [String: Double] = [:]
            let request = NSFetchRequest<Parent>(entityName: "Parent")
            var parents: [Parent] = []
            phases["fetch parents"] = try time { parents = try context.fetch(request) }
            context.reset()
            request.relationshipKeyPathsForPrefetching = ["children"]
            phases["fetch parents, prefetch children"] = try time { parents = try context.fetch(request) }
            var total = 0.0
            phases["read children"] = time { for parent in parents { for child in parent.children { total += child.value } } }
            parents = []
            phases["reset"] = time { context.reset() }
            phases["fetch children (no relationships)"] = try time { total += try fetchChildren(resetting: false) }
            phases["reset after it"] = time { context.reset() }
            precondition(total > 0)
            return phases
        }
    }

    /// Every child realized, its value read, without its relationship (`--profile children`).
    func fetchChildren(resetting: Bool = true) throws -> Double {
        try context.performAndWait {
            let request = NSFetchRequest<Child>(entityName: "Child")
            request.returnsObjectsAsFaults = false
            let total = try context.fetch(request).reduce(0) { $0 + $1.value }
            if resetting { context.reset() }
            return total
        }
    }

    func traverse(prefetching: Bool) throws -> Double {
        try context.performAndWait {
            let request = NSFetchRequest<Parent>(entityName: "Parent")
            if prefetching { request.relationshipKeyPathsForPrefetching = ["children"] }
            var total = 0.0
            for parent in try context.fetch(request) {
                for child in parent.children { total += child.value }
            }
            context.reset()
            return total
        }
    }
}
