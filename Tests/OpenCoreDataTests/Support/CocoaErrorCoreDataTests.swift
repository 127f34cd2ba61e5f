import Foundation
import OpenCoreData
import Testing
@testable import OpenCoreDataSupport

// Core Data's errors caught the way iOS code catches them: as `CocoaError`, compared with Apple's `CocoaError.Code`
// names, matched with the static-member patterns, and read through the typed userInfo properties. Expected codes
// are Apple's (CoreDataErrors.h and the CoreData Swift overlay's names); the situations are real saves and store
// opens, not hand-built errors, except where a test says so.

/// Apple's numbers for every Core Data `CocoaError` code, written out from CoreDataErrors.h (Apple's SDK header),
/// not from OpenCoreData's constants: the code name Apple's Swift overlay gives each, and its raw value.
private let applesCodeNumbers: [(name: String, raw: Int)] = [
    ("managedObjectValidation", 1550), ("validationMultipleErrors", 1560), ("validationMissingMandatoryProperty", 1570),
    ("validationRelationshipLacksMinimumCount", 1580), ("validationRelationshipExceedsMaximumCount", 1590),
    ("validationRelationshipDeniedDelete", 1600), ("validationNumberTooLarge", 1610), ("validationNumberTooSmall", 1620),
    ("validationDateTooLate", 1630), ("validationDateTooSoon", 1640), ("validationInvalidDate", 1650),
    ("validationStringTooLong", 1660), ("validationStringTooShort", 1670), ("validationStringPatternMatching", 1680),
    ("managedObjectContextLocking", 132_000), ("persistentStoreCoordinatorLocking", 132_010),
    ("managedObjectReferentialIntegrity", 133_000), ("managedObjectExternalRelationship", 133_010),
    ("managedObjectMerge", 133_020), ("managedObjectConstraintMerge", 133_021),
    ("persistentStoreInvalidType", 134_000), ("persistentStoreTypeMismatch", 134_010),
    ("persistentStoreIncompatibleSchema", 134_020), ("persistentStoreSave", 134_030),
    ("persistentStoreIncompleteSave", 134_040), ("persistentStoreSaveConflicts", 134_050), ("coreData", 134_060),
    ("persistentStoreOperation", 134_070), ("persistentStoreOpen", 134_080), ("persistentStoreTimeout", 134_090),
    ("persistentStoreUnsupportedRequestType", 134_091), ("persistentStoreIncompatibleVersionHash", 134_100),
    ("migration", 134_110), ("migrationCancelled", 134_120), ("migrationMissingSourceModel", 134_130),
    ("migrationMissingMappingModel", 134_140), ("migrationManagerSourceStore", 134_150),
    ("migrationManagerDestinationStore", 134_160), ("entityMigrationPolicy", 134_170), ("sqlite", 134_180),
    ("inferredMappingModel", 134_190), ("externalRecordImport", 134_200),
]

