import OpenCoreData
import Testing

/// Values as Apple's Foundation and Core Data hand them back: on Apple platforms every number that leaves a
/// predicate, an expression, a managed object or a fetch is an `NSNumber` (an `NSDecimalNumber` for decimals), and
/// Swift's `as?` bridges an `NSNumber` to every numeric type that represents its value exactly (SE-0170: `NSNumber(value:
/// 3.5) as? Int` is nil, `NSNumber(value: 3) as? Double` is 3.0, `NSNumber(value: 1) as? Bool` is true, `NSNumber(value:
/// 2) as? Bool` is nil). On Linux an `Any` holding a Swift `Int` does not cast `as? Double`; one holding an `NSNumber`
/// does — so code written for Apple's behaviour works only if the library hands out `NSNumber`s where Apple does.
///
/// Every row's expectation is derived from Apple's bridging rules for the kind of value Apple returns there
/// (``Expectation``), never from the library's output.
@Suite("Values come back as Apple's Foundation bridges them")
struct ValueBridgingTests {
    /// What Apple returns in a place: an `NSNumber` holding a number, an `NSDecimalNumber`, a string, … or nothing.
    enum Expectation: CustomStringConvertible {
        case number(Double)
        case decimal(Decimal)
        case string(String)
        case date(Date)
        case data(Data)
        case uuid(UUID)
        case url(URL)
        /// An object of an app's class (a transformable value): it casts to its class and to no number or string.
        case color(ConformanceColor)
        case none

        var description: String {
            switch self {
            case .number(let value): return "NSNumber \(value)"
            case .decimal(let value): return "NSDecimalNumber \(value)"
            case .string(let value): return "string \"\(value)\""
            case .date(let value): return "date \(value.timeIntervalSinceReferenceDate)"
            case .data(let value): return "data \(value.count) bytes"
            case .uuid(let value): return "UUID \(value)"
            case .url(let value): return "URL \(value)"
            case .color(let value): return "\(value)"
            case .none: return "nil"
            }
        }
    }

    /// The outcome of the casts an app writes.
    struct Casts: Equatable, CustomStringConvertible {
        var int: Int?
        var int16: Int16?
        var int64: Int64?
        var uint8: UInt8?
        var double: Double?
        var float: Float?
        var bool: Bool?
        var isNumber = false
        var string: String?
        var date: Date?
        var data: Data?
        var uuid: UUID?
        var url: URL?
        var color: ConformanceColor?
        /// Compared only when the expectation is a decimal: whether a plain `NSNumber` casts to `Decimal` is not part
        /// of SE-0170's rules.
        var decimal: Decimal?
        var isNil = false

        /// What the casts give on `value`.
        init(observing value: Any?) {
            guard let value else { isNil = true; return }
            int = value as? Int
            int16 = value as? Int16
            int64 = value as? Int64
            uint8 = value as? UInt8
            double = value as? Double
            float = value as? Float
            bool = value as? Bool
            isNumber = value is NSNumber
            string = value as? String
            date = value as? Date
            data = value as? Data
            uuid = value as? UUID
            url = value as? URL
            color = value as? ConformanceColor
            decimal = value as? Decimal
        }

        /// What they give on Apple platforms for what Apple returns there.
        init(expecting expectation: Expectation) {
            self.init(observing: nil)
            isNil = false
            switch expectation {
            case .number(let value):
                // SE-0170: a numeric cast succeeds when the type holds the value exactly; Bool only from 0 and 1.
                int = Int(exactly: value)
                int16 = Int16(exactly: value)
                int64 = Int64(exactly: value)
                uint8 = UInt8(exactly: value)
                double = value
                float = Float(exactly: value)
                bool = value == 0 ? false : (value == 1 ? true : nil)
                isNumber = true
            case .decimal(let value):
                self = Casts(expecting: .number(NSDecimalNumber(decimal: value).doubleValue))
                decimal = value
            case .string(let value): string = value
            case .date(let value): date = value
            case .data(let value): data = value
            case .uuid(let value): uuid = value
            case .url(let value): url = value
            case .color(let value): color = value
            case .none: isNil = true
            }
        }

