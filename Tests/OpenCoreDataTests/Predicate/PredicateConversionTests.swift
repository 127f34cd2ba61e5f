import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPredicate

/// Adopts KeyPathNaming (and KeyValueCoding) by hand, as managed objects will.
private struct Author: KeyPathComponentNaming, KeyValueCoding {
    var name: String
    var age: Int
    var nickname: String?
    var tags: [String]
    var books: [Novel]
    var favorite: Novel

    static var namedKeyPaths: [AnyKeyPath] { [\Author.name, \Author.age, \Author.nickname, \Author.tags, \Author.books, \Author.favorite] }
    static func keyPathString(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Author.name: return "name"
        case \Author.age: return "age"
        case \Author.nickname: return "nickname"
        case \Author.tags: return "tags"
        case \Author.books: return "books"
        case \Author.favorite: return "favorite"
        default: return nil
        }
    }
    func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "age": return age
        case "nickname": return nickname
        case "tags": return tags
        case "books": return books
        case "favorite": return favorite
        default: return nil
        }
    }
}

private struct Novel: KeyPathComponentNaming, KeyValueCoding {
    var title: String
    var pages: Int
    static var namedKeyPaths: [AnyKeyPath] { [\Novel.title, \Novel.pages] }
    static func keyPathString(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Novel.title: return "title"
        case \Novel.pages: return "pages"
        default: return nil
        }
    }
    func value(forKey key: String) -> Any? {
        key == "title" ? title : (key == "pages" ? pages : nil)
    }
}

private struct Unnamed {
    var value: Int { 1 }
}

@Suite("#Predicate conversion")
struct PredicateConversionTests {
    fileprivate let authors = [
        Author(name: "Ann", age: 40, nickname: "A", tags: ["sf", "poetry"],
               books: [Novel(title: "Dune", pages: 412), Novel(title: "Emma", pages: 300)], favorite: Novel(title: "Dune", pages: 412)),
        Author(name: "Bob", age: 17, nickname: nil, tags: [], books: [], favorite: Novel(title: "Zed", pages: 10)),
        Author(name: "Cy", age: 65, nickname: "C", tags: ["sf"],
               books: [Novel(title: "Ubik", pages: 202)], favorite: Novel(title: "Ubik", pages: 202)),
    ]

    /// Converts, checks the printed form, and checks that NSPredicate and Foundation's Predicate agree on every author.
    private func check(_ predicate: Predicate<Author>, _ expected: String) throws {
        let converted = try NSPredicate(converting: predicate)
        #expect(converted.predicateFormat == expected)
        for author in authors {
            #expect(try converted.evaluateThrowing(with: author) == predicate.evaluate(author), "\(expected) on \(author.name)")
        }
    }

    @Test func comparisonsAndLogic() throws {
        try check(#Predicate<Author> { $0.age >= 18 && $0.name != "Bob" }, "age >= 18 AND name != \"Bob\"")
        try check(#Predicate<Author> { $0.age < 20 || !($0.age > 50) }, "age < 20 OR NOT age > 50")
        try check(#Predicate<Author> { $0.age * 2 + 1 > 81 }, "(age * 2) + 1 > 81")
        try check(#Predicate<Author> { $0.age % 2 == 1 }, "modulus:by:(age, 2) == 1")
    }

    @Test func optionals() throws {
        try check(#Predicate<Author> { $0.nickname != nil }, "nickname != nil")
        try check(#Predicate<Author> { ($0.nickname ?? "none") == "none" }, "TERNARY(nickname != nil, nickname, \"none\") == \"none\"")
        try check(#Predicate<Author> { $0.nickname.flatMap { $0.count > 0 } == true }, "nickname != nil AND nickname.length > 0")
    }

    @Test func stringsAndCollections() throws {
        try check(#Predicate<Author> { $0.name.starts(with: "A") }, "name BEGINSWITH \"A\"")
        try check(#Predicate<Author> { $0.name.contains("y") }, "name CONTAINS \"y\"")
        try check(#Predicate<Author> { $0.tags.contains("sf") }, "\"sf\" IN tags")
        try check(#Predicate<Author> { $0.tags.isEmpty }, "tags.@count == 0")
        try check(#Predicate<Author> { $0.books.contains { $0.pages > 400 } },
                  "SUBQUERY(books, $_local_1, $_local_1.pages > 400).@count > 0")
        try check(#Predicate<Author> { $0.books.allSatisfy { $0.pages > 250 } },
                  "SUBQUERY(books, $_local_1, NOT $_local_1.pages > 250).@count == 0")
        try check(#Predicate<Author> { $0.books.filter { $0.pages > 250 }.count == 2 },
                  "SUBQUERY(books, $_local_1, $_local_1.pages > 250).@count == 2")
        try check(#Predicate<Author> { $0.favorite.title == "Dune" }, "favorite.title == \"Dune\"")
        try check(#Predicate<Author> { (18...64).contains($0.age) }, "age BETWEEN {18, 64}")
    }

    @Test func unconvertibleParts() throws {
        let unnamed = #Predicate<Unnamed> { $0.value == 1 }
        #expect(NSPredicate(unnamed) == nil)
        do {
            _ = try NSPredicate(converting: unnamed)
            Issue.record("an unnamed computed key path must not convert")
        } catch {
            #expect(error.localizedDescription.contains("KeyPathNaming"))
        }
        let cast = #Predicate<Author> { ($0.nickname as Any?) is String }
        do {
            _ = try NSPredicate(converting: cast)
            Issue.record("a type check must not convert")
        } catch {
            #expect(error.localizedDescription.contains("PredicateExpressions.TypeCheck"))
        }
    }

    @Test func keyPathNamingForDescriptorsAndExpressions() {
        #expect(NSExpression(forKeyPath: \Author.name).keyPath == "name")
        // Multi-component key paths are named component by component.
        #expect(NSSortDescriptor(keyPath: \Author.favorite.title, ascending: true).key == "favorite.title")
        #expect(KeyPathNames.string(for: \Author.favorite.pages) == "favorite.pages")
        #expect(KeyPathNames.string(for: \Unnamed.value) == nil)
        let sorted = authors.sorted(using: [NSSortDescriptor(keyPath: \Author.favorite.title, ascending: false)])
        #expect(sorted.map(\.name) == ["Bob", "Cy", "Ann"])
    }
}
