import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

/// A value that is not `Codable`: only a transformer can store it.
final class Palette: Equatable {
    let colors: [String]
    init(_ colors: [String]) { self.colors = colors }
    static func == (lhs: Palette, rhs: Palette) -> Bool { lhs.colors == rhs.colors }
}

/// Stores a palette as its colours joined with commas (object → data forward, as Apple documents custom transformers).
final class PaletteTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        (value as? Palette).map { Data($0.colors.joined(separator: ",").utf8) }
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).map { Palette(String(decoding: $0, as: UTF8.self).split(separator: ",").map(String.init)) }
    }
}

/// Upper-cases on the way in (registered by name by the test that uses it).
final class ShoutingTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? { (value as? String).map { Data($0.uppercased().utf8) } }
    override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).map { String(decoding: $0, as: UTF8.self) } }
}

@Model final class Artwork {
    var title: String
    @Attribute(.transformable(by: PaletteTransformer.self)) var palette: Palette?
    @Attribute(.transformable(by: "OpenSwiftDataTests.Shouting")) var motto: String = ""

    init(title: String, palette: Palette? = nil) {
        self.title = title
        self.palette = palette
    }
}

@Model final class Unregistered {
    @Attribute(.transformable(by: "NobodyRegisteredThis")) var value: String?
    init() {}
}

@Suite("Transformable")
struct TransformableTests {
    init() {
        ValueTransformer.setValueTransformer(PaletteTransformer(), forName: NSValueTransformerName("PaletteTransformer"))
        ValueTransformer.setValueTransformer(ShoutingTransformer(), forName: NSValueTransformerName("OpenSwiftDataTests.Shouting"))
    }

    @Test func theSchemaMakesCoreDataTransformableAttributesNamingTheTransformer() throws {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Artwork.self]))
        let entity = try #require(model.entitiesByName["Artwork"])
        let palette = try #require(entity.attributesByName["palette"])
        #expect(palette.attributeType == .transformableAttributeType)
        #expect(palette.valueTransformerName == "PaletteTransformer")
        #expect(palette.isOptional)
        #expect(entity.attributesByName["motto"]?.valueTransformerName == "OpenSwiftDataTests.Shouting")
    }

    @Test func aContainerWhoseTransformerIsNotRegisteredThrows() {
        #expect {
            try ModelContainer(for: Unregistered.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } throws: { error in
            (error as? SwiftDataError) == .loadIssueModelContainer && "\(error)".contains("NobodyRegisteredThis")
        }
    }

    @Test func aTransformedValueIsStoredAsTheTransformersDataAndReadBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("art.store")
        do {
            let context = ModelContext(try ModelContainer(for: Artwork.self, configurations: ModelConfiguration(url: url)))
            let art = Artwork(title: "Dawn", palette: Palette(["red", "gold"]))
            art.motto = "quiet"
            context.insert(art)
            context.insert(Artwork(title: "Blank"))
            try context.save()
            #expect(art.palette == Palette(["red", "gold"]))
        }
        let context = ModelContext(try ModelContainer(for: Artwork.self, configurations: ModelConfiguration(url: url)))
        let art = try context.fetch(FetchDescriptor<Artwork>(sortBy: [SortDescriptor(\.title)]))
        #expect(art.map(\.title) == ["Blank", "Dawn"])
        #expect(art[0].palette == nil)
        #expect(art[1].palette == Palette(["red", "gold"]))
        // The transformer ran on the way in (the stored data is upper-cased) and in reverse on the way out.
        #expect(art[1].motto == "QUIET")

        // Core Data reads the same column through the same transformer.
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: context.container.schema))
        let container = NSPersistentContainer(name: "art", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)   // as SwiftData keeps it
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Artwork")
        request.predicate = OpenCoreData.NSPredicate(format: "title == %@", "Dawn")
        let reader = container.newBackgroundContext()
        let palette = try reader.performAndWait { try reader.fetch(request).first?.value(forKey: "palette") as? Palette }
        #expect(palette == Palette(["red", "gold"]))
    }

    @Test func changingATransformedValueSavesTheNewValue() throws {
        let container = try ModelContainer(for: Artwork.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let art = Artwork(title: "Dusk", palette: Palette(["blue"]))
        context.insert(art)
        try context.save()
        art.palette = Palette(["blue", "violet"])
        #expect(context.hasChanges)
        try context.save()
        let other = ModelContext(container)
        let read = try other.fetch(FetchDescriptor<Artwork>())
        #expect(read.first?.palette == Palette(["blue", "violet"]))
        art.palette = nil
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Artwork>()).first?.palette == nil)
    }
}