        static func == (a: Casts, b: Casts) -> Bool {
            let decimalsAgree = a.decimal == nil || b.decimal == nil || a.decimal == b.decimal
            return a.int == b.int && a.int16 == b.int16 && a.int64 == b.int64 && a.uint8 == b.uint8 && a.double == b.double
                && a.float == b.float && a.bool == b.bool && a.isNumber == b.isNumber && a.string == b.string && a.date == b.date
                && a.data == b.data && a.uuid == b.uuid && a.url == b.url && a.color == b.color && a.isNil == b.isNil && decimalsAgree
        }

        var description: String {
            if isNil { return "nil" }
            var parts: [String] = []
            func add<T>(_ name: String, _ value: T?) { if let value { parts.append("\(name) \(value)") } }
            add("Int", int); add("Int16", int16); add("Int64", int64); add("UInt8", uint8); add("Double", double)
            add("Float", float); add("Bool", bool); if isNumber { parts.append("NSNumber") }
            add("String", string); add("Date", date); add("Data", data); add("UUID", uuid); add("URL", url)
            add("Color", color); add("Decimal", decimal)
            return parts.isEmpty ? "no cast succeeds" : parts.joined(separator: ", ")
        }
    }

    /// One place a value comes from, and what Apple hands out there.
    struct Row: CustomTestStringConvertible {
        let source: String
        let value: Any?
        let expected: Expectation
        var testDescription: String { source }
    }

    static func check(_ rows: [Row]) {
        for row in rows {
            let observed = Casts(observing: row.value)
            let expected = Casts(expecting: row.expected)
            #expect(observed == expected, "\(row.source): Apple gives \(row.expected), whose casts are [\(expected)]; got \(row.value.map { "\(type(of: $0))" } ?? "nil") with [\(observed)]")
        }
    }

    // MARK: Literals and format arguments

    /// Every literal form of the predicate grammar, as a comparison's constant (`constantValue`) and as the
    /// value of the right-hand expression (`expressionValue(with:context:)`).
    static var literals: [(literal: String, expected: Expectation)] { [
        ("42", .number(42)), ("-7", .number(-7)), ("0", .number(0)), ("1", .number(1)), ("2", .number(2)),
        ("300", .number(300)), ("2.5", .number(2.5)), ("-0.5", .number(-0.5)), ("8.0", .number(8)),
        ("0x1F", .number(31)), ("0o17", .number(15)), ("0b101", .number(5)), ("1e3", .number(1000)), ("2.5e-1", .number(0.25)),
        ("true", .number(1)), ("TRUE", .number(1)), ("YES", .number(1)), ("false", .number(0)), ("FALSE", .number(0)), ("NO", .number(0)),
        ("'text'", .string("text")), ("\"9\"", .string("9")), ("nil", .none), ("NULL", .none),
    ] }

