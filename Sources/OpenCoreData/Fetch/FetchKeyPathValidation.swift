/// Checks that the key paths of a fetch's predicate and sort descriptors exist in the model, as Apple's
/// SQLite store does before it runs a query ("keypath … not found in entity …"), and refuses what a store
/// cannot evaluate (block predicates, transient properties).
enum FetchKeyPathValidation {
    /// Throws `NSCoreDataError`-domain errors for unknown or unsupported key paths.
    static func validate(predicate: NSPredicate?, sortDescriptors: [NSSortDescriptor], entity: NSEntityDescription) throws {
        if let predicate { try validate(predicate, entity: entity, variables: [:]) }
        for descriptor in sortDescriptors {
            guard let key = descriptor.key else {
                throw unsupported("a sort descriptor without a key (a comparator-only descriptor) cannot be used in a fetch request")
            }
            try validateKeyPath(key, entity: entity, context: "sort descriptor")
        }
    }

    private static func validate(_ predicate: NSPredicate, entity: NSEntityDescription, variables: [String: NSEntityDescription]) throws {
        switch predicate {
        case let compound as NSCompoundPredicate:
            for case let subpredicate as NSPredicate in compound.subpredicates {
                try validate(subpredicate, entity: entity, variables: variables)
            }
        case let comparison as NSComparisonPredicate:
            try validate(comparison.leftExpression, entity: entity, variables: variables)
            try validate(comparison.rightExpression, entity: entity, variables: variables)
        default:
            let format = predicate.predicateFormat
            if format == "TRUEPREDICATE" || format == "FALSEPREDICATE" { return }
            throw unsupported("unsupported predicate \(format) (block predicates cannot be used in fetch requests)")
        }
    }

    private static func validate(_ expression: NSExpression, entity: NSEntityDescription, variables: [String: NSEntityDescription]) throws {
        switch expression.node {
        case .keyPath(let operand, let path):
            switch operand.node {
            case .evaluatedObject:
                try validateKeyPath(path, entity: entity, context: "predicate")
            case .variable(let name):
                if let variableEntity = variables[name] { try validateKeyPath(path, entity: variableEntity, context: "predicate") }
            default:
                try validate(operand, entity: entity, variables: variables)
            }
        case .function(let target, _, let arguments):
            if let target { try validate(target, entity: entity, variables: variables) }
            for argument in arguments { try validate(argument, entity: entity, variables: variables) }
        case .subquery(let collection, let variable, let predicate):
            try validate(collection, entity: entity, variables: variables)
            var inner = variables
            if case .keyPath(let operand, let path) = collection.node, case .evaluatedObject = operand.node,
                let destination = destinationEntity(of: path, from: entity)
            {
                inner[variable] = destination
            }
            try validate(predicate, entity: entity, variables: inner)
        case .union(let a, let b), .intersect(let a, let b), .minus(let a, let b):
            try validate(a, entity: entity, variables: variables)
            try validate(b, entity: entity, variables: variables)
        case .aggregate(let elements):
            for element in elements { try validate(element, entity: entity, variables: variables) }
        case .conditional(let predicate, let a, let b):
            try validate(predicate, entity: entity, variables: variables)
            try validate(a, entity: entity, variables: variables)
            try validate(b, entity: entity, variables: variables)
        case .block:
            throw unsupported("block expressions cannot be used in fetch requests")
        case .constant, .evaluatedObject, .variable, .anyKey:
            return
        }
    }

    /// Follows a key path through the entity graph; collection operators and the keys after an attribute are
    /// left to evaluation.
    static func validateKeyPath(_ path: String, entity: NSEntityDescription, context: String) throws {
        var current: NSEntityDescription? = entity
        // An empty key path or component ("", "a..b", "a.") names nothing; Apple refuses it like an unknown key.
        if path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            throw CoreDataError.make(NSCoreDataError, "keypath '\(path)' not found in entity \(entity.name ?? "?") (\(context))",
                                     userInfo: ["NSUnderlyingException": "keypath '\(path)' not found in entity \(entity.name ?? "?")"])
        }
        for component in path.split(separator: ".").map(String.init) {
            guard let entity = current else { return }
            if component.hasPrefix("@") || component == "self" || component == "SELF" { return }
            guard let property = entity.propertiesByName[component] else {
                throw CoreDataError.make(NSCoreDataError, "keypath \(path) not found in entity \(entity.name ?? "?") (\(context))",
                                         userInfo: ["NSUnderlyingException": "keypath \(path) not found in entity \(entity.name ?? "?")"])
            }
            if property.isTransient && !(property is NSRelationshipDescription) {
                throw unsupported("keypath \(path): transient property '\(component)' of entity \(entity.name ?? "?") cannot be used in a fetch request")
            }
            if let relationship = property as? NSRelationshipDescription {
                current = relationship.destinationEntity
            } else {
                return
            }
        }
    }

    private static func destinationEntity(of path: String, from entity: NSEntityDescription) -> NSEntityDescription? {
        var current: NSEntityDescription? = entity
        for component in path.split(separator: ".").map(String.init) {
            current = (current?.propertiesByName[component] as? NSRelationshipDescription)?.destinationEntity
        }
        return current
    }

    private static func unsupported(_ message: String) -> NSError {
        CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError, message)
    }
}
