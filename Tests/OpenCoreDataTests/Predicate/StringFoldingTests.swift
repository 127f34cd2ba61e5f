import Testing
@testable import OpenCoreData

/// The folding rules of `[c]`, `[d]` and `[cd]` (``PredicateStringComparison``). Expected values follow Unicode's
/// CaseFolding.txt (statuses C+F) and canonical decompositions, not the implementation.
@Suite("Predicate string folding")
struct StringFoldingTests {
    typealias S = PredicateStringComparison
    let c: NSComparisonPredicate.Options = .caseInsensitive
    let d: NSComparisonPredicate.Options = .diacriticInsensitive
    let cd: NSComparisonPredicate.Options = [.caseInsensitive, .diacriticInsensitive]

    @Test func fullCaseFolding() {
        #expect(S.equal("straße", "STRASSE", options: c))
        #expect(S.equal("ẞ", "ss", options: c))
        #expect(S.equal("ﬁ", "FI", options: c))
        #expect(S.equal("σίσυφος", "ΣΊΣΥΦΟΣ", options: c), "final sigma folds to sigma")
        #expect(S.equal("ǅ", "ǆ", options: c))
        #expect(S.equal("ᾳ", "αι", options: c))
        #expect(S.equal("𐐨", "𐐀", options: c), "supplementary-plane letters fold too (Foundation on Linux misses this)")
        #expect(S.equal("K", "k", options: c), "Kelvin sign")
        #expect(!S.equal("ı", "I", options: c), "dotless i has no case folding")
        #expect(!S.equal("ı", "i", options: cd))
        #expect(S.equal("İ", "i\u{307}", options: c))
        #expect(S.equal("İ", "i", options: cd))
        #expect(!S.equal("é", "E", options: c), "[c] alone keeps accents")
        #expect(S.hasPrefix("straße", "STRAS", options: c), "a prefix may end inside a folded ß")
    }

    @Test func diacriticFolding() {
        #expect(S.equal("Québec", "Quebec", options: d))
        #expect(!S.equal("é", "e\u{301}", options: []), "without options strings compare literally, as SQLite stores do")
        #expect(S.compare("Émile", "Zoë", options: []) == .orderedDescending, "literal order is UTF-8 byte order")
        #expect(S.equal("é", "e\u{301}", options: .caseInsensitive), "with [c] or [d], canonically equivalent strings are equal")
        #expect(S.equal("ñandú", "nandu", options: d))
        #expect(S.equal("が", "か", options: d), "precomposed and decomposed spellings fold alike")
        #expect(S.equal("آ", "ا", options: d))
        #expect(!S.equal("Ø", "O", options: cd), "Ø has no decomposition")
        #expect(!S.equal("Æ", "AE", options: cd))
        #expect(!S.equal("ü", "u", options: c))
        #expect(S.fold("Crème Brûlée", options: cd) == "creme brulee")
    }

    @Test func normalizedOptionComparesAsIs() {
        #expect(!S.equal("é", "e", options: [.normalized, .diacriticInsensitive]))
        #expect(!S.equal("a", "A", options: [.normalized, .caseInsensitive]))
        #expect(S.equal("abc", "abc", options: .normalized))
    }

    @Test func orderingIsByFoldedScalarsAndMatchesUTF8ByteOrder() {
        #expect(S.compare("a", "B", options: []) == .orderedDescending)
        #expect(S.compare("a", "B", options: c) == .orderedAscending)
        #expect(S.compare("é", "f", options: []) == .orderedDescending, "without options: literal, U+00E9 after f")
        #expect(S.compare("é", "f", options: d) == .orderedAscending, "under [d], é sorts with e")
        #expect(S.compare("abc", "abcd", options: []) == .orderedAscending)
        let words = ["Zebra", "apple", "Äpfel", "éclair", "eclair", "𐐀", "ß", "ss", "Straße"]
        for a in words {
            for b in words {
                let byKey = Array(S.fold(a, options: cd).utf8).lexicographicallyPrecedes(Array(S.fold(b, options: cd).utf8))
                #expect((S.compare(a, b, options: cd) == .orderedAscending) == byKey, "\(a) vs \(b)")
            }
        }
    }

    @Test func predicatesUseTheFolding() throws {
        #expect(NSPredicate(format: "SELF ==[c] 'STRASSE'").evaluate(with: "straße"))
        #expect(NSPredicate(format: "SELF BEGINSWITH[cd] 'em'").evaluate(with: "Émile"))
        #expect(NSPredicate(format: "SELF LIKE[cd] 'creme brulee'").evaluate(with: "Crème Brûlée"))
        #expect(!NSPredicate(format: "SELF CONTAINS[d] 'o'").evaluate(with: "Ø"))
        #expect(!NSPredicate(format: "SELF ENDSWITH[c] 'E'").evaluate(with: "café"))
        #expect(NSPredicate(format: "SELF ENDSWITH[cd] 'E'").evaluate(with: "café"))
        #expect(NSPredicate(format: "SELF <[c] 'b'").evaluate(with: "A"))
        #expect(NSPredicate(format: "SELF MATCHES[d] 'cafe'").evaluate(with: "café"))
    }

    @Test func localeSensitiveOptionUsesFoundation() {
        // [l] delegates to Foundation's locale-aware comparison: case still matters without [c].
        #expect(S.equal("abc", "abc", options: .localeSensitive))
        #expect(S.equal("ABC", "abc", options: [.localeSensitive, .caseInsensitive]))
        #expect(NSPredicate(format: "SELF CONTAINS[cl] 'B'").evaluate(with: "abc"))
    }
}
