import Foundation
import OpenSwiftData
import Testing

// Filtering with `#Predicate` in a `FetchDescriptor`, as Apple's "Filtering and sorting persistent data" article and
// the `FetchDescriptor` page describe it: "The predicate describes the attributes to filter by and the constraints to
// apply", and the fetch returns only the models for which it is true. Each expected set below follows from
// `LibraryFixture.insertSample` and Swift's own meaning of the expression (a predicate means what the Swift code says).
//
// Not here: `localizedStandardContains(_:)`, which the article's sample uses, does not compile on Linux — the
// toolchain's Foundation has no `PredicateExpressions.build_localizedStandardContains` (see the report).

@Suite("Documented: #Predicate")
struct DocumentedPredicateTests {
    /// A context on a store holding the sample library (a fresh context: the results come from the store).
    static func reader() throws -> ModelContext {
        let container = try LibraryFixture.inMemoryContainer()
        try LibraryFixture.insertSample(into: ModelContext(container))
        return ModelContext(container)
    }

    static func titles(_ context: ModelContext, _ predicate: Predicate<Book>) throws -> Set<String> {
        Set(try context.fetch(FetchDescriptor<Book>(predicate: predicate)).map(\.title))
    }

    static func authors(_ context: ModelContext, _ predicate: Predicate<Author>) throws -> Set<String> {
        Set(try context.fetch(FetchDescriptor<Author>(predicate: predicate)).map(\.name))
    }

    // MARK: Optionals

