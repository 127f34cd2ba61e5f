import OpenCoreData
import Skopelos
import Testing

/// What a child process leaves unsaved in its stack before it is stopped: one user saved by a write, one inserted
/// in the main context and one in the root context, neither saved.
enum PendingChanges {
    static let storeVariable = "SKOPELOS_REACTOR_STORE"
    static let names = ["Saved by a write", "Pending in the main context", "Pending in the root context"]

    /// Sets up the stack in the child and leaves the changes pending; returns it (to keep it alive).
    static func leavePending(signals: [Int32], savesAtExit: Bool, suffix: String) throws -> RecordingSkopelos {
        guard let path = ProcessInfo.processInfo.environment[storeVariable + suffix] else { throw CocoaError(.fileNoSuchFile) }
        let dal = RecordingSkopelos(sqliteStack: DALTest.modelURL, storeURL: URL(fileURLWithPath: path),
                                    appStateReactor: AppStateReactor(signals: signals, savesAtExit: savesAtExit))
        dal.writeSync { User.SK_create($0).firstname = names[0] }
        dal.read { User.SK_create($0).firstname = names[1] }
        let root = dal.coreDataStack.rootContext
        root.performAndWait { User.SK_create(root).firstname = names[2] }
        return dal
    }

    /// The first names in the store file.
    static func namesInStore(_ url: URL) throws -> [String] {
        try DALTest.inStore(url) { context in
            try context.fetch(NSFetchRequest<User>(entityName: "User")).compactMap(\.firstname).sorted()
        }
    }
}

@Suite("Skopelos AppStateReactor")
struct AppStateReactorTests {
    @Test func saveNowSavesTheMainAndRootContexts() throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        dal.read { User.SK_create($0).firstname = "Main" }
        let root = dal.coreDataStack.rootContext
        root.performAndWait { User.SK_create(root).firstname = "Root" }
        #expect(try PendingChanges.namesInStore(url) == [])
        let reactor = dal.coreDataStack.appStateReactor
        reactor.saveNow()
        #expect(try PendingChanges.namesInStore(url) == ["Main", "Root"])
        #expect(reactor.lastStateChange == .explicitSave)
        #expect(reactor.lastErrors.isEmpty)
        #expect(reactor.delegate === dal.coreDataStack)
    }

    /// When the main queue does not run within the reactor's timeout, the main context's changes stay unsaved (it
    /// cannot be used off its queue), the root context is still saved, and the error is recorded.
    @Test func aBlockedMainQueueCostsOnlyTheMainContextsChanges() async throws {
        let url = try DALTest.newStoreURL()
        let reactor = AppStateReactor(signals: [], savesAtExit: false, timeout: .milliseconds(200))
        let dal = RecordingSkopelos(sqliteStack: DALTest.modelURL, storeURL: url, appStateReactor: reactor)
        try await dal.read { User.SK_create($0).firstname = "Main" }
        let root = dal.coreDataStack.rootContext
        root.performAndWait { User.SK_create(root).firstname = "Root" }
        await MainActor.run {
            let saved = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                reactor.saveNow()   // from another thread, while the main queue is busy below
                saved.signal()
            }
            saved.wait()
        }
        #expect(try PendingChanges.namesInStore(url) == ["Root"])
        #expect(reactor.lastErrors.map(\.code) == [NSPersistentStoreSaveError])
        reactor.saveNow()   // the main queue runs again: now everything is saved
        #expect(try PendingChanges.namesInStore(url) == ["Main", "Root"])
        #expect(reactor.lastErrors.isEmpty)
    }

    /// `moody --wait-for-signal` (a separate process using Skopelos) leaves two moods unsaved in its stack (one in
    /// the main context, one in the root context) after saving one, then receives SIGTERM or SIGINT from this
    /// process: afterwards the store holds all three, and the process ended by that signal.
    @Test(.enabled(if: MoodyProgram.url != nil, "the moody executable is not built beside the test runner"),
          arguments: [SIGTERM, SIGINT])
    func aTerminationSignalSavesPendingChanges(signalNumber: Int32) async throws {
        let url = try DALTest.newStoreURL("Moody.sqlite")
        let readyPath = url.path + ".ready"
        let process = Process()
        process.executableURL = MoodyProgram.url
        process.arguments = ["--wait-for-signal", "--store", url.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let ready = await DALTest.waitUntil(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: readyPath) }
        try #require(ready, "moody never became ready")
        #expect(try MoodyProgram.ratings(in: url) == [1])   // only the write is in the store yet
        #expect(kill(process.processIdentifier, signalNumber) == 0)
        let exited = await DALTest.waitUntil(timeout: .seconds(30)) { !process.isRunning }
        try #require(exited, "moody did not stop")
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signalNumber)
        #expect(try MoodyProgram.ratings(in: url) == [1, 2, 3])
    }

    /// A process that exits normally with changes pending saves them (best effort, from an `atexit` hook).
    @Test func aNormalExitSavesPendingChanges() async throws {
        let url = try DALTest.newStoreURL()
        setenv(PendingChanges.storeVariable + "_EXIT", url.path, 1)
        await #expect(processExitsWith: .success) {
            let dal = try PendingChanges.leavePending(signals: [], savesAtExit: true, suffix: "_EXIT")
            withExtendedLifetime(dal) { exit(0) }
        }
        #expect(try PendingChanges.namesInStore(url) == PendingChanges.names.sorted())
    }

    /// Without the exit hook, the same exit loses the pending changes (the test above is not vacuous).
    @Test func withoutTheExitHookPendingChangesAreLost() async throws {
        let url = try DALTest.newStoreURL()
        setenv(PendingChanges.storeVariable + "_NOHOOK", url.path, 1)
        await #expect(processExitsWith: .success) {
            let dal = try PendingChanges.leavePending(signals: [], savesAtExit: false, suffix: "_NOHOOK")
            withExtendedLifetime(dal) { exit(0) }
        }
        #expect(try PendingChanges.namesInStore(url) == [PendingChanges.names[0]])
    }
}

/// The moody example program, built beside the test runner.
enum MoodyProgram {
    static var url: URL? {
        let directories = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap { $0?.deletingLastPathComponent() }
        return directories.map { $0.appendingPathComponent("moody") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The ratings of the moods in a Moody store, read with Moody's model (from moody's resources) on a new
    /// coordinator, sorted.
    static func ratings(in url: URL) throws -> [Int] {
        let modelURL = try #require(ModelLocator.url(forModelNamed: "Moody", in: .main))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(validatingContentsOf: modelURL))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Mood")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["rating"]
            return try context.fetch(request).compactMap { ($0["rating"] as? NSNumber)?.intValue }.sorted()
        }
    }
}
