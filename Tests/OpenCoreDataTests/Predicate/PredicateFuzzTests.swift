import Testing
@testable import OpenCoreData

/// Random and mutated format strings: every one parses or throws (none crashes), and every one that parses prints to a
/// string that parses back to the same structure and prints identically. 100,000 strings per run by default; set
/// `OPENCOREDATA_FUZZ_ITERATIONS` for longer runs.
@Suite("Predicate fuzzing")
struct PredicateFuzzTests {
    static let iterations = Int(ProcessInfo.processInfo.environment["OPENCOREDATA_FUZZ_ITERATIONS"] ?? "") ?? 100_000

    static let seeds: [String] = {
        var formats = [
            "name == 'Ben' AND age >= 18", "ANY kids.age < %d", "SUBQUERY(items, $x, $x.price > 6).@count == 2",
            "TERNARY(a > 1, 'x', \"y\") == 'x'", "(a + b) * 2 ** 3 >= -4.5e-1", "%K BEGINSWITH[cd] %@", "a IN {1, 2, 'three'}",
            "NOT (x == nil OR y != NIL)", "SELF[FIRST] == 1 || SELF[SIZE] > 0x1F", "sum:({1, 2}) == modulus:by:(7, 2)",
            "CAST(591580800.000000, 'NSDate') < now()", "FUNCTION(name, 'uppercaseString') LIKE[c] '*A?'", "#like == $v",
            "items.@avg.price BETWEEN {1, 10}", "a UNION b == c", "ALL tags MATCHES '[a-z]+'", "x == '\\u00e9\\x41\\101'",
            "TRUEPREDICATE AND FALSEPREDICATE", "NONE a.b.c == 1", "(SELF.h)['A'] == 1", "$a.$b == 'ABC'",
            "-x == ~1 & 2 | 3 ^ 4 << 1 >> 1", "average({1, 2}) == median({3})", "x UTI-CONFORMS-TO 'public.text'",
        ]
        let corpus = PredicateCorpusTests.corpusFile
        if let text = try? String(contentsOf: corpus, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                if let format = (try? CorpusJSON.parse(String(line)))?["format"]?.string { formats.append(format) }
            }
        }
        return formats
    }()

    static let tokens = ["a", "b.c", "SELF", "$v", "%@", "%K", "%d", "%f", "%s", "'s'", "\"q\\\"\"", "1", "-2.5", "0x1F",
                         "==", "!=", "<", ">=", "=<", "<>", "AND", "OR", "NOT", "&&", "||", "!", "(", ")", "{", "}", "[", "]",
                         ",", ".", "+", "-", "*", "/", "**", "&", "|", "^", "<<", "~", "ANY", "ALL", "NONE", "IN", "LIKE",
                         "CONTAINS[cd]", "BEGINSWITH", "MATCHES", "BETWEEN", "TRUE", "nil", "FIRST", "SUBQUERY(", "TERNARY(",
                         "FUNCTION(", "CAST(", "sum:(", "now()", "@count", "#size", "UNION", ":=", "?", "\\", "'", "\"", "\0",
                         "é", "👍", "TRUEPREDICATE", "FETCH", "ANYKEY", "UTI-EQUALS", "9999999999999999999999", "1e999"]
    static let characters: [Character] = Array("()[]{},.'\"\\$%@#!=<>&|^~*/+-:?0123456789abcxyzACDKNS \t\n\0é👍")
    static var arguments: [Any] { ["k", 3, 2.5, "text", [1, 2], Date(timeIntervalSinceReferenceDate: 5), NSNull(), "x", true, 7] }

    static func mutate(_ text: String, _ random: inout SeededRandom) -> String {
        var characters = Array(text)
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let position = characters.isEmpty ? 0 : Int.random(in: 0..<characters.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !characters.isEmpty: characters.remove(at: position)
            case 1: characters.insert(random.pick(Self.characters), at: position)
            case 2 where !characters.isEmpty: characters[position] = random.pick(Self.characters)
            case 3: characters.insert(contentsOf: Array(" " + random.pick(Self.tokens) + " "), at: position)
            case 4 where characters.count > 2:
                let end = Int.random(in: position...characters.count, using: &random)
                characters.insert(contentsOf: characters[position..<end], at: position)
            default: characters = Array(characters.prefix(position))
            }
        }
        return String(characters)
    }

    static func randomTokens(_ random: inout SeededRandom) -> String {
        (0..<Int.random(in: 1...12, using: &random)).map { _ in random.pick(Self.tokens) }.joined(separator: " ")
    }

    @Test func randomAndMutatedFormatStrings() throws {
        var random = SeededRandom(seed: 20_241_122)
        let start = Date()
        var parsed = 0
        let arguments = Self.arguments
        for iteration in 0..<Self.iterations {
            let text = iteration % 3 == 0 ? Self.randomTokens(&random) : Self.mutate(random.pick(Self.seeds), &random)
            let asExpression = iteration % 10 == 9
            if asExpression {
                guard let expression = try? NSExpression(validatingFormat: text, argumentArray: arguments) else { continue }
                parsed += 1
                let printed = expression.description
                let reparsed = try? NSExpression(validatingFormat: printed, argumentArray: nil)
                #expect(reparsed?.description == printed, "\(text) printed as \(printed), which does not round-trip")
                #expect(reparsed == expression, "\(text): the round trip changed the structure")
            } else {
                guard let predicate = try? NSPredicate(validatingFormat: text, argumentArray: arguments) else { continue }
                parsed += 1
                let printed = predicate.predicateFormat
                let reparsed = try? NSPredicate(validatingFormat: printed, argumentArray: nil)
                #expect(reparsed?.predicateFormat == printed, "\(text) printed as \(printed), which does not round-trip")
                #expect(reparsed == predicate, "\(text): the round trip changed the structure")
                // Evaluation never crashes either (throwing is fine).
                _ = try? predicate.evaluateThrowing(with: ["a": 1, "b": ["c": 2], "name": "x", "tags": ["a"]],
                                                    substitutionVariables: ["v": 1, "a": [1], "b": 0])
            }
        }
        let seconds = Date().timeIntervalSince(start)
        print("Predicate fuzzing: \(Self.iterations) format strings, \(parsed) parsed and round-tripped, in \(String(format: "%.1f", seconds)) s")
        #expect(parsed > Self.iterations / 20, "the fuzzer should produce a fair share of valid strings")
    }
}
