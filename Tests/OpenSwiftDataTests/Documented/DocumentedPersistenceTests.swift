import Foundation
import OpenSwiftData
import Testing

// "Preserving your app's model data across launches": "Using SwiftData, you can quickly and efficiently persist that
// data so it's available across app launches." The article: SwiftData supports most property types other than
// computed ones — primitive types such as Bool, Int and String, and complex value types (structures, enumerations and
// other value types) that conform to Codable. Transient(): "Tells SwiftData not to persist the annotated property
// when managing the owning class." Schema.Attribute.Option.externalStorage: "Stores the property's value as binary
// data adjacent to the model storage." A "launch" here is a new container on the same store file.

enum AcquisitionSource: String, Codable {
    case purchase, donation, exchange
}

struct Dimensions: Codable, Equatable {
    var width: Double
    var height: Double
}

@Model final class Acquisition {
    var reference: UUID
    var received: Date
    var cost: Double
    var price: Decimal
    var copies: Int
    var catalogued: Bool
    var note: String?
    var website: URL?
    var source: AcquisitionSource
    var size: Dimensions
    var keywords: [String]
    @Attribute(.externalStorage) var scan: Data?
    @Transient var isSelected = false

    init(reference: UUID, received: Date, cost: Double, price: Decimal, copies: Int, catalogued: Bool, note: String?, website: URL?,
         source: AcquisitionSource, size: Dimensions, keywords: [String], scan: Data?) {
        self.reference = reference
        self.received = received
        self.cost = cost
        self.price = price
        self.copies = copies
        self.catalogued = catalogued
        self.note = note
        self.website = website
        self.source = source
        self.size = size
        self.keywords = keywords
        self.scan = scan
    }
}

@Suite("Documented: persistence across launches")
struct DocumentedPersistenceTests {
    /// Models saved by one launch are there, with their relationships, for the next launch.
    @Test func savedModelsAreThereAfterARelaunch() throws {
        let directory = LibraryFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ModelConfiguration(url: directory.appendingPathComponent("library.store"))
        do {
            let container = try ModelContainer(for: Schema(LibraryFixture.models), configurations: configuration)
            try LibraryFixture.insertSample(into: ModelContext(container))
        }
        let container = try ModelContainer(for: Schema(LibraryFixture.models), configurations: configuration)
        let context = ModelContext(container)
        #expect(context.container === container, "ModelContext.container is the container the context was made with")
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.isbn)]))
        #expect(books.map(\.title) == ["The Dispossessed", "A Wizard of Earthsea", "Blindness", "The Cave", "Invisible Cities", "Beowulf"])
        #expect(books.map { $0.author?.name } == ["Ursula K. Le Guin", "Ursula K. Le Guin", "José Saramago", "José Saramago", "Italo Calvino", nil])
        #expect(books.map(\.loans.count) == [1, 0, 2, 0, 0, 0])
        #expect(books[0].published == LibraryFixture.year(1974) && books[5].published == nil && books[5].subtitle == "A New Verse Translation")
        #expect(try context.fetchCount(FetchDescriptor<Author>()) == 4)
    }

    /// Primitive types, optionals, Codable structures, enumerations and arrays, and external-storage data, keep their
    /// values across a relaunch.
    @Test func supportedPropertyTypesKeepTheirValues() throws {
        let directory = LibraryFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ModelConfiguration(url: directory.appendingPathComponent("acquisitions.store"))
        let reference = UUID(), received = Date(timeIntervalSinceReferenceDate: 789_012_345.5)
        let scan = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        do {
            let context = ModelContext(try ModelContainer(for: Acquisition.self, configurations: configuration))
            context.insert(Acquisition(reference: reference, received: received, cost: 12.75, price: Decimal(string: "19.99")!, copies: 3,
                                       catalogued: true, note: "Signed", website: URL(string: "https://example.org/a?b=c"), source: .donation,
                                       size: Dimensions(width: 13.5, height: 20.25), keywords: ["poetry", "first edition"], scan: scan))
            context.insert(Acquisition(reference: UUID(), received: received, cost: 0, price: 0, copies: 0, catalogued: false, note: nil,
                                       website: nil, source: .exchange, size: Dimensions(width: 0, height: 0), keywords: [], scan: nil))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Acquisition.self, configurations: configuration))
        let stored = try context.fetch(FetchDescriptor<Acquisition>(sortBy: [SortDescriptor(\.copies, order: .reverse)]))
        #expect(stored.count == 2)
        let first = try #require(stored.first), second = try #require(stored.last)
        #expect(first.reference == reference && first.received == received)
        #expect(first.cost == 12.75 && first.price == Decimal(string: "19.99") && first.copies == 3 && first.catalogued)
        #expect(first.note == "Signed" && first.website == URL(string: "https://example.org/a?b=c"))
        #expect(first.source == .donation && first.size == Dimensions(width: 13.5, height: 20.25))
        #expect(first.keywords == ["poetry", "first edition"])
        #expect(first.scan == scan)
        #expect(second.note == nil && second.website == nil && second.scan == nil && second.keywords.isEmpty && !second.catalogued)
        #expect(second.source == .exchange)
    }

    /// `@Transient`: the property works in memory but is not written — the next launch sees its default value.
    @Test func aTransientPropertyIsNotPersisted() throws {
        let directory = LibraryFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ModelConfiguration(url: directory.appendingPathComponent("acquisitions.store"))
        do {
            let context = ModelContext(try ModelContainer(for: Acquisition.self, configurations: configuration))
            let acquisition = Acquisition(reference: UUID(), received: .now, cost: 1, price: 1, copies: 1, catalogued: true, note: nil, website: nil,
                                          source: .purchase, size: Dimensions(width: 1, height: 1), keywords: [], scan: nil)
            acquisition.isSelected = true
            context.insert(acquisition)
            #expect(acquisition.isSelected)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Acquisition.self, configurations: configuration))
        #expect(try context.fetch(FetchDescriptor<Acquisition>()).map(\.isSelected) == [false])
        #expect(Schema([Acquisition.self]).entitiesByName["Acquisition"]?.attributesByName["isSelected"] == nil, "not part of the schema")
    }
}
