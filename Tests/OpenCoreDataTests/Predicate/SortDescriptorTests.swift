import Testing
@testable import OpenCoreData

private struct Book: KeyPathNaming {
    var title: String
    var pages: Int
    var subtitle: String { title + "!" }
    static func keyPathString(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Book.title: return "title"
        case \Book.pages: return "pages"
        case \Book.subtitle: return "subtitle"
        default: return nil
        }
    }
}

@Suite("Sort descriptors")
struct SortDescriptorTests {
    private func sortedNames(_ names: [String], _ selector: String, ascending: Bool = true) -> [String] {
        let descriptor = NSSortDescriptor(key: "name", ascending: ascending, selector: Selector(selector))
        return names.map { ["name": $0] }.sorted(using: [descriptor]).map { $0["name"]! }
    }

    @Test func compareSelectorUsesScalarOrder() {
        // compare: is non-localized: upper-case letters (U+0041…) sort before lower-case ones (U+0061…).
        #expect(sortedNames(["b", "B", "a", "A"], "compare:") == ["A", "B", "a", "b"])
        #expect(sortedNames(["b", "B", "a", "A"], "compare:", ascending: false) == ["b", "a", "B", "A"])
    }

    @Test func caseInsensitiveCompareFoldsCase() {
        // Equal under folding keeps the original order (the sort is stable).
        #expect(sortedNames(["b", "B", "a", "A"], "caseInsensitiveCompare:") == ["a", "A", "b", "B"])
        #expect(sortedNames(["straße", "STRASSE", "strasse"], "caseInsensitiveCompare:") == ["straße", "STRASSE", "strasse"])
    }

    @Test func localizedCompareUsesCollation() {
        // Collation orders by letter first (a before B), unlike compare:.
        let result = sortedNames(["B", "a", "b", "A"], "localizedCompare:")
        #expect(result.map { $0.lowercased() } == ["a", "a", "b", "b"])
        #expect(Set(result.prefix(2)) == ["a", "A"])
    }

    @Test func localizedCaseInsensitiveCompareIgnoresCase() {
        #expect(sortedNames(["b", "A", "a", "B"], "localizedCaseInsensitiveCompare:") == ["A", "a", "b", "B"])
    }

    @Test func localizedStandardCompareSortsNumbersNumerically() {
        #expect(sortedNames(["file10", "file9", "file1"], "localizedStandardCompare:") == ["file1", "file9", "file10"])
        #expect(sortedNames(["file10", "file9", "file1"], "compare:") == ["file1", "file10", "file9"])
    }

    @Test func numbersDatesAndNilFirst() {
        let rows: [[String: Any]] = [["v": 3], ["v": 1.5], [:], ["v": NSNumber(value: 2)], ["v": NSNull()]]
        let ascending = rows.sorted(using: [NSSortDescriptor(key: "v", ascending: true)])
        #expect(ascending.map { ($0["v"] as? NSNumber)?.doubleValue ?? ($0["v"] as? Double) ?? ($0["v"] as? Int).map(Double.init) }
                == [nil, nil, 1.5, 2, 3])
        let dates = [Date(timeIntervalSince1970: 5), Date(timeIntervalSince1970: 1)]
        #expect(dates.sorted(using: [NSSortDescriptor(key: nil, ascending: true)]) == dates.reversed())
    }

    @Test func severalDescriptorsAndStability() {
        let people: [[String: Any]] = [["n": "b", "a": 1], ["n": "a", "a": 2], ["n": "b", "a": 0], ["n": "a", "a": 2]]
        let sorted = people.sorted(using: [NSSortDescriptor(key: "n", ascending: true), NSSortDescriptor(key: "a", ascending: false)])
        #expect(sorted.map { "\($0["n"]!)\($0["a"]!)" } == ["a2", "a2", "b1", "b0"])
        let reversed = NSSortDescriptor(key: "n", ascending: true).reversedSortDescriptor as? NSSortDescriptor
        #expect(reversed?.ascending == false && reversed?.key == "n")
    }

    @Test func comparatorAndCompareTo() {
        let byLength = NSSortDescriptor(key: nil, ascending: true) { a, b in
            let x = (a as! String).count, y = (b as! String).count
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        #expect(["ccc", "a", "bb"].sorted(using: [byLength]) == ["a", "bb", "ccc"])
        #expect(byLength.selector == nil)
        let byAge = NSSortDescriptor(key: "age", ascending: true)
        #expect(byAge.compare(["age": 3], to: ["age": 5]) == .orderedAscending)
        #expect(byAge.selector == Selector("compare:"))
        #expect(throws: (any Error).self) {
            try NSSortDescriptor(key: "n", ascending: true, selector: "caseInsensitiveCompare:").compareThrowing(["n": 1], to: ["n": 2])
        }
        #expect(throws: (any Error).self) {
            try NSSortDescriptor(key: "n", ascending: true, selector: "unknownCompare:").compareThrowing(["n": 1], to: ["n": 2])
        }
    }

    @Test func keyPathDescriptorsUseKeyPathNaming() {
        let byTitle = NSSortDescriptor(keyPath: \Book.title, ascending: true)
        #expect(byTitle.key == "title")
        #expect(NSSortDescriptor(keyPath: \Book.subtitle, ascending: false).key == "subtitle")
        // Without a name the descriptor still sorts values of the root type through the key path.
        let byCount = NSSortDescriptor(keyPath: \String.count, ascending: true)
        #expect(byCount.key == nil)
        #expect(["ccc", "a", "bb"].sorted(using: [byCount]) == ["a", "bb", "ccc"])
    }

    @Test func foundationCollections() {
        let descending = [NSSortDescriptor(key: nil, ascending: false)]
        #expect(NSArray(array: [1, 3, 2]).sortedArray(using: descending).compactMap { $0 as? Int } == [3, 2, 1])
        let mutable = NSMutableArray(array: [1, 3, 2])
        mutable.sort(using: descending)
        #expect(mutable.compactMap { $0 as? Int } == [3, 2, 1])
        #expect(NSSet(array: [1, 3, 2]).sortedArray(using: descending).compactMap { ($0 as? NSNumber)?.intValue ?? $0 as? Int } == [3, 2, 1])
        var numbers = [2, 1, 3]
        numbers.sort(using: [NSSortDescriptor(key: nil, ascending: true)])
        #expect(numbers == [1, 2, 3])
        #expect(NSSortDescriptor(key: "a", ascending: true) == NSSortDescriptor(key: "a", ascending: true))
        #expect(NSSortDescriptor(key: "a", ascending: true).description == "(a, ascending, compare:)")
    }

    @Test func selectorSpellings() {
        let literal: Selector = "localizedStandardCompare:"
        #expect(literal == Selector("localizedStandardCompare:"))
        #expect(NSStringFromSelector(NSSelectorFromString("compare:")) == "compare:")
        #expect(Set([Selector("a:"), Selector("a:")]).count == 1)
    }
}
