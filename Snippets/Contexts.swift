// A stack set up by hand: a coordinator, an SQLite store and a private-queue context; objects related, saved and
// fetched across the relationship.
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
    moods.deleteRule = .cascadeDeleteRule
    let toCountry = NSRelationshipDescription()
    toCountry.name = "country"
    toCountry.destinationEntity = country
    toCountry.maxCount = 1
    toCountry.deleteRule = .nullifyDeleteRule
    moods.inverseRelationship = toCountry
    toCountry.inverseRelationship = moods
    country.properties = [attribute("numericISO3166Code", .integer16AttributeType), moods]
    mood.properties = [attribute("date", .dateAttributeType), attribute("rating", .integer16AttributeType), toCountry]
    let model = NSManagedObjectModel()
    model.entities = [country, mood]
    return model
}

let model = moodyModel()
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contexts-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let storeURL = directory.appendingPathComponent("Moody.sqlite")
// snippet.show

NSManagedObjectModel.registerManagedObjectClasses([Mood.self, Country.self])
let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: nil)
let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
context.persistentStoreCoordinator = coordinator

try context.performAndWait {
    let country = Country(context: context)
    country.numericISO3166Code = 250
    let mood = Mood(context: context)
    mood.date = Date()
    mood.rating = 4
    mood.country = country                      // country.moods now contains mood
    print(country.moods.count)                  // 1
    try context.save()

    let request = NSFetchRequest<Mood>(entityName: "Mood")
    request.predicate = NSPredicate(format: "country.numericISO3166Code == %d AND rating >= %d", 250, 3)
    request.sortDescriptors = [NSSortDescriptor(keyPath: \Mood.date, ascending: false)]
    print(try context.fetch(request).map(\.rating))   // [4]
}
// snippet.hide
try FileManager.default.removeItem(at: directory)
