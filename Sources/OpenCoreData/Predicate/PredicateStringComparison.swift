import Foundation

/// The one definition of string comparison in predicates, sort descriptors and (later) the SQLite store.
///
/// Apple defines `[c]` and `[d]` as Foundation's non-localized `compare(_:options:)` with `.caseInsensitive` and
/// `.diacriticInsensitive`. swift-corelibs-foundation gets several cases wrong or inconsistent on Linux (checked with
/// Swift 6.3.1: supplementary-plane letters such as Deseret `𐐨`/`𐐀` never compare equal case-insensitively, `ᾳ` is not
/// equal to its folding `αι` although `folding(options:)` says it is, and precomposed `آ`/`が` keep their marks under
/// `.diacriticInsensitive` while the decomposed spellings lose them). This type implements the documented semantics
/// deterministically, from the Unicode data built into the Swift standard library:
///
/// 0. Without `[c]` or `[d]`, strings compare literally: scalar by scalar as stored (`"é" != "e\u{301}"`), as
///    `NSString.isEqual(_:)` and SQLite stores do; the order is that of the UTF-8 bytes.
/// 1. With `[c]` or `[d]`, canonical decomposition (NFD) first, so canonically equivalent strings are equal.
/// 2. `[c]`: full Unicode case folding (`ß` and `ẞ` → `ss`, `ﬁ` → `fi`, `ς` → `σ`, `ǅ` → `ǆ`, `İ` → `i̇`; dotless
///    `ı` has no folding and stays distinct from `I` and `i`).
/// 3. `[d]`: removal of every nonspacing or enclosing mark (General_Category Mn or Me) after decomposition
///    (`é` → `e`, `ü` → `u`, `が` → `か`); letters without a decomposition keep their identity (`Ø`, `Æ`, `ı`).
///
/// The folded key (``fold(_:options:)``) orders by Unicode scalar value, which is also the byte order of its UTF-8
/// encoding, so a SQL `BINARY` collation over folded keys agrees with ``compare(_:_:options:)``.
///
/// ```swift
/// PredicateStringComparison.compare("Straße", "STRASSE", options: .caseInsensitive) // .orderedSame
/// PredicateStringComparison.fold("Crème Brûlée", options: [.caseInsensitive, .diacriticInsensitive]) // "creme brulee"
/// ```
///
/// `[n]` (``NSComparisonPredicate/Options/normalized``) means the caller has already folded both strings: they are
/// compared scalar by scalar and `[c]`/`[d]` are ignored. `[l]` (``NSComparisonPredicate/Options/localeSensitive``)
/// switches to Foundation's locale-aware comparison with the current locale.
public enum PredicateStringComparison {
    /// Compares two strings with predicate options; see the type's documentation for the exact rules.
    ///
    /// ```swift
    /// PredicateStringComparison.compare("a", "B", options: [])               // .orderedDescending (scalar order)
    /// PredicateStringComparison.compare("a", "B", options: .caseInsensitive) // .orderedAscending
    /// ```
    public static func compare(_ lhs: String, _ rhs: String, options: NSComparisonPredicate.Options) -> ComparisonResult {
        if options.contains(.localeSensitive) && !options.contains(.normalized) {
            return lhs.compare(rhs, options: foundationOptions(options), range: nil, locale: Locale.current)
        }
        let a = foldedScalars(lhs, options: options)
        let b = foldedScalars(rhs, options: options)
        for (x, y) in zip(a, b) where x != y {
            return x < y ? .orderedAscending : .orderedDescending
        }
        return a.count == b.count ? .orderedSame : (a.count < b.count ? .orderedAscending : .orderedDescending)
    }

