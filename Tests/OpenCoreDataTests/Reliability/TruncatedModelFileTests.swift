import Testing

@testable import OpenCoreData

/// Real model files cut short at many offsets — Xcode XML models (`contents`) and compiled `.mom` archives (a binary
/// property list) — and compiled models with random bytes flipped: `NSManagedObjectModel(validatingContentsOf:)`
/// throws `NSCoreDataError` (134060) in `NSCocoaErrorDomain` for every damaged file, `NSManagedObjectModel(contentsOf:)`
/// returns nil, never a crash. (Hand-written malformed XML: `MalformedModelTests`.)
@Suite(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct TruncatedModelFileTests {
    /// Corpus models with entities, relationships, fetch requests and configurations between them.
    static let models = ["objcio__core-data__Moody__Migrations-Moody_1.xml", "alemar11__CoreDataPlus__SampleModel__SampleModel3.xml",
                         "duckduckgo__BrowserServicesKit__BookmarksModel__BookmarksModel_5.xml"]

    /// Loads `bytes` as the file `name` inside a fresh package; true when refused with Core Data's error.
    static func refused(_ bytes: Data, packageName: String, fileName: String?, _ comment: String) throws -> Bool {
        let directory = try TemporaryDirectory.make()
        let url: URL
        if let fileName {
            url = directory.appendingPathComponent(packageName)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try bytes.write(to: url.appendingPathComponent(fileName))
        } else {
            url = directory.appendingPathComponent(packageName)
            try bytes.write(to: url)
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            _ = try NSManagedObjectModel(validatingContentsOf: url)
            #expect(NSManagedObjectModel(contentsOf: url) != nil, "\(comment): the two initializers disagree")
            return false
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSCoreDataError, "\(comment): \(error)")
            #expect(NSManagedObjectModel(contentsOf: url) == nil, "\(comment): the two initializers disagree")
            return true
        }
    }

    @Test func truncatedXMLModelsAreRefused() throws {
        var tried = 0, refused = 0
        for name in Self.models {
            let bytes = try Data(contentsOf: Corpus.models.appendingPathComponent(name))
            #expect(try !Self.refused(bytes, packageName: "M.xcdatamodel", fileName: "contents", name), "\(name) intact must load")
            // Everything before the closing </model> tag is an unfinished document.
            let closing = try #require(bytes.lastRange(of: Data("</model>".utf8))).lowerBound
            for length in stride(from: 0, to: closing, by: 16) {
                tried += 1
                if try Self.refused(bytes.prefix(length), packageName: "M.xcdatamodel", fileName: "contents", "\(name) cut at \(length)") {
                    refused += 1
                } else {
                    Issue.record("\(name) cut at \(length) of \(bytes.count) bytes loaded")
                }
            }
        }
        print("Hostile inputs (truncated XML models): \(tried) tried, \(refused) refused with an error, 0 crashes")
    }

    @Test func truncatedAndFlippedCompiledModelsAreRefusedOrLoad() throws {
        var tried = 0, refused = 0
        var random = StoreTestRandom(seed: 0x30D)
        for name in Self.models {
            let model = try Corpus.model(name)
            let bytes = try CompiledModelWriter.archive(model)
            #expect(try !Self.refused(bytes, packageName: "M.mom", fileName: nil, "\(name) compiled"), "\(name) compiled must load")
            // A binary property list's trailer is its last 32 bytes: any shorter file has none.
            for length in stride(from: 0, to: bytes.count, by: 32) {
                tried += 1
                if try Self.refused(bytes.prefix(length), packageName: "M.mom", fileName: nil, "\(name) compiled, cut at \(length)") {
                    refused += 1
                } else {
                    Issue.record("\(name) compiled, cut at \(length) of \(bytes.count) bytes loaded")
                }
            }
            // Flipped bytes may still decode to some model; they must never crash.
            for round in 0..<60 {
                var damaged = bytes
                for _ in 0..<(1 + round % 4) {
                    let index = Int.random(in: 0..<damaged.count, using: &random)
                    damaged[index] ^= UInt8.random(in: 1...255, using: &random)
                }
                tried += 1
                if try Self.refused(damaged, packageName: "M.mom", fileName: nil, "\(name) compiled, round \(round)") { refused += 1 }
            }
        }
        print("Hostile inputs (truncated and flipped compiled models): \(tried) tried, \(refused) refused with an error, the rest loaded, 0 crashes")
    }
}
