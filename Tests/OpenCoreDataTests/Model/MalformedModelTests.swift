import Foundation
import Testing

@testable import OpenCoreData

/// Malformed or unsupported model files throw an NSError in NSCocoaErrorDomain with a Core Data code and a
/// message naming the file, the element and the problem — never a crash.
@Suite struct MalformedModelTests {
    /// A model package holding `xml` as its `contents`.
    static func package(_ xml: String) throws -> URL {
        let package = try TemporaryDirectory.make().appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: package.appendingPathComponent("contents"))
        return package
    }

    /// Loads `xml` and returns the thrown error (failing the test if loading succeeds).
    static func error(loading xml: String) throws -> NSError {
        let url = try package(xml)
        #expect(NSManagedObjectModel(contentsOf: url) == nil)
        return try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: url) }
    }

    static let valid = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Mood" representedClassName="Mood">
                <attribute name="date" attributeType="Date"/>
                <relationship name="country" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Country" inverseName="moods" inverseEntity="Country"/>
            </entity>
            <entity name="Country" representedClassName="Country">
                <relationship name="moods" toMany="YES" deletionRule="Nullify" destinationEntity="Mood" inverseName="country" inverseEntity="Mood"/>
            </entity>
        </model>
        """

    static func expectCoreDataError(_ error: NSError, mentions fragments: [String]) {
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSCoreDataError)
        #expect(error.userInfo[NSFilePathErrorKey] != nil)
        for fragment in fragments {
            #expect(error.localizedDescription.contains(fragment), "\(error.localizedDescription) should mention \(fragment)")
        }
    }

    @Test func theValidFixtureLoads() throws {
        let model = try NSManagedObjectModel(validatingContentsOf: Self.package(Self.valid))
        #expect(model.entities.count == 2)
    }

    @Test func truncatedXML() throws {
        for length in [0, 10, 60, 200, Self.valid.utf8.count - 20, Self.valid.utf8.count - 1] {
            let truncated = String(decoding: Array(Self.valid.utf8).prefix(length), as: UTF8.self)
            let error = try Self.error(loading: truncated)
            Self.expectCoreDataError(error, mentions: length == 0 ? ["empty"] : ["malformed XML", "line"])
        }
    }

    @Test func unknownAttributeType() throws {
        let error = try Self.error(loading: Self.valid.replacingOccurrences(of: #"attributeType="Date""#, with: #"attributeType="Timestamp""#))
        Self.expectCoreDataError(error, mentions: ["attribute 'date' of entity 'Mood'", "unknown attributeType 'Timestamp'", "contents:4"])
    }

    @Test func danglingDestinationAndInverse() throws {
        let destination = try Self.error(loading: Self.valid.replacingOccurrences(of: #"destinationEntity="Country""#, with: #"destinationEntity="Nation""#)
            .replacingOccurrences(of: #"inverseEntity="Country""#, with: #"inverseEntity="Nation""#))
        Self.expectCoreDataError(destination, mentions: ["relationship 'country' of entity 'Mood'", "unknown destinationEntity 'Nation'"])
        let inverse = try Self.error(loading: Self.valid.replacingOccurrences(of: #"inverseName="moods""#, with: #"inverseName="feelings""#))
        Self.expectCoreDataError(inverse, mentions: ["relationship 'country' of entity 'Mood'", "inverse relationship 'feelings' does not exist in entity 'Country'"])
    }

    @Test func duplicateEntityAndPropertyNames() throws {
        let entity = try Self.error(loading: Self.valid.replacingOccurrences(of: #"<entity name="Country""#, with: #"<entity name="Mood""#))
        Self.expectCoreDataError(entity, mentions: ["entity 'Mood'", "already exists"])
        let property = try Self.error(loading: Self.valid.replacingOccurrences(of: #"<attribute name="date" attributeType="Date"/>"#, with: #"<attribute name="date" attributeType="Date"/><attribute name="date" attributeType="String"/>"#))
        Self.expectCoreDataError(property, mentions: ["entity 'Mood'", "two properties are named 'date'"])
    }

    @Test func inheritanceCyclesAndUnknownParents() throws {
        let cycle = try Self.error(loading: Self.valid
            .replacingOccurrences(of: #"<entity name="Mood" representedClassName="Mood">"#, with: #"<entity name="Mood" representedClassName="Mood" parentEntity="Country">"#)
            .replacingOccurrences(of: #"<entity name="Country" representedClassName="Country">"#, with: #"<entity name="Country" representedClassName="Country" parentEntity="Mood">"#))
        Self.expectCoreDataError(cycle, mentions: ["inheritance cycle"])
        let unknown = try Self.error(loading: Self.valid.replacingOccurrences(of: #"<entity name="Mood" representedClassName="Mood">"#, with: #"<entity name="Mood" representedClassName="Mood" parentEntity="Feeling">"#))
        Self.expectCoreDataError(unknown, mentions: ["unknown parentEntity 'Feeling'"])
        let selfParent = try Self.error(loading: Self.valid.replacingOccurrences(of: #"<entity name="Mood" representedClassName="Mood">"#, with: #"<entity name="Mood" representedClassName="Mood" parentEntity="Mood">"#))
        Self.expectCoreDataError(selfParent, mentions: ["inheritance cycle"])
    }

    @Test func otherMalformedInputs() throws {
        Self.expectCoreDataError(try Self.error(loading: "<plist version=\"1.0\"><dict/></plist>"), mentions: ["expected <model>"])
        Self.expectCoreDataError(try Self.error(loading: Self.valid.replacingOccurrences(of: #"deletionRule="Nullify""#, with: #"deletionRule="Explode""#)), mentions: ["unknown deletionRule 'Explode'"])
        Self.expectCoreDataError(try Self.error(loading: Self.valid.replacingOccurrences(of: #"optional="YES" maxCount="1""#, with: #"optional="MAYBE" maxCount="1""#)), mentions: ["optional=\"MAYBE\" is not YES or NO"])
        Self.expectCoreDataError(try Self.error(loading: Self.valid.replacingOccurrences(of: #"<entity name="Mood" "#, with: #"<entity "#)), mentions: ["the entity has no name"])
        Self.expectCoreDataError(try Self.error(loading: Self.valid.replacingOccurrences(of: "&", with: "&").replacingOccurrences(of: #"name="date""#, with: #"name="a&bogus;""#)), mentions: ["unknown entity reference"])
        Self.expectCoreDataError(try Self.error(loading: Self.valid.replacingOccurrences(of: "</model>", with: "</modle>")), mentions: ["does not close <model>"])
        Self.expectCoreDataError(try Self.error(loading: Self.valid.replacingOccurrences(of: #"attributeType="Date""#, with: #"attributeType="Undefined""#)), mentions: ["only transient attributes may have an undefined type"])
        let deep = "<model>" + String(repeating: "<a>", count: 5000) + String(repeating: "</a>", count: 5000) + "</model>"
        Self.expectCoreDataError(try Self.error(loading: deep), mentions: ["nested deeper"])
        let nul = Self.valid.replacingOccurrences(of: "Mood\" representedClassName", with: "Mo\u{0}od\" representedClassName")
        Self.expectCoreDataError(try Self.error(loading: nul), mentions: ["NUL"])
    }

    @Test func malformedPredicatesInModelFiles() throws {
        let template = Self.valid.replacingOccurrences(of: "</model>", with: #"<fetchRequest name="Broken" entity="Mood" predicateString="date &gt;&gt; 3"/></model>"#)
        Self.expectCoreDataError(try Self.error(loading: template), mentions: ["fetch request template 'Broken'", "not a valid predicate"])
        let derived = Self.valid.replacingOccurrences(of: #"<attribute name="date" attributeType="Date"/>"#, with: #"<attribute name="date" attributeType="Date"/><attribute name="n" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="country.(("/>"#)
        Self.expectCoreDataError(try Self.error(loading: derived), mentions: ["attribute 'n' of entity 'Mood'", "not a valid expression"])
    }

    @Test func randomBytesNeverCrash() throws {
        var generator = SeededGenerator(seed: 42)
        let base = Array(Self.valid.utf8)
        for round in 0..<300 {
            var bytes = base
            for _ in 0..<(1 + round % 8) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: position)
                default: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
                }
            }
            let url = try Self.package(String(decoding: bytes, as: UTF8.self))
            do {
                _ = try NSManagedObjectModel(validatingContentsOf: url)
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain && error.code == NSCoreDataError)
            }
        }
    }

    @Test func missingFilesAndPackages() throws {
        let directory = try TemporaryDirectory.make()
        let missing = try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: directory.appendingPathComponent("Nope.xcdatamodeld")) }
        Self.expectCoreDataError(missing, mentions: ["no such file"])
        let empty = directory.appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        Self.expectCoreDataError(try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: empty) }, mentions: ["no 'contents' file"])
        let versioned = directory.appendingPathComponent("Versions.xcdatamodeld")
        for name in ["A", "B"] {
            let version = versioned.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(Self.valid.utf8).write(to: version.appendingPathComponent("contents"))
        }
        Self.expectCoreDataError(try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: versioned) }, mentions: ["2 versions and no .xccurrentversion"])
        try Data("not a plist".utf8).write(to: versioned.appendingPathComponent(".xccurrentversion"))
        Self.expectCoreDataError(try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: versioned) }, mentions: ["malformed property list"])
        let plist = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "C.xcdatamodel"], format: .xml, options: 0)
        try plist.write(to: versioned.appendingPathComponent(".xccurrentversion"))
        Self.expectCoreDataError(try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: versioned) }, mentions: ["current version 'C.xcdatamodel' is not in the package"])
        Self.expectCoreDataError(try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: versioned, versionName: "Z") }, mentions: ["no version named 'Z'"])
        #expect(try NSManagedObjectModel(validatingContentsOf: versioned, versionName: "B").entities.count == 2)
    }

    @Test func malformedCompiledModelsAreRefusedClearly() throws {
        let momd = try TemporaryDirectory.make().appendingPathComponent("Model.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        Self.expectCoreDataError(try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: momd) }, mentions: ["contains no .mom file"])
        let mom = momd.appendingPathComponent("Model.mom")
        try Data("not an archive".utf8).write(to: mom)
        let error = try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: mom) }
        Self.expectCoreDataError(error, mentions: ["not a valid compiled model"])
        #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == 4864)  // NSCoderReadCorruptError
        #expect(NSManagedObjectModel(contentsOf: momd) == nil)
        try Data("not a plist".utf8).write(to: momd.appendingPathComponent("VersionInfo.plist"))
        Self.expectCoreDataError(try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: momd) }, mentions: ["malformed property list"])
    }

    @Test func xcode3BinaryModelIsRefused() throws {
        let package = try TemporaryDirectory.make().appendingPathComponent("Old.xcdatamodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data("bplist00".utf8).write(to: package.appendingPathComponent("elements"))
        Self.expectCoreDataError(try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: package) }, mentions: ["Xcode 3", "elements"])
    }
}

/// A small deterministic random number generator (SplitMix64) for reproducible randomized tests.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
