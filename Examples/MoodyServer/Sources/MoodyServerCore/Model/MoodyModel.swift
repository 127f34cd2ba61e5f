import OpenCoreData

// The Moody model's classes (objc.io's Core Data book), in the style of the main package's `moody` example:
// `@Managed` where the book writes `@NSManaged`.

/// A color of a mood: three bytes, written `#rrggbb` in JSON.
struct MoodColor: Equatable, Sendable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    /// `#3a7fc2`.
    var hex: String { "#" + [red, green, blue].map { String(format: "%02x", $0) }.joined() }

    /// Parses `#rrggbb` or `rrggbb` (hex digits in either case); nil for anything else.
    init?(hex text: String) {
        var digits = Substring(text)
        if digits.first == "#" { digits = digits.dropFirst() }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), digits.allSatisfy(\.isASCII),
              let value = UInt32(digits, radix: 16) else { return nil }
        red = UInt8(value >> 16 & 0xff)
        green = UInt8(value >> 8 & 0xff)
        blue = UInt8(value & 0xff)
    }

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

/// The book's ColorsTransformer: colors to three bytes each, and back. Registered under the name the model file's
/// `colors` attribute gives (`valueTransformerName="ColorsTransformer"`).
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

    /// The book's rule: a continent left without countries is deleted with its last country.
    override func prepareForDeletion() {
        super.prepareForDeletion()
        if let continent, continent.countries.filter({ !$0.isDeleted }).count <= 1 {
            managedObjectContext?.delete(continent)
        }
    }

    /// The country with an ISO 3166 code, found among the registered objects first, then in the store, else
    /// created (the book's find-or-create).
    static func findOrCreate(code: Int16, in context: NSManagedObjectContext) throws -> Country {
        let predicate = byCode.withSubstitutionVariables(["CODE": NSNumber(value: code)])
        for case let country as Country in context.registeredObjects where !country.isFault && !country.isDeleted && predicate.evaluate(with: country) {
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

    static let byCode = NSPredicate(format: "numericISO3166Code == $CODE")
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

    /// The continent with an ISO code (10001–10007, the book's codes), found among the registered objects, in
    /// the store, or created.
    static func findOrCreate(code: Int16, in context: NSManagedObjectContext) throws -> Continent {
        let predicate = Country.byCode.withSubstitutionVariables(["CODE": NSNumber(value: code)])
        for case let continent as Continent in context.registeredObjects where !continent.isFault && !continent.isDeleted && predicate.evaluate(with: continent) {
            return continent
        }
        let request = NSFetchRequest<Continent>(entityName: "Continent")
        request.predicate = predicate
        request.fetchLimit = 1
        if let existing = try context.fetch(request).first { return existing }
        let continent = Continent(context: context)
        continent.numericISO3166Code = code
        return continent
    }
}
