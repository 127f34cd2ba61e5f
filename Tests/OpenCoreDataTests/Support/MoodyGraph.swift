import OpenCoreData

// The objc.io Moody model written with @Managed, as a user of OpenCoreData writes it.

/// A color as the book's camera produces it (three components).
struct MoodColor: Equatable, Hashable {
    var red: UInt8, green: UInt8, blue: UInt8
}

/// The book's ColorsTransformer: an array of colors to 3 bytes each and back.
final class ColorsTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let colors = value as? [MoodColor] else { return nil }
        return Data(colors.flatMap { [$0.red, $0.green, $0.blue] })
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        let bytes = Array(data)
        return stride(from: 0, to: bytes.count - bytes.count % 3, by: 3).map { MoodColor(red: bytes[$0], green: bytes[$0 + 1], blue: bytes[$0 + 2]) }
    }
}

final class Mood: NSManagedObject {
    @Managed var date: Date
    @Managed var rating: Int16
    @Managed var colors: [MoodColor]?
    @Managed var latitude: Double?
    @Managed var longitude: Double?
    @Managed var creatorID: String?
    @Managed var country: Country?

    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(timeIntervalSinceReferenceDate: 700_000_000), forKey: "date")
    }

    /// The book's rule: a country (and then a continent) left without moods is deleted with its last mood.
    /// When this runs the mood is already `isDeleted` (Core Data marks it in `delete(_:)` and calls
    /// `prepareForDeletion()` later, while propagating deletes), so "left without moods" means that no mood
    /// that is not deleted remains — the book's `filter { !$0.isDeleted }.isEmpty`.
    override func prepareForDeletion() {
        super.prepareForDeletion()
        if let country, country.moods.filter({ !$0.isDeleted }).isEmpty {
            managedObjectContext?.delete(country)
        }
    }
}

class GeographicRegion: NSManagedObject {
    @Managed var numericISO3166Code: Int16
    @Managed var updatedAt: Date
}

final class Country: GeographicRegion {
    @Managed var moods: Set<Mood>
    @Managed var continent: Continent?

    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(timeIntervalSinceReferenceDate: 700_000_000), forKey: "updatedAt")
    }

    override func prepareForDeletion() {
        super.prepareForDeletion()
        if let continent, continent.countries.filter({ !$0.isDeleted }).isEmpty {
            managedObjectContext?.delete(continent)
        }
    }
}

extension Country {
    @ManagedRelationshipAccessor func addToMoods(_ value: Mood)
    @ManagedRelationshipAccessor func removeFromMoods(_ value: Mood)
    @ManagedRelationshipAccessor func addToMoods(_ values: NSSet)
}

final class Continent: GeographicRegion {
    @Managed var countries: Set<Country>

    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(timeIntervalSinceReferenceDate: 700_000_000), forKey: "updatedAt")
    }
}

/// The Moody model (GeographicRegion abstract, Country and Continent below it) built in code.
enum MoodyModel {
    static func make() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = false, default value: Any? = nil) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            attribute.defaultValue = value
            return attribute
        }
        func relationship(_ name: String, _ destination: NSEntityDescription, toMany: Bool, rule: NSDeleteRule = .nullifyDeleteRule) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = toMany ? 0 : 1
            relationship.deleteRule = rule
            relationship.isOptional = true
            return relationship
        }
        func entity(_ name: String, _ className: String) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            entity.managedObjectClassName = className
            return entity
        }
        let region = entity("GeographicRegion", "GeographicRegion"), country = entity("Country", "Country")
        let continent = entity("Continent", "Continent"), mood = entity("Mood", "Mood")
        region.isAbstract = true
        region.properties = [attribute("numericISO3166Code", .integer16AttributeType, default: 0), attribute("updatedAt", .dateAttributeType)]
        region.uniquenessConstraints = [["numericISO3166Code"]]
        region.subentities = [country, continent]
        let moods = relationship("moods", mood, toMany: true), moodCountry = relationship("country", country, toMany: false)
        let countries = relationship("countries", country, toMany: true), countryContinent = relationship("continent", continent, toMany: false)
        moods.inverseRelationship = moodCountry
        moodCountry.inverseRelationship = moods
        countries.inverseRelationship = countryContinent
        countryContinent.inverseRelationship = countries
        country.properties = [moods, countryContinent]
        continent.properties = [countries]
        let colors = attribute("colors", .transformableAttributeType, optional: true)
        colors.valueTransformerName = "ColorsTransformer"
        let rating = attribute("rating", .integer16AttributeType, default: 0)
        rating.setValidationPredicates([NSPredicate(format: "SELF >= 0"), NSPredicate(format: "SELF <= 5")],
                                       withValidationWarnings: ["rating too small", "rating too large"])
        mood.properties = [
            attribute("date", .dateAttributeType), rating, colors,
            attribute("latitude", .doubleAttributeType, optional: true), attribute("longitude", .doubleAttributeType, optional: true),
            attribute("creatorID", .stringAttributeType, optional: true), moodCountry,
        ]
        let model = NSManagedObjectModel()
        model.entities = [region, country, continent, mood]
        return model
    }
}

extension MoodyModel {
    /// The one Moody model of the test process. Every stack uses it by default, as an app uses one model
    /// instance: with several models whose entities name the same classes, `Mood.entity()` and
    /// `Mood.fetchRequest()` could answer with another stack's entity (Apple warns about this case too).
    static let shared: NSManagedObjectModel = make()
}

/// A Moody stack on a store of the given type.
struct MoodyStack {
    let model: NSManagedObjectModel
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext

    init(storeType: String = NSInMemoryStoreType, url: URL? = nil, model: NSManagedObjectModel = MoodyModel.shared) throws {
        ValueTransformer.setValueTransformer(ColorsTransformer(), forName: NSValueTransformerName("ColorsTransformer"))
        NSManagedObjectModel.registerManagedObjectClasses([Mood.self, Country.self, Continent.self, GeographicRegion.self])
        self.model = model
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: nil)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    /// Another context on the same coordinator.
    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
