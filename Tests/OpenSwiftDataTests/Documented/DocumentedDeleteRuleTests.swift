import Foundation
import OpenSwiftData
import Testing

// Schema.Relationship.DeleteRule, case by case, as its reference pages define it. Cascade and nullify use the library
// schema (Book.loans cascades, Member.card cascades, Author.books nullifies); deny and noAction have models of their
// own below.

/// A library that cannot be closed while it holds anything (`.deny`).
@Model final class Library {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .deny, inverse: \Holding.library) var holdings: [Holding] = []

    init(name: String) {
        self.name = name
    }
}

@Model final class Holding {
    var shelfMark: String
    var library: Library?

    init(shelfMark: String) {
        self.shelfMark = shelfMark
    }
}

/// A catalog whose deletion leaves its entries alone (`.noAction`).
@Model final class Catalog {
    var name: String
    @Relationship(deleteRule: .noAction, inverse: \CatalogEntry.catalog) var entries: [CatalogEntry] = []

    init(name: String) {
        self.name = name
    }
}

@Model final class CatalogEntry {
    var heading: String
    var catalog: Catalog?

    init(heading: String) {
        self.heading = heading
    }
}

@Suite("Documented: delete rules")
struct DocumentedDeleteRuleTests {
    // MARK: cascade

    /// DeleteRule.cascade: "A rule that deletes any related models." (Book.loans is `.cascade`.)
    @Test func cascadeDeletesTheRelatedModels() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        let blindness = try #require(books["Blindness"])
        #expect(blindness.loans.count == 2)
        context.delete(blindness)
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Loan>()).map(\.due) == [LibraryFixture.year(2030)], "only The Dispossessed's loan is left")
    }

    /// DeleteRule.cascade on a to-one relationship (Member.card): the member's card goes with the member.
    @Test func cascadeFollowsAToOneRelationship() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let member = Member(number: 1, name: "Ana")
        member.card = LibraryCard(code: "A-1")
        context.insert(member)
        context.insert(Member(number: 2, name: "Rui"))
        try context.save()
        context.delete(member)
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<LibraryCard>()) == 0)
        #expect(try reader.fetch(FetchDescriptor<Member>()).map(\.name) == ["Rui"])
    }

    /// DeleteRule.cascade applies to `delete(model:where:)` too: the matched models' related models go with them.
    @Test func cascadeAppliesToDeletionsByPredicate() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        try LibraryFixture.insertSample(into: context)
        try context.delete(model: Book.self, where: #Predicate { $0.author?.name == "José Saramago" })
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Loan>()) == 1)
        #expect(try reader.fetchCount(FetchDescriptor<Book>()) == 4)
    }

    // MARK: nullify

    /// DeleteRule.nullify: "A rule that nullifies the related model's reference to the deleted model." (Author.books
    /// is `.nullify`: the books stay, without an author.)
    @Test func nullifyClearsTheRelatedModelsReference() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        let saramago = try #require(books["Blindness"]?.author)
        context.delete(saramago)
        try context.save()
        #expect(books["Blindness"]?.author == nil && books["The Cave"]?.author == nil)
        let reader = ModelContext(container)
        let stored = try reader.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "3" || $0.isbn == "4" }))
        #expect(stored.count == 2 && stored.allSatisfy { $0.author == nil })
        #expect(try reader.fetchCount(FetchDescriptor<Book>()) == 6)
    }

    /// `.nullify` is `@Relationship`'s default delete rule (its declaration: `deleteRule: … = .nullify`); Loan.book
    /// and Genre.books use it: deleting a genre leaves its books.
    @Test func nullifyIsTheDefault() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let fantasy = Genre(name: "Fantasy")
        let book = Book(isbn: "2", title: "A Wizard of Earthsea", pages: 183)
        book.genres = [fantasy]
        context.insert(book)
        try context.save()
        context.delete(fantasy)
        try context.save()
        #expect(book.genres.isEmpty)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Book>()).map(\.genres.count) == [0])
    }

    // MARK: deny

    /// DeleteRule.deny: "A rule that prevents the deletion of a model because it contains one or more references to
    /// other models." The save that would delete it fails, and the store keeps the model.
    @Test func denyPreventsDeletingAModelThatRefersToOthers() throws {
        let container = try ModelContainer(for: Library.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let central = Library(name: "Central")
        central.holdings = [Holding(shelfMark: "A1"), Holding(shelfMark: "B2")]
        context.insert(central)
        try context.save()

        context.delete(central)
        #expect(throws: (any Error).self) { try context.save() }
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Library>()).map(\.name) == ["Central"])
        #expect(try reader.fetchCount(FetchDescriptor<Holding>()) == 2)
    }

    /// DeleteRule.deny prevents the deletion only while there are references: an empty library can be deleted, and
    /// so can one whose holdings were removed first.
    @Test func denyAllowsDeletingOnceNothingIsReferenced() throws {
        let container = try ModelContainer(for: Library.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let empty = Library(name: "Empty"), branch = Library(name: "Branch")
        let holding = Holding(shelfMark: "C3")
        branch.holdings = [holding]
        context.insert(empty)
        context.insert(branch)
        try context.save()

        context.delete(empty)
        try context.save()
        context.delete(holding)
        context.delete(branch)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Library>()) == 0)
    }

    // MARK: noAction

    /// DeleteRule.noAction: "A rule that doesn't make changes to any related models" — deleting the catalog neither
    /// deletes its entries nor changes them ("Ensure that you take the appropriate action on any related models").
    @Test func noActionLeavesTheRelatedModelsUnchanged() throws {
        let container = try ModelContainer(for: Catalog.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let catalog = Catalog(name: "Card catalog")
        let entries = [CatalogEntry(heading: "Poetry"), CatalogEntry(heading: "Travel")]
        catalog.entries = entries
        context.insert(catalog)
        try context.save()

        context.delete(catalog)
        context.processPendingChanges()
        #expect(context.deletedModelsArray.count == 1 && context.deletedModelsArray.first as? Catalog === catalog, "the entries are not deleted")
        #expect(entries.allSatisfy { $0.catalog === catalog }, "their reference is not nullified")
        try context.save()
        let reader = ModelContext(container)
        #expect(Set(try reader.fetch(FetchDescriptor<CatalogEntry>()).map(\.heading)) == ["Poetry", "Travel"])
        #expect(try reader.fetchCount(FetchDescriptor<Catalog>()) == 0)
    }
}
