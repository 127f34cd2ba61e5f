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

    /// Follows a key path through the entity graph and checks every step, as Apple's SQLite store does before it
    /// builds SQL ("keypath … not found in entity …"), so a fetch refuses a bad key path before any SQL runs:
    ///
    /// - a relationship step leads to its destination entity; after a to-many relationship may come a collection
    ///   operator: `@count` (last), or `@sum`, `@avg`, `@min`, `@max` followed by a key path of the destination that
    ///   ends at an attribute (`items.@sum.price`);
    /// - an attribute ends the key path, except that a string or binary-data attribute may be followed by `length`
    ///   (`name.length`, which Foundation's `#Predicate` conversion writes for `String.count`) and a composite attribute
    ///   by the name of one of its elements;
    /// - `SELF`/`self` names the object itself, a last `entity` its entity; any other step (an unknown key, an
    ///   operator anywhere else, a key after an attribute) throws.
    ///
    /// For example, on an entity with the string attribute `name` and the to-many relationship `items`:
    /// ```swift
    /// try FetchKeyPathValidation.validateKeyPath("items.@sum.rating", entity: entity, context: "predicate")  // fine
    /// try FetchKeyPathValidation.validateKeyPath("name.length.x", entity: entity, context: "predicate")      // throws
    /// ```
    static func validateKeyPath(_ path: String, entity: NSEntityDescription, context: String) throws {
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        func notFound() -> NSError {
            CoreDataError.make(NSCoreDataError, "keypath \(path) not found in entity \(entity.name ?? "?") (\(context))",
                               userInfo: ["NSUnderlyingException": "keypath \(path) not found in entity \(entity.name ?? "?")"])
        }
        // An empty key path or component ("", "a..b", "a.") names nothing; Apple refuses it like an unknown key.
        if components.contains(where: \.isEmpty) { throw notFound() }
        _ = try walk(components[...], from: entity, path: path, context: context, notFound: notFound)
    }

    /// What a key path reaches.
    private enum KeyPathEnd {
        /// An object (the entity itself, a to-one relationship's destination) or a to-many relationship's members.
        case object
        /// An attribute's value (or its `length`, an aggregate of a to-many relationship).
        case value
    }

    /// Validates `steps` from `entity`; returns what they reach.
    private static func walk(_ steps: ArraySlice<String>, from entity: NSEntityDescription, path: String, context: String,
                             notFound: () -> NSError) throws -> KeyPathEnd {
        var current = entity
        var index = steps.startIndex
        while index < steps.endIndex {
            let component = steps[index]
            index += 1
            if component == "self" || component == "SELF" { continue }
            // `entity` (last) is the object's entity, unless the entity has a property of that name.
            if component == "entity", index == steps.endIndex, current.propertiesByName[component] == nil { return .value }
            // A collection operator only follows a to-many relationship (handled below); anywhere else it names nothing.
            guard !component.hasPrefix("@"), let property = current.propertiesByName[component] else { throw notFound() }
            if property.isTransient && !(property is NSRelationshipDescription) {
                throw unsupported("keypath \(path): transient property '\(component)' of entity \(current.name ?? "?") cannot be used in a fetch request")
            }
            switch property {
            case let relationship as NSRelationshipDescription:
                guard let destination = relationship.destinationEntity else { throw notFound() }
                if relationship.isToMany, index < steps.endIndex, steps[index].hasPrefix("@") {
                    return try collectionOperator(steps[index...], over: destination, path: path, context: context, notFound: notFound)
                }
                current = destination
            case let attribute as NSAttributeDescription:
                try attributeSuffix(steps[index...], after: attribute, notFound: notFound)
                return .value
            default:
                // A fetched property has no column: nothing may follow it (alone it is left to the store).
                guard index == steps.endIndex else { throw notFound() }
                return .value
            }
        }
        return .object
    }

    /// `@count`, or `@sum`/`@avg`/`@min`/`@max` and the key path of the members' values.
    private static func collectionOperator(_ steps: ArraySlice<String>, over destination: NSEntityDescription, path: String, context: String,
                                           notFound: () -> NSError) throws -> KeyPathEnd {
        let operation = steps[steps.startIndex]
        let rest = steps.dropFirst()
        switch operation {
        case "@count":
            guard rest.isEmpty else { throw notFound() }
        case "@sum", "@avg", "@min", "@max":
            guard !rest.isEmpty, try walk(rest, from: destination, path: path, context: context, notFound: notFound) == .value else { throw notFound() }
        default:
            throw notFound()
        }
        return .value
    }

    /// What may follow an attribute: nothing, `length` of a string or binary data, an element of a composite attribute.
    private static func attributeSuffix(_ steps: ArraySlice<String>, after attribute: NSAttributeDescription, notFound: () -> NSError) throws {
        guard let first = steps.first else { return }
        if let composite = attribute as? NSCompositeAttributeDescription, let element = composite.elements.first(where: { $0.name == first }) {
            return try attributeSuffix(steps.dropFirst(), after: element, notFound: notFound)
        }
        switch attribute.attributeType {
        case .stringAttributeType, .binaryDataAttributeType:
            guard first == "length", steps.count == 1 else { throw notFound() }
        default:
            throw notFound()
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
