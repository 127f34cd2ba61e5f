// A file that must import Foundation as well as OpenCoreData names OpenCoreData's classes with scoped imports,
// because swift-corelibs-foundation declares classes with the same names. This file compiling is the test.
import Foundation
import Testing
import OpenCoreData
import class OpenCoreData.NSPredicate
import class OpenCoreData.NSComparisonPredicate
import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSExpression
import class OpenCoreData.NSSortDescriptor

@Suite("Scoped imports and CVarArg")
struct ScopedImportTests {
    @Test func typePositionsResolveToOpenCoreData() {
        let predicate: NSPredicate = NSPredicate(format: "name == %@", "Ann")
        let comparison: NSComparisonPredicate? = predicate as? NSComparisonPredicate
        let expression: NSExpression? = comparison?.rightExpression
        let sort: NSSortDescriptor = NSSortDescriptor(key: "name", ascending: true)
        #expect(expression?.constantValue as? String == "Ann")
        #expect(sort.key == "name")
        #expect(NSArray(array: ["Ann", "Bob"]).filtered(using: NSPredicate(format: "SELF == 'Ann'")).count == 1)
    }

    /// Values that are not `CVarArg` in swift-corelibs-foundation, passed to `%@` through the retroactive conformances.
    @Test func cVarArgConformances() {
        let date = Date(timeIntervalSinceReferenceDate: 86_400)
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let url = URL(string: "https://example.com/a")!
        let predicate = NSPredicate(
            format: "d == %@ AND u == %@ AND b == %@ AND l == %@ AND m == %@ AND n == %@ AND nd == %@ AND a IN %@ AND s IN %@ AND x == %@ AND na IN %@ AND ns IN %@ AND o == %@",
            date, uuid, Data([1, 2]), url, Decimal(string: "1.5")!, NSNumber(value: 7), NSDate(timeIntervalSinceReferenceDate: 0),
            [1, 2], Set(["x"]), NSNull(), NSArray(array: [3]), NSSet(array: [4]), NSString(string: "str"))
        let object: [String: Any] = ["d": date, "u": uuid, "b": Data([1, 2]), "l": url, "m": 1.5, "n": 7,
                                     "nd": Date(timeIntervalSinceReferenceDate: 0), "a": 2, "s": "x", "na": 3, "ns": 4, "o": "str"]
        #expect(predicate.evaluate(with: object))
        #expect(predicate.predicateFormat.hasPrefix("d == CAST(86400.000000, \"NSDate\") AND u == CAST(\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\", \"NSUUID\")"))
        // Class instances keep working with String(format:) through their object pointer.
        #expect(String(format: "%@ %@", NSNumber(value: 42), NSString(string: "hi")) == "42 hi")
    }
}
