import Testing
@testable import OpenCoreData

/// Hostile nesting must end in a thrown error, never a stack overflow — also on threads with small stacks.
@Suite("Predicate nesting limits")
struct PredicateDepthTests {
    /// Format strings nested `levels` deep through each recursive construct of the grammar.
    static func nested(_ levels: Int) -> [String] {
        [
            String(repeating: "(", count: levels) + "a == 1" + String(repeating: ")", count: levels),
            String(repeating: "NOT ", count: levels) + "a == 1",
            "a == " + String(repeating: "-", count: levels) + "1",
            "a == " + String(repeating: "(", count: levels) + "1" + String(repeating: ")", count: levels),
            "a == " + String(repeating: "abs(", count: levels) + "1" + String(repeating: ")", count: levels),
            "a == " + String(repeating: "{", count: levels) + "1" + String(repeating: "}", count: levels),
            "a == " + String(repeating: "TERNARY(b == 1, ", count: levels) + "1" + String(repeating: ", 2)", count: levels),
            "a == " + String(repeating: "SUBQUERY(x, $v, ", count: levels) + "$v == 1" + String(repeating: ").@count == 1", count: levels),
            "a == " + String(repeating: "x[", count: levels) + "1" + String(repeating: "]", count: levels),
            "a == " + Array(repeating: "2", count: levels).joined(separator: " ** "),
        ]
    }

    /// Parses (and prints and evaluates) every nesting at every depth up to past the limit; returns how many threw.
    static func exercise() -> Int {
        var thrown = 0
        for levels in [10, 50, 66, 100, 150, 199, 200, 201, 400] {
            for format in nested(levels) {
                do {
                    let predicate = try NSPredicate(validatingFormat: format, argumentArray: nil)
                    _ = predicate.predicateFormat
                    _ = try? predicate.evaluateThrowing(with: ["a": 1, "b": 1, "x": [1]])
                    _ = predicate == predicate.copy() as? NSPredicate
                } catch {
                    thrown += 1
                }
            }
        }
        return thrown
    }

    @Test func nestingAtAndBeyondTheLimit() {
        #expect(Self.exercise() > 0)
    }

    @Test func nestingOnASmallStackThread() async {
        // 512 KiB is the smallest stack a Swift Concurrency or Dispatch thread typically has.
        let thrown = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let thread = Thread { continuation.resume(returning: Self.exercise()) }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(thrown > 0)
    }

    @Test func deepProgrammaticTreesThrowAtEvaluation() throws {
        var predicate: NSPredicate = NSPredicate(format: "a == 1")
        for _ in 0..<5_000 { predicate = NSCompoundPredicate(notPredicateWithSubpredicate: predicate) }
        #expect(throws: (any Error).self) { try predicate.evaluateThrowing(with: ["a": 1]) }
    }
}
