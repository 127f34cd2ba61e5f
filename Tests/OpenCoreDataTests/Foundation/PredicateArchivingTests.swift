import Foundation
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataFoundation

/// Predicates and expressions as Apple's keyed archives: the mapping-model expressions of the corpus decode
/// to the expressions Xcode shows for them, every kind of predicate and expression survives an
/// encode/decode round trip, and damaged archives throw `NSCoderReadCorruptError`.
@Suite("Predicate archiving (NSPredicate / NSExpression keyed archives)")
struct PredicateArchivingTests {
    /// The base64 `valueexpressiondata` values of a corpus mapping model, in file order.
    static func valueExpressionArchives(_ fileName: String) throws -> [Data] {
        let text = try String(contentsOf: Corpus.models.appendingPathComponent(fileName), encoding: .utf8)
        var result: [Data] = []
        var rest = Substring(text)
        let marker = "name=\"valueexpressiondata\" type=\"binary\">"
        while let start = rest.range(of: marker) {
            let tail = rest[start.upperBound...]
            guard let end = tail.firstIndex(of: "<") else { break }
            let base64 = tail[..<end].filter { !$0.isWhitespace }
            result.append(try #require(Data(base64Encoded: String(base64))))
            rest = tail[end...]
        }
        return result
    }

    @Test("Moody 4→5: valueForKeyPath: on $source decodes to the key path $source.continent.numericISO3166Code",
          .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func moodyMappingExpression() throws {
        let archives = try Self.valueExpressionArchives("objcio__core-data__Moody_4-Moody_5.xcmapping.xml")
        #expect(archives.count == 1)
        let expression = try PredicateArchiving.expression(fromArchive: try #require(archives.first))
        // The archive's root is an NSKeyPathExpression (Apple's key path expression class, a subclass of
        // NSFunctionExpression calling valueForKeyPath: on its operand), so Apple prints it as a key path.
        #expect(expression.expressionType == .keyPath)
        #expect(expression.keyPath == "continent.numericISO3166Code")
        #expect(expression.operand.expressionType == .variable)
        #expect(expression.operand.variable == "source")
        #expect(expression.description == "$source.continent.numericISO3166Code")
        #expect(expression == NSExpression(format: "$source.continent.numericISO3166Code"))
        // It evaluates as the migration manager will use it: with the source object bound to $source.
        let source: [String: Any] = ["continent": ["numericISO3166Code": 150]]
        let value = try expression.expressionValueThrowing(with: nil, context: ["source": source])
        #expect((value as? NSNumber)?.intValue == 150 || (value as? Int) == 150)
    }

    @Test("every valueexpressiondata of the corpus mapping models decodes", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func corpusMappingExpressions() throws {
        let expected: [String: [String]] = [
            "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V1.FromV2.xcmapping.xml": ["$source.numberOfFlippers"],
            "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V2.FromV1.xcmapping.xml": ["$source.numberOfFlagella", "1"],  // Apple prints YES constants as 1
            "alemar11__CoreDataPlus__V2toV3.xcmapping.xml": [
                "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"PersonToPerson\", $source.owner)",
                "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"PersonToPerson\", $source.owner)",
                "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"cars\", $source.cars)",
                "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"PersonToPerson\", $source.owner)",
            ],
            "fruitsamples__MigrationV2__MappingModel.xcmapping.xml": [
                "FUNCTION(CAST(\"MigrationFunctions\", \"Class\"), \"getLastName:\", $source.name)",
                "$source.cuisine",
                "FUNCTION(CAST(\"MigrationFunctions\", \"Class\"), \"getFirstName:\", $source.name)",
            ],
        ]
        for (file, formats) in expected {
            let decoded = try Self.valueExpressionArchives(file).map { try PredicateArchiving.expression(fromArchive: $0) }
            #expect(decoded.map(\.description) == formats, "\(file)")
        }
        let constant = try Self.valueExpressionArchives("JohnEstropia__CoreStore__Advanced.EvolutionDemo.V2.FromV1.xcmapping.xml")[1]
        #expect(try PredicateArchiving.expression(fromArchive: constant).constantValue as? Bool == true)
    }

    static let roundTripPredicates = [
        "name == \"x\"", "age != 3", "age < 3", "age <= 3", "age > 3.5", "age >= -2",
        "name BEGINSWITH[c] \"a\"", "name ENDSWITH[d] \"b\"", "name LIKE[cd] \"a*\"", "name MATCHES \"[a-z]+\"",
        "name CONTAINS[c] \"q\"", "age IN {1, 2, 3}", "age BETWEEN {1, 5}", "ANY tags.name == \"t\"",
        "ALL tags.count > 0", "NOT (a == 1)", "a == 1 AND (b == 2 OR c == nil)", "TRUEPREDICATE", "FALSEPREDICATE",
        "SELF == $x", "count(items) > 2", "items.@sum.price > 10", "date > CAST(0, \"NSDate\")",
        "SUBQUERY(items, $i, $i.price > 1).@count > 0", "TERNARY(a > 1, 2, 3) == 2", "a + 1 * b == 7",
        "FUNCTION(name, \"uppercaseString\") == \"A\"", "{1, 2} CONTAINS 1", "$source.owner.name == \"n\"",
    ]

    @Test("predicates round-trip through a keyed archive", arguments: roundTripPredicates)
    func predicateRoundTrip(format: String) throws {
        let predicate = NSPredicate(format: format)
        let data = try PredicateArchiving.archivedData(with: predicate)
        let decoded = try PredicateArchiving.predicate(fromArchive: data)
        #expect(decoded == predicate)
        #expect(decoded.predicateFormat == predicate.predicateFormat)
    }

    @Test("the archive Apple's corpus shows for a key path on SELF: NSKeyPathExpression, valueForKey:, type 3")
    func keyPathLayout() throws {
        let data = try PredicateArchiving.archivedData(with: NSExpression(forKeyPath: "authorAlias"))
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(plist["$archiver"] as? String == "NSKeyedArchiver")
        let objects = try #require(plist["$objects"] as? [Any])
        #expect(objects.first as? String == "$null")
        let strings = objects.compactMap { $0 as? String }
        #expect(strings.contains("valueForKey:"))
        #expect(strings.contains("authorAlias"))
        let classNames = objects.compactMap { ($0 as? [String: Any])?["$classname"] as? String }
        #expect(Set(classNames) == ["NSKeyPathExpression", "NSSelfExpression", "NSKeyPathSpecifierExpression", "NSMutableArray"])
    }

    @Test("block expressions and predicates cannot be archived (NSCoderInvalidValueError)")
    func blocksRefused() {
        let block = NSExpression(block: { _, _, _ in 1 }, arguments: nil)
        #expect { try PredicateArchiving.archivedData(with: block) } throws: { error in
            (error as NSError).domain == NSCocoaErrorDomain && (error as NSError).code == 4866
        }
        #expect { try PredicateArchiving.archivedData(with: NSPredicate(block: { _, _ in true })) } throws: { error in
            (error as NSError).code == 4866
        }
    }

    @Test("predicate archives with rewired object references decode or throw 4864; what decodes formats and evaluates without trapping")
    func rewiredReferences() throws {
        let predicate = NSPredicate(format: "(name BEGINSWITH[c] 'a' OR age BETWEEN {1, 5}) AND SUBQUERY(items, $i, $i.price > 2).@count > 0 AND TERNARY(a > 1, b, c) == sum:(items.price) + 1 AND FUNCTION($source, 'valueForKey:', 'x') == 2")
        let archive = try PredicateArchiving.archivedData(with: predicate)
        var refused = 0, decodedCount = 0
        let object: [String: Any] = ["name": "abc", "age": 3, "items": [["price": 3]], "a": 2, "b": 1, "c": 0]
        for variant in try CompiledModelTests.rewiringUIDs(of: archive, count: 300, seed: 7) {
            do {
                let decoded = try PredicateArchiving.predicate(fromArchive: variant)
                decodedCount += 1
                _ = decoded.predicateFormat
                _ = try? decoded.evaluateThrowing(with: object, substitutionVariables: ["source": ["x": 2]])
            } catch {
                refused += 1
                #expect((error as NSError).code == 4864)
            }
        }
        #expect(refused > 0)
        #expect(decodedCount > 0)
    }

    @Test("truncated, garbage and wrong-root archives throw NSCoderReadCorruptError (4864)")
    func malformedArchives() throws {
        let good = try PredicateArchiving.archivedData(with: NSExpression(format: "$source.a.b"))
        var inputs: [Data] = [Data(), Data("bplist00".utf8), Data(repeating: 0xFF, count: 64)]
        for length in stride(from: 0, to: good.count, by: max(1, good.count / 25)) { inputs.append(good.prefix(length)) }
        // A predicate archive is not an expression archive.
        inputs.append(try PredicateArchiving.archivedData(with: NSPredicate(format: "a == 1")))
        for input in inputs {
            #expect { try PredicateArchiving.expression(fromArchive: input) } throws: { error in
                (error as NSError).domain == NSCocoaErrorDomain && (error as NSError).code == 4864
            }
        }
        // Every single-byte corruption either decodes or throws; none stops the process.
        for offset in 0..<good.count {
            var damaged = good
            damaged[offset] ^= 0x5A
            _ = try? PredicateArchiving.expression(fromArchive: damaged)
        }
    }
}