    @Test("literals: constantValue and expressionValue are NSNumbers, strings or nil as on Apple platforms")
    func literalConstants() throws {
        var rows: [Row] = []
        for (literal, expected) in Self.literals {
            let predicate = try #require(NSPredicate(format: "value = \(literal)") as? NSComparisonPredicate)
            let right = predicate.rightExpression
            #expect(right.expressionType == .constantValue, "\(literal) parses to a constant")
            rows.append(Row(source: "constantValue of \(literal)", value: right.constantValue, expected: expected))
            rows.append(Row(source: "expressionValue of \(literal)", value: right.expressionValue(with: nil, context: nil), expected: expected))
            rows.append(Row(source: "NSExpression(format: \(literal))", value: NSExpression(format: literal).expressionValue(with: nil, context: nil), expected: expected))
        }
        // Casts: a date, a number from a string, a string from a number.
        let castDate = NSExpression(format: "CAST(0, 'NSDate')").expressionValue(with: nil, context: nil)
        rows.append(Row(source: "CAST(0, 'NSDate')", value: castDate, expected: .date(Date(timeIntervalSinceReferenceDate: 0))))
        let castNumber = NSExpression(format: "CAST('42', 'NSNumber')").expressionValue(with: nil, context: nil)
        rows.append(Row(source: "CAST('42', 'NSNumber')", value: castNumber, expected: .number(42)))
        let castString = NSExpression(format: "CAST(42, 'NSString')").expressionValue(with: nil, context: nil)
        rows.append(Row(source: "CAST(42, 'NSString')", value: castString, expected: .string("42")))
        // Format arguments: Apple boxes %d and %f as NSNumbers.
        let formatted = try #require(NSPredicate(format: "a = %d AND b = %f AND c = %@ AND d = %@", 42, 2.5, NSNumber(value: 7), "x") as? NSCompoundPredicate)
        let constants = formatted.subpredicates.compactMap { ($0 as? NSComparisonPredicate)?.rightExpression.constantValue }
        #expect(constants.count == 4)
        for (index, expected) in [Expectation.number(42), .number(2.5), .number(7), .string("x")].enumerated() where index < constants.count {
            rows.append(Row(source: "format argument \(index + 1)", value: constants[index], expected: expected))
        }
        // Programmatic constants are bridged as an Objective-C `id` parameter bridges them.
        rows.append(Row(source: "NSExpression(forConstantValue: 3)", value: NSExpression(forConstantValue: 3).constantValue, expected: .number(3)))
        rows.append(Row(source: "NSExpression(forConstantValue: true)", value: NSExpression(forConstantValue: true).constantValue, expected: .number(1)))
        rows.append(Row(source: "substituted $x = 5", value: (NSPredicate(format: "a = $x").withSubstitutionVariables(["x": 5]) as? NSComparisonPredicate)?.rightExpression.constantValue, expected: .number(5)))
        Self.check(rows)
    }

    // MARK: Evaluated expressions

    static var expressions: [(format: String, expected: Expectation)] { [
        ("1 + 2", .number(3)), ("10 - 4", .number(6)), ("3 * 4", .number(12)), ("7 / 2", .number(3.5)), ("8 / 2", .number(4)),
        ("2 ** 3", .number(8)), ("2 ** 0.5 * 0", .number(0)), ("-(5)", .number(-5)), ("1.5 + 1.5", .number(3)),
        ("sum:({1, 2, 3})", .number(6)), ("count:({1, 2, 3})", .number(3)), ("average:({1, 2, 3, 4})", .number(2.5)),
        ("average:({2, 4})", .number(3)), ("min:({4, 2, 9})", .number(2)), ("max:({4, 2, 9})", .number(9)),
        ("median:({4, 2, 9})", .number(4)), ("abs:(-3)", .number(3)), ("sqrt:(16)", .number(4)), ("floor:(2.7)", .number(2)),
        ("ceiling:(2.2)", .number(3)), ("trunc:(2.7)", .number(2)), ("modulus:by:(7, 3)", .number(1)),
        ("bitwiseAnd:with:(12, 10)", .number(8)), ("bitwiseOr:with:(12, 10)", .number(14)), ("onesComplement:(0)", .number(-1)),
        ("uppercase:('ab')", .string("AB")), ("TERNARY(1 < 2, 10, 20)", .number(10)), ("{1, 2}[0]", .number(1)),
        ("{1, 2}[LAST]", .number(2)), ("{1, 2, 3}.@count", .number(3)), ("{1, 2, 3}.@sum", .number(6)), ("{1, 2}.@avg", .number(1.5)),
    ] }

