// Code written for Apple's Core Data, with the changes a port needs: the import and @Managed.
#if canImport(CoreData)
import CoreData
#else
import OpenCoreData
#endif

final class Country: NSManagedObject {
    @Managed var numericISO3166Code: Int16          // @NSManaged on Apple platforms
    @Managed var moods: Set<Mood>
}

final class Mood: NSManagedObject {
    @Managed var rating: Int16
    @Managed var country: Country?
}

extension Country {
    @ManagedRelationshipAccessor func addToMoods(_ value: Mood)     // @objc(addMoodsObject:) @NSManaged
}

/// Saves, and treats a uniqueness conflict the way iOS code does.
func saveIgnoringDuplicates(_ context: NSManagedObjectContext) throws {
    do {
        try context.save()
    } catch let error as CocoaError where error.code == .managedObjectConstraintMerge {
        context.rollback()
    }
}

/// Keeps a label in step with a mood's rating, with key-value observing as on iOS.
final class RatingLabel {
    private var observations: [NSKeyValueObservation] = []
    private(set) var text = ""

    init(mood: Mood) {
        observations.append(mood.observe(\.rating, options: [.initial, .new]) { [weak self] mood, _ in
            self?.text = String(repeating: "★", count: Int(mood.rating))
        })
    }
}
