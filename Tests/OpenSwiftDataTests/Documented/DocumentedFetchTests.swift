import Foundation
import OpenSwiftData
import Testing

// FetchDescriptor's limit, offset and pending-changes switch, and ModelContext's fetch variants (fetchCount,
// fetchIdentifiers, fetch(_:batchSize:), enumerate), as their reference pages describe them.

@Suite("Documented: fetching")
struct DocumentedFetchTests {
    /// A store of `count` books whose titles sort as "t000", "t001", …
    static func numberedBooks(_ count: Int) throws -> ModelContainer {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        for index in 0..<count {
            context.insert(Book(isbn: "n\(index)", title: String(format: "t%03d", index), pages: index))
        }
        try context.save()
        return container
    }

    static let byTitle = [SortDescriptor(\Book.title)]

    // MARK: fetchLimit and fetchOffset

    /// fetchLimit: "The maximum number of models the fetch can return." — "Use `nil` to tell the fetch to return all
    /// models of the associated type"; the default is nil.
    @Test func fetchLimitCapsTheResults() throws {
        let context = ModelContext(try Self.numberedBooks(10))
        var descriptor = FetchDescriptor<Book>(sortBy: Self.byTitle)
        #expect(descriptor.fetchLimit == nil)
        #expect(try context.fetch(descriptor).count == 10)
        descriptor.fetchLimit = 3
        #expect(try context.fetch(descriptor).map(\.title) == ["t000", "t001", "t002"])
        descriptor.fetchLimit = 25
        #expect(try context.fetch(descriptor).count == 10, "a limit above the number of matches returns them all")
    }

