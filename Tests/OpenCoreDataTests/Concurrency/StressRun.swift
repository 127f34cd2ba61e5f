import Foundation

@testable import OpenCoreData

/// One stress run's store: seeding, the parent's five writers, the child process's writer, and the files through
/// which the two processes meet (the store, the save lock, the child's start marker and its report).
struct StressRun {
    let policy: StressPolicy
    let url: URL
    let container: NSPersistentContainer

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["OPENCOREDATA_STRESS_SEED"].flatMap(UInt64.init) ?? 0x5EED
    }

    static func reportPath(_ storePath: String) -> String { storePath + ".child-report.json" }

    /// A new store with the seeded buckets, tags and items: each item in a bucket, every third in a bucket's queue,
    /// some with tags.
    init(policy: StressPolicy) throws {
        self.policy = policy
        url = try TemporaryDirectory.make().appendingPathComponent("Stress.sqlite")
        container = try StressModel.container(at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var stamp: Int64 = 7 << 40
            func nextStamp() -> Int64 { stamp += 1; return stamp }
            let buckets = (0..<StressConfiguration.seededBuckets).map { index in
                let bucket = NSEntityDescription.insertNewObject(forEntityName: "Bucket", into: context)
                bucket.setValue("bucket \(index)", forKey: "name")
                bucket.setValue(nextStamp(), forKey: "stamp")
                return bucket
            }
            let tags = (0..<StressConfiguration.seededTags).map { index in
                let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
                tag.setValue("tag \(index)", forKey: "name")
                tag.setValue(nextStamp(), forKey: "stamp")
                return tag
            }
            for index in 0..<StressConfiguration.seededItems {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(nextStamp(), forKey: "stamp")
                item.setValue("seed \(index)", forKey: "title")
                item.setValue(Int64(index), forKey: "count")
                item.setValue(Double(index) / 2, forKey: "score")
                item.setValue(buckets[index % buckets.count], forKey: "bucket")
                if index % 3 == 0 { item.setValue(buckets[(index / 3) % buckets.count], forKey: "queuedIn") }
                if index % 2 == 0 { item.mutableSetValue(forKey: "tags").add(tags[index % tags.count]) }
                if index % 5 == 0 { item.mutableSetValue(forKey: "tags").add(tags[(index + 1) % tags.count]) }
            }
            try context.save()
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
        let (runPolicy, path, seed) = (policy, url.path, Self.seed)
        let reports = LockedValue<[StressReport]>([])
        let ready = LockedValue(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for (writer, context) in contexts.enumerated() {
                Thread {
                    let stressWriter = StressWriter(writer: writer, context: context, policy: runPolicy, storePath: path, seed: seed)
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
            let writer = StressWriter(writer: StressConfiguration.childWriter, context: context, policy: policy, storePath: path, seed: seed)
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
