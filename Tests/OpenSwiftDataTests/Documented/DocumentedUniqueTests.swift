import Foundation
import OpenSwiftData
import Testing

// Uniqueness: `@Attribute(.unique)` ("Ensures the property's value is unique across all models of the same type")
// and the `#Unique` macro ("Specifies the key-paths that SwiftData uses to enforce the uniqueness of model instances …
// a constraint on a single attribute, a compound constraint across multiple attributes, or any combination of the
// two"). SwiftData enforces them by upserting: inserting a model whose unique values equal a stored model's updates
// that model instead of adding a second one (WWDC23 "Model your schema with SwiftData" presents `.unique` this way:
// a colliding insert becomes an update of the existing model).

/// A shelf, unique by room and number together (a compound `#Unique`), and by its label on its own.
@Model final class Shelf {
    #Unique<Shelf>([\.room, \.number], [\.label])

    var room: String
    var number: Int
    var label: String
    var capacity: Int

    init(room: String, number: Int, label: String, capacity: Int) {
        self.room = room
        self.number = number
        self.label = label
        self.capacity = capacity
    }
}

@Suite("Documented: uniqueness")
struct DocumentedUniqueTests {
    /// `.unique` (Author.name): inserting an author whose name is stored already updates that author; there is still
    /// one, with the new values.
    @Test func aUniqueAttributeUpsertsAcrossSaves() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        context.insert(Author(name: "José Saramago"))
        try context.save()
        context.insert(Author(name: "José Saramago", country: "PT"))
        try context.save()
        let authors = try ModelContext(container).fetch(FetchDescriptor<Author>())
        #expect(authors.count == 1)
        #expect(authors.first?.country == "PT")
    }

    /// `.unique` across contexts: another context inserting the same value updates the stored model too.
    @Test func aUniqueAttributeUpsertsAcrossContexts() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let first = ModelContext(container), second = ModelContext(container)
        first.insert(Member(number: 12, name: "Ana"))
        try first.save()
        second.insert(Member(number: 12, name: "Ana Sousa"))
        second.insert(Member(number: 13, name: "Rui"))
        try second.save()
        let members = try ModelContext(container).fetch(FetchDescriptor<Member>(sortBy: [SortDescriptor(\.number)]))
        #expect(members.map(\.number) == [12, 13])
        #expect(members.map(\.name) == ["Ana Sousa", "Rui"])
    }

    /// `.unique`: two unsaved models with the same value in one save become one stored model.
    @Test func duplicatesInOneSaveBecomeOneModel() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        context.insert(Genre(name: "Poetry"))
        context.insert(Genre(name: "Poetry"))
        context.insert(Genre(name: "Drama"))
        try context.save()
        let genres = try ModelContext(container).fetch(FetchDescriptor<Genre>())
        #expect(Set(genres.map(\.name)) == ["Poetry", "Drama"] && genres.count == 2)
    }

    /// `#Unique<Book>([\.isbn])`: a single-attribute constraint declared with the macro upserts like `.unique`.
    @Test func aUniqueMacroConstraintUpserts() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        try LibraryFixture.insertSample(into: context)
        context.insert(Book(isbn: "4", title: "The Cave", pages: 320, subtitle: "A Novel"))
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Book>()) == 6)
        let cave = try reader.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "4" }))
        #expect(cave.count == 1 && cave.first?.pages == 320 && cave.first?.subtitle == "A Novel")
    }

    /// A compound `#Unique` constraint: models are the same only when every key path of the constraint is equal —
    /// the same room with another number is another shelf; the same room and number is the same shelf.
    @Test func aCompoundConstraintComparesAllItsKeyPaths() throws {
        let container = try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Shelf(room: "Reading room", number: 1, label: "R1", capacity: 40))
        context.insert(Shelf(room: "Reading room", number: 2, label: "R2", capacity: 40))
        context.insert(Shelf(room: "Archive", number: 1, label: "A1", capacity: 90))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Shelf>()) == 3, "no two share room and number")

        context.insert(Shelf(room: "Reading room", number: 2, label: "R2", capacity: 55))
        try context.save()
        let shelves = try ModelContext(container).fetch(FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.label)]))
        #expect(shelves.map(\.label) == ["A1", "R1", "R2"])
        #expect(shelves.map(\.capacity) == [90, 40, 55])
    }

    /// `#Unique` with several constraints ("any combination"): a model equal to a stored one on either constraint is
    /// that model — here the label alone matches.
    @Test func eachConstraintOfTheMacroIsEnforced() throws {
        let container = try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Shelf(room: "Archive", number: 1, label: "A1", capacity: 90))
        try context.save()
        context.insert(Shelf(room: "Basement", number: 9, label: "A1", capacity: 95))
        try context.save()
        let shelves = try ModelContext(container).fetch(FetchDescriptor<Shelf>())
        #expect(shelves.count == 1 && shelves.first?.capacity == 95 && shelves.first?.room == "Basement")
    }

    /// The schema reports the constraints: Schema.Attribute.isUnique for `.unique`, and
    /// Schema.Entity.uniquenessConstraints for `#Unique`.
    @Test func theSchemaDescribesTheConstraints() throws {
        let schema = Schema([Author.self, Shelf.self])
        let author = try #require(schema.entitiesByName["Author"])
        #expect(author.attributesByName["name"]?.isUnique == true)
        #expect(author.attributesByName["country"]?.isUnique == false)
        let shelf = try #require(schema.entitiesByName["Shelf"])
        #expect(Set(shelf.uniquenessConstraints.map { Set($0) }) == [["room", "number"], ["label"]])
    }
}
