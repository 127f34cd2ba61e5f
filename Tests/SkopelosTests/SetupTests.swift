import OpenCoreData
import Skopelos
import Testing

/// The seed's singleton pattern: a subclass with a shared instance and its own handleError.
final class SkopelosClient: Skopelos, @unchecked Sendable {  // `log` is locked
    static let storeURL: URL = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("skopelos-singleton-\(UUID().uuidString)")
        return directory.appendingPathComponent("DALModel.sqlite")
    }()
    static let sharedInstance: SkopelosClient = {
        _ = DALTest.registered
        return SkopelosClient(sqliteStack: "DALModel", bundle: .module, storeURL: storeURL, appStateReactor: DALTest.quietReactor())
    }()

    let log = ErrorLog()

    override func handleError(_ error: NSError) {
        log.append(error)
    }
}

@Suite("Skopelos setup")
struct SetupTests {
    @Test func theModelIsFoundByNameInTheCallersBundle() throws {
        _ = DALTest.registered
        let url = try DALTest.newStoreURL()
        let dal = RecordingSkopelos(sqliteStack: "DALModel", bundle: .module, storeURL: url, appStateReactor: DALTest.quietReactor())
        #expect(dal.log.all.isEmpty)
        #expect(dal.coreDataStack.modelURL?.lastPathComponent == "DALModel.xcdatamodeld")
        #expect(ModelLocator.url(forModelNamed: "DALModel", in: .module)?.lastPathComponent == "DALModel.xcdatamodeld")
        dal.writeSync { context in User.SK_create(context).firstname = "Bundle" }
        #expect(try DALTest.count("User", in: url) == 1)
    }

    @Test func theModelIsFoundBesideTheExecutableWhenNotInTheGivenBundle() {
        // Bundle.main of the test runner holds no model; the SwiftPM resource folder beside it does.
        #expect(ModelLocator.url(forModelNamed: "DALModel", in: .main)?.lastPathComponent == "DALModel.xcdatamodeld")
    }

    @Test func inMemoryStacksByNameAndByURLKeepNoFile() throws {
        _ = DALTest.registered
        let byName = RecordingSkopelos(inMemoryStack: "DALModel", bundle: .module, appStateReactor: DALTest.quietReactor())
        let byURL = RecordingSkopelos(inMemoryStack: DALTest.modelURL, appStateReactor: DALTest.quietReactor())
        for dal in [byName, byURL] {
            #expect(dal.coreDataStack.storeType == .inMemory)
            #expect(dal.coreDataStack.storeURL == nil)
            #expect(dal.coreDataStack.persistentStore?.type == NSInMemoryStoreType)
            var count = -1
            dal.writeSync { context in
                User.SK_create(context)
                User.SK_create(context)
            }.read { context in
                count = User.SK_numberOfEntities(context)
            }
            #expect(count == 2)
            #expect(dal.log.all.isEmpty)
        }
    }

    @Test func aMissingModelIsReportedAndWritesFailWithoutCrashing() throws {
        let dal = RecordingSkopelos(sqliteStack: "NoSuchModel", bundle: .module, storeURL: try DALTest.newStoreURL(),
                                    appStateReactor: DALTest.quietReactor())
        let first = try #require(dal.log.all.first)
        #expect(first.domain == NSCocoaErrorDomain)
        #expect(first.code == NSFileReadNoSuchFileError)
        #expect(first.localizedDescription.contains("NoSuchModel"))
        #expect(dal.coreDataStack.persistentStore == nil)
        var count = -1
        dal.read { context in count = User.SK_numberOfEntities(context) }   // no entity for User: reported, 0
        #expect(count == 0)
        #expect(dal.log.all.count == 2)
    }

    /// A file that is not an SQLite store: the error goes to handleError, the file is kept byte for byte (the seed
    /// deleted it and started over), and later writes report their errors instead of crashing.
    @Test func aStoreThatFailsToOpenIsReportedAndKept() throws {
        let url = try DALTest.newStoreURL()
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try bytes.write(to: url)
        let dal = try DALTest.service(at: url)
        let error = try #require(dal.log.all.first)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(dal.coreDataStack.persistentStore == nil)
        #expect(dal.coreDataStack.setupErrors == [error])
        dal.writeSync { context in User.SK_create(context).firstname = "Lost" }
        #expect(dal.log.all.count >= 2)
        #expect(dal.log.all.dropFirst().allSatisfy { $0.domain == NSCocoaErrorDomain })
        #expect(try Data(contentsOf: url) == bytes)
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aModelFileThatDoesNotLoadIsReported() throws {
        let directory = try DALTest.newStoreURL().deletingLastPathComponent()
        let broken = directory.appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data("<model><entity name=".utf8).write(to: broken.appendingPathComponent("contents"))
        let dal = RecordingSkopelos(sqliteStack: broken, storeURL: directory.appendingPathComponent("Broken.sqlite"),
                                    appStateReactor: DALTest.quietReactor())
        #expect(dal.log.all.count == 1)
        #expect(dal.log.all.first?.domain == NSCocoaErrorDomain)
        #expect(dal.coreDataStack.persistentStore == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("Broken.sqlite").path))
    }

    @Test func theDefaultStoreIsTheModelNameInDocuments() throws {
        let url = CoreDataStack.defaultStoreURL(modelName: "DataModel")
        #expect(url.lastPathComponent == "DataModel.sqlite")
        let documents = try #require(FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).last)
        #expect(url.deletingLastPathComponent().standardizedFileURL.path == documents.standardizedFileURL.path)
    }

    @Test func theSingletonSubclassWorks() throws {
        let shared = SkopelosClient.sharedInstance
        #expect(shared === SkopelosClient.sharedInstance)
        shared.writeSync { context in Pet.SK_create(context).name = "Shared" }
        #expect(try DALTest.count("Pet", in: SkopelosClient.storeURL) == 1)
        shared.writeSync { context in _ = Pet.SK_create(context) }   // invalid: no name
        #expect(shared.log.all.map(\.code) == [1570])
    }
}