    /// The folded key of a string: equal keys mean equal strings under `options`, and keys sort as
    /// ``compare(_:_:options:)`` does. Prefix, suffix and substring tests on keys are the `BEGINSWITH`, `ENDSWITH`
    /// and `CONTAINS` of predicates (subject to composed-character boundaries, see ``contains(_:_:options:)``).
    ///
    /// ```swift
    /// PredicateStringComparison.fold("ÜBER", options: [.caseInsensitive, .diacriticInsensitive]) // "uber"
    /// ```
    public static func fold(_ string: String, options: NSComparisonPredicate.Options) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: foldedScalars(string, options: options))
        return String(result)
    }

    /// Whether two strings are equal under `options` (`==[cd]`).
    ///
    /// ```swift
    /// PredicateStringComparison.equal("Québec", "quebec", options: [.caseInsensitive, .diacriticInsensitive]) // true
    /// ```
    public static func equal(_ lhs: String, _ rhs: String, options: NSComparisonPredicate.Options) -> Bool {
        if options.isEmpty { return lhs.unicodeScalars.elementsEqual(rhs.unicodeScalars) }
        return compare(lhs, rhs, options: options) == .orderedSame
    }

    /// `BEGINSWITH`: whether `string` starts with `prefix` under `options`. An empty prefix never matches (Apple).
    ///
    /// ```swift
    /// PredicateStringComparison.hasPrefix("straße", "STRAS", options: .caseInsensitive) // true
    /// ```
    public static func hasPrefix(_ string: String, _ prefix: String, options: NSComparisonPredicate.Options) -> Bool {
        if prefix.isEmpty { return false }
        if options.contains(.localeSensitive) && !options.contains(.normalized) {
            return string.range(of: prefix, options: foundationOptions(options).union(.anchored), locale: Locale.current) != nil
        }
        let s = foldedScalars(string, options: options), p = foldedScalars(prefix, options: options)
        guard !p.isEmpty, p.count <= s.count, s.starts(with: p) else { return false }
        return isBoundary(s, p.count)
    }

    /// `ENDSWITH`: whether `string` ends with `suffix` under `options`. An empty suffix never matches (Apple).
    ///
    /// ```swift
    /// PredicateStringComparison.hasSuffix("café", "E", options: .caseInsensitive) // false: é is not e under [c]
    /// ```
    public static func hasSuffix(_ string: String, _ suffix: String, options: NSComparisonPredicate.Options) -> Bool {
        if suffix.isEmpty { return false }
        if options.contains(.localeSensitive) && !options.contains(.normalized) {
            let found = string.range(of: suffix, options: foundationOptions(options).union([.anchored, .backwards]), locale: Locale.current)
            return found != nil
        }
        let s = foldedScalars(string, options: options), p = foldedScalars(suffix, options: options)
        guard !p.isEmpty, p.count <= s.count, s[(s.count - p.count)...].elementsEqual(p) else { return false }
        return isBoundary(s, s.count - p.count)
    }

    /// `CONTAINS` on strings: whether `string` contains `substring` under `options`, at composed-character
    /// boundaries (`"café" CONTAINS "e"` is false: the `e` carries an accent). An empty substring never matches (Apple).
    ///
    /// ```swift
    /// PredicateStringComparison.contains("HELLO", "ll", options: .caseInsensitive) // true
    /// ```
    public static func contains(_ string: String, _ substring: String, options: NSComparisonPredicate.Options) -> Bool {
        if substring.isEmpty { return false }
        if options.contains(.localeSensitive) && !options.contains(.normalized) {
            return string.range(of: substring, options: foundationOptions(options), locale: Locale.current) != nil
        }
        let s = foldedScalars(string, options: options), p = foldedScalars(substring, options: options)
        guard !p.isEmpty, p.count <= s.count else { return false }
        var start = 0
        while start + p.count <= s.count {
            if s[start] == p[0], s[start..<(start + p.count)].elementsEqual(p),
               isBoundary(s, start), isBoundary(s, start + p.count) {
                return true
            }
            start += 1
        }
        return false
    }

    // MARK: Folding

    /// The folded scalars (see the type's documentation).
    static func foldedScalars(_ string: String, options: NSComparisonPredicate.Options) -> [Unicode.Scalar] {
        // Without [c] or [d] the comparison is literal, scalar by scalar as stored — the order of UTF-8 bytes, which
        // is how SQLite stores compare (`=`, `<`, `ORDER BY`), so every store agrees.
        if options.contains(.normalized) || options.isDisjoint(with: [.caseInsensitive, .diacriticInsensitive]) {
            return Array(string.unicodeScalars)
        }
        if string.unicodeScalars.allSatisfy({ $0.isASCII }) {
            // Fast path: ASCII has no decompositions or marks, and its case folding is lowercasing.
            guard options.contains(.caseInsensitive) else { return Array(string.unicodeScalars) }
            return string.unicodeScalars.map { scalar in
                (scalar.value >= 65 && scalar.value <= 90) ? Unicode.Scalar(scalar.value + 32)! : scalar
            }
        }
        var scalars = Array(string.decomposedStringWithCanonicalMapping.unicodeScalars)
        if options.contains(.caseInsensitive) {
            var folded: [Unicode.Scalar] = []
            folded.reserveCapacity(scalars.count)
            var changed = false
            for scalar in scalars {
                if scalar.properties.changesWhenCaseFolded {
                    folded.append(contentsOf: caseFold(scalar))
                    changed = true
                } else {
                    folded.append(scalar)
                }
            }
            if changed {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: folded)
                scalars = Array(String(view).decomposedStringWithCanonicalMapping.unicodeScalars)
            }
        }
        if options.contains(.diacriticInsensitive) {
            scalars.removeAll { isDiacritic($0) }
        }
        return scalars
    }

    /// Full case folding of one scalar: lower-casing of the upper-casing, repeated until stable. This yields the
    /// Unicode full case folding (`CaseFolding.txt` statuses C and F) for every scalar that changes when case folded,
    /// except that Cherokee folds to lower case instead of upper case — which gives the same equivalence classes.
    static func caseFold(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        var current = String(scalar)
        for _ in 0..<4 {
            var next = ""
            for s in current.unicodeScalars { next += s.properties.uppercaseMapping }
            var lowered = ""
            for s in next.unicodeScalars { lowered += s.properties.lowercaseMapping }
            if lowered == current { break }
            current = lowered
        }
        return Array(current.unicodeScalars)
    }

    /// A nonspacing or enclosing mark: what `[d]` removes.
    static func isDiacritic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// A mark that continues the preceding character (Mn, Mc, Me): matches may not start or end before one.
    static func isCombining(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: return true
        default: return false
        }
    }

    /// Whether `index` in `scalars` is a composed-character boundary (not just before a combining mark).
    static func isBoundary(_ scalars: [Unicode.Scalar], _ index: Int) -> Bool {
        index >= scalars.count || index == 0 || !isCombining(scalars[index])
    }

    static func foundationOptions(_ options: NSComparisonPredicate.Options) -> String.CompareOptions {
        var result: String.CompareOptions = []
        if options.contains(.caseInsensitive) { result.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { result.insert(.diacriticInsensitive) }
        return result
    }
}