    /// fetchOffset: "given a fetch that typically returns A, B, C, and D, specifying a fetch offset of 1 will return
    /// B, C, D, and a fetch offset of 4 will return an empty set of results."
    @Test func fetchOffsetSkipsModels() throws {
        let context = ModelContext(try Self.numberedBooks(4))
        var descriptor = FetchDescriptor<Book>(sortBy: Self.byTitle)
        #expect(try context.fetch(descriptor).map(\.title) == ["t000", "t001", "t002", "t003"])
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).map(\.title) == ["t001", "t002", "t003"])
        descriptor.fetchOffset = 4
        #expect(try context.fetch(descriptor).isEmpty)
    }

    /// fetchOffset: "In combination with fetchLimit, you can create a subrange of an arbitrary result set" — pages of a
    /// listing, which together are the whole listing once each.
    @Test func limitAndOffsetMakeASubrange() throws {
        let context = ModelContext(try Self.numberedBooks(23))
        var pages: [[String]] = []
        for page in 0..<5 {
            var descriptor = FetchDescriptor<Book>(sortBy: Self.byTitle)
            descriptor.fetchLimit = 5
            descriptor.fetchOffset = page * 5
            pages.append(try context.fetch(descriptor).map(\.title))
        }
        #expect(pages.map(\.count) == [5, 5, 5, 5, 3])
        #expect(pages.flatMap { $0 } == (0..<23).map { String(format: "t%03d", $0) })
    }

    // MARK: includePendingChanges

    /// includePendingChanges: "whether, when the fetch runs, it matches against currently unsaved changes in the model
    /// context" — "The default value is true": an unsaved insertion is found, an unsaved deletion is left out.
    @Test func pendingChangesCountByDefault() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        #expect(FetchDescriptor<Book>().includePendingChanges)
        context.insert(Book(isbn: "7", title: "Kindred", pages: 264))
        context.delete(try #require(books["Beowulf"]))
        let titles = Set(try context.fetch(FetchDescriptor<Book>()).map(\.title))
        #expect(titles.contains("Kindred"))
        #expect(!titles.contains("Beowulf"))
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 6)
    }

    /// includePendingChanges: "Set this property's value to false to ignore any unsaved changes in the model context
    /// and match against a model's persisted state instead."
    @Test func pendingChangesCanBeIgnored() throws {
        let container = try LibraryFixture.inMemoryContainer()
        let context = ModelContext(container)
        let books = try LibraryFixture.insertSample(into: context)
        context.insert(Book(isbn: "7", title: "Kindred", pages: 264))
        try #require(books["Beowulf"]).pages = 900       // persisted: 100
        try #require(books["Blindness"]).pages = 10      // persisted: 352
        var descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.pages > 350 })
        #expect(Set(try context.fetch(descriptor).map(\.isbn)) == ["1", "6"], "with pending changes: the values in memory")
        descriptor.includePendingChanges = false
        #expect(Set(try context.fetch(descriptor).map(\.isbn)) == ["1", "3"], "without: the persisted values")
        #expect(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "7" }))
            .count == 1)
        var unsavedOnly = FetchDescriptor<Book>(predicate: #Predicate { $0.isbn == "7" })
        unsavedOnly.includePendingChanges = false
        #expect(try context.fetch(unsavedOnly).isEmpty, "the unsaved insertion is not persisted")
    }

    /// includePendingChanges (true by default) with a limit, an offset and a sort: the unsaved models take their
    /// place in the order, and the limit and offset count them like the saved ones.
    @Test func limitsAndOffsetsCountUnsavedModels() throws {
        let context = ModelContext(try Self.numberedBooks(6))     // t000 … t005, saved
        for title in ["s1", "t0025", "u1"] { context.insert(Book(isbn: title, title: title, pages: 0)) }
        var descriptor = FetchDescriptor<Book>(sortBy: Self.byTitle)
        // The default string comparator is .localizedStandard: "t0025" holds the number 25, after "t005".
        #expect(try context.fetch(descriptor).map(\.title) == ["s1", "t000", "t001", "t002", "t003", "t004", "t005", "t0025", "u1"])
        descriptor.fetchLimit = 4
        #expect(try context.fetch(descriptor).map(\.title) == ["s1", "t000", "t001", "t002"])
        descriptor.fetchOffset = 3
        #expect(try context.fetch(descriptor).map(\.title) == ["t002", "t003", "t004", "t005"])
    }

    /// enumerate and the batched fetch match against the context's unsaved changes too (includePendingChanges is
    /// true by default): an unsaved insertion is visited, an unsaved deletion is not.
    @Test func enumerateAndBatchedFetchSeePendingChanges() throws {
        let context = ModelContext(try Self.numberedBooks(5))
        context.insert(Book(isbn: "new", title: "t002a", pages: 99))
        let t003 = try #require(try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "t003" })).first)
        context.delete(t003)
        let expected = ["t000", "t001", "t002", "t002a", "t004"]
        var visited: [String] = []
        try context.enumerate(FetchDescriptor<Book>(sortBy: Self.byTitle), batchSize: 2) { visited.append($0.title) }
        #expect(visited == expected)
        #expect(try context.fetch(FetchDescriptor<Book>(sortBy: Self.byTitle), batchSize: 2).map(\.title) == expected)
    }

    // MARK: fetchCount, fetchIdentifiers

    /// fetchCount(_:): the number of models that match the descriptor's criteria.
    @Test func fetchCountCountsTheMatches() throws {
        let context = ModelContext(try Self.numberedBooks(12))
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 12)
        #expect(try context.fetchCount(FetchDescriptor<Book>(predicate: #Predicate { $0.pages >= 8 })) == 4)
        #expect(try context.fetchCount(FetchDescriptor<Book>(predicate: #Predicate { $0.pages > 100 })) == 0)
    }

    /// fetchIdentifiers(_:): "Returns an array of persistent identifiers, where each identifier represents a single
    /// model that satisfies the criteria" — "If no models match the descriptor's criteria, the array is empty."
    @Test func fetchIdentifiersNamesEachMatchingModel() throws {
        let container = try Self.numberedBooks(6)
        let context = ModelContext(container)
        let ids = try context.fetchIdentifiers(FetchDescriptor<Book>(predicate: #Predicate { $0.pages < 3 }, sortBy: Self.byTitle))
        #expect(ids.count == 3 && Set(ids).count == 3)
        let other = ModelContext(container)
        #expect(ids.map { (other.model(for: $0) as? Book)?.title } == ["t000", "t001", "t002"])
        #expect(try context.fetchIdentifiers(FetchDescriptor<Book>(predicate: #Predicate { $0.pages > 100 })).isEmpty)
    }

    // MARK: Batches

    /// fetch(_:batchSize:): "As you access the models in the returned collection (either sequentially, or directly
    /// using subscripting), the context automatically fetches the necessary batches."
    @Test func aBatchedFetchReachesEveryModel() throws {
        let context = ModelContext(try Self.numberedBooks(57))
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: Self.byTitle), batchSize: 10)
        #expect(books.count == 57)
        #expect(books[56].title == "t056" && books[23].title == "t023" && books[0].title == "t000")
        #expect(books.map(\.title) == (0..<57).map { String(format: "t%03d", $0) })
    }

    /// enumerate(_:batchSize:allowEscapingMutations:block:): "Runs a closure for each model that matches the criteria
    /// of the specified fetch descriptor", reading them `batchSize` at a time — every match once, in the sort order.
    @Test func enumerateVisitsEveryMatchOnceInOrder() throws {
        let context = ModelContext(try Self.numberedBooks(45))
        var visited: [String] = []
        try context.enumerate(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title, order: .reverse)]), batchSize: 7) { book in
            visited.append(book.title)
        }
        #expect(visited == (0..<45).reversed().map { String(format: "t%03d", $0) })
        var even: [Int] = []
        try context.enumerate(FetchDescriptor<Book>(predicate: #Predicate { $0.pages % 2 == 0 }, sortBy: [SortDescriptor(\.pages)]), batchSize: 4) {
            even.append($0.pages)
        }
        #expect(even == Array(stride(from: 0, to: 45, by: 2)))
    }

    /// enumerate: a batch size larger than the results, and the default batch size, both visit each model once.
    @Test func enumerateWithLargeOrDefaultBatches() throws {
        let context = ModelContext(try Self.numberedBooks(9))
        var large = 0, byDefault = 0
        try context.enumerate(FetchDescriptor<Book>(), batchSize: 100) { _ in large += 1 }
        try context.enumerate(FetchDescriptor<Book>()) { _ in byDefault += 1 }
        #expect(large == 9 && byDefault == 9)
    }

    /// relationshipKeyPathsForPrefetching (FetchDescriptor overview: "you can configure a fetch descriptor to prefetch
    /// related models of different types"): the fetched models' related models are there to read.
    @Test func prefetchedRelationshipsAreReadable() throws {
        let container = try LibraryFixture.inMemoryContainer()
        try LibraryFixture.insertSample(into: ModelContext(container))
        var descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.author != nil }, sortBy: [SortDescriptor(\.title)])
        descriptor.relationshipKeyPathsForPrefetching = [\.author, \.loans]
        let books = try ModelContext(container).fetch(descriptor)
        #expect(books.map { $0.author?.name ?? "-" }
            == ["Ursula K. Le Guin", "José Saramago", "Italo Calvino", "José Saramago", "Ursula K. Le Guin"])
        #expect(books.map(\.loans.count) == [0, 2, 0, 0, 1])
    }
}
