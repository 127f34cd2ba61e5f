import Testing
@testable import OpenCoreData

@Suite("Predicate parser and printer")
struct PredicateParserTests {
    private func parse(_ format: String, _ args: [Any] = []) throws -> NSPredicate {
        try NSPredicate(validatingFormat: format, argumentArray: args)
    }

    private func printed(_ format: String, _ args: [Any] = []) throws -> String {
        try parse(format, args).predicateFormat
    }

    private func parseError(_ format: String, _ args: [Any] = []) -> NSError? {
        do {
            _ = try NSPredicate(validatingFormat: format, argumentArray: args)
            return nil
        } catch {
            return error as NSError
        }
    }

    @Test func returnsSubclassesLikeApple() throws {
        #expect(try parse("a == 1") is NSComparisonPredicate)
        #expect(try parse("a == 1 OR b == 2") is NSCompoundPredicate)
        #expect(!(try parse("TRUEPREDICATE") is NSComparisonPredicate))
        let comparison = try #require(NSComparisonPredicate(format: "name BEGINSWITH[cd] 'x'") as NSComparisonPredicate?)
        #expect(comparison.predicateOperatorType == .beginsWith)
        #expect(comparison.options == [.caseInsensitive, .diacriticInsensitive])
        #expect(comparison.leftExpression.keyPath == "name")
        #expect(comparison.rightExpression.constantValue as? String == "x")
        // Asking for the wrong subclass throws instead of returning a mistyped object.
        #expect(throws: (any Error).self) { try NSComparisonPredicate(validatingFormat: "a == 1 AND b == 2", argumentArray: nil) }
    }

    @Test func printsApplesForm() throws {
        #expect(try printed("a = 1") == "a == 1")
        #expect(try printed("a <> 1") == "a != 1")
        #expect(try printed("a =< 1 and b => 2") == "a <= 1 AND b >= 2")
        #expect(try printed("name like[c] 'x'") == "name LIKE[c] \"x\"")
        #expect(try printed("isMale == yes") == "isMale == 1")
        #expect(try printed("x == nil") == "x == nil")
        #expect(try printed("x in {1, 'a', nil}") == "x IN {1, \"a\", nil}")
        #expect(try printed("any kids.age < 18") == "ANY kids.age < 18")
        #expect(try printed("all kids.age < 18") == "ALL kids.age < 18")
        #expect(try printed("none kids.age < 18") == "NOT ANY kids.age < 18")
        #expect(try printed("a+b+c == 1") == "(a + b) + c == 1")
        #expect(try printed("a+(b+c) == 1") == "a + (b + c) == 1")
        #expect(try printed("sum:({1, 2}) == 3") == "sum:({1, 2}) == 3")
        #expect(try printed("average({1, 2}) == 3") == "average:({1, 2}) == 3")
        #expect(try printed("now() > x") == "now() > x")
        #expect(try printed("SUBQUERY(items, $x, $x.price > 6).@count == 2") == "SUBQUERY(items, $x, $x.price > 6).@count == 2")
        #expect(try printed("TERNARY(a > 1, 'x', 'y') == 'x'") == "TERNARY(a > 1, \"x\", \"y\") == \"x\"")
        #expect(try printed("#like == 'x'") == "#like == \"x\"")
        #expect(try printed("SELF[FIRST] == 1 AND SELF[2] == 3") == "SELF[FIRST] == 1 AND SELF[2] == 3")
        #expect(try printed("(a == 1 OR b == 2) AND c == 3") == "(a == 1 OR b == 2) AND c == 3")
        #expect(try printed("NOT (a == 1 AND b == 2)") == "NOT (a == 1 AND b == 2)")
        #expect(try printed("'a\"b' == x") == "\"a\\\"b\" == x")
        #expect(try printed("CAST(x, 'NSString') == '5'") == "CAST(x, \"NSString\") == \"5\"")
        #expect(try printed("x == 1.5 AND y == 2.0") == "x == 1.5 AND y == 2")
        #expect(try printed("a UNION b == c") == "a UNION b == c")
        #expect(try printed("name MATCHES[cdnl] 'x'") == "name MATCHES[cdnl] \"x\"")
    }

