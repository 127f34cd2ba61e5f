import Foundation
import Testing

@testable import OpenCoreData

/// The `coredata` executable, run as a subprocess: `model compile` and `store model` on good input, and one-line
/// errors with a non-zero exit status on bad input.
@Suite("coredata command-line tool", .enabled(if: CoreDataTool.executable != nil, "the coredata executable is not built next to the test bundle: tool tests skipped"))
struct CoreDataToolTests {
    @Test("model compile: .xcdatamodeld → .momd that loads with the source's hashes; .xcdatamodel → .mom")
    func compile() throws {
        let source = try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld"))
        let output = try TemporaryDirectory.make().appendingPathComponent("Library.momd")
        let result = try CoreDataTool.run(["model", "compile", source.path, output.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Compiled Library.xcdatamodeld"))
        let compiled = try NSManagedObjectModel(validatingContentsOf: output)
        let xml = try NSManagedObjectModel(validatingContentsOf: source)
        #expect(compiled.entityVersionHashesByName == xml.entityVersionHashesByName)
        #expect(try NSManagedObjectModel.checksumsForVersionedModel(at: output).count == 2)

        let version = source.appendingPathComponent("Library 2.xcdatamodel")
        let mom = output.deletingLastPathComponent().appendingPathComponent("Library2.mom")
        #expect(try CoreDataTool.run(["model", "compile", version.path, mom.path]).status == 0)
        #expect(NSManagedObjectModel(contentsOf: mom)?.entityVersionHashesByName == (try NSManagedObjectModel(validatingContentsOf: version)).entityVersionHashesByName)
    }

    @Test("model compile: .xcmappingmodel → .cdm that NSMappingModel loads, with its models' hashes",
          .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func compileMapping() throws {
        let folder = try MoodyMigrationChainTests.migrationsFolder()
        let source = folder.appendingPathComponent("Moody5ToMoody6.xcmappingmodel")
        let output = try TemporaryDirectory.make().appendingPathComponent("Moody5ToMoody6.cdm")
        let result = try CoreDataTool.run(["model", "compile", source.path, output.path])
        #expect(result.status == 0, "\(result.stderr)")
        let compiled = try NSMappingModel(validatingContentsOf: output)
        let package = folder.appendingPathComponent("Moody.xcdatamodeld")
        let five = try NSManagedObjectModel(validatingContentsOf: package, versionName: "Moody 5"), six = try NSManagedObjectModel(validatingContentsOf: package, versionName: "Moody 6")
        #expect(compiled.hashesFit(source: five, destination: six))
        #expect(compiled.entityMappingsByName["CountryToCountry"]?.entityMigrationPolicyClassName == "Migrations.Country5ToCountry6Policy")
        let wrongName = try CoreDataTool.run(["model", "compile", source.path, output.deletingLastPathComponent().appendingPathComponent("Moody.mom").path])
        #expect(wrongName.status != 0 && wrongName.stderr.contains("compiles to a .cdm file"))
    }

    @Test("store model prints the cached model of the Moody store: entities, attribute types, relationships, hashes",
          .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func storeModel() throws {
        let store = try Corpus.storeCopy("objcio__core-data__Moody.moody")
        let result = try CoreDataTool.run(["store", "model", store.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let metadata = try RawStoreMetadata.read(store)
        let hashes = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
        #expect(hashes.count == 4)
        for (entity, hash) in hashes {
            #expect(result.stdout.contains("Entity \(entity)"), "\(entity)")
            #expect(result.stdout.contains("version hash: \(hash.base64EncodedString())"), "\(entity)")
        }
        // Facts of Moody's model (corpus XML objcio__core-data__Moody__Migrations-Moody_1.xml), written out by hand.
        #expect(result.stdout.contains("Entity GeographicRegion (class NSManagedObject, abstract)"))
        #expect(result.stdout.contains("attribute date: Date\n"))
        #expect(result.stdout.contains("attribute colors: Transformable (optional, transformer ColorsTransformer)"))
        #expect(result.stdout.contains("relationship country → Country (to-one, optional, inverse moods, nullify)"))
        #expect(result.stdout.contains("relationship countries → Continent") == false)
        #expect(result.stdout.contains("relationship countries → Country (to-many, inverse continent, nullify)"))
    }

    @Test("bad input: one line on stderr naming the problem, exit status 1, no crash",
          arguments: ["missing", "text", "plain-sqlite", "no-cache", "damaged-cache", "bad-model", "wrong-output", "no-arguments"])
    func badInput(_ kind: String) throws {
        let directory = try TemporaryDirectory.make()
        var arguments: [String]
        var fragment: String
        switch kind {
        case "missing":
            arguments = ["store", "model", directory.appendingPathComponent("none.sqlite").path]
            fragment = "No store file"
        case "text":
            let file = directory.appendingPathComponent("notes.sqlite")
            try Data(repeating: 0x20, count: 2048).write(to: file)
            arguments = ["store", "model", file.path]
            fragment = "not an SQLite database"
        case "plain-sqlite":
            let file = directory.appendingPathComponent("plain.sqlite")
            try ModelCacheStoreTests.execute("CREATE TABLE t (x)", in: file)
            arguments = ["store", "model", file.path]
            fragment = "not a Core Data store"
        case "no-cache":
            guard Corpus.isAvailable else { return }
            arguments = ["store", "model", try Corpus.storeCopy("ooper-shlab__CoreDataBooks1.5-Swift__CoreDataBooks.CDBStore").path]
            fragment = "no model cache"
        case "damaged-cache":
            let store = try ModelCacheStoreTests.createStore(try ModelCacheStoreTests.libraryModel())
            try ModelCacheStoreTests.execute("UPDATE Z_MODELCACHE SET Z_CONTENT = x'DEADBEEF'", in: store)
            arguments = ["store", "model", store.path]
            fragment = "not valid DEFLATE data"
        case "bad-model":
            let package = directory.appendingPathComponent("Broken.xcdatamodel")
            try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
            try Data("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Nope\"/></entity></model>".utf8)
                .write(to: package.appendingPathComponent("contents"))
            arguments = ["model", "compile", package.path, directory.appendingPathComponent("Broken.mom").path]
            fragment = "unknown attributeType 'Nope'"
        case "wrong-output":
            let source = try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld"))
            arguments = ["model", "compile", source.path, directory.appendingPathComponent("Library.mom").path]
            fragment = ".momd"
        default:
            arguments = ["store", "model"]
            fragment = "Missing expected argument"
        }
        let result = try CoreDataTool.run(arguments)
        #expect(result.status != 0)
        #expect(result.status < 128, "terminated by a signal")
        #expect(result.stderr.contains(fragment), "\(result.stderr)")
        #expect(result.stdout.isEmpty || kind == "no-arguments")
        if kind != "no-arguments" {
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(!result.stderr.contains("Domain="), "an NSError dump instead of a message")
        }
    }
}

/// Finds and runs the `coredata` executable built next to the test bundle (`.build/<configuration>/`).
enum CoreDataTool {
    static let executable: URL? = {
        let testBinary = URL(fileURLWithPath: ChildProcess.executable).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On macOS the test binary sits inside `OpenCoreDataPackageTests.xctest/Contents/MacOS`.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("coredata")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        let tool: URL = try #require(executable, "the coredata executable is not built")
        process.executableURL = tool
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        // stderr goes to a file, not a second pipe: a child that writes more than a pipe holds there (a sanitizer's
        // report at exit) would block while stdout is read to its end, and the test would wait forever.
        let errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorsURL) }
        let errors = try FileHandle(forWritingTo: errorsURL)
        defer { try? errors.close() }
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorData = (try? Data(contentsOf: errorsURL)) ?? Data()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }
}
