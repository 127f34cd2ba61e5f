import OpenCoreData

// The Moody model's classes, written with @Managed as the objc.io book writes them with @NSManaged.

/// A color of a mood, as the book's camera samples it.
struct MoodColor: Equatable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    /// A two-digit hex description (`#3a7fc2`).
    var hex: String { "#" + [red, green, blue].map { String(format: "%02x", $0) }.joined() }
}

/// The book's ColorsTransformer: colors to three bytes each, and back.
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

    static func register() {
        ValueTransformer.setValueTransformer(ColorsTransformer(), forName: NSValueTransformerName("ColorsTransformer"))
    }
}

final class Mood: NSManagedObject {
    @Managed var date: Date
    @Managed var rating: Int16
    @Managed var colors: [MoodColor]?
    @Managed var latitude: Double?
    @Managed var longitude: Double?
    @Managed var country: Country?

    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "date")
    }

    /// The book's rule: a country left without moods is deleted with its last mood.
    override func prepareForDeletion() {
        super.prepareForDeletion()
        if let country, country.moods.filter({ !$0.isDeleted }).count <= 1 {
            managedObjectContext?.delete(country)
        }
    }
}

class GeographicRegion: NSManagedObject {
    @Managed var numericISO3166Code: Int16
    @Managed var numberOfMoods: Int64
    @Managed var updatedAt: Date
}

final class Country: GeographicRegion {
    @Managed var moods: Set<Mood>
    @Managed var continent: Continent?

    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "updatedAt")
    }

    /// A continent left without countries is deleted with its last country.
    override func prepareForDeletion() {
        super.prepareForDeletion()
        if let continent, continent.countries.filter({ !$0.isDeleted }).count <= 1 {
            managedObjectContext?.delete(continent)
        }
    }

    /// The country with an ISO 3166 code, found among the registered objects first (the book's find-or-create).
    static func findOrCreate(code: Int16, in context: NSManagedObjectContext) throws -> Country {
        let predicate = NSPredicate(format: "numericISO3166Code == %d", Int(code))
        for case let country as Country in context.registeredObjects where !country.isFault && predicate.evaluate(with: country) {
            return country
        }
        let request = NSFetchRequest<Country>(entityName: "Country")
        request.predicate = predicate
        request.fetchLimit = 1
        if let existing = try context.fetch(request).first { return existing }
        let country = Country(context: context)
        country.numericISO3166Code = code
        return country
    }
}

extension Country {
    @ManagedRelationshipAccessor func addToMoods(_ value: Mood)
    @ManagedRelationshipAccessor func removeFromMoods(_ value: Mood)
}

final class Continent: GeographicRegion {
    @Managed var countries: Set<Country>

    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "updatedAt")
    }

    /// The continent with an ISO code, found or created.
    static func findOrCreate(code: Int16, in context: NSManagedObjectContext) throws -> Continent {
        let request = NSFetchRequest<Continent>(entityName: "Continent")
        request.predicate = NSPredicate(format: "numericISO3166Code == %d", Int(code))
        request.fetchLimit = 1
        if let existing = try context.fetch(request).first { return existing }
        let continent = Continent(context: context)
        continent.numericISO3166Code = code
        return continent
    }
}

/// Places by ISO 3166 numeric code, and their continents (a location stands in for the book's placemark).
enum Geography {
    struct Place {
        var name: String
        var country: Int16
        var continent: Int16
        var latitude: Double
        var longitude: Double
    }

    static let continents: [Int16: String] = [10001: "Africa", 10002: "Antarctica", 10003: "Asia", 10004: "Australia", 10005: "Europe", 10006: "North America", 10007: "South America"]

    static let places: [Place] = [
        Place(name: "France", country: 250, continent: 10005, latitude: 48.86, longitude: 2.35),
        Place(name: "Germany", country: 276, continent: 10005, latitude: 52.52, longitude: 13.40),
        Place(name: "Japan", country: 392, continent: 10003, latitude: 35.68, longitude: 139.69),
        Place(name: "Brazil", country: 76, continent: 10007, latitude: -15.79, longitude: -47.88),
        Place(name: "Kenya", country: 404, continent: 10001, latitude: -1.29, longitude: 36.82),
    ]

    static func countryName(_ code: Int16) -> String { places.first { $0.country == code }?.name ?? "country \(code)" }
    static func continentName(_ code: Int16) -> String { continents[code] ?? "continent \(code)" }
}

/// A deterministic color generator standing in for the camera.
struct ColorGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> MoodColor {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return MoodColor(red: UInt8(truncatingIfNeeded: state >> 16), green: UInt8(truncatingIfNeeded: state >> 32), blue: UInt8(truncatingIfNeeded: state >> 48))
    }
}