/// Every modern code name, as written in app code, on `CocoaError.Code` and on `CocoaError`.
private let modernSpellings: [String: (onCode: CocoaError.Code, onError: CocoaError.Code)] = [
    "managedObjectValidation": (.managedObjectValidation, CocoaError.managedObjectValidation),
    "validationMultipleErrors": (.validationMultipleErrors, CocoaError.validationMultipleErrors),
    "validationMissingMandatoryProperty": (.validationMissingMandatoryProperty, CocoaError.validationMissingMandatoryProperty),
    "validationRelationshipLacksMinimumCount": (.validationRelationshipLacksMinimumCount, CocoaError.validationRelationshipLacksMinimumCount),
    "validationRelationshipExceedsMaximumCount": (.validationRelationshipExceedsMaximumCount, CocoaError.validationRelationshipExceedsMaximumCount),
    "validationRelationshipDeniedDelete": (.validationRelationshipDeniedDelete, CocoaError.validationRelationshipDeniedDelete),
    "validationNumberTooLarge": (.validationNumberTooLarge, CocoaError.validationNumberTooLarge),
    "validationNumberTooSmall": (.validationNumberTooSmall, CocoaError.validationNumberTooSmall),
    "validationDateTooLate": (.validationDateTooLate, CocoaError.validationDateTooLate),
    "validationDateTooSoon": (.validationDateTooSoon, CocoaError.validationDateTooSoon),
    "validationInvalidDate": (.validationInvalidDate, CocoaError.validationInvalidDate),
    "validationStringTooLong": (.validationStringTooLong, CocoaError.validationStringTooLong),
    "validationStringTooShort": (.validationStringTooShort, CocoaError.validationStringTooShort),
    "validationStringPatternMatching": (.validationStringPatternMatching, CocoaError.validationStringPatternMatching),
    "managedObjectContextLocking": (.managedObjectContextLocking, CocoaError.managedObjectContextLocking),
    "persistentStoreCoordinatorLocking": (.persistentStoreCoordinatorLocking, CocoaError.persistentStoreCoordinatorLocking),
    "managedObjectReferentialIntegrity": (.managedObjectReferentialIntegrity, CocoaError.managedObjectReferentialIntegrity),
    "managedObjectExternalRelationship": (.managedObjectExternalRelationship, CocoaError.managedObjectExternalRelationship),
    "managedObjectMerge": (.managedObjectMerge, CocoaError.managedObjectMerge),
    "managedObjectConstraintMerge": (.managedObjectConstraintMerge, CocoaError.managedObjectConstraintMerge),
    "persistentStoreInvalidType": (.persistentStoreInvalidType, CocoaError.persistentStoreInvalidType),
    "persistentStoreTypeMismatch": (.persistentStoreTypeMismatch, CocoaError.persistentStoreTypeMismatch),
    "persistentStoreIncompatibleSchema": (.persistentStoreIncompatibleSchema, CocoaError.persistentStoreIncompatibleSchema),
    "persistentStoreSave": (.persistentStoreSave, CocoaError.persistentStoreSave),
    "persistentStoreIncompleteSave": (.persistentStoreIncompleteSave, CocoaError.persistentStoreIncompleteSave),
    "persistentStoreSaveConflicts": (.persistentStoreSaveConflicts, CocoaError.persistentStoreSaveConflicts),
    "coreData": (.coreData, CocoaError.coreData),
    "persistentStoreOperation": (.persistentStoreOperation, CocoaError.persistentStoreOperation),
    "persistentStoreOpen": (.persistentStoreOpen, CocoaError.persistentStoreOpen),
    "persistentStoreTimeout": (.persistentStoreTimeout, CocoaError.persistentStoreTimeout),
    "persistentStoreUnsupportedRequestType": (.persistentStoreUnsupportedRequestType, CocoaError.persistentStoreUnsupportedRequestType),
    "persistentStoreIncompatibleVersionHash": (.persistentStoreIncompatibleVersionHash, CocoaError.persistentStoreIncompatibleVersionHash),
    "migration": (.migration, CocoaError.migration),
    "migrationCancelled": (.migrationCancelled, CocoaError.migrationCancelled),
    "migrationMissingSourceModel": (.migrationMissingSourceModel, CocoaError.migrationMissingSourceModel),
    "migrationMissingMappingModel": (.migrationMissingMappingModel, CocoaError.migrationMissingMappingModel),
    "migrationManagerSourceStore": (.migrationManagerSourceStore, CocoaError.migrationManagerSourceStore),
    "migrationManagerDestinationStore": (.migrationManagerDestinationStore, CocoaError.migrationManagerDestinationStore),
    "entityMigrationPolicy": (.entityMigrationPolicy, CocoaError.entityMigrationPolicy),
    "sqlite": (.sqlite, CocoaError.sqlite),
    "inferredMappingModel": (.inferredMappingModel, CocoaError.inferredMappingModel),
    "externalRecordImport": (.externalRecordImport, CocoaError.externalRecordImport),
]

/// Reaches the deprecated `…Error` spellings without a deprecation warning in the test build: the table is built in
/// a deprecated witness and read through the (not deprecated) protocol requirement.
private protocol DeprecatedSpellingTable {
    static var deprecatedSpellings: [String: (onCode: CocoaError.Code, onError: CocoaError.Code)] { get }
}