    @Test("evaluated expressions: arithmetic, functions and collection operators give NSNumbers")
    func evaluatedExpressions() {
        var rows = Self.expressions.map { format, expected in
            Row(source: format, value: NSExpression(format: format).expressionValue(with: nil, context: nil), expected: expected)
        }
        // Key paths on dictionaries and collection operators on their values.
        let order: [String: Any] = ["items": [["price": 2], ["price": 3]], "count": Int16(4), "flag": true]
        for (format, expected) in [("items.@count", Expectation.number(2)), ("items.@sum.price", .number(5)), ("items.@avg.price", .number(2.5)),
                                   ("items.@max.price", .number(3)), ("count", .number(4)), ("flag", .number(1)), ("count * 2", .number(8))] {
            rows.append(Row(source: "\(format) on a dictionary", value: NSExpression(format: format).expressionValue(with: order, context: nil), expected: expected))
        }
        // Variables bound from the context, then computed on.
        let context = NSMutableDictionary(dictionary: ["x": 20])
        rows.append(Row(source: "$x / 8", value: NSExpression(format: "$x / 8").expressionValue(with: nil, context: context), expected: .number(2.5)))
        Self.check(rows)
        // Collections of numbers: Apple's are NSArrays of NSNumbers, which cast to arrays of any numeric type.
        let aggregate = NSExpression(format: "{1, 2, 3}").expressionValue(with: nil, context: nil)
        #expect(aggregate as? [Double] == [1, 2, 3])
        #expect(aggregate as? [Int] == [1, 2, 3])
        // The arguments a block expression receives are NSNumbers too.
        let block = NSExpression(block: { _, arguments, _ in (arguments.first as? Double).map { $0 * 2 } ?? -1 }, arguments: [NSExpression(format: "1 + 2")])
        #expect(block.expressionValue(with: nil, context: nil) as? Double == 6)
    }

    // MARK: Attribute values

