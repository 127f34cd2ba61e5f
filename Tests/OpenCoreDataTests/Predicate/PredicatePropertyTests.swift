import Testing
@testable import OpenCoreData

/// A small, seeded, deterministic random generator (SplitMix64).
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
}

/// Random predicates (built through the public constructors) over random dictionaries.
struct PredicateGenerator {
    var random: SeededRandom
    static let numericKeys = ["a", "b", "count"]
    static let stringKeys = ["name", "title"]

    mutating func string() -> String {
        let alphabet = ["a", "B", "é", "e\u{301}", "ß", "\"", "\\", "'", " ", "*", "?", "1", "Ü", "İ", "ı", "👍"]
        return (0..<Int.random(in: 0..<5, using: &random)).map { _ in random.pick(alphabet) }.joined()
    }

    mutating func number() -> Any {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return Int.random(in: -5...5, using: &random)
        case 1: return Double(Int.random(in: -20...20, using: &random)) / 4
        case 2: return random.chance(50)
        default: return Int.random(in: -1_000_000...1_000_000, using: &random)
        }
    }

    mutating func object() -> [String: Any] {
        var object: [String: Any] = [:]
        for key in Self.numericKeys where random.chance(85) { object[key] = number() }
        for key in Self.stringKeys where random.chance(85) { object[key] = string() }
        if random.chance(80) { object["tags"] = (0..<Int.random(in: 0..<4, using: &random)).map { _ in string() } }
        if random.chance(80) {
            object["items"] = (0..<Int.random(in: 0..<4, using: &random)).map { _ in ["price": number()] as [String: Any] }
        }
        return object
    }

    mutating func numericExpression(_ depth: Int) -> NSExpression {
        switch Int.random(in: 0..<(depth > 2 ? 3 : 8), using: &random) {
        case 0, 1: return NSExpression(forKeyPath: random.pick(Self.numericKeys))
        case 2: return NSExpression(forConstantValue: number())
        case 3:
            let name = random.pick(["add:to:", "from:subtract:", "multiply:by:"])
            return NSExpression(forFunction: name, arguments: [numericExpression(depth + 1), numericExpression(depth + 1)])
        case 4: return NSExpression(forFunction: random.pick(["abs:", "floor:", "sqrt:"]), arguments: [numericExpression(depth + 1)])
        case 5: return NSExpression(forKeyPath: random.pick(["items.@count", "items.@sum.price", "tags.@count", "items.@max.price"]))
        case 6:
            return NSExpression(forConditional: predicate(depth + 1), trueExpression: numericExpression(depth + 1),
                                falseExpression: numericExpression(depth + 1))
        default:
            let sub = NSExpression(forSubquery: NSExpression(forKeyPath: "items"), usingIteratorVariable: "x",
                                   predicate: NSPredicate(format: "$x.price > %@", argumentArray: [number()]))
            return NSExpression(forKeyPath: sub, path: "@count")
        }
    }

    mutating func stringExpression() -> NSExpression {
        random.chance(60) ? NSExpression(forKeyPath: random.pick(Self.stringKeys)) : NSExpression(forConstantValue: string())
    }

    mutating func options() -> NSComparisonPredicate.Options {
        NSComparisonPredicate.Options(rawValue: UInt(Int.random(in: 0..<4, using: &random)))
    }

    mutating func comparison(_ depth: Int) -> NSPredicate {
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1:
            let type = random.pick([NSComparisonPredicate.Operator.lessThan, .lessThanOrEqualTo, .greaterThan,
                                    .greaterThanOrEqualTo, .equalTo, .notEqualTo])
            return NSComparisonPredicate(leftExpression: numericExpression(depth), rightExpression: numericExpression(depth),
                                         modifier: .direct, type: type)
        case 2:
            let type = random.pick([NSComparisonPredicate.Operator.beginsWith, .endsWith, .contains, .like, .equalTo,
                                    .notEqualTo, .in, .lessThan])
            return NSComparisonPredicate(leftExpression: stringExpression(), rightExpression: stringExpression(),
                                         modifier: .direct, type: type, options: options())
        case 3:
            let modifier = random.pick([NSComparisonPredicate.Modifier.any, .all])
            return NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "tags"), rightExpression: stringExpression(),
                                         modifier: modifier, type: random.pick([.beginsWith, .equalTo, .contains]), options: options())
        case 4:
            let bounds = NSExpression(forAggregate: [numericExpression(depth + 1), numericExpression(depth + 1)])
            return NSComparisonPredicate(leftExpression: numericExpression(depth), rightExpression: bounds,
                                         modifier: .direct, type: .between)
        default:
            return NSComparisonPredicate(leftExpression: stringExpression(),
                                         rightExpression: NSExpression(forConstantValue: [string(), string()]),
                                         modifier: .direct, type: .in, options: options())
        }
    }

    mutating func predicate(_ depth: Int = 0) -> NSPredicate {
        switch Int.random(in: 0..<(depth > 2 ? 1 : 6), using: &random) {
        case 0, 1, 2: return comparison(depth)
        case 3: return NSCompoundPredicate(notPredicateWithSubpredicate: predicate(depth + 1))
        case 4: return random.chance(90) ? NSCompoundPredicate(andPredicateWithSubpredicates: [predicate(depth + 1), predicate(depth + 1)])
                                         : NSPredicate(value: random.chance(50))
        default: return NSCompoundPredicate(orPredicateWithSubpredicates: [predicate(depth + 1), predicate(depth + 1), predicate(depth + 1)])
        }
    }
}