    @Test func printsDatesAsCastsThatParseBack() throws {
        let date = Date(timeIntervalSinceReferenceDate: 591_580_800)
        let predicate = try parse("d > %@", [date])
        #expect(predicate.predicateFormat == "d > CAST(591580800.000000, \"NSDate\")")
        let reparsed = try parse(predicate.predicateFormat)
        #expect(reparsed == predicate)
        let constant = (reparsed as! NSComparisonPredicate).rightExpression.constantValue as? Date
        #expect(constant == date)
    }

    @Test func precedenceFollowsApple() throws {
        // AND binds tighter than OR, NOT tighter than both.
        let p = try #require(try parse("available = true or value >= 1 and value <= 10.5") as? NSCompoundPredicate)
        #expect(p.compoundPredicateType == .or)
        #expect((p.subpredicates[1] as? NSCompoundPredicate)?.compoundPredicateType == .and)
        let q = try #require(try parse("not a = 1 or b = 2") as? NSCompoundPredicate)
        #expect(q.compoundPredicateType == .or)
        #expect((q.subpredicates[0] as? NSCompoundPredicate)?.compoundPredicateType == .not)
        // Multiplication before addition, ** before *, and ** is right-associative.
        #expect(try parse("2 + 3 * 4 == 14").evaluateThrowing(with: nil))
        #expect(try parse("2 ** 3 * 2 == 16").evaluateThrowing(with: nil))
        #expect(try parse("2 ** 3 ** 2 == 512").evaluateThrowing(with: nil))
        // A parenthesised expression may start a predicate.
        #expect(try parse("($a + 1) ** 3 == 8").evaluateThrowing(with: nil, substitutionVariables: ["a": 1]))
        #expect(try parse("((1 < 0)) || ((1 > 0))").evaluateThrowing(with: nil))
    }

    @Test func literals() throws {
        func constant(_ text: String) throws -> Any? {
            try NSExpression(validatingFormat: text, argumentArray: nil).constantValue
        }
        #expect(try constant("0x1F") as? Int == 31)
        #expect(try constant("0o17") as? Int == 15)
        #expect(try constant("0b101") as? Int == 5)
        #expect(try constant("9.2e-5") as? Double == 9.2e-5)
        #expect(try constant("-12") as? Int == -12)
        #expect(try constant("18446744073709551615") as? UInt64 == UInt64.max)
        #expect(try constant("-9223372036854775808") as? Int == Int.min)
        #expect(try constant("'\\x41\\101\\u00e9'") as? String == "AAé")
        #expect(try constant("\"\\uD83D\\uDC4D\"") as? String == "👍")
        #expect(try constant("'a\\'b'") as? String == "a'b")
        #expect(try constant("\"a'b'c\"") as? String == "a'b'c")
        #expect(try constant("'\\d+'") as? String == "\\d+")
        #expect(try constant("TRUE") as? Bool == true)
        #expect(try constant("no") as? Bool == false)
        #expect(try constant("NIL") == nil)
        let aggregate = try NSExpression(validatingFormat: "{1, 'two', {3}}", argumentArray: nil)
        #expect(aggregate.expressionType == .aggregate)
        #expect((aggregate.collection as? [NSExpression])?.count == 3)
    }