    /// A value of every attribute type of the conformance model's `Sample`, and what Apple's `value(forKey:)` gives
    /// for it: an `NSNumber` for integers, floating-point numbers and booleans, an `NSDecimalNumber` for decimals.
    static var color: ConformanceColor { ConformanceColor(red: 1, green: 2, blue: 3) }
    static var attributes: [(key: String, value: Any, expected: Expectation)] { [
        ("int16", Int16(7), .number(7)), ("int32", Int32(-300), .number(-300)), ("int64", Int64(1), .number(1)),
        ("double", 2.5, .number(2.5)), ("float", Float(8), .number(8)), ("decimal", Decimal(string: "3.5")!, .decimal(Decimal(string: "3.5")!)),
        ("bool", true, .number(1)), ("string", "9", .string("9")), ("date", Date(timeIntervalSinceReferenceDate: 86_400), .date(Date(timeIntervalSinceReferenceDate: 86_400))),
        ("data", Data([1, 2, 3]), .data(Data([1, 2, 3]))), ("uuid", UUID(uuidString: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")!, .uuid(UUID(uuidString: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")!)),
        ("uri", URL(string: "https://example.com/a")!, .url(URL(string: "https://example.com/a")!)), ("color", color, .color(color)),
    ] }

    @Test("attribute values through value(forKey:), key paths, expressions and dictionary fetches", arguments: [StoreKind.inMemory, .sqlite])
    func attributeValues(kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        let writer = stack.newContext()
        var changeRows: [Row] = []
        // What change tracking reports, and what the objects of the did-save notification hold.
        let note = try didSaveNotification(of: writer) { writer in
            let person = writer.insertObject("Person", ["name": "Ann"])
            let sample = writer.insertObject("Sample", ["owner": person])
            for (key, value, _) in Self.attributes { sample.setValue(value, forKey: key) }
            writer.insertObject("Sample", ["int16": Int16(3), "double": 1.0, "owner": person])
            let changes = sample.changedValues()
            for (key, _, expected) in Self.attributes {
                changeRows.append(Row(source: "\(kind) changedValues \(key)", value: changes[key], expected: expected))
            }
        }
        writer.performAndWait {
            let inserted = (note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>) ?? []
            let saved = inserted.first { $0.entity.name == "Sample" && $0.value(forKey: "string") as? String == "9" }
            for (key, _, expected) in Self.attributes {
                changeRows.append(Row(source: "\(kind) did-save notification object \(key)", value: saved?.value(forKey: key), expected: expected))
            }
        }
        Self.check(changeRows)
        let reader = try stack.reopened().newContext()
        try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Sample")
            request.predicate = NSPredicate(format: "string == '9'")
            let sample = try #require(try reader.fetch(request).first)
            var rows: [Row] = []
            for (key, _, expected) in Self.attributes {
                rows.append(Row(source: "\(kind) value(forKey: \(key))", value: sample.value(forKey: key), expected: expected))
                rows.append(Row(source: "\(kind) value(forKeyPath: \(key))", value: sample.value(forKeyPath: key), expected: expected))
                rows.append(Row(source: "\(kind) NSExpression(forKeyPath: \(key))", value: NSExpression(forKeyPath: key).expressionValue(with: sample, context: nil), expected: expected))
                rows.append(Row(source: "\(kind) committedValues \(key)", value: sample.committedValues(forKeys: [key])[key], expected: expected))
            }
            // Collection operators over a to-many relationship.
            let person = try #require(sample.value(forKey: "owner") as? NSManagedObject)
            rows.append(Row(source: "\(kind) samples.@count", value: person.value(forKeyPath: "samples.@count"), expected: .number(2)))
            rows.append(Row(source: "\(kind) samples.@sum.int16", value: person.value(forKeyPath: "samples.@sum.int16"), expected: .number(10)))
            rows.append(Row(source: "\(kind) samples.@avg.int16", value: person.value(forKeyPath: "samples.@avg.int16"), expected: .number(5)))
            rows.append(Row(source: "\(kind) samples.@max.double", value: person.value(forKeyPath: "samples.@max.double"), expected: .number(2.5)))
            rows.append(Row(source: "\(kind) expression samples.@sum.double", value: NSExpression(format: "samples.@sum.double").expressionValue(with: person, context: nil), expected: .number(3.5)))

            // Dictionary results: every attribute by name.
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Sample")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.predicate = NSPredicate(format: "string == '9'")
            dictionaries.propertiesToFetch = Self.attributes.map(\.key).filter { $0 != "color" }
            let row = try #require(try reader.fetch(dictionaries).first)
            for (key, _, expected) in Self.attributes where key != "color" {
                rows.append(Row(source: "\(kind) dictionary result \(key)", value: row[key], expected: expected))
                let swiftRow = row as? [String: Any]
                rows.append(Row(source: "\(kind) dictionary result as [String: Any] \(key)", value: swiftRow?[key], expected: expected))
            }
            Self.check(rows)
        }
    }

    @Test("dictionary results of expression descriptions (@sum, count:, average:, arithmetic) are NSNumbers", arguments: [StoreKind.inMemory, .sqlite])
    func expressionDescriptions(kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            for (int16, double) in [(Int16(2), 1.5), (Int16(4), 2.0), (Int16(9), 0.5)] {
                context.insertObject("Sample", ["int16": int16, "double": double, "string": "s\(int16)"])
            }
            try context.save()
            func description(_ name: String, _ expression: NSExpression, _ type: NSAttributeType) -> NSExpressionDescription {
                let description = NSExpressionDescription()
                description.name = name
                description.expression = expression
                description.expressionResultType = type
                return description
            }
            let aggregates = NSFetchRequest<NSDictionary>(entityName: "Sample")
            aggregates.resultType = .dictionaryResultType
            aggregates.propertiesToFetch = [
                description("sum", NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "int16")]), .integer64AttributeType),
                description("count", NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "int16")]), .integer64AttributeType),
                description("average", NSExpression(forFunction: "average:", arguments: [NSExpression(forKeyPath: "int16")]), .doubleAttributeType),
                description("max", NSExpression(forFunction: "max:", arguments: [NSExpression(forKeyPath: "double")]), .doubleAttributeType),
            ]
            let totals = try #require(try context.fetch(aggregates).first)
            var rows = [
                Row(source: "\(kind) sum:", value: totals["sum"], expected: .number(15)),
                Row(source: "\(kind) count:", value: totals["count"], expected: .number(3)),
                Row(source: "\(kind) average:", value: totals["average"], expected: .number(5)),
                Row(source: "\(kind) max:", value: totals["max"], expected: .number(2)),
            ]
            // Per-row expressions, including ones whose result type is left undefined.
            let perRow = NSFetchRequest<NSDictionary>(entityName: "Sample")
            perRow.resultType = .dictionaryResultType
            perRow.predicate = NSPredicate(format: "int16 == 9")
            perRow.propertiesToFetch = [
                description("twice", NSExpression(format: "int16 * 2"), .integer64AttributeType),
                description("half", NSExpression(format: "int16 / 2"), .doubleAttributeType),
                description("plusOne", NSExpression(format: "int16 + 1"), .undefinedAttributeType),
            ]
            let row = try #require(try context.fetch(perRow).first)
            rows.append(Row(source: "\(kind) int16 * 2", value: row["twice"], expected: .number(18)))
            rows.append(Row(source: "\(kind) int16 / 2", value: row["half"], expected: .number(4.5)))
            rows.append(Row(source: "\(kind) int16 + 1 (undefined type)", value: row["plusOne"], expected: .number(10)))
            Self.check(rows)
        }
    }

    // MARK: Model files

    @Test("userInfo values and default values read from a model file are strings and NSNumbers as Apple's")
    func modelFileValues() throws {
        let directory = try TemporaryStoreDirectory()
        let package = directory.url.appendingPathComponent("Values.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Item" representedClassName="Item" syncable="YES" codeGenerationType="class">
                    <attribute name="count" optional="YES" attributeType="Integer 16" defaultValueString="5" usesScalarValueType="YES"/>
                    <attribute name="ratio" optional="YES" attributeType="Double" defaultValueString="2.5" usesScalarValueType="YES"/>
                    <attribute name="flag" optional="YES" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
                    <userInfo>
                        <entry key="limit" value="12"/>
                        <entry key="label" value="items"/>
                    </userInfo>
                </entity>
            </model>
            """
        try contents.write(to: package.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let model = try #require(NSManagedObjectModel(contentsOf: package))
        let item = try #require(model.entitiesByName["Item"])
        let properties = item.attributesByName
        Self.check([
            Row(source: "userInfo limit", value: item.userInfo?["limit"], expected: .string("12")),
            Row(source: "userInfo label", value: item.userInfo?["label"], expected: .string("items")),
            Row(source: "default count", value: properties["count"]?.defaultValue, expected: .number(5)),
            Row(source: "default ratio", value: properties["ratio"]?.defaultValue, expected: .number(2.5)),
            Row(source: "default flag", value: properties["flag"]?.defaultValue, expected: .number(1)),
        ])
        // A compiled model (here the one an SQLite store keeps in Z_MODELCACHE) holds userInfo values as Foundation
        // objects: numbers read back as NSNumbers.
        let programmatic = ConformanceModel.make()
        programmatic.entitiesByName["Sample"]?.userInfo = ["limit": 12, "label": "items", "ratio": 0.5]
        let storeURL = directory.url.appendingPathComponent("Values.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: programmatic)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: nil)
        try coordinator.remove(store)
        let cached = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: storeURL, options: nil)
        let cachedInfo = cached.entitiesByName["Sample"]?.userInfo
        Self.check([
            Row(source: "compiled userInfo limit", value: cachedInfo?["limit"], expected: .number(12)),
            Row(source: "compiled userInfo ratio", value: cachedInfo?["ratio"], expected: .number(0.5)),
            Row(source: "compiled userInfo label", value: cachedInfo?["label"], expected: .string("items")),
        ])
    }
}
