import Foundation

// Core Data's error codes and userInfo keys, with Apple's names and values (CoreDataErrors.h).
// Every error that comes from input is an NSError in NSCocoaErrorDomain with one of these codes.

// MARK: - Validation

/// Generic validation error.
public let NSManagedObjectValidationError: Int = 1550
/// A uniqueness constraint was violated during validation.
public let NSManagedObjectConstraintValidationError: Int = 1551
/// Several validation errors; the individual errors are under `NSDetailedErrorsKey`.
public let NSValidationMultipleErrorsError: Int = 1560
/// A required (non-optional) property has no value.
public let NSValidationMissingMandatoryPropertyError: Int = 1570
/// A to-many relationship has fewer objects than its `minCount`.
public let NSValidationRelationshipLacksMinimumCountError: Int = 1580
/// A to-many relationship has more objects than its `maxCount`.
public let NSValidationRelationshipExceedsMaximumCountError: Int = 1590
/// A relationship with the deny delete rule still has destination objects.
public let NSValidationRelationshipDeniedDeleteError: Int = 1600
/// A number is above the attribute's maximum value.
public let NSValidationNumberTooLargeError: Int = 1610
/// A number is below the attribute's minimum value.
public let NSValidationNumberTooSmallError: Int = 1620
/// A date is later than the attribute's maximum.
public let NSValidationDateTooLateError: Int = 1630
/// A date is earlier than the attribute's minimum.
public let NSValidationDateTooSoonError: Int = 1640
/// A date value is invalid.
public let NSValidationInvalidDateError: Int = 1650
/// A string is longer than the attribute's maximum length.
public let NSValidationStringTooLongError: Int = 1660
/// A string is shorter than the attribute's minimum length.
public let NSValidationStringTooShortError: Int = 1670
/// A string does not match the attribute's regular expression.
public let NSValidationStringPatternMatchingError: Int = 1680
/// A URI value is invalid.
public let NSValidationInvalidURIError: Int = 1690

// MARK: - Objects and contexts

/// A context could not be locked.
public let NSManagedObjectContextLockingError: Int = 132_000
/// A coordinator could not be locked.
public let NSPersistentStoreCoordinatorLockingError: Int = 132_010
/// An object referenced something that no longer exists.
public let NSManagedObjectReferentialIntegrityError: Int = 133_000
/// A relationship crosses persistent stores.
public let NSManagedObjectExternalRelationshipError: Int = 133_010
/// Optimistic-locking failure: the objects are under `NSPersistentStoreSaveConflictsErrorKey`.
public let NSManagedObjectMergeError: Int = 133_020
/// A uniqueness-constraint conflict during save.
public let NSManagedObjectConstraintMergeError: Int = 133_021

// MARK: - Stores

/// Unknown persistent store type.
public let NSPersistentStoreInvalidTypeError: Int = 134_000
/// The store type does not match the file.
public let NSPersistentStoreTypeMismatchError: Int = 134_010
/// The store's schema is incompatible with the model.
public let NSPersistentStoreIncompatibleSchemaError: Int = 134_020
/// A store failed to save.
public let NSPersistentStoreSaveError: Int = 134_030
/// A save failed partway (some stores saved).
public let NSPersistentStoreIncompleteSaveError: Int = 134_040
/// Save conflicts with the store.
public let NSPersistentStoreSaveConflictsError: Int = 134_050
/// Generic Core Data error.
public let NSCoreDataError: Int = 134_060
/// A store operation failed.
public let NSPersistentStoreOperationError: Int = 134_070
/// A store could not be opened.
public let NSPersistentStoreOpenError: Int = 134_080
/// A store operation timed out.
public let NSPersistentStoreTimeoutError: Int = 134_090
/// The store does not support the request type.
public let NSPersistentStoreUnsupportedRequestTypeError: Int = 134_091
/// The store's entity version hashes differ from the model's.
public let NSPersistentStoreIncompatibleVersionHashError: Int = 134_100
/// Generic migration error.
public let NSMigrationError: Int = 134_110
/// A migration produced a uniqueness-constraint violation.
public let NSMigrationConstraintViolationError: Int = 134_111
/// A migration was cancelled.
public let NSMigrationCancelledError: Int = 134_120
/// No source model could be found for the store.
public let NSMigrationMissingSourceModelError: Int = 134_130
/// No mapping model could be found.
public let NSMigrationMissingMappingModelError: Int = 134_140
/// The migration source store failed.
public let NSMigrationManagerSourceStoreError: Int = 134_150
/// The migration destination store failed.
public let NSMigrationManagerDestinationStoreError: Int = 134_160
/// An entity migration policy failed.
public let NSEntityMigrationPolicyError: Int = 134_170
/// SQLite reported an error; its code is under `NSSQLiteErrorDomain` in userInfo.
public let NSSQLiteError: Int = 134_180
/// A mapping model could not be inferred.
public let NSInferredMappingModelError: Int = 134_190
/// An external record could not be imported.
public let NSExternalRecordImportError: Int = 134_200
/// A persistent history token has expired.
public let NSPersistentHistoryTokenExpiredError: Int = 134_301

// MARK: - userInfo keys

/// The individual errors of an `NSValidationMultipleErrorsError`.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// The object that failed validation.
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
/// The key that failed validation.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
/// The predicate that failed validation.
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// The value that failed validation.
public let NSValidationValueErrorKey = "NSValidationErrorValue"
/// The objects an error concerns.
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
/// The stores an error concerns.
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
/// The merge conflicts of an `NSManagedObjectMergeError`.
public let NSPersistentStoreSaveConflictsErrorKey = "conflictList"
/// The userInfo key (and error domain) for the SQLite result code.
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"

/// Makes the `NSError`s OpenCoreData throws: Cocoa's domain, a Core Data code, a readable message.
package enum CoreDataError {
    /// An error in `NSCocoaErrorDomain` with `code`, a localized description and extra userInfo.
    package static func make(_ code: Int, _ message: String, userInfo: [String: Any] = [:]) -> NSError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = message
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }
}
