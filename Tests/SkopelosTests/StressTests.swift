import OpenCoreData
import Skopelos
import Testing

/// The stress run: 8 chains of `writeAsync` (each write asked for when the chain's previous one completes), all at
/// once on the shared write context, with reads between them on the main context (from each completion, on the
/// main queue, and from a reader thread). Every write increments two counters on two different objects and inserts
/// one record naming its chain and index; every read checks that both counters are equal (a reader never sees half
/// a write), and every 50th read of a chain (and the last) that the number of records equals them too. It runs in a process of its own with Core Data's concurrency debug
/// mode on, so any use of a context or object off its queue stops it.
///
/// `OPENCOREDATA_SKOPELOS_STRESS_WRITES` sets the writes per chain: 500 by default (the size, about 6–7 s),
/// more for a longer run.
enum SkopelosStress {
    static let chains = 8
    static let storeVariable = "SKOPELOS_STRESS_STORE"
    static var writesPerChain: Int {
        ProcessInfo.processInfo.environment["OPENCOREDATA_SKOPELOS_STRESS_WRITES"].flatMap(Int.init) ?? 500
    }

    /// The child's run; returns a failure description, or nil.
    static func run(storePath: String) async -> String? {
        guard ConcurrencyDebug.isEnabled else { return "the concurrency debug mode is off" }
        let dal = RecordingSkopelos(sqliteStack: DALTest.modelURL, storeURL: URL(fileURLWithPath: storePath),
                                    appStateReactor: DALTest.quietReactor())
        var ids: [NSManagedObjectID] = []
        dal.writeSync { context in
            let counters = ["A", "B"].map { name -> Counter in
                let counter = Counter.SK_create(context)
                counter.name = name
                return counter
            }
            ids = counters.map(\.objectID)   // permanent: the write obtained them before saving
        }
        let (idA, idB) = (ids[0], ids[1])
        let writes = writesPerChain
        let failures = Box<[String]>([])
        let reads = Box(0)
        let finishedChains = Box(0)

        /// Checks the main context: both counters agree (and, when asked, the number of records too: a count is
        /// a query, too slow to run on every read).
        @Sendable func check(_ context: NSManagedObjectContext, _ place: String, countingRecords: Bool = false) {
            guard let a = try? context.existingObject(with: idA) as? Counter,
                  let b = try? context.existingObject(with: idB) as? Counter else {
                failures.update { $0.append("\(place): a counter is missing") }
                return
            }
            let records = countingRecords ? WriteRecord.SK_numberOfEntities(context) : Int(a.value)
            if a.value != b.value || Int(a.value) != records {
                failures.update { $0.append("\(place): A \(a.value), B \(b.value), records \(records)") }
            }
            reads.update { $0 += 1 }
        }

        @Sendable func write(chain: Int, index: Int) {
            guard index < writes else {
                finishedChains.update { $0 += 1 }
                return
            }
            dal.writeAsync({ context in
                guard let a = try? context.existingObject(with: idA) as? Counter,
                      let b = try? context.existingObject(with: idB) as? Counter else { return }
                a.value += 1
                b.value += 1
                let record = WriteRecord.SK_create(context)
                record.chain = Int32(chain)
                record.index = Int32(index)
            }, completion: { error in
                if let error { failures.update { $0.append("write \(chain).\(index): \(error)") } }
                dal.read { check($0, "read after \(chain).\(index)", countingRecords: index % 50 == 49) }
                write(chain: chain, index: index + 1)
            })
        }

        for chain in 0..<chains { write(chain: chain, index: 0) }
        let reader = Thread {
            while finishedChains.value < chains {
                dal.read { check($0, "reader thread") }
                usleep(100)   // leave the main queue to the writes now and then
            }
        }
        reader.start()
        let clock = ContinuousClock()
        let started = clock.now
        let finished = await DALTest.waitUntil(timeout: .seconds(1200)) { finishedChains.value == chains }
        let elapsed = clock.now - started
        if !finished { return "the chains did not finish: \(finishedChains.value) of \(chains)" }
        _ = try? await dal.read { check($0, "final read", countingRecords: true) }
        print("skopelos stress: \(chains) chains × \(writes) writes, \(reads.value) reads in \(elapsed)")
        let problems = failures.value + dal.log.all.map { "handleError: \($0)" }
        return problems.isEmpty ? nil : problems.prefix(20).joined(separator: "\n")
    }
}

@Suite("Skopelos stress")
struct StressTests {
    @Test func concurrentWriteChainsWithInterleavedReads() async throws {
        let url = try DALTest.newStoreURL("Stress.sqlite")
        setenv(SkopelosStress.storeVariable, url.path, 1)
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]) {
            setenv("OPENCOREDATA_CONCURRENCY_DEBUG", "1", 1)
            guard let path = ProcessInfo.processInfo.environment[SkopelosStress.storeVariable] else { exit(2) }
            if let failure = await SkopelosStress.run(storePath: path) {
                FileHandle.standardError.write(Data("skopelos stress failed:\n\(failure)\n".utf8))
                exit(1)
            }
            exit(0)
        }
        if let result {
            let output = String(decoding: result.standardOutputContent + result.standardErrorContent, as: UTF8.self)
            print(output.split(separator: "\n").filter { $0.contains("skopelos stress") }.joined(separator: "\n"))
        }
        // The store holds every write exactly once.
        let writes = SkopelosStress.writesPerChain
        let total = SkopelosStress.chains * writes
        let (pairs, values) = try DALTest.inStore(url) { context in
            let records = try context.fetch(NSFetchRequest<WriteRecord>(entityName: "WriteRecord"))
            let pairs = records.map { [Int($0.chain), Int($0.index)] }
            let counters = try context.fetch(NSFetchRequest<Counter>(entityName: "Counter"))
            return (pairs, Dictionary(uniqueKeysWithValues: counters.map { ($0.name, Int($0.value)) }))
        }
        #expect(pairs.count == total)
        let expected = Set((0..<SkopelosStress.chains).flatMap { chain in (0..<writes).map { [chain, $0] } })
        #expect(Set(pairs) == expected)
        #expect(values == ["A": total, "B": total])
    }
}
