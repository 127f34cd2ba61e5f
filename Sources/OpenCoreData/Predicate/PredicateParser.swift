import Foundation

/// A recursive-descent parser for the predicate format language (see `research/predicate-grammar.md`):
///
/// ```
/// predicate  := or ; or := and {(OR | ||) and} ; and := not {(AND | &&) not} ; not := (NOT | !) not | primary
/// primary    := "(" predicate ")" | TRUEPREDICATE | FALSEPREDICATE | [ANY|SOME|ALL|NONE] expr op["[cdnl]"] expr
/// expression := set {(UNION|INTERSECT|MINUS) set} ; then | ^ & (<< >>) (+ -) (* /) ** (right-associative),
///               unary - and ~, postfix .key and [index], primaries
/// ```
///
/// Whether a `(` in predicate position opens a predicate or an expression (`(a + 1) * 2 > 3`) is decided before
/// parsing, in one linear pass over the tokens, by whether the group holds a predicate token at its own level — so
/// parsing never backtracks. Nesting deeper than ``maximumDepth`` throws instead of exhausting the stack.
package struct PredicateParser {
    /// The deepest nesting of parentheses, operators and function calls accepted.
    static let maximumDepth = 200

    private let format: String
    private let tokens: [PredicateToken]
    private let predicateGroups: Set<Int>
    private var index = 0
    private var depth = 0
    private let stack = StackGuard()

    private init(format: String, tokens: [PredicateToken]) {
        self.format = format
        self.tokens = tokens
        self.predicateGroups = Self.classifyGroups(tokens)
    }

    // MARK: Entry points

    static func parsePredicate(_ format: String, arguments: FormatArguments) throws -> NSPredicate {
        let tokens = try PredicateLexer.tokenize(format, arguments: arguments)
        var parser = PredicateParser(format: format, tokens: tokens)
        if case .end = tokens[0].kind { throw parser.error("the format string is empty", expected: "a predicate") }
        let predicate = try parser.parseOr()
        try parser.expectEnd(expected: "AND, OR or the end of the predicate")
        return predicate
    }

    package static func parseExpression(_ format: String, arguments: FormatArguments) throws -> NSExpression {
        let tokens = try PredicateLexer.tokenize(format, arguments: arguments)
        var parser = PredicateParser(format: format, tokens: tokens)
        if case .end = tokens[0].kind { throw parser.error("the format string is empty", expected: "an expression") }
        let expression = try parser.parseExpression()
        try parser.expectEnd(expected: "an operator or the end of the expression")
        return expression
    }

    // MARK: Helpers

    private var current: PredicateToken { tokens[index] }

    private func peekToken(_ ahead: Int) -> PredicateToken {
        tokens[min(index + ahead, tokens.count - 1)]
    }

    private func error(_ message: String, expected: String? = nil, at token: PredicateToken? = nil) -> NSError {
        let token = token ?? current
        return PredicateError.parse(message, format: format, offset: token.offset, token: token.displayText, expected: expected)
    }

    private mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    private mutating func accept(_ symbol: PredicateSymbol) -> Bool {
        if current.symbol == symbol { advance(); return true }
        return false
    }

    private mutating func expect(_ symbol: PredicateSymbol, _ context: String) throws {
        guard accept(symbol) else { throw error("expected \"\(symbol.rawValue)\" \(context)", expected: "\"\(symbol.rawValue)\"") }
    }

    private func expectEnd(expected: String) throws {
        guard case .end = current.kind else { throw error("unexpected token", expected: expected) }
    }

    private mutating func enter() throws {
        depth += 1
        if depth > Self.maximumDepth || !stack.hasRoom() {
            throw error("the format string is nested too deeply (more than \(Self.maximumDepth) levels, or more than this thread's stack allows)")
        }
    }

    private mutating func leave() { depth -= 1 }

    // MARK: Group classification

    /// The token indexes of every `(` whose group is a predicate (holds a predicate token at its own level, or only a
    /// single predicate group).
    private static func classifyGroups(_ tokens: [PredicateToken]) -> Set<Int> {
        struct Group { var open: Int; var isParen: Bool; var predicateToken = false; var otherTokens = 0; var groups: [Int] = [] }
        var stack: [Group] = [Group(open: -1, isParen: false)]
        var result = Set<Int>()
        for (i, token) in tokens.enumerated() {
            switch token.kind {
            case .symbol(.leftParen), .symbol(.leftBrace), .symbol(.leftBracket):
                stack.append(Group(open: i, isParen: token.symbol == .leftParen))
            case .symbol(.rightParen), .symbol(.rightBrace), .symbol(.rightBracket):
                guard stack.count > 1 else { continue }
                let group = stack.removeLast()
                let isPredicate = group.predicateToken
                    || (group.otherTokens == 0 && group.groups.count == 1 && result.contains(group.groups[0]))
                if group.isParen && isPredicate { result.insert(group.open) }
                stack[stack.count - 1].groups.append(group.open)
            default:
                if isPredicateToken(token) {
                    stack[stack.count - 1].predicateToken = true
                } else {
                    stack[stack.count - 1].otherTokens += 1
                }
            }
        }
        return result
    }

    private static func isPredicateToken(_ token: PredicateToken) -> Bool {
        switch token.kind {
        case .symbol(let symbol):
            switch symbol {
            case .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual, .andAnd, .orOr, .bang: return true
            default: return false
            }
        case .keyword(let keyword):
            switch keyword {
            case .and, .or, .not, .like, .matches, .contains, .beginsWith, .endsWith, .between, .in, .any, .all, .some,
                 .none, .truePredicate, .falsePredicate, .utiConformsTo, .utiEquals:
                return true
            default: return false
            }
        default: return false
        }
    }

    // MARK: Predicates

    private mutating func parseOr() throws -> NSPredicate {
        try enter()
        defer { leave() }
        var operands = [try parseAnd()]
        while current.keyword == .or || current.symbol == .orOr {
            advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : NSCompoundPredicate(type: .or, subpredicates: operands)
    }

    private mutating func parseAnd() throws -> NSPredicate {
        var operands = [try parseNot()]
        while current.keyword == .and || current.symbol == .andAnd {
            advance()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : NSCompoundPredicate(type: .and, subpredicates: operands)
    }

    private mutating func parseNot() throws -> NSPredicate {
        if current.keyword == .not || current.symbol == .bang {
            advance()
            try enter()
            defer { leave() }
            return NSCompoundPredicate(type: .not, subpredicates: [try parseNot()])
        }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws -> NSPredicate {
        if current.symbol == .leftParen && predicateGroups.contains(index) {
            advance()
            let predicate = try parseOr()
            try expect(.rightParen, "to close the parenthesised predicate")
            return predicate
        }
        switch current.keyword {
        case .truePredicate?: advance(); return NSPredicate(value: true)
        case .falsePredicate?: advance(); return NSPredicate(value: false)
        default: return try parseComparison()
        }
    }

    private mutating func parseComparison() throws -> NSPredicate {
        var modifier = NSComparisonPredicate.Modifier.direct
        var negate = false
        switch current.keyword {
        case .any?, .some?: modifier = .any; advance()
        case .all?: modifier = .all; advance()
        case .none?: modifier = .any; negate = true; advance()
        default: break
        }
        let lhs = try parseExpression()
        let operatorToken = current
        var type: NSComparisonPredicate.Operator
        var uti: NSComparisonPredicate.UTIOperator?
        switch operatorToken.kind {
        case .symbol(.equal): type = .equalTo
        case .symbol(.notEqual): type = .notEqualTo
        case .symbol(.less): type = .lessThan
        case .symbol(.lessEqual): type = .lessThanOrEqualTo
        case .symbol(.greater): type = .greaterThan
        case .symbol(.greaterEqual): type = .greaterThanOrEqualTo
        case .keyword(.like): type = .like
        case .keyword(.matches): type = .matches
        case .keyword(.contains): type = .contains
        case .keyword(.beginsWith): type = .beginsWith
        case .keyword(.endsWith): type = .endsWith
        case .keyword(.between): type = .between
        case .keyword(.in): type = .in
        case .keyword(.utiConformsTo): type = .customSelector; uti = .conformsTo
        case .keyword(.utiEquals): type = .customSelector; uti = .equals
        default:
            let message = modifier == .direct && !negate && lhs.isBareValue
                ? "an expression alone is not a predicate" : "expected a comparison operator"
            throw error(message, expected: "a comparison operator (==, !=, <, >, LIKE, IN, …)")
        }
        advance()
        var options: NSComparisonPredicate.Options = []
        if current.symbol == .leftBracket {
            advance()
            let optionToken = current
            let letters: String
            switch optionToken.kind {
            case .identifier(let name, escaped: false): letters = name
            case .keyword: letters = optionToken.text
            default: throw error("expected comparison options", expected: "c, d, n or l")
            }
            for letter in letters.lowercased() {
                switch letter {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                case "n": options.insert(.normalized)
                case "l": options.insert(.localeSensitive)
                default: throw error("unknown comparison option \"\(letter)\"", expected: "c, d, n or l", at: optionToken)
                }
            }
            advance()
            try expect(.rightBracket, "after the comparison options")
        }
        let rhs = try parseExpression()
        let comparison: NSComparisonPredicate
        if let uti {
            comparison = NSComparisonPredicate(leftExpression: lhs, rightExpression: rhs, customSelector: uti.selector)
        } else {
            comparison = NSComparisonPredicate(leftExpression: lhs, rightExpression: rhs, modifier: modifier, type: type,
                                               options: options)
        }
        return negate ? NSCompoundPredicate(type: .not, subpredicates: [comparison]) : comparison
    }

    // MARK: Expressions

    private enum Binary {
        case function(String), union, intersect, minus
    }

    /// The binary operator at the current token and its precedence level (higher binds tighter).
    private func binaryOperator() -> (Binary, level: Int)? {
        switch current.kind {
        case .identifier(let name, escaped: false):
            switch name.uppercased() {
            case "UNION": return (.union, 0)
            case "INTERSECT": return (.intersect, 0)
            case "MINUS": return (.minus, 0)
            default: return nil
            }
        case .symbol(let symbol):
            switch symbol {
            case .pipe: return (.function("bitwiseOr:with:"), 1)
            case .caret: return (.function("bitwiseXor:with:"), 2)
            case .ampersand: return (.function("bitwiseAnd:with:"), 3)
            case .shiftLeft: return (.function("leftshift:by:"), 4)
            case .shiftRight: return (.function("rightshift:by:"), 4)
            case .plus: return (.function("add:to:"), 5)
            case .minus: return (.function("from:subtract:"), 5)
            case .star: return (.function("multiply:by:"), 6)
            case .slash: return (.function("divide:by:"), 6)
            case .power: return (.function("raise:toPower:"), 7)
            default: return nil
            }
        default: return nil
        }
    }

    mutating func parseExpression() throws -> NSExpression {
        try parseBinary(minimumLevel: 0)
    }

    private mutating func parseBinary(minimumLevel: Int) throws -> NSExpression {
        try enter()
        defer { leave() }
        var left = try parseUnary()
        while let (op, level) = binaryOperator(), level >= minimumLevel {
            advance()
            // `**` is right-associative; the others are left-associative.
            let right = try parseBinary(minimumLevel: level == 7 ? level : level + 1)
            switch op {
            case .function(let name): left = NSExpression(node: .function(target: nil, name: name, arguments: [left, right]))
            case .union: left = NSExpression(forUnionSet: left, with: right)
            case .intersect: left = NSExpression(forIntersectSet: left, with: right)
            case .minus: left = NSExpression(forMinusSet: left, with: right)
            }
        }
        return left
    }

    private mutating func parseUnary() throws -> NSExpression {
        if accept(.minus) {
            try enter()
            defer { leave() }
            let operand = try parseUnary()
            if case .constant(let value) = operand.node, let number = value.flatMap(PredicateNumber.init), !(value is Bool) {
                if case .uint(let magnitude) = number, magnitude == UInt64(Int64.max) + 1 {
                    return NSExpression(forConstantValue: Int(Int64.min))
                }
                return NSExpression(forConstantValue: PredicateNumber.apply(.subtract, .int(0), number).value)
            }
            return NSExpression(node: .function(target: nil, name: "from:subtract:",
                                                arguments: [NSExpression(forConstantValue: 0), operand]))
        }
        if accept(.tilde) {
            try enter()
            defer { leave() }
            return NSExpression(node: .function(target: nil, name: "onesComplement:", arguments: [try parseUnary()]))
        }
        return try parsePostfix(try parsePrimary())
    }

    private mutating func parsePostfix(_ base: NSExpression) throws -> NSExpression {
        var expression = base
        while true {
            if accept(.dot) {
                let token = current
                switch token.kind {
                case .identifier(let name, _):
                    advance()
                    expression = Self.appendingKey(name, to: expression)
                case .collectionOperator(let name):
                    advance()
                    expression = Self.appendingKey(name, to: expression)
                case .keyPathArgument(let path):
                    // `$FETCH_SOURCE.%K`: a %K argument continues the key path.
                    advance()
                    expression = Self.appendingKey(path, to: expression)
                case .variable:
                    // `$a.$b`: a key path whose key is the value of a variable.
                    let key = try parsePrimary()
                    expression = NSExpression(node: .function(target: expression, name: "valueForKeyPath:", arguments: [key]))
                case .keyword(.self):
                    // The key-value coding key `self` (`@sum.self`).
                    advance()
                    expression = Self.appendingKey("self", to: expression)
                case .keyword:
                    throw error("a reserved word cannot be a key; escape it as #\(token.text)", expected: "a key name")
                default:
                    throw error("expected a key after \".\"", expected: "a key name")
                }
            } else if accept(.leftBracket) {
                let indexExpression: NSExpression
                switch current.keyword {
                case .first?: advance(); indexExpression = NSExpression(forConstantValue: IndexSymbol.first)
                case .last?: advance(); indexExpression = NSExpression(forConstantValue: IndexSymbol.last)
                case .size?: advance(); indexExpression = NSExpression(forConstantValue: IndexSymbol.size)
                default: indexExpression = try parseExpression()
                }
                try expect(.rightBracket, "to close the index")
                expression = NSExpression(node: .function(target: nil, name: "objectFrom:withIndex:",
                                                          arguments: [expression, indexExpression]))
            } else {
                return expression
            }
        }
    }

    /// `base.key`: extends a key path, or starts one on another expression.
    static func appendingKey(_ key: String, to base: NSExpression) -> NSExpression {
        switch base.node {
        case .keyPath(let operand, let path): return NSExpression(node: .keyPath(operand: operand, path: path + "." + key))
        case .evaluatedObject: return NSExpression(node: .keyPath(operand: base, path: key))
        default: return NSExpression(node: .keyPath(operand: base, path: key))
        }
    }

    private mutating func parsePrimary() throws -> NSExpression {
        let token = current
        switch token.kind {
        case .number(let value):
            advance()
            return NSExpression(forConstantValue: value)
        case .string(let value):
            advance()
            return NSExpression(forConstantValue: value)
        case .objectArgument(let value):
            advance()
            if let expression = value as? NSExpression { return expression }
            return NSExpression(forConstantValue: value)
        case .keyPathArgument(let path):
            advance()
            return NSExpression(forKeyPath: path)
        case .variable(let name):
            advance()
            if current.symbol == .assign {
                throw error("variable assignment ($\(name) := …) is not supported", expected: "an operator")
            }
            return NSExpression(forVariable: name)
        case .identifier(let name, let escaped):
            advance()
            if !escaped && current.symbol == .leftParen {
                return try parseFunctionCall(name: name, token: token)
            }
            return NSExpression(forKeyPath: name)
        case .collectionOperator(let name):
            advance()
            return NSExpression(forKeyPath: name)
        case .selector(let name):
            advance()
            guard current.symbol == .leftParen else { throw error("expected \"(\" after the function name \(name)", expected: "\"(\"") }
            return try parseFunctionCall(name: name, token: token)
        case .symbol(.leftParen):
            advance()
            let expression = try parseExpression()
            try expect(.rightParen, "to close the parenthesised expression")
            return expression
        case .symbol(.leftBrace):
            advance()
            try enter()
            defer { leave() }
            var elements: [NSExpression] = []
            if !accept(.rightBrace) {
                repeat { elements.append(try parseExpression()) } while accept(.comma)
                try expect(.rightBrace, "to close the aggregate")
            }
            return NSExpression(forAggregate: elements)
        case .keyword(let keyword):
            return try parseKeywordPrimary(keyword, token: token)
        case .end:
            throw error("unexpected end of the format string", expected: "an expression")
        default:
            throw error("unexpected token", expected: "an expression")
        }
    }

    private mutating func parseKeywordPrimary(_ keyword: PredicateKeyword, token: PredicateToken) throws -> NSExpression {
        switch keyword {
        case .true, .yes: advance(); return NSExpression(forConstantValue: true)
        case .false, .no: advance(); return NSExpression(forConstantValue: false)
        case .null, .nil: advance(); return NSExpression(forConstantValue: nil)
        case .self: advance(); return NSExpression.expressionForEvaluatedObject()
        case .anyKey: advance(); return NSExpression.expressionForAnyKey()
        case .function:
            advance()
            try expect(.leftParen, "after FUNCTION")
            try enter()
            defer { leave() }
            let target = try parseExpression()
            try expect(.comma, "after the target of FUNCTION")
            let selectorToken = current
            let selectorExpression = try parseExpression()
            guard case .constant(let value) = selectorExpression.node, let name = value.flatMap(PredicateValue.string) else {
                throw error("the selector of FUNCTION must be a string", expected: "a quoted selector name", at: selectorToken)
            }
            var arguments: [NSExpression] = []
            while accept(.comma) { arguments.append(try parseExpression()) }
            try expect(.rightParen, "to close FUNCTION")
            return NSExpression(node: .function(target: target, name: name, arguments: arguments))
        case .cast:
            advance()
            try expect(.leftParen, "after CAST")
            try enter()
            defer { leave() }
            let value = try parseExpression()
            try expect(.comma, "after the value of CAST")
            let type = try parseExpression()
            try expect(.rightParen, "to close CAST")
            return PredicateFunctions.foldedCast(value, type)
        case .ternary:
            advance()
            try expect(.leftParen, "after TERNARY")
            try enter()
            defer { leave() }
            let predicate = try parseOr()
            try expect(.comma, "after the predicate of TERNARY")
            let yes = try parseExpression()
            try expect(.comma, "after the second argument of TERNARY")
            let no = try parseExpression()
            try expect(.rightParen, "to close TERNARY")
            return NSExpression(forConditional: predicate, trueExpression: yes, falseExpression: no)
        case .subquery:
            advance()
            try expect(.leftParen, "after SUBQUERY")
            try enter()
            defer { leave() }
            let collection = try parseExpression()
            try expect(.comma, "after the collection of SUBQUERY")
            guard case .variable(let variable) = current.kind else {
                throw error("the second argument of SUBQUERY must be a variable", expected: "$name")
            }
            advance()
            try expect(.comma, "after the variable of SUBQUERY")
            let predicate = try parseOr()
            try expect(.rightParen, "to close SUBQUERY")
            return NSExpression(forSubquery: collection, usingIteratorVariable: variable, predicate: predicate)
        case .fetch:
            throw error("FETCH expressions are not supported", expected: "an expression")
        default:
            throw error("the reserved word \(token.text) cannot start an expression; escape a key as #\(token.text)",
                        expected: "an expression")
        }
    }

    private mutating func parseFunctionCall(name: String, token: PredicateToken) throws -> NSExpression {
        guard let selector = PredicateFunctions.selector(forName: name) else {
            throw error("unknown function \(name)", expected: "a predefined function such as sum:, count:, now", at: token)
        }
        try expect(.leftParen, "after the function name")
        try enter()
        defer { leave() }
        var arguments: [NSExpression] = []
        if !accept(.rightParen) {
            repeat { arguments.append(try parseExpression()) } while accept(.comma)
            try expect(.rightParen, "to close the argument list of \(selector)")
        }
        if let arity = PredicateFunctions.arity(of: selector), arity != arguments.count {
            throw error("the function \(selector) takes \(arity) argument\(arity == 1 ? "" : "s"), not \(arguments.count)",
                        at: token)
        }
        return NSExpression(node: .function(target: nil, name: selector, arguments: arguments))
    }
}

extension NSExpression {
    /// A constant, variable, key path or `SELF` — something that cannot stand alone as a predicate.
    var isBareValue: Bool {
        switch node {
        case .constant, .variable, .keyPath, .evaluatedObject, .function, .aggregate: return true
        default: return false
        }
    }
}
