/// The relationship chains that a fetch's predicate, sort descriptors and section key path read through, from the fetched
/// entity — what a controller with `tracksRelatedKeyPaths` watches: when an object along a chain changes a key the chain
/// reads, the fetched objects that reach it (found by following inverse relationships back) are evaluated again.
struct RelatedKeyPaths {
    /// One key path that crosses at least one relationship: `relationships[0]` leaves the fetched entity; an object at
    /// depth `d` (the destination of `relationships[d - 1]`) is read at `components[d]`, if there is one.
    struct Chain {
        let relationships: [NSRelationshipDescription]
        let components: [String]
    }

    let chains: [Chain]
    /// False when a chain crosses a relationship without an inverse: affected objects cannot be found, so every
    /// change to a related entity makes the controller fetch again.
    let hasInverses: Bool

    var isEmpty: Bool { chains.isEmpty }

    init(predicate: NSPredicate?, sortDescriptors: [NSSortDescriptor], sectionNameKeyPath: String?, entity: NSEntityDescription) {
        var paths: [String] = []
        if let predicate { paths += Self.keyPaths(in: predicate, variables: [:]) }
        paths += sortDescriptors.compactMap(\.key)
        if let sectionNameKeyPath { paths.append(sectionNameKeyPath) }
        var chains: [Chain] = []
        var seen = Set<String>()
        for path in paths where seen.insert(path).inserted {
            let components = path.split(separator: ".").map(String.init)
            var relationships: [NSRelationshipDescription] = []
            var current: NSEntityDescription? = entity
            for component in components {
                guard let relationship = current?.relationshipsByName[component] else { break }
                relationships.append(relationship)
                current = relationship.destinationEntity
            }
            if !relationships.isEmpty { chains.append(Chain(relationships: relationships, components: components)) }
        }
        self.chains = chains
        hasInverses = chains.allSatisfy { $0.relationships.allSatisfy { $0.inverseRelationship != nil } }
    }

    /// The objects at depth 0 (candidates of the fetched entity) whose key paths read `object`, given the keys of `object`
    /// that changed (nil: unknown, assume any). Returns nil when they cannot be found (a missing inverse).
    func objects(reaching object: NSManagedObject, changedKeys: Set<String>?) -> [NSManagedObject]? {
        var result: [NSManagedObject] = []
        for chain in chains {
            for depth in 1...chain.relationships.count {
                guard let destination = chain.relationships[depth - 1].destinationEntity, object.entity.isKindOf(entity: destination) else { continue }
                guard depth < chain.components.count else { continue }   // the chain only compares the object itself
                let key = chain.components[depth]
                guard !key.hasPrefix("@") else { continue }             // a collection operator reads the holder's relationship
                if let changedKeys, !changedKeys.contains(key) { continue }
                guard hasInverses else { return nil }
                var level: [NSManagedObject] = [object]
                for hop in (0..<depth).reversed() {
                    guard let inverse = chain.relationships[hop].inverseRelationship?.name else { return nil }
                    var next: [NSManagedObject] = []
                    var seen = Set<ObjectIdentifier>()
                    for holder in level where !holder.isDeleted && holder.managedObjectContext != nil {
                        for reached in Self.members(of: holder.value(forKey: inverse)) where seen.insert(ObjectIdentifier(reached)).inserted {
                            next.append(reached)
                        }
                    }
                    level = next
                }
                result += level
            }
        }
        return result
    }

    private static func members(of value: Any?) -> [NSManagedObject] {
        switch value {
        case let object as NSManagedObject: return [object]
        case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
        case let ordered as NSOrderedSet: return ordered.array.compactMap { $0 as? NSManagedObject }
        case let set as Set<NSManagedObject>: return Array(set)
        case let array as [NSManagedObject]: return array
        default: return []
        }
    }

    // MARK: Key paths of a predicate

    /// The key paths a predicate reads on the evaluated object (paths inside subqueries prefixed by their collection).
    static func keyPaths(in predicate: NSPredicate, variables: [String: String]) -> [String] {
        switch predicate {
        case let compound as NSCompoundPredicate:
            return compound.subpredicates.compactMap { $0 as? NSPredicate }.flatMap { keyPaths(in: $0, variables: variables) }
        case let comparison as NSComparisonPredicate:
            return keyPaths(in: comparison.leftExpression, variables: variables) + keyPaths(in: comparison.rightExpression, variables: variables)
        default:
            return []
        }
    }

    private static func keyPaths(in expression: NSExpression, variables: [String: String]) -> [String] {
        switch expression.node {
        case .keyPath(let operand, let path):
            switch operand.node {
            case .evaluatedObject: return [path]
            case .variable(let name): return variables[name].map { ["\($0).\(path)"] } ?? []
            default: return keyPaths(in: operand, variables: variables)
            }
        case .variable(let name):
            return variables[name].map { [$0] } ?? []
        case .function(let target, _, let arguments):
            return (target.map { keyPaths(in: $0, variables: variables) } ?? []) + arguments.flatMap { keyPaths(in: $0, variables: variables) }
        case .subquery(let collection, let variable, let predicate):
            let outer = keyPaths(in: collection, variables: variables)
            var inner = variables
            if let path = outer.first { inner[variable] = path }
            return outer + keyPaths(in: predicate, variables: inner)
        case .union(let a, let b), .intersect(let a, let b), .minus(let a, let b):
            return keyPaths(in: a, variables: variables) + keyPaths(in: b, variables: variables)
        case .aggregate(let elements):
            return elements.flatMap { keyPaths(in: $0, variables: variables) }
        case .conditional(let predicate, let a, let b):
            return keyPaths(in: predicate, variables: variables) + keyPaths(in: a, variables: variables) + keyPaths(in: b, variables: variables)
        case .constant, .evaluatedObject, .anyKey, .block:
            return []
        }
    }
}
