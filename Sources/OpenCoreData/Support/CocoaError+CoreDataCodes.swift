// Core Data's error codes as static members of `CocoaError`, as Apple's CoreData Swift overlay declares them, so
// that a `CocoaError` can be matched with a pattern (`if case CocoaError.managedObjectValidation = error`): the
// `~=` of `_ErrorCodeProtocol` compares a thrown error's code with a `CocoaError.Code`. The codes themselves are on
// `CocoaError.Code` (`CocoaError.Code+CoreData.swift`).

import Foundation

// MARK: - Codes

/// Core Data's codes in `NSCocoaErrorDomain`, as members of `CocoaError` for pattern matching.
///
///     do {
///         try context.save()
///     } catch CocoaError.managedObjectMerge {
///         context.rollback()   // another context saved the same objects first
///     }
///     if case CocoaError.managedObjectValidation = error { … }
extension CocoaError {
    /// `NSManagedObjectValidationError`: a generic validation failure (a predicate rule without its own code, or `validateForInsert()` overrides).
    public static var managedObjectValidation: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectValidationError) }
    /// `NSValidationMultipleErrorsError`: several validation failures at once; the individual errors are under `NSDetailedErrorsKey`.
    public static var validationMultipleErrors: CocoaError.Code { CocoaError.Code(rawValue: NSValidationMultipleErrorsError) }
    /// `NSValidationMissingMandatoryPropertyError`: a non-optional property is `nil`.
    public static var validationMissingMandatoryProperty: CocoaError.Code { CocoaError.Code(rawValue: NSValidationMissingMandatoryPropertyError) }
    /// `NSValidationRelationshipLacksMinimumCountError`: a to-many relationship has fewer objects than its `minCount`.
    public static var validationRelationshipLacksMinimumCount: CocoaError.Code { CocoaError.Code(rawValue: NSValidationRelationshipLacksMinimumCountError) }
    /// `NSValidationRelationshipExceedsMaximumCountError`: a to-many relationship has more objects than its `maxCount`.
    public static var validationRelationshipExceedsMaximumCount: CocoaError.Code { CocoaError.Code(rawValue: NSValidationRelationshipExceedsMaximumCountError) }
    /// `NSValidationRelationshipDeniedDeleteError`: a deleted object's relationship with the deny rule still has objects.
    public static var validationRelationshipDeniedDelete: CocoaError.Code { CocoaError.Code(rawValue: NSValidationRelationshipDeniedDeleteError) }
    /// `NSValidationNumberTooLargeError`: a number is above the attribute's maximum.
    public static var validationNumberTooLarge: CocoaError.Code { CocoaError.Code(rawValue: NSValidationNumberTooLargeError) }
    /// `NSValidationNumberTooSmallError`: a number is below the attribute's minimum.
    public static var validationNumberTooSmall: CocoaError.Code { CocoaError.Code(rawValue: NSValidationNumberTooSmallError) }
    /// `NSValidationDateTooLateError`: a date is later than the attribute's maximum.
    public static var validationDateTooLate: CocoaError.Code { CocoaError.Code(rawValue: NSValidationDateTooLateError) }
    /// `NSValidationDateTooSoonError`: a date is earlier than the attribute's minimum.
    public static var validationDateTooSoon: CocoaError.Code { CocoaError.Code(rawValue: NSValidationDateTooSoonError) }
    /// `NSValidationInvalidDateError`: a date does not match the attribute's date pattern.
    public static var validationInvalidDate: CocoaError.Code { CocoaError.Code(rawValue: NSValidationInvalidDateError) }
    /// `NSValidationStringTooLongError`: a string is longer than the attribute's maximum length.
    public static var validationStringTooLong: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringTooLongError) }
    /// `NSValidationStringTooShortError`: a string is shorter than the attribute's minimum length.
    public static var validationStringTooShort: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringTooShortError) }
    /// `NSValidationStringPatternMatchingError`: a string does not match the attribute's regular expression.
    public static var validationStringPatternMatching: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringPatternMatchingError) }
    /// `NSManagedObjectContextLockingError`: a managed object context could not be locked.
    public static var managedObjectContextLocking: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectContextLockingError) }
    /// `NSPersistentStoreCoordinatorLockingError`: a persistent store coordinator could not be locked.
    public static var persistentStoreCoordinatorLocking: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreCoordinatorLockingError) }
    /// `NSManagedObjectReferentialIntegrityError`: a fault was fired for an object that no longer exists in the store.
    public static var managedObjectReferentialIntegrity: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectReferentialIntegrityError) }
    /// `NSManagedObjectExternalRelationshipError`: a saved object has a relationship to an object in another store.
    public static var managedObjectExternalRelationship: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectExternalRelationshipError) }
    /// `NSManagedObjectMergeError`: an optimistic-locking conflict the merge policy did not resolve; the conflicts are under `NSPersistentStoreSaveConflictsErrorKey`.
    public static var managedObjectMerge: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectMergeError) }
    /// `NSManagedObjectConstraintMergeError`: a uniqueness-constraint conflict the merge policy did not resolve.
    public static var managedObjectConstraintMerge: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectConstraintMergeError) }
    /// `NSPersistentStoreInvalidTypeError`: an unknown persistent store type, format or version.
    public static var persistentStoreInvalidType: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreInvalidTypeError) }
    /// `NSPersistentStoreTypeMismatchError`: a store was opened as a type it is not.
    public static var persistentStoreTypeMismatch: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreTypeMismatchError) }
    /// `NSPersistentStoreIncompatibleSchemaError`: the store's database schema does not fit (a missing table, no permission).
    public static var persistentStoreIncompatibleSchema: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreIncompatibleSchemaError) }
    /// `NSPersistentStoreSaveError`: a store failed to save.
    public static var persistentStoreSave: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreSaveError) }
    /// `NSPersistentStoreIncompleteSaveError`: one or more stores failed during a save.
    public static var persistentStoreIncompleteSave: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreIncompleteSaveError) }
    /// `NSPersistentStoreSaveConflictsError`: an unresolved merge conflict was met during a save.
    public static var persistentStoreSaveConflicts: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreSaveConflictsError) }
    /// `NSCoreDataError`: a general Core Data error.
    public static var coreData: CocoaError.Code { CocoaError.Code(rawValue: NSCoreDataError) }
    /// `NSPersistentStoreOperationError`: a persistent store operation failed.
    public static var persistentStoreOperation: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreOperationError) }
    /// `NSPersistentStoreOpenError`: a persistent store could not be opened.
    public static var persistentStoreOpen: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreOpenError) }
    /// `NSPersistentStoreTimeoutError`: a persistent store could not be reached within `NSPersistentStoreTimeoutOption`.
    public static var persistentStoreTimeout: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreTimeoutError) }
    /// `NSPersistentStoreUnsupportedRequestTypeError`: a store was given a request type it does not understand.
    public static var persistentStoreUnsupportedRequestType: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreUnsupportedRequestTypeError) }
    /// `NSPersistentStoreIncompatibleVersionHashError`: the store's entity version hashes do not match the model (the store needs a migration).
    public static var persistentStoreIncompatibleVersionHash: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreIncompatibleVersionHashError) }
    /// `NSMigrationError`: a general migration error.
    public static var migration: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationError) }
    /// `NSMigrationCancelledError`: a migration was cancelled.
    public static var migrationCancelled: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationCancelledError) }
    /// `NSMigrationMissingSourceModelError`: no model matches the store that is to be migrated.
    public static var migrationMissingSourceModel: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationMissingSourceModelError) }
    /// `NSMigrationMissingMappingModelError`: no mapping model could be found or inferred.
    public static var migrationMissingMappingModel: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationMissingMappingModelError) }
    /// `NSMigrationManagerSourceStoreError`: the migration's source store failed.
    public static var migrationManagerSourceStore: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationManagerSourceStoreError) }
    /// `NSMigrationManagerDestinationStoreError`: the migration's destination store failed.
    public static var migrationManagerDestinationStore: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationManagerDestinationStoreError) }
    /// `NSEntityMigrationPolicyError`: an entity migration policy failed.
    public static var entityMigrationPolicy: CocoaError.Code { CocoaError.Code(rawValue: NSEntityMigrationPolicyError) }
    /// `NSSQLiteError`: SQLite reported an error; its result code is under `NSSQLiteErrorDomain`.
    public static var sqlite: CocoaError.Code { CocoaError.Code(rawValue: NSSQLiteError) }
    /// `NSInferredMappingModelError`: a mapping model could not be inferred.
    public static var inferredMappingModel: CocoaError.Code { CocoaError.Code(rawValue: NSInferredMappingModelError) }
    /// `NSExternalRecordImportError`: an external record could not be imported.
    public static var externalRecordImport: CocoaError.Code { CocoaError.Code(rawValue: NSExternalRecordImportError) }
}

