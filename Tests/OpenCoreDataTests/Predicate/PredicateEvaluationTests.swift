import Testing
@testable import OpenCoreData

/// A type that opts into key-value coding by hand (managed objects will conform the same way).
private final class Employee: KeyValueCoding {
    let name: String
    let age: Int
    let manager: Employee?
    let reports: [Employee]
    init(_ name: String, age: Int, manager: Employee? = nil, reports: [Employee] = []) {
        self.name = name
        self.age = age
        self.manager = manager
        self.reports = reports
    }
    func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "age": return age
        case "manager": return manager
        case "reports": return reports
        default: return nil
        }
    }
}

/// Counts key path lookups to show that evaluation goes through a customised `value(forKeyPath:)`.
private final class CountingObject: KeyValueCoding, @unchecked Sendable { // Used by one test on one thread.
    var keyPathLookups = 0
    func value(forKey key: String) -> Any? { key == "n" ? 5 : nil }
    func value(forKeyPath keyPath: String) -> Any? {
        keyPathLookups += 1
        return keyPath == "shortcut" ? 42 : value(forKey: keyPath)
    }
}

private struct Plain {
    var title: String
    var pages: Int
}

@Suite("Predicate evaluation")
struct PredicateEvaluationTests {
    private func eval(_ format: String, _ object: Any?, _ args: [Any] = [], bindings: [String: Any]? = nil) throws -> Bool {
        try NSPredicate(validatingFormat: format, argumentArray: args).evaluateThrowing(with: object, substitutionVariables: bindings)
    }