private enum DeprecatedSpellings: DeprecatedSpellingTable {
    @available(*, deprecated, message: "reads Apple's deprecated …Error spellings on purpose")
    static var deprecatedSpellings: [String: (onCode: CocoaError.Code, onError: CocoaError.Code)] {
        [
            "managedObjectValidation": (.managedObjectValidationError, CocoaError.managedObjectValidationError),
            "validationMultipleErrors": (.validationMultipleErrorsError, CocoaError.validationMultipleErrorsError),
            "validationMissingMandatoryProperty": (.validationMissingMandatoryPropertyError, CocoaError.validationMissingMandatoryPropertyError),
            "validationRelationshipLacksMinimumCount": (.validationRelationshipLacksMinimumCountError, CocoaError.validationRelationshipLacksMinimumCountError),
            "validationRelationshipExceedsMaximumCount": (.validationRelationshipExceedsMaximumCountError, CocoaError.validationRelationshipExceedsMaximumCountError),
            "validationRelationshipDeniedDelete": (.validationRelationshipDeniedDeleteError, CocoaError.validationRelationshipDeniedDeleteError),
            "validationNumberTooLarge": (.validationNumberTooLargeError, CocoaError.validationNumberTooLargeError),
            "validationNumberTooSmall": (.validationNumberTooSmallError, CocoaError.validationNumberTooSmallError),
            "validationDateTooLate": (.validationDateTooLateError, CocoaError.validationDateTooLateError),
            "validationDateTooSoon": (.validationDateTooSoonError, CocoaError.validationDateTooSoonError),
            "validationInvalidDate": (.validationInvalidDateError, CocoaError.validationInvalidDateError),
            "validationStringTooLong": (.validationStringTooLongError, CocoaError.validationStringTooLongError),
            "validationStringTooShort": (.validationStringTooShortError, CocoaError.validationStringTooShortError),
            "validationStringPatternMatching": (.validationStringPatternMatchingError, CocoaError.validationStringPatternMatchingError),
            "managedObjectContextLocking": (.managedObjectContextLockingError, CocoaError.managedObjectContextLockingError),
            "persistentStoreCoordinatorLocking": (.persistentStoreCoordinatorLockingError, CocoaError.persistentStoreCoordinatorLockingError),
            "managedObjectReferentialIntegrity": (.managedObjectReferentialIntegrityError, CocoaError.managedObjectReferentialIntegrityError),
            "managedObjectExternalRelationship": (.managedObjectExternalRelationshipError, CocoaError.managedObjectExternalRelationshipError),
            "managedObjectMerge": (.managedObjectMergeError, CocoaError.managedObjectMergeError),
            "managedObjectConstraintMerge": (.managedObjectConstraintMergeError, CocoaError.managedObjectConstraintMergeError),
            "persistentStoreInvalidType": (.persistentStoreInvalidTypeError, CocoaError.persistentStoreInvalidTypeError),
            "persistentStoreTypeMismatch": (.persistentStoreTypeMismatchError, CocoaError.persistentStoreTypeMismatchError),
            "persistentStoreIncompatibleSchema": (.persistentStoreIncompatibleSchemaError, CocoaError.persistentStoreIncompatibleSchemaError),
            "persistentStoreSave": (.persistentStoreSaveError, CocoaError.persistentStoreSaveError),
            "persistentStoreIncompleteSave": (.persistentStoreIncompleteSaveError, CocoaError.persistentStoreIncompleteSaveError),
            "persistentStoreSaveConflicts": (.persistentStoreSaveConflictsError, CocoaError.persistentStoreSaveConflictsError),
            "coreData": (.coreDataError, CocoaError.coreDataError),
            "persistentStoreOperation": (.persistentStoreOperationError, CocoaError.persistentStoreOperationError),
            "persistentStoreOpen": (.persistentStoreOpenError, CocoaError.persistentStoreOpenError),
            "persistentStoreTimeout": (.persistentStoreTimeoutError, CocoaError.persistentStoreTimeoutError),
            "persistentStoreUnsupportedRequestType": (.persistentStoreUnsupportedRequestTypeError, CocoaError.persistentStoreUnsupportedRequestTypeError),
            "persistentStoreIncompatibleVersionHash": (.persistentStoreIncompatibleVersionHashError, CocoaError.persistentStoreIncompatibleVersionHashError),
            "migration": (.migrationError, CocoaError.migrationError),
            "migrationCancelled": (.migrationCancelledError, CocoaError.migrationCancelledError),
            "migrationMissingSourceModel": (.migrationMissingSourceModelError, CocoaError.migrationMissingSourceModelError),
            "migrationMissingMappingModel": (.migrationMissingMappingModelError, CocoaError.migrationMissingMappingModelError),
            "migrationManagerSourceStore": (.migrationManagerSourceStoreError, CocoaError.migrationManagerSourceStoreError),
            "migrationManagerDestinationStore": (.migrationManagerDestinationStoreError, CocoaError.migrationManagerDestinationStoreError),
            "entityMigrationPolicy": (.entityMigrationPolicyError, CocoaError.entityMigrationPolicyError),
            "sqlite": (.sqliteError, CocoaError.sqliteError),
            "inferredMappingModel": (.inferredMappingModelError, CocoaError.inferredMappingModelError),
            "externalRecordImport": (.externalRecordImportError, CocoaError.externalRecordImportError),
        ]
    }
}

