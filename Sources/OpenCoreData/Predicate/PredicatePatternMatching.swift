import Foundation

/// `LIKE` (glob with `*`, `?` and `\` escapes) and `MATCHES` (ICU regular expressions through
/// `NSRegularExpression`), both matching the whole string.
enum PredicatePatternMatching {
    // MARK: LIKE

    /// Whether `string` matches the `LIKE` pattern under `options`: `*` matches any run of characters, `?` exactly one
    /// character (a base character with its combining marks), `\` makes the next character literal.
    ///
    /// Both sides are folded with ``PredicateStringComparison`` first, so `[c]` and `[d]` mean what they mean for
    /// `==`; the match runs in linear space and O(n·m) time, whatever the pattern.
    static func like(_ string: String, pattern: String, options: NSComparisonPredicate.Options) -> Bool {
        let foldOptions = options.subtracting(.localeSensitive)
        let subject = clusters(PredicateStringComparison.foldedScalars(string, options: foldOptions))
        enum Token: Equatable { case literal([Unicode.Scalar]), any, one }
        var tokens: [Token] = []
        let patternScalars = Array(pattern.unicodeScalars)
        var i = 0
        var literal = String.UnicodeScalarView()
        func flushLiteral() {
            guard !literal.isEmpty else { return }
            let folded = PredicateStringComparison.foldedScalars(String(literal), options: foldOptions)
            for cluster in clusters(folded) { tokens.append(.literal(cluster)) }
            literal = String.UnicodeScalarView()
        }
        while i < patternScalars.count {
            let c = patternScalars[i]
            if c == "\\", i + 1 < patternScalars.count {
                literal.append(patternScalars[i + 1])
                i += 2
                continue
            }
            if c == "*" || c == "?" {
                flushLiteral()
                if c == "*" {
                    if tokens.last != .any { tokens.append(.any) }
                } else {
                    tokens.append(.one)
                }
            } else {
                literal.append(c)
            }
            i += 1
        }
        flushLiteral()
        // Classic two-pointer wildcard matching with backtracking to the last `*`.
        var s = 0, t = 0
        var starToken = -1, starSubject = 0
        while s < subject.count {
            if t < tokens.count {
                switch tokens[t] {
                case .one:
                    s += 1; t += 1; continue
                case .literal(let cluster) where cluster == subject[s]:
                    s += 1; t += 1; continue
                case .any:
                    starToken = t; starSubject = s; t += 1; continue
                default:
                    break
                }
            }
            guard starToken >= 0 else { return false }
            t = starToken + 1
            starSubject += 1
            s = starSubject
        }
        while t < tokens.count, tokens[t] == .any { t += 1 }
        return t == tokens.count
    }

    /// Splits scalars into base characters with their following combining marks.
    static func clusters(_ scalars: [Unicode.Scalar]) -> [[Unicode.Scalar]] {
        var result: [[Unicode.Scalar]] = []
        for scalar in scalars {
            if PredicateStringComparison.isCombining(scalar), !result.isEmpty {
                result[result.count - 1].append(scalar)
            } else {
                result.append([scalar])
            }
        }
        return result
    }

    // MARK: MATCHES

    private struct RegexKey: Hashable {
        let pattern: String
        let caseInsensitive: Bool
    }

    /// Compiled expressions, shared by all threads (NSRegularExpression is immutable and thread-safe).
    private static let cache = RegexCache()

    /// The cache behind an NSLock, not a `Synchronization.Mutex`, which the thread sanitizer cannot see on Linux
    /// (Support/Locked.swift explains; this layer keeps its own lock so that it depends on nothing else).
    private final class RegexCache: @unchecked Sendable {
        // @unchecked Sendable: `expressions` is read and written only while holding `lock`.
        private let lock = NSLock()
        private var expressions: [RegexKey: NSRegularExpression] = [:]

        func withLock<R>(_ body: (inout [RegexKey: NSRegularExpression]) -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body(&expressions)
        }
    }

    /// Whether the whole of `string` matches the ICU regular expression `pattern`. `[c]` matches case-insensitively;
    /// `[d]` removes diacritics from both the string and the pattern first. An invalid pattern throws.
    static func matches(_ string: String, pattern: String, options: NSComparisonPredicate.Options) throws -> Bool {
        var subject = string
        var source = pattern
        if options.contains(.diacriticInsensitive) && !options.contains(.normalized) {
            subject = PredicateStringComparison.fold(subject, options: .diacriticInsensitive)
            source = PredicateStringComparison.fold(source, options: .diacriticInsensitive)
        }
        let key = RegexKey(pattern: source, caseInsensitive: options.contains(.caseInsensitive) && !options.contains(.normalized))
        let expression: NSRegularExpression
        if let cached = cache.withLock({ $0[key] }) {
            expression = cached
        } else {
            do {
                expression = try NSRegularExpression(pattern: "(?:" + source + ")\\z",
                                                     options: key.caseInsensitive ? [.caseInsensitive] : [])
            } catch {
                throw PredicateError.evaluation("invalid regular expression \"\(pattern)\" for MATCHES")
            }
            cache.withLock { cache in
                if cache.count > 512 { cache.removeAll() }
                cache[key] = expression
            }
        }
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return expression.firstMatch(in: subject, options: [.anchored], range: range) != nil
    }
}
