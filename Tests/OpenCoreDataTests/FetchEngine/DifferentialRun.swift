import OpenCoreData
import Testing

/// What one case produced, for callers that look further (the SQLite store's log of in-memory steps).
struct DifferentialOutcome {
    var failed: Bool
    var sqliteLog: [String]
}

/// Runs cases against both stores and checks them: expectations from the writer context of the in-memory stack (the
/// predicate layer on managed objects, and the SQL-path oracle), results from a fresh context on each store.
struct DifferentialRun {
    let seed: UInt64
    let data: DifferentialData
    let memory: DifferentialStack
    let sqlite: DifferentialStack
    let memoryReader: NSManagedObjectContext
    let sqliteReader: NSManagedObjectContext

    private(set) var cases = 0
    private(set) var failures = 0
    private(set) var memoryFailures = 0
    private(set) var sqliteFailures = 0
    /// Cases where Apple's two paths expect different objects (NULL semantics).
    private(set) var semanticsDiffer = 0
    private(set) var filteredInMemory = 0
    private(set) var sortedInMemory = 0
    private(set) var fallbackReasons: [String: Int] = [:]
    /// The first few messages of the store about in-memory steps, whole.
    private(set) var fallbackSamples: [String] = []
    private(set) var coverage: [String: Int] = [:]
    private(set) var failureLines: [String] = []

    /// How to run a failed case again (printed with each failure).
    let replay: (DifferentialCase) -> String

    init(seed: UInt64, data: DifferentialData, memory: DifferentialStack, sqlite: DifferentialStack, replay: @escaping (DifferentialCase) -> String) {
        self.replay = replay
        self.seed = seed
        self.data = data
        self.memory = memory
        self.sqlite = sqlite
        memoryReader = memory.newReader()
        sqliteReader = sqlite.newReader()
    }

    // MARK: Checking a case