    /// FetchDescriptor page: the predicate selects the models that satisfy it — `!= nil` keeps the books that have a
    /// subtitle, `== nil` the others.
    @Test func comparingAnOptionalWithNil() throws {
        let context = try Self.reader()
        #expect(try Self.titles(context, #Predicate { $0.subtitle != nil }) == ["The Dispossessed", "Beowulf"])
        #expect(try Self.titles(context, #Predicate { $0.subtitle == nil })
            == ["A Wizard of Earthsea", "Blindness", "The Cave", "Invisible Cities"])
    }

    /// A `#Predicate` may use `??` to give a missing value a default; only "An Ambiguous Utopia" starts with "An".
    @Test func nilCoalescingSuppliesADefault() throws {
        let context = try Self.reader()
        #expect(try Self.titles(context, #Predicate { ($0.subtitle ?? "").starts(with: "An") }) == ["The Dispossessed"])
        let cutoff = LibraryFixture.year(1990)
        #expect(try Self.titles(context, #Predicate { ($0.published ?? cutoff) > cutoff }) == ["Blindness", "The Cave"],
                "a missing date takes the default, which is not after itself")
    }

    /// Optional chaining through a to-one relationship: a book without an author does not match.
    @Test func optionalChainingThroughAToOneRelationship() throws {
        let context = try Self.reader()
        #expect(try Self.titles(context, #Predicate { $0.author?.name == "José Saramago" }) == ["Blindness", "The Cave"])
        #expect(try Self.titles(context, #Predicate { $0.author?.country == "US" }) == ["The Dispossessed", "A Wizard of Earthsea"])
        #expect(try Self.titles(context, #Predicate { $0.author == nil }) == ["Beowulf"])
    }

    /// `flatMap` on an optional (the form optional chaining takes inside `#Predicate`) tests the wrapped value.
    @Test func flatMapTestsTheWrappedValue() throws {
        let context = try Self.reader()
        #expect(try Self.titles(context, #Predicate { $0.subtitle.flatMap { $0.contains("Utopia") } == true }) == ["The Dispossessed"])
    }

    /// Optional chaining across two to-one relationships (loan → book → author).
    @Test func optionalChainingAcrossTwoRelationships() throws {
        let context = try Self.reader()
        let loans = try context.fetch(FetchDescriptor<Loan>(predicate: #Predicate { $0.book?.author?.name == "José Saramago" }))
        #expect(Set(loans.map(\.borrower)) == ["Rui", "Ana"] && loans.count == 2)
    }

    /// Optional chaining into a method (`?.contains`) and into a to-many relationship's count through a to-one one.
    @Test func optionalChainingIntoMethodsAndCollections() throws {
        let context = try Self.reader()
        #expect(try Self.titles(context, #Predicate { $0.subtitle?.contains("Verse") == true }) == ["Beowulf"])
        #expect(try Self.titles(context, #Predicate { ($0.author?.books.count ?? 0) >= 2 })
            == ["The Dispossessed", "A Wizard of Earthsea", "Blindness", "The Cave"])
    }

    // MARK: Strings

    /// `contains(_:)` on a string is Swift's: case-sensitive.
    @Test func stringContainsIsCaseSensitive() throws {
        let context = try Self.reader()
        #expect(try Self.titles(context, #Predicate { $0.title.contains("The") }) == ["The Dispossessed", "The Cave"])
        #expect(try Self.titles(context, #Predicate { $0.title.contains("the") }).isEmpty, "no title has a lowercase \"the\"")
        #expect(try Self.titles(context, #Predicate { $0.title.contains("of") }) == ["A Wizard of Earthsea"])
    }

    /// `starts(with:)` on a string.
    @Test func stringStartsWith() throws {
        let context = try Self.reader()
        #expect(try Self.titles(context, #Predicate { $0.title.starts(with: "B") }) == ["Blindness", "Beowulf"])
        #expect(try Self.titles(context, #Predicate { $0.title.starts(with: "b") }).isEmpty)
        #expect(try Self.authors(context, #Predicate { $0.name.starts(with: "José") }) == ["José Saramago"], "non-ASCII text")
    }

    /// Equality and ordering of strings, and a value captured from the surrounding code.
    @Test func stringEqualityOrderingAndCapturedValues() throws {
        let context = try Self.reader()
        let wanted = "Invisible Cities"
        #expect(try Self.titles(context, #Predicate { $0.title == wanted }) == ["Invisible Cities"])
        #expect(try Self.titles(context, #Predicate { $0.title < "C" }) == ["A Wizard of Earthsea", "Blindness", "Beowulf"])
    }

    // MARK: Numbers, booleans, dates, membership

    /// Comparisons, ranges and arithmetic on numbers, combined with `&&`, `||` and `!`.
    @Test func numbersRangesAndLogic() throws {
        let context = try Self.reader()
        #expect(try Self.titles(context, #Predicate { $0.pages > 350 }) == ["The Dispossessed", "Blindness"])
        #expect(try Self.titles(context, #Predicate { (150...200).contains($0.pages) }) == ["A Wizard of Earthsea", "Invisible Cities"])
        #expect(try Self.titles(context, #Predicate { $0.pages * 2 > 700 }) == ["The Dispossessed", "Blindness"])
        #expect(try Self.titles(context, #Predicate { $0.pages < 170 && !($0.author == nil) }) == ["Invisible Cities"])
        #expect(try Self.titles(context, #Predicate { $0.pages < 170 || $0.pages > 380 }) == ["Invisible Cities", "Beowulf", "The Dispossessed"])
    }

    /// A Boolean attribute and a date comparison.
    @Test func booleansAndDates() throws {
        let context = try Self.reader()
        let outstanding = try context.fetch(FetchDescriptor<Loan>(predicate: #Predicate { !$0.returned }))
        #expect(outstanding.map(\.borrower) == ["Ana", "Ana"])
        let after = LibraryFixture.year(2030)
        #expect(try context.fetch(FetchDescriptor<Loan>(predicate: #Predicate { $0.due >= after })).count == 2)
    }

    /// Membership of an attribute in a captured array (`array.contains($0.value)`).
    @Test func membershipInACapturedArray() throws {
        let context = try Self.reader()
        let wanted = ["2", "5", "42"]
        #expect(try Self.titles(context, #Predicate { wanted.contains($0.isbn) }) == ["A Wizard of Earthsea", "Invisible Cities"])
    }

    // MARK: Collections and relationships

    /// `isEmpty` of a to-many relationship.
    @Test func isEmptyOfAToManyRelationship() throws {
        let context = try Self.reader()
        #expect(try Self.authors(context, #Predicate { $0.books.isEmpty }) == ["Anonymous"])
        #expect(try Self.authors(context, #Predicate { !$0.books.isEmpty }) == ["Ursula K. Le Guin", "José Saramago", "Italo Calvino"])
    }

    /// `count` of a to-many relationship.
    @Test func countOfAToManyRelationship() throws {
        let context = try Self.reader()
        #expect(try Self.authors(context, #Predicate { $0.books.count >= 2 }) == ["Ursula K. Le Guin", "José Saramago"])
        #expect(try Self.titles(context, #Predicate { $0.loans.count == 2 }) == ["Blindness"])
    }

    /// `contains(where:)` over a to-many relationship: true when any related model satisfies the inner test.
    @Test func containsWhereOverAToManyRelationship() throws {
        let context = try Self.reader()
        #expect(try Self.authors(context, #Predicate { $0.books.contains(where: { $0.pages > 350 }) }) == ["Ursula K. Le Guin", "José Saramago"])
        #expect(try Self.titles(context, #Predicate { $0.loans.contains(where: { !$0.returned }) }) == ["The Dispossessed", "Blindness"])
        #expect(try Self.titles(context, #Predicate { $0.loans.contains(where: { $0.borrower == "Rui" }) }) == ["Blindness"])
    }

    /// A predicate on a model's identifier finds that model.
    @Test func comparingPersistentIdentifiers() throws {
        let context = try Self.reader()
        let cave = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "4" })).first)
        let id = cave.persistentModelID
        #expect(try Self.titles(context, #Predicate { $0.persistentModelID == id }) == ["The Cave"])
        #expect(try Self.titles(context, #Predicate { $0.persistentModelID != id }).count == 5)
    }

    /// The same predicate counts (`fetchCount`) what it fetches.
    @Test func fetchCountAppliesThePredicate() throws {
        let context = try Self.reader()
        #expect(try context.fetchCount(FetchDescriptor<Book>(predicate: #Predicate { $0.author?.country == "PT" || $0.pages < 120 })) == 3)
    }
}