extension NSExpression {
    /// A key path on another expression (`SUBQUERY(…).@count`), for the generator.
    convenience init(forKeyPath operand: NSExpression, path: String) {
        self.init(node: .keyPath(operand: operand, path: path))
    }
}

@Suite("Predicate properties")
struct PredicatePropertyTests {
    /// The outcome of evaluating a predicate: a value, or an error.
    static func outcome(_ predicate: NSPredicate, _ object: Any) -> Bool? {
        try? predicate.evaluateThrowing(with: object)
    }

    @Test("print → parse → print is stable and the round trip keeps the structure and the evaluation")
    func roundTrip() throws {
        var generator = PredicateGenerator(random: SeededRandom(seed: 0xC0FFEE))
        let objects = (0..<12).map { _ in generator.object() }
        var evaluations = 0
        var trueResults = 0
        for _ in 0..<1_500 {
            let original = generator.predicate()
            let printed = original.predicateFormat
            let reparsed = try NSPredicate(validatingFormat: printed, argumentArray: nil)
            #expect(reparsed.predicateFormat == printed, "unstable printing: \(printed)")
            #expect(reparsed == original, "round trip changed the structure: \(printed)")
            for object in objects {
                let before = Self.outcome(original, object)
                #expect(before == Self.outcome(reparsed, object), "\(printed) evaluates differently on \(object)")
                evaluations += 1
                if before == true { trueResults += 1 }
            }
        }
        // The generator must exercise both outcomes, or the comparison above proves little.
        #expect(trueResults > evaluations / 10 && trueResults < evaluations * 9 / 10)
    }

    @Test("substituting variables equals binding them at evaluation")
    func substitutionMatchesBindings() throws {
        var random = SeededRandom(seed: 42)
        let template = NSPredicate(format: "a > $low AND a < $high AND name BEGINSWITH[c] $prefix")
        for _ in 0..<300 {
            let bindings: [String: Any] = ["low": Int.random(in: -5...5, using: &random),
                                           "high": Int.random(in: -5...5, using: &random),
                                           "prefix": random.pick(["a", "B", "é", ""])]
            let object: [String: Any] = ["a": Int.random(in: -5...5, using: &random), "name": random.pick(["Abe", "bob", "Émile"])]
            #expect(template.withSubstitutionVariables(bindings).evaluate(with: object)
                    == template.evaluate(with: object, substitutionVariables: bindings))
        }
    }
}
