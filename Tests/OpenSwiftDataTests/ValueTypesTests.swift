import Foundation
import OpenSwiftData
import Testing

enum Priority: String, Codable, CaseIterable {
    case low, normal, urgent
}

enum Size: Int, Codable {
    case small = 1, large = 3
}

struct Place: Codable, Equatable {
    var city: String
    var coordinates: [Double]
}

enum Repeat: Codable, Equatable {
    case never
    case every(days: Int)
}

@Model final class Chore {
    var title: String
    var priority: Priority = Priority.normal
    var size: Size?
    var place: Place?
    var tags: [String] = []
    var repeats: Repeat = Repeat.never
    var weight: Decimal = 0
    var identifier = UUID()
    var link: URL?
    var blob: Data?
    var ratio: Float = 0.5
    var small: Int16 = 0

    init(title: String) { self.title = title }
}

@Suite("ValueTypes")
struct ValueTypesTests {
    @Test func everyKindOfValueRoundTripsThroughTheStore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("chores.store")
        let id = UUID()
        do {
            let context = ModelContext(try ModelContainer(for: Chore.self, configurations: ModelConfiguration(url: url)))
            let chore = Chore(title: "Dishes")
            chore.priority = .urgent
            chore.size = .large
            chore.place = Place(city: "Lisbon", coordinates: [38.7, -9.1])
            chore.tags = ["kitchen", "daily"]
            chore.repeats = .every(days: 2)
            chore.weight = Decimal(string: "12.34")!
            chore.identifier = id
            chore.link = URL(string: "https://example.com/dishes")
            chore.blob = Data([1, 2, 3])
            chore.ratio = 0.25
            chore.small = -7
            context.insert(chore)
            let plain = Chore(title: "Laundry")
            context.insert(plain)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Chore.self, configurations: ModelConfiguration(url: url)))
        let chores = try context.fetch(FetchDescriptor<Chore>(sortBy: [SortDescriptor(\.title)]))
        let dishes = chores[0], laundry = chores[1]
        #expect(dishes.priority == .urgent && dishes.size == .large)
        #expect(dishes.place == Place(city: "Lisbon", coordinates: [38.7, -9.1]))
        #expect(dishes.tags == ["kitchen", "daily"] && dishes.repeats == .every(days: 2))
        #expect(dishes.weight == Decimal(string: "12.34")! && dishes.identifier == id)
        #expect(dishes.link == URL(string: "https://example.com/dishes") && dishes.blob == Data([1, 2, 3]))
        #expect(dishes.ratio == 0.25 && dishes.small == -7)
        #expect(laundry.priority == .normal && laundry.size == nil && laundry.place == nil && laundry.tags.isEmpty && laundry.repeats == .never,
                "the initial values")
    }

    @Test func enumsAreStoredAsTheirRawValuesAndFilterInSQL() throws {
        let context = ModelContext(try ModelContainer(for: Chore.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        for (title, priority) in [("a", Priority.low), ("b", .urgent), ("c", .urgent), ("d", .normal)] {
            let chore = Chore(title: title)
            chore.priority = priority
            context.insert(chore)
        }
        try context.save()
        let urgent = Priority.urgent
        #expect(try context.fetch(FetchDescriptor<Chore>(predicate: #Predicate { $0.priority == urgent }, sortBy: [SortDescriptor(\.title)]))
            .map(\.title) == ["b", "c"])
        let entity = context.container.schema.entitiesByName["Chore"]
        #expect(entity?.attributesByName["priority"] != nil)
    }
}

@Model final class Label {
    var name: String
    @Relationship(inverse: \Note.labels) var notes: [Note]? = []
    init(name: String) { self.name = name }
}

@Model final class Note {
    var text: String
    var labels: [Label]?
    init(text: String) { self.text = text }
}

extension ValueTypesTests {
    @Test func optionalToManyRelationshipsAreManyToMany() throws {
        let context = ModelContext(try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let work = Label(name: "work"), home = Label(name: "home")
        let note = Note(text: "call")
        #expect(note.labels == nil, "never set: nil, as declared")
        note.labels = [work, home]
        context.insert(note)
        #expect(Set((work.notes ?? []).map(\.text)) == ["call"], "the inverse is kept")
        try context.save()
        let other = ModelContext(context.container)
        let read = try #require(try other.fetch(FetchDescriptor<Note>()).first)
        #expect(Set((read.labels ?? []).map(\.name)) == ["home", "work"])
        let lonely = Label(name: "none")
        other.insert(lonely)
        #expect(lonely.notes?.isEmpty == true)
    }
}

@Model final class CityVisit {
    #Unique<CityVisit>([\.city, \.day])
    #Index<CityVisit>([\.city], [\.day, \.city])
    var city: String
    var day: Int
    var note: String = ""
    init(city: String, day: Int, note: String = "") {
        self.city = city
        self.day = day
        self.note = note
    }
}

extension ValueTypesTests {
    @Test func uniqueAndIndexMacrosMakeConstraintsAndIndexes() throws {
        let container = try ModelContainer(for: CityVisit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let entity = try #require(container.schema.entitiesByName["CityVisit"])
        #expect(entity.uniquenessConstraints == [["city", "day"]])
        #expect(entity.indices == [["city"], ["day", "city"]])
        let context = ModelContext(container)
        context.insert(CityVisit(city: "Lisbon", day: 1, note: "first"))
        context.insert(CityVisit(city: "Lisbon", day: 2))
        try context.save()
        context.insert(CityVisit(city: "Lisbon", day: 1, note: "again"))
        try context.save()
        let visits = try ModelContext(container).fetch(FetchDescriptor<CityVisit>(sortBy: [SortDescriptor(\.day)]))
        #expect(visits.map(\.day) == [1, 2] && visits.first?.note == "again", "the pair (city, day) is unique together: upsert")
    }
}

@Model final class Photo {
    @Attribute(.externalStorage) var caption: String?
    @Attribute(.externalStorage) var pixels: Data
    init(caption: String?, pixels: Data) {
        self.caption = caption
        self.pixels = pixels
    }
}

extension ValueTypesTests {
    @Test func externalStorageKeepsLargeDataBesideTheStore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("photos.store")
        let pixels = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        do {
            let context = ModelContext(try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: url)))
            context.insert(Photo(caption: "harbour", pixels: pixels))
            try context.save()
        }
        let read = try ModelContext(try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: url))).fetch(FetchDescriptor<Photo>())
        #expect(read.first?.pixels == pixels && read.first?.caption == "harbour")
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []
        #expect(files.contains { $0.contains("_EXTERNAL_DATA/") }, "the large value is a file beside the store, as Core Data keeps it: \(files)")
    }
}
