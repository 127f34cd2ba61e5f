// Typed access to the userInfo of Core Data's errors, with the names and types of Apple's CoreData Swift overlay.
// Each property reads one of Core Data's userInfo keys (CoreDataErrors.swift) and is nil when the key is absent or
// holds something of another type.

import Foundation

// MARK: - Validation and affected objects

/// What a Core Data error is about: the object, key, value and predicate that failed validation, the objects and
/// stores concerned, and the optimistic-locking conflicts of a failed save.
///
///     do {
///         try context.save()
///     } catch let error as CocoaError where error.code == .validationStringTooLong {
///         print("\(error.validationKey ?? "?") is too long: \(error.validationValue ?? "")")
///         if let object = error.validationObject as? NSManagedObject { context.delete(object) }
///     } catch let error as CocoaError where error.code == .managedObjectMerge {
///         for conflict in error.persistentStoreSaveConflicts ?? [] { print(conflict.sourceObject.objectID) }
///     }
extension CocoaError {
    /// The object that failed validation (`NSValidationObjectErrorKey`): the `NSManagedObject` Core Data validated.
    public var validationObject: Any? {
        userInfo[NSValidationObjectErrorKey]
    }

    /// The name of the property that failed validation (`NSValidationKeyErrorKey`).
    public var validationKey: String? {
        userInfo[NSValidationKeyErrorKey] as? String
    }

    /// For a failed validation predicate, the predicate (`NSValidationPredicateErrorKey`).
    public var validationPredicate: NSPredicate? {
        userInfo[NSValidationPredicateErrorKey] as? NSPredicate
    }

    /// The value that failed validation (`NSValidationValueErrorKey`); nil when the value was nil.
    public var validationValue: Any? {
        userInfo[NSValidationValueErrorKey]
    }

    /// The persistent stores the error concerns (`NSAffectedStoresErrorKey`).
    public var affectedStores: [AnyObject]? {
        userInfo[NSAffectedStoresErrorKey] as? [AnyObject]
    }

    /// The objects (managed objects or object IDs) the error concerns (`NSAffectedObjectsErrorKey`).
    public var affectedObjects: [AnyObject]? {
        userInfo[NSAffectedObjectsErrorKey] as? [AnyObject]
    }

    /// The optimistic-locking conflicts of a `CocoaError.Code.managedObjectMerge` error
    /// (`NSPersistentStoreSaveConflictsErrorKey`). Nil for a `CocoaError.Code.managedObjectConstraintMerge`
    /// error, whose conflict list holds `NSConstraintConflict`s (read them from `userInfo` under the same key).
    public var persistentStoreSaveConflicts: [NSMergeConflict]? {
        userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
    }
}
