/// A type whose instances are managed objects of one entity, named for `is` checks in Swift predicates
/// (`#Predicate { $0 is BusinessTrip }`): OpenSwiftData's models adopt it.
///
/// ```swift
/// extension BusinessTrip: PredicateEntityNaming { static var predicateEntityName: String { "BusinessTrip" } }
/// ```
public protocol PredicateEntityNaming {
    /// The name of the entity whose objects (and whose sub-entities' objects) are instances of the type.
    static var predicateEntityName: String { get }
}

/// The right side of `entity == kind` in a converted `is` check: an object's entity matches when it is the named
/// entity or one of its sub-entities (a kind-of test; Core Data's own `entity == %@` with an `NSEntityDescription`
/// matches that entity only).
///
/// ```swift
/// EntityKind(name: "Trip").matches(businessTripEntity)   // true: BusinessTrip is a sub-entity of Trip
/// ```
package struct EntityKind: Hashable, Sendable, CustomStringConvertible {
    package let name: String

    /// Whether `entity` is the named entity or inherits from it.
    func matches(_ entity: any KindTestedEntity) -> Bool {
        var current: (any KindTestedEntity)? = entity
        while let candidate = current {
            if candidate.name == name { return true }
            current = candidate.kindTestParent
        }
        return false
    }

    package var description: String { "kind of \(name)" }
}

/// An entity as a kind-of test (``EntityKind``) sees it: its name and the entity it inherits from. The model layer's
/// `NSEntityDescription` conforms; the predicate layer, below it, names only this.
package protocol KindTestedEntity: AnyObject {
    /// The entity's name.
    var name: String? { get }
    /// The entity it inherits from; nil for a root entity.
    var kindTestParent: (any KindTestedEntity)? { get }
}
