import Foundation
import OpenSwiftData
import Testing

// Inverse relationships. Relationship(_:deleteRule:…:inverse:…) "specifies the options that SwiftData needs to
// manage the annotated property as a relationship between two models", `inverse` naming the other side; as in Core
// Data (NSRelationshipDescription.inverseRelationship: "the description of the current relationship from the
// destination entity's perspective"), the context keeps both sides of a relationship consistent: a change made on one
// side shows on the other. Author.books ↔ Book.author is to-many/to-one, Member.card ↔ LibraryCard.member
// to-one/to-one, Book.genres ↔ Genre.books to-many/to-many.

@Suite("Documented: inverse relationships")
struct DocumentedInverseTests {
    static func context() throws -> ModelContext {
        ModelContext(try LibraryFixture.inMemoryContainer())
    }

    /// Setting the to-one side (book.author) adds the book to the author's to-many side.
    @Test func settingTheToOneSideUpdatesTheToManySide() throws {
        let context = try Self.context()
        let author = Author(name: "Octavia E. Butler")
        let kindred = Book(isbn: "1", title: "Kindred", pages: 264)
        context.insert(author)
        context.insert(kindred)
        kindred.author = author
        #expect(author.books.map(\.title) == ["Kindred"])
        try context.save()
        #expect(try Self.storedTitles(of: "Octavia E. Butler", in: context.container) == ["Kindred"])
    }

    /// Appending to the to-many side (author.books) sets each book's to-one side.
    @Test func appendingToTheToManySideSetsTheToOneSide() throws {
        let context = try Self.context()
        let author = Author(name: "Octavia E. Butler")
        context.insert(author)
        let kindred = Book(isbn: "1", title: "Kindred", pages: 264), dawn = Book(isbn: "2", title: "Dawn", pages: 248)
        author.books.append(kindred)
        author.books.append(dawn)
        #expect(kindred.author === author && dawn.author === author)
        try context.save()
        let stored = try ModelContext(context.container).fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(stored.map { $0.author?.name } == ["Octavia E. Butler", "Octavia E. Butler"])
    }

    /// Removing a model from the to-many array clears its to-one side (it no longer refers back).
    @Test func removingFromTheArrayClearsTheToOneSide() throws {
        let context = try Self.context()
        let books = try LibraryFixture.insertSample(into: context)
        let leGuin = try #require(books["The Dispossessed"]?.author)
        let wizard = try #require(books["A Wizard of Earthsea"])
        leGuin.books.removeAll { $0 === wizard }
        #expect(wizard.author == nil)
        #expect(leGuin.books.map(\.title) == ["The Dispossessed"])
        try context.save()
        let reader = ModelContext(context.container)
        #expect(try reader.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "2" })).first?.author == nil)
        #expect(try Self.storedTitles(of: "Ursula K. Le Guin", in: context.container) == ["The Dispossessed"])
    }

    /// Reassigning the to-one side moves the model from the old owner's array to the new owner's.
    @Test func reassigningTheToOneSideMovesTheModel() throws {
        let context = try Self.context()
        let books = try LibraryFixture.insertSample(into: context)
        let cave = try #require(books["The Cave"])
        let saramago = try #require(cave.author), calvino = try #require(books["Invisible Cities"]?.author)
        cave.author = calvino
        #expect(saramago.books.map(\.title) == ["Blindness"])
        #expect(Set(calvino.books.map(\.title)) == ["Invisible Cities", "The Cave"])
        try context.save()
        #expect(try Self.storedTitles(of: "Italo Calvino", in: context.container) == ["Invisible Cities", "The Cave"])
        #expect(try Self.storedTitles(of: "José Saramago", in: context.container) == ["Blindness"])
    }

    /// Setting the to-one side to nil removes the model from the array on the other side.
    @Test func clearingTheToOneSideRemovesFromTheArray() throws {
        let context = try Self.context()
        let books = try LibraryFixture.insertSample(into: context)
        let blindness = try #require(books["Blindness"])
        let saramago = try #require(blindness.author)
        blindness.author = nil
        #expect(saramago.books.map(\.title) == ["The Cave"])
    }

    /// One-to-one: setting either side sets the other, and replacing the card leaves the old card without a member.
    @Test func oneToOneSidesFollowEachOther() throws {
        let context = try Self.context()
        let member = Member(number: 7, name: "Ana")
        let first = LibraryCard(code: "A-1"), second = LibraryCard(code: "A-2")
        context.insert(member)
        context.insert(first)
        context.insert(second)
        member.card = first
        #expect(first.member === member)
        second.member = member
        #expect(member.card === second)
        #expect(first.member == nil, "a member has one card: the first one lost it")
        try context.save()
        let reader = ModelContext(context.container)
        let cards = try reader.fetch(FetchDescriptor<LibraryCard>(sortBy: [SortDescriptor(\.code)]))
        #expect(cards.map { $0.member?.name } == [nil, "Ana"])
    }

    /// Many-to-many: adding a genre to a book adds the book to the genre, and removing it removes it on both sides.
    @Test func manyToManySidesFollowEachOther() throws {
        let context = try Self.context()
        let books = try LibraryFixture.insertSample(into: context)
        let fantasy = Genre(name: "Fantasy"), classics = Genre(name: "Classics")
        context.insert(fantasy)
        context.insert(classics)
        let wizard = try #require(books["A Wizard of Earthsea"]), beowulf = try #require(books["Beowulf"])
        wizard.genres.append(fantasy)
        beowulf.genres = [fantasy, classics]
        #expect(Set(fantasy.books.map(\.title)) == ["A Wizard of Earthsea", "Beowulf"])
        #expect(classics.books.map(\.title) == ["Beowulf"])
        classics.books.append(wizard)
        #expect(Set(wizard.genres.map(\.name)) == ["Fantasy", "Classics"])
        fantasy.books.removeAll { $0 === beowulf }
        #expect(beowulf.genres.map(\.name) == ["Classics"])
        try context.save()
        let reader = ModelContext(context.container)
        let stored = try reader.fetch(FetchDescriptor<Genre>(sortBy: [SortDescriptor(\.name)]))
        #expect(stored.map { Set($0.books.map(\.title)) } == [["A Wizard of Earthsea", "Beowulf"], ["A Wizard of Earthsea"]])
    }

    /// The other side is kept for models inserted together as a graph (the models a root refers to are inserted with
    /// it, ModelContext overview), and survives a save and a fetch in another context.
    @Test func aGraphBuiltBeforeInsertionKeepsBothSides() throws {
        let context = try Self.context()
        let author = Author(name: "Octavia E. Butler")
        author.books = [Book(isbn: "1", title: "Kindred", pages: 264), Book(isbn: "2", title: "Dawn", pages: 248)]
        context.insert(author)
        #expect(author.books.allSatisfy { $0.author === author })
        try context.save()
        let stored = try ModelContext(context.container).fetch(FetchDescriptor<Book>())
        #expect(stored.count == 2 && stored.allSatisfy { $0.author?.name == "Octavia E. Butler" })
    }

    static func storedTitles(of author: String, in container: ModelContainer) throws -> Set<String> {
        let authors = try ModelContext(container).fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.name == author }))
        return Set(authors.first?.books.map(\.title) ?? [])
    }
}