    @discardableResult
    mutating func check(_ testCase: DifferentialCase) -> DifferentialOutcome? {
        cases += 1
        countCoverage(testCase)
        let memory = self.memory

        // Expectations, on the managed objects of the context that inserted the data.
        var memoryExpected: [String] = []
        var sqlExpected: [String]?
        var template = ""
        var templateArguments: [Any] = []
        do {
            try memory.writer.performAndWait {
                let resolve: (DifferentialReference, Bool) -> Any = { reference, _ in
                    memory.objects[reference.description] ?? NSNull()
                }
                let candidates = memory.objects.values
                    .filter { DifferentialSchema.isKind($0.entity.name ?? "", of: testCase.entity) }
                    .sorted { Self.id($0) < Self.id($1) }
                var predicate: NSPredicate?
                if let generated = testCase.predicate {
                    var renderer = DifferentialRenderer(variables: .inline, resolve: resolve)
                    template = renderer.render(generated)
                    templateArguments = renderer.arguments
                    predicate = try NSPredicate(validatingFormat: template, argumentArray: renderer.arguments)
                }
                let matching = try candidates.filter { try predicate?.evaluateThrowing(with: $0) ?? true }
                memoryExpected = try DifferentialSorting.ordered(matching, testCase).map(Self.key)
                switch testCase.predicate {
                case nil:
                    sqlExpected = memoryExpected
                case .raw?:
                    sqlExpected = nil
                case let generated?:
                    let oracle = try DifferentialSQLOracle(generated, entity: testCase.entity, resolve: resolve)
                    sqlExpected = try DifferentialSorting.ordered(try candidates.filter { try oracle.matches($0) }, testCase).map(Self.key)
                }
            }
        } catch {
            fail(testCase, tag: "oracle", "the expectation could not be computed (a generator or oracle bug): \(error)\n  format: \(template)\n  arguments: \(Self.describe(templateArguments))")
            return nil
        }
        if let sqlExpected, sqlExpected != memoryExpected { semanticsDiffer += 1 }

        // The stores, through a fresh context each.
        let memoryResult = fetch(testCase, stack: memory, reader: memoryReader)
        _ = DifferentialLogCapture.shared.drain()
        let sqliteResult = fetch(testCase, stack: sqlite, reader: sqliteReader)
        let log = DifferentialLogCapture.shared.drain()
        for message in log {
            if message.hasPrefix("filtering") { filteredInMemory += 1 } else { sortedInMemory += 1 }
            fallbackReasons[Self.reason(message, predicateFormat: sqliteResult.predicateFormat), default: 0] += 1
            if fallbackSamples.count < 12 { fallbackSamples.append("#\(testCase.index) " + message) }
        }

        let sorted = !testCase.sorts.isEmpty
        func agree(_ actual: [String]?, _ expected: [String]?) -> Bool {
            guard let expected else { return actual != nil }
            guard let actual else { return false }
            return sorted ? actual == expected : actual.sorted() == expected.sorted()
        }
        let memoryAgrees = agree(memoryResult.keys, memoryExpected)
        let sqliteAgrees = agree(sqliteResult.keys, sqlExpected)
        if memoryAgrees && sqliteAgrees { return DifferentialOutcome(failed: false, sqliteLog: log) }

        if !memoryAgrees { memoryFailures += 1 }
        if !sqliteAgrees { sqliteFailures += 1 }
        var report = [
            "format: \(template)",
            "arguments: \(Self.describe(templateArguments))",
            "parsed (as the SQLite store got it): \(sqliteResult.predicateFormat)",
            "SQLite store log: " + (log.isEmpty ? "translated to SQL" : log.joined(separator: " | ")),
        ]
        func section(_ name: String, _ expected: [String]?, _ result: (keys: [String]?, error: String?, predicateFormat: String), _ agrees: Bool) {
            let got = result.keys.map { "\($0)" } ?? "error: \(result.error ?? "?")"
            report.append("\(name) store \(agrees ? "agrees" : "DIFFERS"): expected \(expected.map { "\($0)" } ?? "(not checked)")")
            report.append("\(String(repeating: " ", count: name.count)) got      \(got)")
            if !agrees, let expected, let keys = result.keys {
                let missing = expected.filter { !keys.contains($0) }, extra = keys.filter { !expected.contains($0) }
                if !missing.isEmpty { report.append("  missing: \(missing)") }
                if !extra.isEmpty { report.append("  unexpected: \(extra)") }
                for line in dump(Set(missing + extra)) { report.append("    " + line) }
            }
        }
        section("in-memory", memoryExpected, memoryResult, memoryAgrees)
        section("SQLite", sqlExpected, sqliteResult, sqliteAgrees)
        if sqlExpected != nil && sqlExpected != memoryExpected {
            report.append("(the expectations differ where SQL's NULL semantics apply: see DifferentialOracle.swift)")
        }
        fail(testCase, tag: memoryAgrees ? "SQLite" : (sqliteAgrees ? "in-memory" : "both"), report.joined(separator: "\n  "))
        return DifferentialOutcome(failed: true, sqliteLog: log)
    }

    private mutating func fail(_ testCase: DifferentialCase, tag: String, _ details: String) {
        failures += 1
        failureLines.append("#\(testCase.index) (\(tag))")
        guard failures <= DifferentialPredicateTests.detailedFailures else { return }
        Issue.record("Differential case \(testCase) failed (\(replay(testCase)))\n  \(details)")
    }

