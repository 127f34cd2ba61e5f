// Core Data's errors caught as iOS code catches them: CocoaError with Core Data's code names and typed userInfo.
import OpenCoreData

/// Saves, and handles each kind of failure the way an iOS app does.
func save(_ context: NSManagedObjectContext) {
    do {
        try context.save()
    } catch let error as CocoaError where error.code == .managedObjectConstraintMerge {
        context.rollback()
    } catch let error as CocoaError where error.code == .validationMissingMandatoryProperty {
        print("missing:", error.validationKey ?? "?")
    } catch let error as CocoaError where error.code == .managedObjectMerge {
        for conflict in error.persistentStoreSaveConflicts ?? [] {
            context.refresh(conflict.sourceObject, mergeChanges: true)
        }
    } catch CocoaError.validationMultipleErrors {   // the static members work as patterns too
        context.rollback()
    } catch {
        print((error as NSError).domain, (error as NSError).code, error.localizedDescription)
    }
}
