// A fetched results controller: sections by country, a delegate that prints each change as a table view would
// apply it, snapshots, and one object watched with ManagedObjectObserver.
import OpenCoreData

final class Country: NSManagedObject {
    @Managed var numericISO3166Code: Int16
    @Managed var moods: Set<Mood>
}

final class Mood: NSManagedObject {
    @Managed var date: Date
    @Managed var rating: Int16
    @Managed var country: Country?
}

// snippet.delegate
final class MoodList: NSFetchedResultsControllerDelegate {
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        let mood = anObject as! Mood
        switch type {
        case .insert: print("+ \(newIndexPath!.section).\(newIndexPath!.row) rating \(mood.rating)")
        case .delete: print("- \(indexPath!.section).\(indexPath!.row)")
        case .move:   print("~ \(indexPath!) → \(newIndexPath!)")
        case .update: print("* \(indexPath!) rating \(mood.rating)")
        @unknown default: break
        }
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        print(type == .insert ? "+ section \(sectionIndex) (\(sectionInfo.name))" : "- section \(sectionIndex)")
    }
}
// snippet.end

// snippet.snapshots
/// Without a delegate: the current results, then the results after each change.
func printCounts(of moods: NSFetchedResultsController<Mood>) async {
    for await snapshot in moods.snapshots() { print(snapshot.numberOfItems) }
}
// snippet.end

// snippet.hide
func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.attributeType = type
    attribute.isOptional = type == .dateAttributeType
    return attribute
}

func moodyModel() -> NSManagedObjectModel {
    let country = NSEntityDescription()
    country.name = "Country"
    country.managedObjectClassName = "Country"
    let mood = NSEntityDescription()
    mood.name = "Mood"
    mood.managedObjectClassName = "Mood"
    let moods = NSRelationshipDescription()
    moods.name = "moods"
    moods.destinationEntity = mood
    moods.maxCount = 0
    let toCountry = NSRelationshipDescription()
    toCountry.name = "country"
    toCountry.destinationEntity = country
    toCountry.maxCount = 1
    moods.inverseRelationship = toCountry
    toCountry.inverseRelationship = moods
    country.properties = [attribute("numericISO3166Code", .integer16AttributeType), moods]
    mood.properties = [attribute("date", .dateAttributeType), attribute("rating", .integer16AttributeType), toCountry]
    let model = NSManagedObjectModel()
    model.entities = [country, mood]
    return model
}

NSManagedObjectModel.registerManagedObjectClasses([Mood.self, Country.self])
let coordinator = NSPersistentStoreCoordinator(managedObjectModel: moodyModel())
try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
context.persistentStoreCoordinator = coordinator
try context.performAndWait {
    let france = Country(context: context)
    france.numericISO3166Code = 250
    for rating: Int16 in [2, 4] {
        let mood = Mood(context: context)
        mood.date = Date(timeIntervalSince1970: Double(rating) * 86_400)
        mood.rating = rating
        mood.country = france
    }
    try context.save()
}
// snippet.show

// snippet.run
try context.performAndWait {
    let request = NSFetchRequest<Mood>(entityName: "Mood")
    request.sortDescriptors = [NSSortDescriptor(key: "country.numericISO3166Code", ascending: true),
                               NSSortDescriptor(key: "date", ascending: false)]
    let moods = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                           sectionNameKeyPath: "country.numericISO3166Code", cacheName: "MoodsByCountry")
    let list = MoodList()
    moods.delegate = list                    // no delegate: no tracking, as with Apple's
    try moods.performFetch()
    print(moods.sections?.map { "\($0.name): \($0.numberOfObjects)" } ?? [])   // ["250: 2"]

    let first = moods.object(at: IndexPath(row: 0, section: 0))
    let observer = ManagedObjectObserver(object: first) { change in print("observer:", change) }
    first.rating = 5
    let japan = Country(context: context)
    japan.numericISO3166Code = 392
    let mood = Mood(context: context)
    mood.date = Date()
    mood.rating = 3
    mood.country = japan
    context.processPendingChanges()          // the end of an event: the delegate and the observer hear of it
    // + section 1 (392)
    // + 1.0 rating 3
    // * [0, 0] rating 5
    // observer: update
    withExtendedLifetime(observer) {}
}
NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: "MoodsByCountry")
// snippet.end