    @Test func nilSemanticsWithoutThreeValuedLogic() throws {
        #expect(try eval("author != 'X'", [String: Any]()))        // nil != 'X' is true in memory
        #expect(try !eval("author == 'X'", [String: Any]()))
        #expect(try eval("author == nil", ["author": NSNull()]))   // NSNull equals nil
        #expect(try !eval("x > 5", [String: Any]()))               // ordering with nil is false
        #expect(try !eval("x < 5", [String: Any]()))
        #expect(try !eval("x BETWEEN {1, 10}", [String: Any]()))
        for op in ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"] {
            #expect(try !eval("x \(op) 'a'", [String: Any]()), "nil never matches \(op)")
            #expect(try !eval("x \(op) nil", ["x": "a"]), "\(op) nil never matches")
        }
    }

    @Test func emptyStringRules() throws {
        for op in ["BEGINSWITH", "ENDSWITH", "CONTAINS"] {
            #expect(try !eval("SELF \(op) ''", "abc"), "\(op) '' is never true")
            #expect(try !eval("SELF \(op) ''", ""), "\(op) '' is never true, even for ''")
            #expect(try !eval("SELF \(op)[cd] ''", "abc"))
        }
        #expect(try eval("SELF LIKE '*'", ""))
        #expect(try eval("SELF == ''", ""))
    }

    @Test func numericCoercion() throws {
        let values: [Any] = [Int8(3), Int16(3), Int32(3), Int64(3), UInt8(3), UInt16(3), UInt32(3), UInt64(3), UInt(3),
                             3, Float(3), 3.0, Decimal(3), NSNumber(value: 3), NSDecimalNumber(string: "3")]
        for value in values {
            #expect(try eval("x == 3 AND x > 2.5 AND x < 3.5", ["x": value]), "\(type(of: value)) compares numerically")
        }
        #expect(try eval("TRUE == 1 AND FALSE == 0", nil))
        #expect(try eval("x == YES", ["x": NSNumber(value: true)]))
        #expect(try eval("x == 1", ["x": true]))
        #expect(try !eval("'1' == 1", nil))
        #expect(try eval("x > 9223372036854775807", ["x": UInt64.max]))
        #expect(try eval("x < 0", ["x": Int64.min]))
        #expect(throws: (any Error).self) { try eval("SELF.foo <= 2", ["foo": "2"]) }
    }

    @Test func datesDataAndUUIDsCompareByValue() throws {
        let date = Date(timeIntervalSinceReferenceDate: 1_000)
        #expect(try eval("d == %@", ["d": NSDate(timeIntervalSinceReferenceDate: 1_000)], [date]))
        #expect(try eval("d < %@", ["d": date], [date.addingTimeInterval(0.001)]))
        let uuid = UUID()
        #expect(try eval("u == %@", ["u": NSUUID(uuidString: uuid.uuidString)!], [uuid]))
        #expect(try eval("b == %@", ["b": NSData(data: Data([1, 2]))], [Data([1, 2])]))
        #expect(try !eval("b == %@", ["b": Data([1, 2])], [Data([1, 3])]))
    }

    @Test func stringOperators() throws {
        #expect(try eval("SELF LIKE 'hel*o'", "helllo"))
        #expect(try !eval("SELF LIKE 'hel*o'", "heo"))
        #expect(try eval("SELF LIKE 'hel?o'", "hello"))
        #expect(try eval("SELF LIKE 'a\\\\*b'", "a*b"))
        #expect(try !eval("SELF LIKE 'a\\\\*b'", "axb"))
        #expect(try eval("SELF LIKE[cd] 'É*'", "emile"))
        #expect(try !eval("SELF == 'hel?o'", "hello"))
        #expect(try eval("SELF MATCHES 'hel{2}o'", "hello"))
        #expect(try !eval("SELF MATCHES 'mil'", "emile"), "MATCHES is anchored at both ends")
        #expect(try eval("SELF MATCHES 'a|ab'", "ab"), "the whole string must match, with backtracking")
        #expect(try eval("SELF MATCHES[c] 'HELLO'", "hello"))
        #expect(try eval("SELF MATCHES '\\\\d+'", "123"))
        #expect(throws: (any Error).self) { try eval("SELF MATCHES '('", "x") }
        #expect(try eval("SELF IN 'AABBBAA'", "BBB"))
        #expect(try eval("'a' IN {'b', 'a'}", nil))
        #expect(try eval("SELF IN[c] {'A'}", "a"))
        #expect(try !eval("SELF CONTAINS 'e'", "cafe\u{301}"), "a match may not end inside a composed character")
        #expect(try eval("SELF CONTAINS '👍'", "ok👍🏽"))
        #expect(try eval("SELF BETWEEN {'b', 'c'}", "b"))
    }

    @Test func quantifiersAndCollections() throws {
        let person: [String: Any] = ["kids": [["age": 20], ["age": 12]], "tags": NSSet(array: ["a", "b"]), "empty": [Any]()]
        #expect(try eval("ANY kids.age < 18", person))
        #expect(try !eval("ALL kids.age < 18", person))
        #expect(try !eval("NONE kids.age < 18", person))
        #expect(try eval("ALL empty.age < 18", person), "ALL over an empty collection is true")
        #expect(try !eval("ANY empty.age < 18", person))
        #expect(try eval("NONE empty.age < 18", person))
        #expect(try eval("tags CONTAINS 'b'", person))
        #expect(try eval("'a' IN tags", person))
        #expect(try eval("kids.@count == 2 AND kids.@sum.age == 32 AND kids.@avg.age == 16", person))
        #expect(try eval("kids.@min.age == 12 AND kids.@max.age == 20", person))
        #expect(try eval("kids[FIRST].age == 20 AND kids[LAST].age == 12 AND kids[SIZE] == 2 AND kids[1].age == 12", person))
        #expect(throws: (any Error).self) { try eval("kids[5].age == 1", person) }
        #expect(throws: (any Error).self) { try eval("ANY name == 'x'", ["name": "x"]) }
        let union: [String: Any] = ["a": [[1, 2], [2, 3]]]
        let distinct = NSExpression(format: "a.@distinctUnionOfArrays.self").expressionValue(with: union, context: nil) as? [Any]
        let all = NSExpression(format: "a.@unionOfArrays.self").expressionValue(with: union, context: nil) as? [Any]
        #expect(distinct?.count == 3 && all?.count == 4)
        #expect(try eval("SUBQUERY(kids, $k, $k.age > 15).@count == 1", person))
        // Inside SUBQUERY key paths still refer to the evaluated object (Apple, swift-foundation conversion test).
        #expect(try eval("SUBQUERY(g, $x, $x == d).@count == 1", ["g": [4, 5], "d": 4]))
    }

    @Test func functionsAndExpressions() throws {
        func value(_ format: String, _ object: Any? = nil) throws -> Any? {
            try NSExpression(validatingFormat: format, argumentArray: nil).expressionValueThrowing(with: object, context: nil)
        }
        #expect(try value("average({1, 2, 2, 3, 4, 7, 9})") as? Double == 4)
        #expect(try value("median({1, 2, 2, 3, 4, 7, 9})") as? Int == 3)
        #expect((try value("mode({1, 2, 2, 3})") as? [Any])?.first as? Int == 2)
        #expect(try value("stddev({2, 4, 4, 4, 5, 5, 7, 9})") as? Double == 2)
        #expect(try value("modulus:by:(7, 3)") as? Int == 1)
        #expect(try value("divide:by:(7, 2)") as? Double == 3.5)
        #expect(try value("bitwiseXor:with:(5, 3)") as? Int == 6)
        #expect(try value("1 << 3") as? Int == 8)
        #expect(try value("onesComplement(255)") as? Int == -256)
        #expect(try value("uppercase('abc')") as? String == "ABC")
        #expect(try value("length('👍')") as? Int == 2)
        #expect(try value("FUNCTION('Old', 'stringByAppendingString:', 'MacDonald')") as? String == "OldMacDonald")
        #expect(try value("CAST('5', 'NSNumber')") as? Int == 5)
        #expect(try value("CAST(0, 'NSDate')") as? Date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(try value("TERNARY(x > 1, 'big', 'small')", ["x": 2]) as? String == "big")
        // Sets of NSNumbers, as Apple's: they cast to sets of any numeric type that holds their values.
        #expect(try value("{1, 2} UNION {2, 3}") as? Set<Int> == [1, 2, 3])
        #expect(try value("{1, 2} INTERSECT {2, 3}") as? Set<Int> == [2])
        #expect(try value("{1, 2} MINUS {2, 3}") as? Set<Double> == [1])
        #expect((try value("now()") as? Date).map { abs($0.timeIntervalSinceNow) < 60 } == true)
        let randomValue = try #require(try value("randomn(10)") as? Int)
        #expect((0..<10).contains(randomValue))
        #expect(throws: (any Error).self) { try value("divide:by:(1, 0)") }
        #expect(throws: (any Error).self) { try value("$unbound + 1") }
        let block = NSExpression(block: { _, args, _ in (args[0] as! Int) * 2 }, arguments: [NSExpression(forConstantValue: 21)])
        #expect(block.expressionValue(with: nil, context: nil) as? Int == 42)
        let context = NSMutableDictionary(dictionary: ["x": 4])
        #expect(NSExpression(format: "$x * 2").expressionValue(with: nil, context: context) as? Int == 8)
    }

    @Test func keyValueCodingObjects() throws {
        let boss = Employee("Ann", age: 50)
        let bob = Employee("Bob", age: 30, manager: boss, reports: [Employee("Cy", age: 20), Employee("Di", age: 25)])
        #expect(try eval("manager.name == 'Ann' AND ANY reports.age > 24 AND reports.@count == 2", bob))
        #expect(try eval("reports.@avg.age == 22.5", bob))
        #expect(try !eval("manager.manager.name == 'x'", bob))
        // An unknown key below a KeyValueCoding object throws in the throwing API instead of stopping the program.
        #expect(throws: (any Error).self) { try eval("name.nonexistent == 1", bob) }
        // A customised value(forKeyPath:) is used by the evaluator.
        let counting = CountingObject()
        #expect(try eval("shortcut == 42 AND n == 5", counting))
        #expect(counting.keyPathLookups == 2)
        // Other Swift values expose their stored properties (an OpenCoreData extension).
        #expect(try eval("title BEGINSWITH 'Dune' AND pages > 400", Plain(title: "Dune", pages: 412)))
        #expect(throws: (any Error).self) { try eval("missing == 1", Plain(title: "x", pages: 1)) }
        // Dictionaries: a missing key is nil, not an error.
        #expect(try eval("missing == nil", ["a": 1]))
        #expect(try eval("description == 'Do'", "Do"))
    }

    @Test func blockAndValuePredicates() throws {
        let even = NSPredicate { object, bindings in ((object as? Int) ?? 1) % 2 == 0 && bindings?["flag"] as? Bool != false }
        #expect(even.evaluate(with: 4))
        #expect(!even.evaluate(with: 4, substitutionVariables: ["flag": false]))
        #expect(NSPredicate(value: true).evaluate(with: nil))
        #expect(!NSPredicate(value: false).evaluate(with: nil))
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: []).evaluate(with: nil))
        #expect(!NSCompoundPredicate(orPredicateWithSubpredicates: []).evaluate(with: nil))
    }

    @Test func filteringCollections() throws {
        let languages = ["C", "Objective-C", "Java", "JavaScript"]
        let predicate = NSPredicate(format: "SELF BEGINSWITH %@", "Java")
        #expect(languages.filtered(using: predicate) == ["Java", "JavaScript"])
        var mutable = languages
        mutable.filter(using: predicate)
        #expect(mutable == ["Java", "JavaScript"])
        #expect(NSArray(array: languages).filtered(using: predicate).count == 2)
        let array = NSMutableArray(array: languages)
        array.filter(using: predicate)
        #expect(array.count == 2)
        #expect(Set(NSSet(array: [1, 2, 3]).filtered(using: NSPredicate(format: "SELF > 1")).compactMap { ($0.base as? NSNumber)?.intValue ?? $0.base as? Int }) == [2, 3])
        #expect(NSOrderedSet(array: [1, 2, 3]).filtered(using: NSPredicate(format: "SELF != 2")).array.count == 2)
    }
}
