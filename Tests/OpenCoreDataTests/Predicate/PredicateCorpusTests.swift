import Testing
@testable import OpenCoreData

/// Runs the external conformance corpus (`../shared/corpus/predicates/cases.jsonl`): format strings, data and results
/// taken from test suites that ran against Apple's Foundation (and engines that emulate it).
@Suite("Predicate corpus")
struct PredicateCorpusTests {
    /// `<repo>/../shared/corpus/predicates/cases.jsonl`, found from this file (`<repo>/Tests/OpenCoreDataTests/Predicate/…`).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let corpusFile = repositoryRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/corpus/predicates/cases.jsonl")
    static let corpusAvailable: Bool = {
        let available = FileManager.default.fileExists(atPath: corpusFile.path)
        if !available { print("Predicate corpus not found at \(corpusFile.path): skipping the corpus tests.") }
        return available
    }()

    struct Outcome {
        let id: String
        let category: String
        let confidence: String
        let checksDescription: Bool
        let agreed: Bool
        let detail: String
    }

    static func run(_ line: String) throws -> Outcome {
        let json = try CorpusJSON.parse(line)
        let id = json["id"]?.string ?? "?"
        let category = String(id[..<(id.lastIndex(of: "-") ?? id.endIndex)])
        let confidence = json["confidence"]?.string ?? "?"
        let format = json["format"]?.string ?? ""
        let expected = json["expected"] ?? .null
        let checksDescription = expected["description"] != nil
        var problems: [String] = []
        var arguments: [Any] = []
        if case .array(let values)? = json["args"] { arguments = values.map { $0.decoded() ?? NSNull() } }
        let data = json["data"]?.decoded()
        let bindings = json["bindings"]?.decoded() as? [String: Any]
        let expectsParseError = expected["error"]?.string == "parse"
        let expectsEvaluateError = expected["error"]?.string == "evaluate"

        if json["kind"]?.string == "expression" {
            do {
                let expression = try NSExpression(validatingFormat: format, argumentArray: arguments)
                if expectsParseError { problems.append("parsed, expected a parse error: \(expression)") }
                if let want = expected["value"] {
                    let context = bindings.map { NSMutableDictionary(dictionary: $0) }
                    do {
                        let value = try expression.expressionValueThrowing(with: data, context: context)
                        if !CorpusJSON.matches(value, want) { problems.append("value \(String(describing: value)), expected \(want)") }
                    } catch {
                        problems.append("evaluation failed: \(error.localizedDescription)")
                    }
                }
            } catch {
                if !expectsParseError { problems.append("parse failed: \(error.localizedDescription)") }
            }
            return Outcome(id: id, category: category, confidence: confidence, checksDescription: checksDescription,
                           agreed: problems.isEmpty, detail: problems.joined(separator: "; "))
        }

        let predicate: NSPredicate
        do {
            predicate = try NSPredicate(validatingFormat: format, argumentArray: arguments)
        } catch {
            if !expectsParseError { problems.append("parse failed: \(error.localizedDescription)") }
            return Outcome(id: id, category: category, confidence: confidence, checksDescription: checksDescription,
                           agreed: problems.isEmpty, detail: problems.joined(separator: "; "))
        }
        if expectsParseError { problems.append("parsed as \(predicate.predicateFormat), expected a parse error") }
        var subject = predicate
        if let substitution = json["substitute"]?.decoded() as? [String: Any] {
            subject = predicate.withSubstitutionVariables(substitution)
        }
        if let description = expected["description"]?.string, subject.predicateFormat != description {
            problems.append("printed \(subject.predicateFormat), expected \(description)")
        }
        switch json["mode"]?.string {
        case "evaluate":
            do {
                let result = try subject.evaluateThrowing(with: data, substitutionVariables: bindings)
                if expectsEvaluateError { problems.append("evaluated to \(result), expected an evaluation error") }
                if case .bool(let want)? = expected["bool"], result != want { problems.append("evaluated to \(result)") }
            } catch {
                if !expectsEvaluateError { problems.append("evaluation failed: \(error.localizedDescription)") }
            }
        case "filter":
            guard case .array(let want)? = expected["matches"], let elements = data as? [Any] else { break }
            var matches: [Int] = []
            do {
                for (index, element) in elements.enumerated()
                where try subject.evaluateThrowing(with: element, substitutionVariables: bindings) {
                    matches.append(index)
                }
                if matches != want.compactMap({ if case .int(let i) = $0 { return i } else { return nil } }) {
                    problems.append("matched \(matches)")
                }
            } catch {
                problems.append("evaluation failed: \(error.localizedDescription)")
            }
        default:
            break
        }
        return Outcome(id: id, category: category, confidence: confidence, checksDescription: checksDescription,
                       agreed: problems.isEmpty, detail: problems.joined(separator: "; "))
    }

    static func runAll() throws -> [Outcome] {
        let text = try String(contentsOf: corpusFile, encoding: .utf8)
        return try text.split(separator: "\n").filter { !$0.isEmpty }.map { try run(String($0)) }
    }

    static func rate(_ outcomes: [Outcome]) -> (agreed: Int, total: Int, percent: Double) {
        let agreed = outcomes.filter(\.agreed).count
        return (agreed, outcomes.count, outcomes.isEmpty ? 100 : 100 * Double(agreed) / Double(outcomes.count))
    }

    @Test("corpus agreement ≥ 98% (high and medium confidence) and 100% on printed descriptions",
          .enabled(if: PredicateCorpusTests.corpusAvailable))
    func corpusAgreement() throws {
        let outcomes = try Self.runAll()
        var report = "Predicate corpus: \(outcomes.count) cases\n"
        for confidence in ["high", "medium", "low"] {
            let r = Self.rate(outcomes.filter { $0.confidence == confidence })
            report += "  confidence \(confidence): \(r.agreed)/\(r.total) agree (\(String(format: "%.1f", r.percent))%)\n"
        }
        let categories = Set(outcomes.map(\.category)).sorted { ($0 == "realm" ? 1 : 0, $0) < ($1 == "realm" ? 1 : 0, $1) }
        for category in categories {
            let r = Self.rate(outcomes.filter { $0.category == category })
            let label = category == "realm" ? "realm (Realm's engine, reported apart)" : category
            report += "  source \(label): \(r.agreed)/\(r.total) agree (\(String(format: "%.1f", r.percent))%)\n"
        }
        let withoutRealm = Self.rate(outcomes.filter { $0.category != "realm" && $0.confidence != "low" })
        report += "  high+medium without Realm: \(withoutRealm.agreed)/\(withoutRealm.total)\n"
        let descriptions = Self.rate(outcomes.filter(\.checksDescription))
        report += "  printed descriptions: \(descriptions.agreed)/\(descriptions.total)\n"
        for outcome in outcomes where !outcome.agreed {
            report += "  DISAGREE \(outcome.id) [\(outcome.confidence)]: \(outcome.detail)\n"
        }
        print(report)

        for confidence in ["high", "medium"] {
            let r = Self.rate(outcomes.filter { $0.confidence == confidence })
            #expect(r.percent >= 98, "\(confidence)-confidence agreement \(r.percent)% is below 98%")
        }
        #expect(descriptions.agreed == descriptions.total, "every printed-description case must agree")

        // Every disagreement must be explained in DEVIATIONS.md.
        let explanations = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("DEVIATIONS.md"), encoding: .utf8)
        for outcome in outcomes where !outcome.agreed {
            #expect(explanations.contains(outcome.id), "corpus case \(outcome.id) disagrees but is not listed in DEVIATIONS.md")
        }
    }
}