// MARK: - The `…Error` spellings Apple deprecated in Swift 3

/// The `…Error` spellings of the codes above from Apple's first Swift 3 SDKs, which Apple deprecated with a rename.
///
///     // Still compiles (with a deprecation warning and a fix-it), as it does against Apple's SDK:
///     let code = CocoaError.managedObjectMergeError   // same value as .managedObjectMerge
extension CocoaError {
    /// Deprecated spelling of ``CocoaError/managedObjectValidation`` (`NSManagedObjectValidationError`).
    @available(*, deprecated, renamed: "managedObjectValidation")
    public static var managedObjectValidationError: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectValidationError) }
    /// Deprecated spelling of ``CocoaError/validationMultipleErrors`` (`NSValidationMultipleErrorsError`).
    @available(*, deprecated, renamed: "validationMultipleErrors")
    public static var validationMultipleErrorsError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationMultipleErrorsError) }
    /// Deprecated spelling of ``CocoaError/validationMissingMandatoryProperty`` (`NSValidationMissingMandatoryPropertyError`).
    @available(*, deprecated, renamed: "validationMissingMandatoryProperty")
    public static var validationMissingMandatoryPropertyError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationMissingMandatoryPropertyError) }
    /// Deprecated spelling of ``CocoaError/validationRelationshipLacksMinimumCount`` (`NSValidationRelationshipLacksMinimumCountError`).
    @available(*, deprecated, renamed: "validationRelationshipLacksMinimumCount")
    public static var validationRelationshipLacksMinimumCountError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationRelationshipLacksMinimumCountError) }
    /// Deprecated spelling of ``CocoaError/validationRelationshipExceedsMaximumCount`` (`NSValidationRelationshipExceedsMaximumCountError`).
    @available(*, deprecated, renamed: "validationRelationshipExceedsMaximumCount")
    public static var validationRelationshipExceedsMaximumCountError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationRelationshipExceedsMaximumCountError) }
    /// Deprecated spelling of ``CocoaError/validationRelationshipDeniedDelete`` (`NSValidationRelationshipDeniedDeleteError`).
    @available(*, deprecated, renamed: "validationRelationshipDeniedDelete")
    public static var validationRelationshipDeniedDeleteError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationRelationshipDeniedDeleteError) }
    /// Deprecated spelling of ``CocoaError/validationNumberTooLarge`` (`NSValidationNumberTooLargeError`).
    @available(*, deprecated, renamed: "validationNumberTooLarge")
    public static var validationNumberTooLargeError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationNumberTooLargeError) }
    /// Deprecated spelling of ``CocoaError/validationNumberTooSmall`` (`NSValidationNumberTooSmallError`).
    @available(*, deprecated, renamed: "validationNumberTooSmall")
    public static var validationNumberTooSmallError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationNumberTooSmallError) }
    /// Deprecated spelling of ``CocoaError/validationDateTooLate`` (`NSValidationDateTooLateError`).
    @available(*, deprecated, renamed: "validationDateTooLate")
    public static var validationDateTooLateError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationDateTooLateError) }
    /// Deprecated spelling of ``CocoaError/validationDateTooSoon`` (`NSValidationDateTooSoonError`).
    @available(*, deprecated, renamed: "validationDateTooSoon")
    public static var validationDateTooSoonError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationDateTooSoonError) }
    /// Deprecated spelling of ``CocoaError/validationInvalidDate`` (`NSValidationInvalidDateError`).
    @available(*, deprecated, renamed: "validationInvalidDate")
    public static var validationInvalidDateError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationInvalidDateError) }
    /// Deprecated spelling of ``CocoaError/validationStringTooLong`` (`NSValidationStringTooLongError`).
    @available(*, deprecated, renamed: "validationStringTooLong")
    public static var validationStringTooLongError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringTooLongError) }
    /// Deprecated spelling of ``CocoaError/validationStringTooShort`` (`NSValidationStringTooShortError`).
    @available(*, deprecated, renamed: "validationStringTooShort")
    public static var validationStringTooShortError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringTooShortError) }
    /// Deprecated spelling of ``CocoaError/validationStringPatternMatching`` (`NSValidationStringPatternMatchingError`).
    @available(*, deprecated, renamed: "validationStringPatternMatching")
    public static var validationStringPatternMatchingError: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringPatternMatchingError) }
    /// Deprecated spelling of ``CocoaError/managedObjectContextLocking`` (`NSManagedObjectContextLockingError`).
    @available(*, deprecated, renamed: "managedObjectContextLocking")
    public static var managedObjectContextLockingError: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectContextLockingError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreCoordinatorLocking`` (`NSPersistentStoreCoordinatorLockingError`).
    @available(*, deprecated, renamed: "persistentStoreCoordinatorLocking")
    public static var persistentStoreCoordinatorLockingError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreCoordinatorLockingError) }
    /// Deprecated spelling of ``CocoaError/managedObjectReferentialIntegrity`` (`NSManagedObjectReferentialIntegrityError`).
    @available(*, deprecated, renamed: "managedObjectReferentialIntegrity")
    public static var managedObjectReferentialIntegrityError: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectReferentialIntegrityError) }
    /// Deprecated spelling of ``CocoaError/managedObjectExternalRelationship`` (`NSManagedObjectExternalRelationshipError`).
    @available(*, deprecated, renamed: "managedObjectExternalRelationship")
    public static var managedObjectExternalRelationshipError: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectExternalRelationshipError) }
    /// Deprecated spelling of ``CocoaError/managedObjectMerge`` (`NSManagedObjectMergeError`).
    @available(*, deprecated, renamed: "managedObjectMerge")
    public static var managedObjectMergeError: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectMergeError) }
    /// Deprecated spelling of ``CocoaError/managedObjectConstraintMerge`` (`NSManagedObjectConstraintMergeError`).
    @available(*, deprecated, renamed: "managedObjectConstraintMerge")
    public static var managedObjectConstraintMergeError: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectConstraintMergeError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreInvalidType`` (`NSPersistentStoreInvalidTypeError`).
    @available(*, deprecated, renamed: "persistentStoreInvalidType")
    public static var persistentStoreInvalidTypeError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreInvalidTypeError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreTypeMismatch`` (`NSPersistentStoreTypeMismatchError`).
    @available(*, deprecated, renamed: "persistentStoreTypeMismatch")
    public static var persistentStoreTypeMismatchError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreTypeMismatchError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreIncompatibleSchema`` (`NSPersistentStoreIncompatibleSchemaError`).
    @available(*, deprecated, renamed: "persistentStoreIncompatibleSchema")
    public static var persistentStoreIncompatibleSchemaError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreIncompatibleSchemaError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreSave`` (`NSPersistentStoreSaveError`).
    @available(*, deprecated, renamed: "persistentStoreSave")
    public static var persistentStoreSaveError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreSaveError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreIncompleteSave`` (`NSPersistentStoreIncompleteSaveError`).
    @available(*, deprecated, renamed: "persistentStoreIncompleteSave")
    public static var persistentStoreIncompleteSaveError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreIncompleteSaveError) }
    /// Deprecated spelling of `CocoaError.persistentStoreSaveConflicts` (`NSPersistentStoreSaveConflictsError`).
    @available(*, deprecated, renamed: "persistentStoreSaveConflicts")
    public static var persistentStoreSaveConflictsError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreSaveConflictsError) }
    /// Deprecated spelling of ``CocoaError/coreData`` (`NSCoreDataError`).
    @available(*, deprecated, renamed: "coreData")
    public static var coreDataError: CocoaError.Code { CocoaError.Code(rawValue: NSCoreDataError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreOperation`` (`NSPersistentStoreOperationError`).
    @available(*, deprecated, renamed: "persistentStoreOperation")
    public static var persistentStoreOperationError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreOperationError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreOpen`` (`NSPersistentStoreOpenError`).
    @available(*, deprecated, renamed: "persistentStoreOpen")
    public static var persistentStoreOpenError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreOpenError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreTimeout`` (`NSPersistentStoreTimeoutError`).
    @available(*, deprecated, renamed: "persistentStoreTimeout")
    public static var persistentStoreTimeoutError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreTimeoutError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreUnsupportedRequestType`` (`NSPersistentStoreUnsupportedRequestTypeError`).
    @available(*, deprecated, renamed: "persistentStoreUnsupportedRequestType")
    public static var persistentStoreUnsupportedRequestTypeError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreUnsupportedRequestTypeError) }
    /// Deprecated spelling of ``CocoaError/persistentStoreIncompatibleVersionHash`` (`NSPersistentStoreIncompatibleVersionHashError`).
    @available(*, deprecated, renamed: "persistentStoreIncompatibleVersionHash")
    public static var persistentStoreIncompatibleVersionHashError: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreIncompatibleVersionHashError) }
    /// Deprecated spelling of ``CocoaError/migration`` (`NSMigrationError`).
    @available(*, deprecated, renamed: "migration")
    public static var migrationError: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationError) }
    /// Deprecated spelling of ``CocoaError/migrationCancelled`` (`NSMigrationCancelledError`).
    @available(*, deprecated, renamed: "migrationCancelled")
    public static var migrationCancelledError: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationCancelledError) }
    /// Deprecated spelling of ``CocoaError/migrationMissingSourceModel`` (`NSMigrationMissingSourceModelError`).
    @available(*, deprecated, renamed: "migrationMissingSourceModel")
    public static var migrationMissingSourceModelError: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationMissingSourceModelError) }
    /// Deprecated spelling of ``CocoaError/migrationMissingMappingModel`` (`NSMigrationMissingMappingModelError`).
    @available(*, deprecated, renamed: "migrationMissingMappingModel")
    public static var migrationMissingMappingModelError: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationMissingMappingModelError) }
    /// Deprecated spelling of ``CocoaError/migrationManagerSourceStore`` (`NSMigrationManagerSourceStoreError`).
    @available(*, deprecated, renamed: "migrationManagerSourceStore")
    public static var migrationManagerSourceStoreError: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationManagerSourceStoreError) }
    /// Deprecated spelling of ``CocoaError/migrationManagerDestinationStore`` (`NSMigrationManagerDestinationStoreError`).
    @available(*, deprecated, renamed: "migrationManagerDestinationStore")
    public static var migrationManagerDestinationStoreError: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationManagerDestinationStoreError) }
    /// Deprecated spelling of ``CocoaError/entityMigrationPolicy`` (`NSEntityMigrationPolicyError`).
    @available(*, deprecated, renamed: "entityMigrationPolicy")
    public static var entityMigrationPolicyError: CocoaError.Code { CocoaError.Code(rawValue: NSEntityMigrationPolicyError) }
    /// Deprecated spelling of ``CocoaError/sqlite`` (`NSSQLiteError`).
    @available(*, deprecated, renamed: "sqlite")
    public static var sqliteError: CocoaError.Code { CocoaError.Code(rawValue: NSSQLiteError) }
    /// Deprecated spelling of ``CocoaError/inferredMappingModel`` (`NSInferredMappingModelError`).
    @available(*, deprecated, renamed: "inferredMappingModel")
    public static var inferredMappingModelError: CocoaError.Code { CocoaError.Code(rawValue: NSInferredMappingModelError) }
    /// Deprecated spelling of ``CocoaError/externalRecordImport`` (`NSExternalRecordImportError`).
    @available(*, deprecated, renamed: "externalRecordImport")
    public static var externalRecordImportError: CocoaError.Code { CocoaError.Code(rawValue: NSExternalRecordImportError) }
}
