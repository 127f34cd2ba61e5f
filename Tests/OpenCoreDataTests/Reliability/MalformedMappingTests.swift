import Testing

@testable import OpenCoreData

/// Malformed Xcode mapping models (`xcmapping.xml`): truncated at many offsets, garbage, the wrong root element or
/// document kind, and a `valueexpressiondata` that is not a keyed archive. `NSMappingModel(validatingContentsOf:)`
/// throws an `NSError` in `NSCocoaErrorDomain` for each (`NSMappingModel(contentsOf:)` returns nil) — never a crash.
@Suite struct MalformedMappingTests {
    /// The corpus mapping model used as the base of the damaged copies: it has explicit value expressions.
    static let corpusMapping = "fruitsamples__MigrationV2__MappingModel.xcmapping.xml"

    /// Writes `bytes` as `<name>.xcmappingmodel/xcmapping.xml` in `directory`.
    static func package(_ bytes: Data, in directory: URL) throws -> URL {
        let package = directory.appendingPathComponent("M-\(UUID().uuidString).xcmappingmodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try bytes.write(to: package.appendingPathComponent("xcmapping.xml"))
        return package
    }

    /// Loads `bytes`; returns true when it was refused with a Cocoa error (and `contentsOf:` agreed with nil).
    static func refused(_ bytes: Data, in directory: URL, _ comment: String) throws -> Bool {
        let url = try package(bytes, in: directory)
        do {
            _ = try NSMappingModel(validatingContentsOf: url)
            #expect(NSMappingModel(contentsOf: url) != nil, "\(comment): the two initializers disagree")
            return false
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain, "\(comment): \(error)")
            #expect(NSMappingModel(contentsOf: url) == nil, "\(comment): the two initializers disagree")
            return true
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func truncatedMappingFilesAreRefused() throws {
        let directory = try TemporaryDirectory.make()
        let bytes = try Data(contentsOf: Corpus.models.appendingPathComponent(Self.corpusMapping))
        #expect(try !Self.refused(bytes, in: directory, "the intact mapping model"), "the intact mapping model must load")
        var tried = 0, refused = 0
        // Cutting the XML anywhere before its closing tag leaves a malformed document; the last 20 bytes are the
        // closing `</database>` tag and trailing newline, so every offset up to there must be refused.
        let closing = try #require(bytes.lastRange(of: Data("</database>".utf8))).lowerBound
        for length in stride(from: 0, to: closing, by: 97) {
            tried += 1
            if try Self.refused(bytes.prefix(length), in: directory, "mapping cut at \(length)") { refused += 1 } else {
                Issue.record("a mapping file cut at \(length) of \(bytes.count) bytes loaded")
            }
        }
        print("Hostile inputs (truncated mapping files): \(tried) tried, \(refused) refused with an error, 0 crashes")
    }

    @Test func garbageAndWrongDocumentsAreRefused() throws {
        let directory = try TemporaryDirectory.make()
        var random = StoreTestRandom(seed: 77)
        var inputs: [(String, Data)] = [
            ("empty", Data()),
            ("text", Data("not xml at all".utf8)),
            ("wrong root", Data(#"<?xml version="1.0"?><model type="com.apple.IDECoreDataModeler.DataModel"/>"#.utf8)),
            ("a plist", try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .xml, options: 0)),
            ("an XML store with no mapping model", Data(#"<?xml version="1.0"?><!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd"><database><databaseInfo><version>134481920</version></databaseInfo></database>"#.utf8)),
            ("unbalanced", Data("<database><object type=\"XDDEVMAPPINGMODEL\" id=\"z1\">".utf8)),
        ]
        for index in 0..<40 {
            inputs.append(("random #\(index)", Data((0..<(16 + index * 50)).map { _ in UInt8.random(in: 0...255, using: &random) })))
        }
        var refused = 0
        for (name, bytes) in inputs {
            if try Self.refused(bytes, in: directory, name) { refused += 1 } else { Issue.record("\(name) loaded as a mapping model") }
        }
        print("Hostile inputs (garbage mapping files): \(inputs.count) tried, \(refused) refused with an error, 0 crashes")
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func aValueExpressionThatIsNotAKeyedArchiveIsRefused() throws {
        let directory = try TemporaryDirectory.make()
        let text = try String(contentsOf: Corpus.models.appendingPathComponent(Self.corpusMapping), encoding: .utf8)
        let marker = #"<attribute name="valueexpressiondata" type="binary">"#
        let start = try #require(text.range(of: marker)).upperBound
        let end = try #require(text[start...].range(of: "</attribute>")).lowerBound
        let original = try #require(Data(base64Encoded: String(text[start..<end]).filter { !$0.isWhitespace }))
        let replacements: [(String, Data)] = [
            ("random bytes", Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37) })),
            ("a truncated archive", original.prefix(original.count / 2)),
            ("a plist that is not an archive", try PropertyListSerialization.data(fromPropertyList: ["$archiver": "NSKeyedArchiver", "$objects": ["$null"]], format: .binary, options: 0)),
            ("an archive of a string", try PropertyListSerialization.data(fromPropertyList: ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": "x"], "$objects": ["$null", "just a string"]], format: .binary, options: 0)),
        ]
        for (name, replacement) in replacements {
            let damaged = text.replacingCharacters(in: start..<end, with: replacement.base64EncodedString())
            let url = try Self.package(Data(damaged.utf8), in: directory)
            let error = #expect(throws: NSError.self, "valueexpressiondata with \(name)") { try NSMappingModel(validatingContentsOf: url) }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.localizedDescription.contains("value expression") == true, "\(String(describing: error))")
        }
    }
}