    /// Fetches a case from one store through `reader`: the predicate rendered with that context's objects (or their
    /// IDs) and variables substituted with `withSubstitutionVariables`, as an app does.
    private func fetch(_ testCase: DifferentialCase, stack: DifferentialStack, reader: NSManagedObjectContext) -> (keys: [String]?, error: String?, predicateFormat: String) {
        var format = "(none)"
        do {
            let keys = try reader.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: testCase.entity)
                if let generated = testCase.predicate {
                    var renderer = DifferentialRenderer(variables: .keep) { reference, asID in
                        guard let objectID = stack.objectIDs[reference.description] else { return NSNull() }
                        return asID ? objectID : reader.object(with: objectID)
                    }
                    var predicate = try NSPredicate(validatingFormat: renderer.render(generated), argumentArray: renderer.arguments)
                    if !renderer.bindings.isEmpty { predicate = predicate.withSubstitutionVariables(renderer.bindings) }
                    request.predicate = predicate
                    format = predicate.predicateFormat
                }
                let descriptors = DifferentialSorting.descriptors(testCase)
                if !descriptors.isEmpty { request.sortDescriptors = descriptors }
                request.fetchLimit = testCase.fetchLimit
                request.fetchOffset = testCase.fetchOffset
                return try reader.fetch(request).map(Self.key)
            }
            return (keys, nil, format)
        } catch {
            return (nil, "\(error)", format)
        }
    }

    // MARK: Reporting

    static func id(_ object: NSManagedObject) -> Int64 { object.value(forKey: "id") as? Int64 ?? -1 }

    static func key(_ object: NSManagedObject) -> String { DifferentialData.key(object.entity.name ?? "?", id(object)) }

    /// A store log message without its entity and predicate (`filtering: ANY/ALL/NONE modifier`), for counting.
    static func reason(_ message: String, predicateFormat: String) -> String {
        let kind = message.hasPrefix("sorting") ? "sorting" : "filtering"
        var text = Substring(message)
        if let range = text.range(of: " rows in memory: ") { text = text[range.upperBound...] }
        if text.hasSuffix(" in " + predicateFormat) { text = text.dropLast(predicateFormat.count + 4) }
        return kind + ": " + text.split(separator: " ").prefix(7).joined(separator: " ")
    }

    /// The objects with these keys, with every attribute and relationship (from the reference context).
    func dump(_ keys: Set<String>) -> [String] {
        let memory = self.memory
        return memory.writer.performAndWait {
            keys.sorted().compactMap { memory.objects[$0] }.map(Self.describe(object:))
        }
    }

    static func describe(object: NSManagedObject) -> String {
        var parts: [String] = []
        for property in object.entity.properties {
            let value = object.value(forKey: property.name)
            switch value {
            case let related as NSManagedObject: parts.append("\(property.name): \(key(related))")
            case let set as NSSet: parts.append("\(property.name): [\(set.allObjects.compactMap { ($0 as? NSManagedObject).map(key) }.sorted().joined(separator: ", "))]")
            case let ordered as NSOrderedSet: parts.append("\(property.name): [\(ordered.array.compactMap { ($0 as? NSManagedObject).map(key) }.joined(separator: ", "))]")
            default: parts.append("\(property.name): \(describe(value))")
            }
        }
        return "\(key(object)) {\(parts.joined(separator: ", "))}"
    }

    static func describe(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return "nil"
        case let string as String: return string.debugDescription
        case let date as Date: return "Date(\(date.timeIntervalSinceReferenceDate))"
        case let data as Data: return "Data(\(data.map { String(format: "%02x", $0) }.joined()))"
        case let url as URL: return "URL(\(url.absoluteString))"
        case let uuid as UUID: return uuid.uuidString
        case let object as NSManagedObject: return key(object)
        case let objectID as NSManagedObjectID: return "\(objectID)"
        case let array as [Any]: return "[" + array.map { describe($0) }.joined(separator: ", ") + "]"
        case let set as NSSet: return "Set(" + set.allObjects.map { describe($0) }.sorted().joined(separator: ", ") + ")"
        case let number as NSNumber: return "\(number)"
        case let value?: return "\(value)"
        }
    }

    func summary(seconds: Double, replay: String) -> String {
        var lines = [
            "[differential] seed \(seed): \(cases) cases in \(String(format: "%.1f", seconds)) s; \(failures) failed "
                + "(in-memory store: \(memoryFailures), SQLite store: \(sqliteFailures)); Apple's two paths expect different objects in \(semanticsDiffer) cases",
            "[differential] the SQLite store filtered in memory in \(filteredInMemory) cases and sorted in memory in \(sortedInMemory) cases:",
        ]
        for (reason, count) in fallbackReasons.sorted(by: { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }) {
            lines.append("    \(count)× \(reason)")
        }
        for sample in fallbackSamples { lines.append("    e.g. " + sample) }
        lines.append("[differential] coverage (cases using each feature):")
        lines.append("    " + coverage.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        if !failureLines.isEmpty {
            lines.append("[differential] failed cases: \(failureLines.joined(separator: ", ")); replay one with OPENCOREDATA_DIFFERENTIAL_ONLY=<n> \(replay)")
        }
        return lines.joined(separator: "\n")
    }

    // MARK: Coverage

    private mutating func countCoverage(_ testCase: DifferentialCase) {
        var features = Set<String>()
        features.insert("entity \(testCase.entity)")
        for sort in testCase.sorts {
            features.insert("sort \(sort.selector)")
            if sort.key.contains(".") { features.insert("sort through to-one") }
        }
        if testCase.fetchLimit > 0 || testCase.fetchOffset > 0 { features.insert("limit/offset") }
        if let predicate = testCase.predicate { Self.collect(predicate, into: &features) }
        for feature in features { coverage[feature, default: 0] += 1 }
    }

    private static func collect(_ predicate: DifferentialPredicate, into features: inout Set<String>) {
        switch predicate {
        case .and(let parts): features.insert("AND"); parts.forEach { collect($0, into: &features) }
        case .or(let parts): features.insert("OR"); parts.forEach { collect($0, into: &features) }
        case .not(let part): features.insert("NOT"); collect(part, into: &features)
        case .constant(let value): features.insert(value ? "TRUEPREDICATE" : "FALSEPREDICATE")
        case .raw: features.insert("hand-written")
        case .comparison(let comparison):
            features.insert(comparison.op.rawValue + (comparison.options.isEmpty ? "" : "[\(comparison.options)]"))
            if let quantifier = comparison.quantifier { features.insert(quantifier.rawValue) }
            if comparison.lhs.isNilLiteral || comparison.rhs.isNilLiteral { features.insert("nil literal") }
            if case .key = comparison.lhs, case .key = comparison.rhs { features.insert("key path vs key path") }
            collect(comparison.lhs, into: &features)
            collect(comparison.rhs, into: &features)
        }
    }

    private static func collect(_ expression: DifferentialExpression, into features: inout Set<String>) {
        switch expression {
        case .key(let path):
            if path.contains("@") { features.insert(String(path.split(separator: ".").first { $0.hasPrefix("@") } ?? "@")) }
            let hops = path.split(separator: ".").filter { !$0.hasPrefix("@") }.count - 1
            if path == "SELF" { features.insert("SELF") } else if hops == 1 { features.insert("key path 2 components") } else if hops >= 2 { features.insert("key path 3 components") }
        case .constant(let value): if value is NSNull { features.insert("nil argument") }
        case .literal: features.insert("literal")
        case .aggregate: features.insert("{aggregate}")
        case .collection(_, let asSet): features.insert(asSet ? "Set argument" : "array argument")
        case .object(_, let asID): features.insert(asID ? "object ID argument" : "object argument")
        case .objects(_, let asIDs): features.insert(asIDs ? "object IDs argument" : "objects argument")
        case .variable(_, let value): features.insert("$variable"); collect(value, into: &features)
        case .arithmetic(let a, let op, let b): features.insert("arithmetic \(op)"); collect(a, into: &features); collect(b, into: &features)
        case .function(let name, let arguments): features.insert("function \(name)"); arguments.forEach { collect($0, into: &features) }
        case .subqueryCount(_, _, let predicate): features.insert("SUBQUERY"); collect(predicate, into: &features)
        }
    }
}