/// The Library model package of the test resources (version "Library 2" is current): `Author.name` is required,
/// 1…200 characters long and must match `[A-Z].*\d?`, as set in Xcode's model editor.
private enum LibraryModelFile {
    static var url: URL { Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld")! }

    /// A private-queue context on an in-memory store of the current Library model.
    static func context() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(validatingContentsOf: url))
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

@Suite struct CocoaErrorCoreDataTests {
    // MARK: - Codes

    @Test(arguments: applesCodeNumbers.map(\.name))
    func everyCodeHasApplesNumber(_ name: String) throws {
        let raw = try #require(applesCodeNumbers.first { $0.name == name }?.raw)
        let modern = try #require(modernSpellings[name], "no modern spelling for \(name)")
        #expect(modern.onCode.rawValue == raw, "CocoaError.Code.\(name)")
        #expect(modern.onError.rawValue == raw, "CocoaError.\(name)")
        let deprecated = try #require((DeprecatedSpellings.self as any DeprecatedSpellingTable.Type).deprecatedSpellings[name])
        #expect(deprecated.onCode.rawValue == raw, "CocoaError.Code.\(name)Error")
        #expect(deprecated.onError.rawValue == raw, "CocoaError.\(name)Error")
    }

    @Test func theTablesCoverApplesFortyTwoCodes() {
        #expect(applesCodeNumbers.count == 42)
        #expect(Set(modernSpellings.keys) == Set(applesCodeNumbers.map(\.name)))
        #expect(Set((DeprecatedSpellings.self as any DeprecatedSpellingTable.Type).deprecatedSpellings.keys) == Set(applesCodeNumbers.map(\.name)))
    }

    // MARK: - Uniqueness constraints

    @Test func aConstraintConflictIsCaughtAsManagedObjectConstraintMerge() throws {
        let stack = try MoodyStack()
        let context = stack.context
        try context.performAndWait {
            let first = Country(context: context), second = Country(context: context)
            first.numericISO3166Code = 250
            second.numericISO3166Code = 250
            do {
                try context.save()
                Issue.record("two countries with one ISO code were saved")
            } catch let error as CocoaError where error.code == .managedObjectConstraintMerge {
                #expect(error.code == CocoaError.managedObjectConstraintMerge)
                // Apple puts NSConstraintConflicts under the conflict-list key; they are not NSMergeConflicts, so the
                // typed `persistentStoreSaveConflicts` (`[NSMergeConflict]?`) has none.
                let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
                #expect(conflicts.first?.constraint == ["numericISO3166Code"])
                #expect(Set(conflicts.first?.conflictingObjects ?? []) == [first, second])
                #expect(error.persistentStoreSaveConflicts == nil)
            }
        }
    }

    // MARK: - Validation

    @Test func aMissingMandatoryPropertyIsCaughtWithItsKeyAndObject() throws {
        let context = try LibraryModelFile.context()
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            do {
                try context.save()
                Issue.record("an author without a name was saved")
            } catch let error as CocoaError {
                #expect(error.code == .validationMissingMandatoryProperty)
                #expect(error.validationKey == "name")
                #expect((error.validationObject as? NSManagedObject) === author)
                #expect(error.validationValue == nil)
                #expect(error.validationPredicate == nil)
            }
        }
    }

