import Foundation
import OpenSwiftData

// The library schema the documented-behaviour tests use, declared as an app declares it: authors write books, books
// are lent out and filed under genres, members hold one library card each.

@Model final class Author {
    @Attribute(.unique) var name: String
    var country: String?
    @Relationship(deleteRule: .nullify, inverse: \Book.author) var books: [Book] = []

    init(name: String, country: String? = nil) {
        self.name = name
        self.country = country
    }
}

@Model final class Book {
    #Unique<Book>([\.isbn])

    var isbn: String
    var title: String
    var pages: Int
    var published: Date?
    var subtitle: String?
    var author: Author?
    @Relationship(deleteRule: .cascade, inverse: \Loan.book) var loans: [Loan] = []
    @Relationship(inverse: \Genre.books) var genres: [Genre] = []

    init(isbn: String, title: String, pages: Int, published: Date? = nil, subtitle: String? = nil, author: Author? = nil) {
        self.isbn = isbn
        self.title = title
        self.pages = pages
        self.published = published
        self.subtitle = subtitle
        self.author = author
    }
}

@Model final class Genre {
    @Attribute(.unique) var name: String
    var books: [Book] = []

    init(name: String) {
        self.name = name
    }
}

@Model final class Loan {
    var borrower: String
    var due: Date
    var returned: Bool = false
    var book: Book?

    init(borrower: String, due: Date, returned: Bool = false) {
        self.borrower = borrower
        self.due = due
        self.returned = returned
    }
}

@Model final class Member {
    @Attribute(.unique) var number: Int
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \LibraryCard.member) var card: LibraryCard?

    init(number: Int, name: String) {
        self.number = number
        self.name = name
    }
}

@Model final class LibraryCard {
    var code: String
    var member: Member?

    init(code: String) {
        self.code = code
    }
}

/// Containers and sample data for the documented-behaviour tests.
enum LibraryFixture {
    static var models: [any PersistentModel.Type] { [Author.self, Book.self, Genre.self, Loan.self, Member.self, LibraryCard.self] }

    /// A container of the library schema whose store lives in memory.
    static func inMemoryContainer() throws -> ModelContainer {
        try ModelContainer(for: Schema(models), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    /// A fresh directory for a store file (the caller removes it).
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sddocs-\(UUID().uuidString)", isDirectory: true)
    }

    /// Midnight UTC of 1 January of `year`.
    static func year(_ year: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
    }

    /// Four authors (one without books), six books (one without author, publication date or subtitle variations),
    /// three loans; inserted through their roots and saved.
    ///
    /// | isbn | title                  | pages | published | subtitle                  | author             | loans                    |
    /// |------|------------------------|-------|-----------|---------------------------|--------------------|--------------------------|
    /// | 1    | The Dispossessed       | 387   | 1974      | An Ambiguous Utopia       | Ursula K. Le Guin  | Ana (out)                |
    /// | 2    | A Wizard of Earthsea   | 183   | 1968      | –                         | Ursula K. Le Guin  |                          |
    /// | 3    | Blindness              | 352   | 1995      | –                         | José Saramago      | Rui (returned), Ana (out)|
    /// | 4    | The Cave               | 307   | 2000      | –                         | José Saramago      |                          |
    /// | 5    | Invisible Cities       | 165   | 1972      | –                         | Italo Calvino      |                          |
    /// | 6    | Beowulf                | 100   | –         | A New Verse Translation   | –                  |                          |
    ///
    /// Authors: Le Guin (US), Saramago (PT), Calvino (IT), Anonymous (no country, no books).
    @discardableResult
    static func insertSample(into context: ModelContext) throws -> [String: Book] {
        let leGuin = Author(name: "Ursula K. Le Guin", country: "US")
        let saramago = Author(name: "José Saramago", country: "PT")
        let calvino = Author(name: "Italo Calvino", country: "IT")
        let anonymous = Author(name: "Anonymous")
        let books = [
            Book(isbn: "1", title: "The Dispossessed", pages: 387, published: year(1974), subtitle: "An Ambiguous Utopia", author: leGuin),
            Book(isbn: "2", title: "A Wizard of Earthsea", pages: 183, published: year(1968), author: leGuin),
            Book(isbn: "3", title: "Blindness", pages: 352, published: year(1995), author: saramago),
            Book(isbn: "4", title: "The Cave", pages: 307, published: year(2000), author: saramago),
            Book(isbn: "5", title: "Invisible Cities", pages: 165, published: year(1972), author: calvino),
            Book(isbn: "6", title: "Beowulf", pages: 100, subtitle: "A New Verse Translation"),
        ]
        books[0].loans = [Loan(borrower: "Ana", due: year(2030))]
        books[2].loans = [Loan(borrower: "Rui", due: year(2029), returned: true), Loan(borrower: "Ana", due: year(2031))]
        for book in books { context.insert(book) }
        context.insert(anonymous)
        try context.save()
        return Dictionary(uniqueKeysWithValues: books.map { ($0.title, $0) })
    }
}
