import Foundation
import Testing

@testable import OpenCoreData

/// SQL functions and collations: registration, errors, closure lifetimes, Apple's derived-attribute triggers.
@Suite struct SQLiteFunctionTests {
    struct Refusal: LocalizedError {
        var errorDescription: String? { "refused by ocd_fail" }
    }

    /// An object whose lifetime shows whether SQLite released a closure.
    final class Token {}

    @Test func scalarFunctionReceivesAndReturnsValues() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.registerFunction(name: "ocd_describe", argumentCount: -1, deterministic: true) { arguments in
            .text(arguments.map(\.description).joined(separator: ","))
        }
        #expect(try connection.fetchValue("SELECT ocd_describe(1, 2.5, 'a''b', X'00FF', NULL)") == .text("1,2.5,'a''b',X'00FF',NULL"))
        #expect(try connection.fetchValue("SELECT ocd_describe()") == .text(""))

        try connection.registerFunction(name: "ocd_echo", argumentCount: 1, deterministic: true) { $0[0] }
        for value in [SQLiteValue.null, .integer(-1), .real(0.5), .text("nul\u{0}byte"), .text(""), .blob(Data([0, 1])), .blob(Data())] {
            #expect(try connection.fetchValue("SELECT ocd_echo(?)", arguments: [value]) == value)
        }
    }

    @Test func rawFunctionReadsArgumentsLazily() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.registerRawFunction(name: "ocd_matches", argumentCount: 2, deterministic: true) { arguments in
            guard let text = arguments.string(at: 0), let pattern = arguments.string(at: 1) else { return .null }
            return .integer(text.range(of: "^(?:\(pattern))$", options: .regularExpression) != nil ? 1 : 0)
        }
        try connection.execute("CREATE TABLE ZITEM (ZNAME VARCHAR); INSERT INTO ZITEM VALUES ('abc'), ('abd'), ('xyz'), (NULL)")
        #expect(try connection.fetchAll("SELECT ZNAME FROM ZITEM WHERE ocd_matches(ZNAME, 'ab.') ORDER BY ZNAME") == [[.text("abc")], [.text("abd")]])
        try connection.registerRawFunction(name: "ocd_sum", argumentCount: 3, deterministic: true) { arguments in
            #expect(arguments.count == 3 && arguments.isNull(at: 2))
            return .real(Double(arguments.int64(at: 0)) + arguments.double(at: 1))
        }
        #expect(try connection.fetchValue("SELECT ocd_sum(2, 0.5, NULL)") == .real(2.5))
    }

    @Test func errorThrownByAFunctionFailsTheStatement() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.registerFunction(name: "ocd_fail", argumentCount: 0, deterministic: false) { _ in throw Refusal() }
        try connection.registerFunction(name: "ocd_fail_ns", argumentCount: 0, deterministic: false) { _ in
            throw NSError(domain: "Test", code: 7, userInfo: [NSLocalizedDescriptionKey: "ns failure"])
        }
        #expect {
            try connection.fetchValue("SELECT ocd_fail()")
        } throws: { error in
            SQLiteResultCode.error ~= error && (error as NSError).localizedDescription.hasPrefix("refused by ocd_fail (code 1) while executing")
        }
        #expect {
            try connection.fetchValue("SELECT ocd_fail_ns()")
        } throws: { error in
            (error as NSError).userInfo[SQLiteErrorKey.message] as? String == "ns failure"
        }
    }

    @Test func wrongArgumentCountIsNoSuchFunction() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.registerFunction(name: "ocd_one", argumentCount: 1, deterministic: true) { $0[0] }
        #expect {
            try connection.fetchValue("SELECT ocd_one(1, 2)")
        } throws: { error in
            (error as NSError).localizedDescription.contains("wrong number of arguments to function ocd_one()")
        }
        #expect(throws: (any Error).self) { try connection.registerFunction(name: "bad\u{0}name", argumentCount: 0, deterministic: true) { _ in .null } }
        #expect(throws: (any Error).self) { try connection.registerFunction(name: "", argumentCount: 0, deterministic: true) { _ in .null } }
    }

    @Test func closuresAreReleasedWhenReplacedAndWhenTheConnectionCloses() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        weak var first: Token?
        weak var second: Token?
        weak var collation: Token?
        do {
            let token1 = Token(), token2 = Token(), token3 = Token()
            (first, second, collation) = (token1, token2, token3)
            try connection.registerFunction(name: "ocd_f", argumentCount: 0, deterministic: true) { _ in _ = token1; return .integer(1) }
            try connection.registerFunction(name: "ocd_f", argumentCount: 0, deterministic: true) { _ in _ = token2; return .integer(2) }
            try connection.registerCollation(name: "ocd_c") { left, right in _ = token3; return left.compare(right) }
        }
        #expect(first == nil, "replacing a function releases the old closure")
        #expect(second != nil && collation != nil)
        #expect(try connection.fetchValue("SELECT ocd_f()") == .integer(2))
        connection.close()
        #expect(second == nil && collation == nil, "closing releases the remaining closures")
    }

    @Test func deinitClosesTheConnectionAndReleasesClosures() throws {
        weak var token: Token?
        weak var weakConnection: SQLiteConnection?
        do {
            let captured = Token()
            token = captured
            let connection = try SQLiteConnection(path: ":memory:")
            weakConnection = connection
            try connection.registerFunction(name: "ocd_f", argumentCount: 0, deterministic: true) { _ in _ = captured; return .null }
            _ = try connection.cachedStatement("SELECT ocd_f()")
        }
        #expect(weakConnection == nil, "cached statements do not keep their connection alive")
        #expect(token == nil, "deinit closed the handle, which released the function's closure")
    }

    @Test func collationOrdersAndCompares() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.registerCollation(name: "ocd_cd") { left, right in
            left.compare(right, options: [.caseInsensitive, .diacriticInsensitive])
        }
        try connection.execute("CREATE TABLE ZITEM (ZNAME VARCHAR); INSERT INTO ZITEM VALUES ('b'), ('É'), ('a'), ('C'), ('e')")
        let ordered = try connection.fetchAll("SELECT ZNAME FROM ZITEM ORDER BY ZNAME COLLATE ocd_cd, ZNAME COLLATE BINARY")
        #expect(ordered == [[.text("a")], [.text("b")], [.text("C")], [.text("e")], [.text("É")]])
        #expect(try connection.fetchValue("SELECT count(*) FROM ZITEM WHERE ZNAME = 'E' COLLATE ocd_cd") == .integer(2))
        #expect(try connection.fetchValue("SELECT ? = ? COLLATE ocd_cd", arguments: [.text("x\u{0}y"), .text("X\u{0}Y")]) == .integer(1))
        #expect(try connection.fetchValue("SELECT ? = ? COLLATE ocd_cd", arguments: [.text("x\u{0}y"), .text("x\u{0}z")]) == .integer(0))
    }

    /// Apple's derived-attribute triggers (store-format.md §4) call `NSCoreDataDATrigger…` functions in a SELECT
    /// inside the trigger body: without them every write fails, with them the store hears about each change.
    @Test func derivedAttributeTriggerFunctions() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("""
            CREATE TABLE ZBOOK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPAGESCOUNT INTEGER);
            CREATE TABLE ZPAGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBOOK INTEGER);
            CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT AFTER INSERT ON ZPAGE FOR EACH ROW WHEN (NEW.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = IFNULL(ZPAGESCOUNT, 0) + 1 WHERE Z_PK = NEW.ZBOOK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = NEW.ZBOOK; END;
            CREATE TRIGGER Z_DA_ZBOOK_Book_pagesCount_SOURCE_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = (SELECT IFNULL(COUNT(ZBOOK), 0) FROM ZPAGE WHERE ZBOOK = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END;
            """)
        #expect {
            try connection.execute("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1)")
        } throws: { error in
            (error as NSError).localizedDescription.contains("no such function: NSCoreDataDATriggerInsertUpdatedAffectedObjectValue")
        }

        var calls: [[SQLiteValue]] = []
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            try connection.registerFunction(name: name, argumentCount: 5, deterministic: false) { arguments in
                calls.append([.text(name)] + arguments)
                return .null
            }
        }
        try connection.execute("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1)")
        try connection.execute("INSERT INTO ZPAGE (Z_ENT, Z_OPT, ZBOOK) VALUES (2, 1, 1), (2, 1, 1)")
        #expect(try connection.fetchValue("SELECT ZPAGESCOUNT FROM ZBOOK") == .integer(2))
        #expect(calls == [
            [.text("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"), .text("ZBOOK"), .integer(1), .integer(1), .text("pagesCount"), .integer(0)],
            [.text("NSCoreDataDATriggerUpdatedAffectedObjectValue"), .text("ZBOOK"), .integer(1), .integer(1), .text("pagesCount"), .integer(1)],
            [.text("NSCoreDataDATriggerUpdatedAffectedObjectValue"), .text("ZBOOK"), .integer(1), .integer(1), .text("pagesCount"), .integer(2)],
        ])
    }

    /// The same on a real store written by Apple's Core Data (CoreDataPlus SampleModel2, fw 1344).
    @Test(.enabled(
        if: FileManager.default.fileExists(atPath: SQLiteTestFiles.corpusStores.appendingPathComponent("alemar11__CoreDataPlus__SampleModel2_V1.sqlite").path),
        "corpus not found at ../shared/corpus: corpus test skipped"))
    func derivedAttributeTriggersOfARealAppleStore() throws {
        let directory = try SQLiteTestFiles.directory()
        let name = "alemar11__CoreDataPlus__SampleModel2_V1.sqlite"
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: SQLiteTestFiles.corpusStores.appendingPathComponent(name + suffix).path) {
            try FileManager.default.copyItem(
                at: SQLiteTestFiles.corpusStores.appendingPathComponent(name + suffix), to: directory.appendingPathComponent(name + suffix))
        }
        let connection = try SQLiteConnection(path: directory.appendingPathComponent(name).path)
        guard case .integer(let book)? = try connection.fetchValue("SELECT Z_PK FROM ZBOOK LIMIT 1"),
              case .integer(let pageEntity)? = try connection.fetchValue("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Page'") else {
            Issue.record("the corpus store has no book or no Page entity")
            return
        }
        let insertPage = "INSERT INTO ZPAGE (Z_ENT, Z_OPT, ZBOOK) VALUES (\(pageEntity), 1, \(book))"
        #expect {
            try connection.execute(insertPage)
        } throws: { error in
            (error as NSError).localizedDescription.contains("no such function: NSCoreDataDATriggerUpdatedAffectedObjectValue")
        }
        var affected: [SQLiteValue] = []
        try connection.registerFunction(name: "NSCoreDataDATriggerUpdatedAffectedObjectValue", argumentCount: 5, deterministic: false) { arguments in
            affected = arguments
            return .null
        }
        let before = try connection.fetchValue("SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = ?", arguments: [.integer(book)])
        try connection.execute(insertPage)
        let after = try connection.fetchValue("SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = ?", arguments: [.integer(book)])
        #expect(affected.count == 5 && affected[0] == .text("ZBOOK") && affected[2] == .integer(book) && affected[3] == .text("pagesCount"))
        #expect(affected.last == after)
        if case .integer(let count)? = before { #expect(after == .integer(count + 1)) }
    }
}