    @Test func aTooLongStringIsCaughtWithItsValueAndPredicate() throws {
        let context = try LibraryModelFile.context()
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            let name = "A" + String(repeating: "b", count: 200)
            author.setValue(name, forKey: "name")
            do {
                try context.save()
                Issue.record("a 201-character name was saved")
            } catch let error as CocoaError where error.code == .validationStringTooLong {
                #expect(error.validationKey == "name")
                #expect(error.validationValue as? String == name)
                #expect((error.validationObject as? NSManagedObject) === author)
                #expect(error.validationPredicate?.predicateFormat == "length <= 200")
            }
        }
    }

    @Test func aStringNotMatchingThePatternIsCaughtAsValidationStringPatternMatching() throws {
        let context = try LibraryModelFile.context()
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("lowercase", forKey: "name")
            do {
                try context.save()
                Issue.record("a name not matching the model's pattern was saved")
            } catch CocoaError.validationStringPatternMatching {
                // The static-member pattern matched; nothing else to check here.
            }
        }
    }

    @Test func severalFailuresAreCaughtAsValidationMultipleErrorsWithTheDetailedErrors() throws {
        let context = try LibraryModelFile.context()
        try context.performAndWait {
            let empty = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            empty.setValue("", forKey: "name")   // too short, and does not match the pattern
            let unnamed = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            do {
                try context.save()
                Issue.record("invalid authors were saved")
            } catch let error as CocoaError where error.code == .validationMultipleErrors {
                let details = try #require(error.errorUserInfo[NSDetailedErrorsKey] as? [NSError])
                #expect(details.allSatisfy { $0.domain == NSCocoaErrorDomain })
                let failures = details.compactMap { ($0 as Error) as? CocoaError }
                let byCode = Dictionary(grouping: failures, by: \.code)
                #expect(Set(byCode.keys) == [.validationStringTooShort, .validationStringPatternMatching, .validationMissingMandatoryProperty])
                #expect(failures.count == 3)
                #expect((byCode[.validationMissingMandatoryProperty]?.first?.validationObject as? NSManagedObject) === unnamed)
                for failure in byCode[.validationStringTooShort, default: []] + byCode[.validationStringPatternMatching, default: []] {
                    #expect((failure.validationObject as? NSManagedObject) === empty)
                    #expect(failure.validationKey == "name")
                    #expect(failure.validationValue as? String == "")
                }
            }
        }
    }

    // MARK: - Optimistic locking

    @Test func anOptimisticLockingConflictIsCaughtWithItsSaveConflicts() throws {
        let stack = try MoodyStack()
        let seed = stack.context
        let moodID = try seed.performAndWait {
            let mood = Mood(context: seed)
            mood.rating = 1
            try seed.save()
            return mood.objectID
        }
        let mine = stack.newContext(), theirs = stack.newContext()
        let myMood = try mine.performAndWait { try mine.existingObject(with: moodID) as! Mood }
        try theirs.performAndWait {
            (try theirs.existingObject(with: moodID) as! Mood).rating = 2
            try theirs.save()
        }
        try mine.performAndWait {
            myMood.rating = 3
            do {
                try mine.save()
                Issue.record("a stale change was saved over another context's save")
            } catch let error as CocoaError where error.code == .managedObjectMerge {
                let conflicts = try #require(error.persistentStoreSaveConflicts)
                #expect(conflicts.count == 1)
                #expect(conflicts.first?.sourceObject === myMood)
                #expect(conflicts.first?.oldVersionNumber == 1)
                #expect(conflicts.first?.newVersionNumber == 2)
            }
        }
    }

    // MARK: - Opening stores

    @Test func aStoreOfAnotherModelVersionIsCaughtAsPersistentStoreIncompatibleVersionHash() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cocoa-error-\(UUID().uuidString).sqlite")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        let version1 = try NSManagedObjectModel(validatingContentsOf: LibraryModelFile.url, versionName: "Library")
        let version2 = try NSManagedObjectModel(validatingContentsOf: LibraryModelFile.url, versionName: "Library 2")
        let creator = NSPersistentStoreCoordinator(managedObjectModel: version1)
        let created = try creator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        try creator.remove(created)

        let opener = NSPersistentStoreCoordinator(managedObjectModel: version2)
        var caught = false
        do {
            try opener.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        } catch CocoaError.persistentStoreIncompatibleVersionHash {
            caught = true
        }
        #expect(caught)

        do {
            try opener.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        } catch {
            if case CocoaError.persistentStoreIncompatibleVersionHash = error {} else {
                Issue.record("expected persistentStoreIncompatibleVersionHash, got \(error)")
            }
            #expect(!(CocoaError.managedObjectValidation ~= error), "a pattern of another code does not match")
        }
    }

    @Test func anUnknownStoreTypeIsCaughtAsPersistentStoreInvalidType() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MoodyModel.shared)
        var caught = false
        do {
            try coordinator.addPersistentStore(ofType: "NoSuchStoreType", configurationName: nil, at: nil, options: nil)
        } catch CocoaError.persistentStoreInvalidType {
            caught = true
        }
        #expect(caught)
    }

    // MARK: - userInfo accessors

    /// The accessors' types for what the library puts under the affected-objects/stores keys (arrays of object IDs,
    /// managed objects and stores), through an error of the app's own making as `validateForInsert()` might throw.
    @Test func affectedObjectsAndStoresReadArraysOfObjects() throws {
        let stack = try MoodyStack()
        let store = try #require(stack.coordinator.persistentStores.first)
        let context = stack.context
        try context.performAndWait {
            let mood = Mood(context: context)
            let thrown = NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreSaveError,
                                 userInfo: [NSAffectedObjectsErrorKey: [mood], NSAffectedStoresErrorKey: [store]])
            do {
                throw thrown
            } catch let error as CocoaError where error.code == .persistentStoreSave {
                #expect(error.affectedObjects?.first === mood)
                #expect(error.affectedStores?.first === store)
                #expect(error.validationKey == nil && error.validationObject == nil)
            }
        }
    }
}