    @Test func identifiersAndWhitespaceBeyondASCII() throws {
        // Letters of any script start and continue keys; escapes spell them; digits of any script continue them.
        #expect(try parse("café == 1").predicateFormat == "café == 1")
        #expect(try (parse("caf\\u00e9 == 1") as? NSComparisonPredicate)?.leftExpression.keyPath == "café")
        #expect(try (parse("_x9 == 1") as? NSComparisonPredicate)?.leftExpression.keyPath == "_x9")
        #expect(try (parse("x\u{0663} == 1") as? NSComparisonPredicate)?.leftExpression.keyPath == "x\u{0663}")
        #expect(parseError("9x == 1") != nil && parseError("\u{0663}x == 1") != nil, "a key starts with a letter or _")
        // Whitespace is Unicode's: tabs, line breaks, no-break and ideographic spaces separate tokens.
        for space in ["\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "\u{A0}", "\u{3000}", "\u{2003}", "\u{85}"] {
            #expect(try printed("a\(space)==\(space)1\(space)AND\(space)b\(space)!=\(space)2") == "a == 1 AND b != 2", "\(space.unicodeScalars.map(\.value))")
        }
        // Control characters that are not whitespace are not skipped.
        for control in ["\u{1C}", "\u{1F}", "\u{00}"] {
            #expect(parseError("a ==\(control)1") != nil, "\(control.unicodeScalars.map(\.value))")
        }
    }

    @Test func formatSpecifiers() throws {
        let p = try parse("%K == %@ AND n == %d AND f == %f AND s == %s AND c == %c AND big == %lld AND h == %hd AND pct == %%",
                          ["name", "Ben", 42, 2.5, "cstr", 65, 5_000_000_000, 70_000])
        #expect(p.predicateFormat == "name == \"Ben\" AND n == 42 AND f == 2.5 AND s == \"cstr\" AND c == \"A\" AND big == 5000000000 AND h == 4464 AND pct == \"%\"")
        // %d reads a C int, as printf does.
        #expect(try printed("n == %d", [5_000_000_000]) == "n == 705032704")
        // %K is not re-lexed: "$single" stays a key path.
        #expect(try printed("%K == 1", ["$single"]) == "$single == 1")
        #expect(((try parse("%K == 1", ["$single"])) as! NSComparisonPredicate).leftExpression.expressionType == .keyPath)
        // Quoted specifiers are literal text.
        #expect(try printed("'%K' like '%@'", ["a", "b"]) == "\"%K\" LIKE \"%@\"")
        // Variadic arguments, recovered by dynamic cast.
        let uuid = UUID()
        let v = NSPredicate(format: "a == %@ AND b == %@ AND c IN %@ AND d == %ld", uuid, NSNumber(value: 7), [1, 2], 3)
        #expect(v.predicateFormat == "a == CAST(\"\(uuid.uuidString)\", \"NSUUID\") AND b == 7 AND c IN {1, 2} AND d == 3")
    }

    @Test func variablesAndSubstitution() throws {
        let template = try parse("%K like %@+$b+$c", ["$single", "b\""])
        #expect(template.predicateFormat == "$single LIKE (\"b\\\"\" + $b) + $c")
        let filled = template.withSubstitutionVariables(["single": "x", "b": "B", "c": "C"])
        #expect(filled.predicateFormat == "$single LIKE (\"b\\\"\" + \"B\") + \"C\"")
        // The iterator variable of a SUBQUERY is not substituted inside it.
        let sub = try parse("SUBQUERY(items, $x, $x > $min).@count > 0").withSubstitutionVariables(["x": 1, "min": 5])
        #expect(sub.predicateFormat == "SUBQUERY(items, $x, $x > 5).@count > 0")
        #expect(sub is NSComparisonPredicate)
    }

