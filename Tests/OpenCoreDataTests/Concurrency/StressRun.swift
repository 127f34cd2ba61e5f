import Foundation

@testable import OpenCoreData

/// One stress run's store: seeding, the parent's five writers, the child process's writer, and the files through
/// which the two processes meet (the store, the save lock, the child's start marker and its report).
struct StressRun {
    let policy: StressPolicy
    let url: URL
    let container: NSPersistentContainer
    let itemIDs: [NSManagedObjectID]
    let bucketIDs: [NSManagedObjectID]

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["OPENCOREDATA_STRESS_SEED"].flatMap(UInt64.init) ?? 0x5EED
    }

    static func reportPath(_ storePath: String) -> String { storePath + ".child-report.json" }

    /// A new store with the seeded buckets and items.
    init(policy: StressPolicy) throws {
        self.policy = policy
        url = try TemporaryDirectory.make().appendingPathComponent("Stress.sqlite")
        container = try StressModel.container(at: url)
        let context = container.newBackgroundContext()
        (itemIDs, bucketIDs) = try context.performAndWait {
            var stamp: Int64 = 7 << 40
            func nextStamp() -> Int64 { stamp += 1; return stamp }
            let buckets = (0..<StressConfiguration.seededBuckets).map { index in
                let bucket = NSEntityDescription.insertNewObject(forEntityName: "Bucket", into: context)
                bucket.setValue("bucket \(index)", forKey: "name")
                bucket.setValue(nextStamp(), forKey: "stamp")
                return bucket
            }
            let items = (0..<StressConfiguration.seededItems).map { index in
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(nextStamp(), forKey: "stamp")
                item.setValue("seed \(index)", forKey: "title")
                item.setValue(Int64(index), forKey: "count")
                item.setValue(Double(index) / 2, forKey: "score")
                item.setValue(buckets[index % buckets.count], forKey: "bucket")
                return item
            }
            try context.save()
            return (items.map(\.objectID), buckets.map(\.objectID))
        }
    }

    /// The parent's writers: the view context and four background contexts, each merging the others' saves
    /// automatically, each on its own thread. The two processes start together (`StressHandshake`).
    func runParentWriters(edits: Int) async -> (contexts: [NSManagedObjectContext], reports: [StressReport]) {
        let contexts = [container.viewContext] + (0..<4).map { _ in container.newBackgroundContext() }
        for context in contexts {
            context.performAndWait {
                context.mergePolicy = policy.policy
                context.automaticallyMergesChangesFromParent = true
            }
        }
        let (runPolicy, path, items, buckets, seed) = (policy, url.path, itemIDs, bucketIDs, Self.seed)
        let reports = LockedValue<[StressReport]>([])
        let ready = LockedValue(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for (writer, context) in contexts.enumerated() {
                Thread {
                    let stressWriter = StressWriter(writer: writer, context: context, policy: runPolicy, storePath: path,
                                                    itemIDs: items, bucketIDs: buckets, seed: seed)
                    var last = false
                    ready.update { $0 += 1; last = $0 == contexts.count }
                    if last { StressHandshake.signal(.parentReady, path) }
                    StressHandshake.wait(for: .childRunning, path)
                    let report = stressWriter.run(edits: edits) { StressHandshake.signal(.parentRunning, path) }
                    var finished = false
                    reports.update { $0.append(report); finished = $0.count == contexts.count }
                    if finished { done.resume() }
                }.start()
            }
        }
        return (contexts, reports.value.sorted { $0.writer < $1.writer })
    }

    /// The child process's side (the body of the exit test): opens its own stack on the store the parent named
    /// in the environment, announces it started, runs one writer and writes its report. Failures found by its
    /// oracle are in the report; the process exits with a failure status then too.
    static func childMain(_ policy: StressPolicy) {
        guard let path = ProcessInfo.processInfo.environment[StressConfiguration.storePathVariable] else {
            preconditionFailure("\(StressConfiguration.storePathVariable) is not set")
        }
        do {
            let container = try StressModel.container(at: URL(fileURLWithPath: path))
            let context = container.newBackgroundContext()
            context.mergePolicy = policy.policy
            let (items, buckets) = try context.performAndWait {
                func ids(_ entity: String) throws -> [NSManagedObjectID] {
                    let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                    return try context.fetch(request).map(\.objectID).sorted { $0.primaryKey! < $1.primaryKey! }
                }
                return (Array(try ids("Item").prefix(StressConfiguration.seededItems)), try ids("Bucket"))
            }
            let writer = StressWriter(writer: StressConfiguration.childWriter, context: context, policy: policy, storePath: path,
                                      itemIDs: items, bucketIDs: buckets, seed: seed)
            StressHandshake.wait(for: .parentReady, path)
            let report = writer.run(edits: StressConfiguration.editsPerContext) {
                StressHandshake.signal(.childRunning, path)
                StressHandshake.wait(for: .parentRunning, path)
            }
            try JSONEncoder().encode(report).write(to: URL(fileURLWithPath: reportPath(path)))
            if !report.failures.isEmpty {
                FileHandle.standardError.write(Data(report.failures.joined(separator: "\n").utf8))
                exit(1)
            }
        } catch {
            FileHandle.standardError.write(Data("child: \(error)\n".utf8))
            exit(2)
        }
    }

    /// The child's report, once it has exited.
    func childReport() throws -> StressReport {
        try JSONDecoder().decode(StressReport.self, from: Data(contentsOf: URL(fileURLWithPath: Self.reportPath(url.path))))
    }
}

/// How the two processes start together, through marker files beside the store: the parent's writers are all up
/// (`parentReady`); the child records its start and says so (`childRunning`); the parent's writers record theirs
/// and say so (`parentRunning`); only then does the child make its first edit. So each process starts before the
/// other finishes: they write the file at the same time.
enum StressHandshake: String {
    case parentReady, childRunning, parentRunning

    static func signal(_ marker: StressHandshake, _ storePath: String) {
        _ = FileManager.default.createFile(atPath: storePath + "." + marker.rawValue, contents: Data())
    }

    /// Waits for `marker` (two minutes at most: a missing partner then fails the test's other checks).
    static func wait(for marker: StressHandshake, _ storePath: String) {
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: storePath + "." + marker.rawValue) && Date() < deadline {
            usleep(1000)
        }
    }
}
