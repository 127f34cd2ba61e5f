// The objc.io book's Moody model as Xcode would generate its classes, with @Managed where Apple writes @NSManaged.
import OpenCoreData

// snippet.hide
struct MoodColor: Equatable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8
}
// snippet.show

// snippet.classes
final class Mood: NSManagedObject {
    @Managed var date: Date
    @Managed var rating: Int16
    @Managed var colors: [MoodColor]?          // transformable, through a registered ValueTransformer
    @Managed var latitude: Double?
    @Managed var country: Country?

    override func awakeFromInsert() {
        super.awakeFromInsert()
        setPrimitiveValue(Date(), forKey: "date")
    }
}

class GeographicRegion: NSManagedObject {      // abstract in the model
    @Managed var numericISO3166Code: Int16
    @Managed var updatedAt: Date
}

final class Country: GeographicRegion {
    @Managed var moods: Set<Mood>
    @Managed var continent: Continent?
}

extension Country {
    @ManagedRelationshipAccessor func addToMoods(_ value: Mood)
    @ManagedRelationshipAccessor func removeFromMoods(_ value: Mood)
}

final class Continent: GeographicRegion {
    @Managed var countries: Set<Country>
}
// snippet.end

// snippet.transformer
/// The book's transformer: three bytes per color. Register it under the name the model's attribute gives.
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
        return stride(from: 0, to: bytes.count - bytes.count % 3, by: 3).map {
            MoodColor(red: bytes[$0], green: bytes[$0 + 1], blue: bytes[$0 + 2])
        }
    }
}

/// Once, before the first context: the transformer by name, and the classes the model names.
func registerMoodyTypes() {
    ValueTransformer.setValueTransformer(ColorsTransformer(), forName: NSValueTransformerName("ColorsTransformer"))
    NSManagedObjectModel.registerManagedObjectClasses([Mood.self, GeographicRegion.self, Country.self, Continent.self])
}
// snippet.end