    @Test func errorsSayWhereAndWhat() throws {
        let unterminated = try #require(parseError("name == 'Ben"))
        #expect(unterminated.domain == NSCocoaErrorDomain)
        #expect(unterminated.code == 2048)
        #expect(unterminated.userInfo[PredicateErrorKey.offset] as? Int == 8)
        #expect(unterminated.userInfo[PredicateErrorKey.phase] as? String == "parse")
        #expect(unterminated.localizedDescription.contains("unterminated string"))

        let dangling = try #require(parseError("name == 'Ben' AND"))
        #expect(dangling.userInfo[PredicateErrorKey.offset] as? Int == 17)
        #expect(dangling.userInfo[PredicateErrorKey.token] as? String == "end of input")
        #expect(dangling.userInfo[PredicateErrorKey.expected] as? String == "an expression")

        let badOption = try #require(parseError("name BEGINSWITH[x] 'a'"))
        #expect(badOption.userInfo[PredicateErrorKey.offset] as? Int == 16)

        for bad in ["", "1", "0 || 1", "TRUE", "%%", "%k like %@", "SELF like[c] %@?%@", "like == 'x'", "in == 1",
                    "ISO 3166-1:2006 == 'US'", "name ?= 'Ben'", "a == 1e999", "a == 0x", "a == 3abc",
                    "a == '\\u12'", "a == '\\uD800'", "a\0 == 1", "foo(1) == 1", "modulus:by:(1) == 1",
                    "SUBQUERY(a, b, c == 1).@count > 0", "a.first == 1", "$x := 1", "FETCH(a, b, c) == 1", "a == %@"] {
            #expect(parseError(bad, bad == "%k like %@" || bad == "SELF like[c] %@?%@" ? ["a", "b"] : []) != nil,
                    "\(bad) should not parse")
        }
    }

    @Test func deepNestingThrowsInsteadOfCrashing() throws {
        let deep = String(repeating: "(", count: 100_000) + "a == 1" + String(repeating: ")", count: 100_000)
        let error = try #require(parseError(deep))
        #expect(error.localizedDescription.contains("nested too deeply"))
        let nots = String(repeating: "NOT ", count: 50_000) + "a == 1"
        #expect(parseError(nots) != nil)
        let minus = "a == " + String(repeating: "-", count: 50_000) + "1"
        #expect(parseError(minus) != nil)
        let powers = "a == " + Array(repeating: "2", count: 20_000).joined(separator: " ** ")
        #expect(parseError(powers) != nil)
        // Within the limit, nesting works.
        let fine = String(repeating: "(", count: 40) + "a == 1" + String(repeating: ")", count: 40)
        #expect(try parse(fine).evaluateThrowing(with: ["a": 1]))
    }

    @Test func expressionsExposeApplesAccessors() throws {
        let function = try NSExpression(validatingFormat: "modulus:by:(7, 2)", argumentArray: nil)
        #expect(function.expressionType == .function)
        #expect(function.function == "modulus:by:")
        #expect(function.arguments?.count == 2)
        let keyPath = try NSExpression(validatingFormat: "$item.price", argumentArray: nil)
        #expect(keyPath.keyPath == "price")
        #expect(keyPath.operand.variable == "item")
        let subquery = try NSExpression(validatingFormat: "SUBQUERY(items, $x, $x > 1)", argumentArray: nil)
        #expect(subquery.variable == "x")
        #expect((subquery.collection as? NSExpression)?.keyPath == "items")
        #expect(subquery.predicate.predicateFormat == "$x > 1")
        let ternary = try NSExpression(validatingFormat: "TERNARY(YES == YES, 1, 2)", argumentArray: nil)
        #expect(ternary.true.constantValue as? Int == 1)
        #expect(ternary.false.constantValue as? Int == 2)
        let union = NSExpression(forUnionSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b"))
        #expect(union.left.keyPath == "a" && union.right.keyPath == "b")
        #expect(NSExpression.expressionForAnyKey().expressionType == .anyKey)
        #expect(NSExpression(format: "FUNCTION(name, 'uppercaseString')").operand.keyPath == "name")
    }

    @Test func structuralEqualityAndHashing() throws {
        #expect(try parse("a = 1") == parse("a == 1"))
        #expect(try parse("a == 1").hash == parse("a = 1").hash)
        #expect(try parse("a == 1") != parse("a == 2"))
        #expect(try parse("x IN {1, 2}") == parse("x IN %@", [[1, 2]]))
        #expect(try parse("x == 2") == parse("x == 2.0"))
        #expect(NSExpression(format: "a.b") == NSExpression(forKeyPath: "a.b"))
        let block = NSPredicate { _, _ in true }
        #expect(block == block)
        #expect(block != NSPredicate { _, _ in true })
        let p = try parse("a == 1")
        #expect(p.copy() as? NSPredicate === p)
    }
}
