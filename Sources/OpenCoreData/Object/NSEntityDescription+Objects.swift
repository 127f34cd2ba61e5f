extension NSEntityDescription {
    /// The entity named `entityName` in the model of `context`'s coordinator.
    ///
    /// For example:
    /// ```swift
    /// let entity = NSEntityDescription.entity(forEntityName: "Mood", in: context)!
    /// ```
    public class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.modelForEntityLookup?.entitiesByName[entityName]
    }

    /// Creates and inserts a new object of the entity named `entityName` (of the entity's managed object class).
    /// An unknown entity name stops the program (Apple raises).
    ///
    /// For example:
    /// ```swift
    /// let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: context) as! Mood
    /// ```
    public class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            preconditionFailure("+entityForName: could not locate an entity named '\(entityName)' in the context's model.")
        }
        // The context's answer: the entity's class, or `NSManagedObject` in a migration's contexts.
        let objectClass = context.faultClasses.objectClass(for: entity)
        return objectClass.init(entity: entity, insertInto: context)
    }
}
