import Foundation
import OpenSwiftData
import Testing

// Sorting with `SortDescriptor`s in a `FetchDescriptor` ("Filtering and sorting persistent data"; FetchDescriptor:
// "create a fetch descriptor and specify a predicate and one or more sort descriptors"). Expected orders follow from
// the sample data and the descriptors' documented meaning: `.forward` ascending, `.reverse` descending, later
// descriptors breaking the ties of earlier ones.

@Suite("Documented: sorting")
struct DocumentedSortTests {
    static func reader() throws -> ModelContext {
        let container = try LibraryFixture.inMemoryContainer()
        try LibraryFixture.insertSample(into: ModelContext(container))
        return ModelContext(container)
    }

    /// FetchDescriptor page: the sort descriptors arrange the fetched models; `order: .forward` (the default) is
    /// ascending and `.reverse` descending.
    @Test func forwardAndReverseOrder() throws {
        let context = try Self.reader()
        let byPages = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.pages)])).map(\.pages)
        #expect(byPages == [100, 165, 183, 307, 352, 387])
        let byPagesReversed = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.pages, order: .reverse)])).map(\.pages)
        #expect(byPagesReversed == [387, 352, 307, 183, 165, 100])
        let byTitle = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(byTitle == ["A Wizard of Earthsea", "Beowulf", "Blindness", "Invisible Cities", "The Cave", "The Dispossessed"])
        let byTitleReversed = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title, order: .reverse)])).map(\.title)
        #expect(byTitleReversed == byTitle.reversed())
    }

    /// Several sort descriptors: the first orders, each next one orders the models the previous ones tie on.
    @Test func severalDescriptorsBreakTies() throws {
        let context = try Self.reader()
        context.insert(Loan(borrower: "Bea", due: LibraryFixture.year(2029)))
        context.insert(Loan(borrower: "Ana", due: LibraryFixture.year(2028)))
        try context.save()
        // Ana: 2028, 2030, 2031 — Bea: 2029 — Rui: 2029.
        let loans = try context.fetch(FetchDescriptor<Loan>(sortBy: [SortDescriptor(\.borrower), SortDescriptor(\.due, order: .reverse)]))
        #expect(loans.map(\.borrower) == ["Ana", "Ana", "Ana", "Bea", "Rui"])
        #expect(loans.map(\.due) == [2031, 2030, 2028, 2029, 2029].map(LibraryFixture.year))
        let byDueThenName = try context.fetch(FetchDescriptor<Loan>(sortBy: [SortDescriptor(\.due), SortDescriptor(\.borrower, order: .reverse)]))
        #expect(byDueThenName.map(\.borrower) == ["Ana", "Rui", "Bea", "Ana", "Ana"])
    }

    /// Sorting by an optional attribute: the models that have a value are in that value's order, and the ones without
    /// are kept together at one end — the other end when the order is reversed.
    @Test func optionalValuesSortTogether() throws {
        let context = try Self.reader()
        let forward = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.published)]))
        let reverse = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.published, order: .reverse)]))
        let dated = [1968, 1972, 1974, 1995, 2000].map(LibraryFixture.year)
        #expect(forward.compactMap(\.published) == dated)
        #expect(reverse.compactMap(\.published) == dated.reversed())
        let undatedAtStart = forward.first?.published == nil
        #expect(undatedAtStart || forward.last?.published == nil, "the book without a date is at one end")
        #expect(undatedAtStart ? reverse.last?.published == nil : reverse.first?.published == nil, "and at the other end in reverse")
    }

    /// A sort descriptor and a predicate together: the matching models, in order.
    @Test func sortingTheFilteredModels() throws {
        let context = try Self.reader()
        let descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.author != nil }, sortBy: [SortDescriptor(\.published, order: .reverse)])
        #expect(try context.fetch(descriptor).map(\.title) == ["The Cave", "Blindness", "The Dispossessed", "Invisible Cities", "A Wizard of Earthsea"])
    }

    /// Sort descriptors also order `fetchIdentifiers(_:)`: its identifiers are the sorted fetch's models'.
    @Test func identifiersComeInTheSortOrder() throws {
        let context = try Self.reader()
        let descriptor = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.pages, order: .reverse)])
        #expect(try context.fetchIdentifiers(descriptor) == context.fetch(descriptor).map(\.persistentModelID))
    }
    // (Sorting by a key path through a to-one relationship, `SortDescriptor(\.author?.name)`: KnownDifferences.swift.)
}
