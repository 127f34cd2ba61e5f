import Foundation
import OpenCoreData

// OpenCoreData against raw SQLite and GRDB, interleaved in one process so that ratios compare measurements taken
// seconds apart. `swift run -c release Benchmarks [--n 100000] [--rounds 3] [--markdown RESULTS.md]`.

struct Options {
    var n = 100_000
    var rounds = 3
    var markdown: String?
    var memoryChild: Implementation?
    /// `--only raw,grdb,ocd`: run only these implementations (for profiling one; skips memory and the shell check).
    var only: Set<Implementation>?
    /// `--profile fetch|faults|range|groupby|insert|batchinsert|edit|batchupdate|delete|prefetch|traverse|traversephases|children|coldtraverse`, and raw-insert|raw-fetch|raw-range|raw-groupby|raw-delete|raw-traverse (and the batch-update probes
    /// editbatchupdate, fetchbatchupdate, rawbatchupdate, walsize): repeat one OpenCoreData workload 10 times and exit
    /// (for `perf record` of that workload alone).
    var profile: String?

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--n": n = iterator.next().flatMap(Int.init) ?? n
            case "--rounds": rounds = iterator.next().flatMap(Int.init) ?? rounds
            case "--markdown": markdown = iterator.next()
            case "--memory-child": memoryChild = iterator.next().flatMap(Implementation.init(rawValue:))
            case "--profile": profile = iterator.next()
            case "--only": only = Set((iterator.next() ?? "").split(separator: ",").compactMap { Implementation(shortName: String($0)) })
            default: FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8)); exit(2)
            }
        }
    }
}

extension Options {
    func runs(_ implementation: Implementation) -> Bool { only?.contains(implementation) ?? true }
}

let options = Options(CommandLine.arguments)
if let implementation = options.memoryChild {
    print(try MemoryProbe.run(implementation, n: options.n))
    exit(0)
}

let rows = ItemRow.make(options.n)
if let workload = options.profile {
    try ProfileLoop.run(workload, rows: rows)
    exit(0)
}
let parents = max(1, options.n / 100)
var measurements: [String: Measurement] = [:]
var order: [String] = []
@MainActor func record(_ workload: String, _ implementation: Implementation, rows: Int, target: Double?, _ seconds: Double) {
    if measurements[workload] == nil {
        measurements[workload] = Measurement(workload: workload, rows: rows, target: target)
        order.append(workload)
    }
    measurements[workload]!.seconds[implementation, default: 0] += 0   // keep key order stable
    samples[workload + "|" + implementation.rawValue, default: []].append(seconds)
}
var samples: [String: [Double]] = [:]
var frcSamples: [Double] = []

FileHandle.standardError.write(Data("N = \(options.n), \(options.rounds) rounds\n".utf8))
for round in 1...options.rounds {
    FileHandle.standardError.write(Data("round \(round)\n".utf8))
    // Raw SQLite.
    if options.runs(.raw) {
        let path = freshStorePath("raw.sqlite")
        let database = RawDatabase(path: path)
        RawDatabase.createSchema(database)
        record("insert + save", .raw, rows: rows.count, target: 1.5, time { database.insert(rows) })
        record("fetch all realized", .raw, rows: rows.count, target: 1.5, time { _ = database.items().count })
        record("fetch all as faults, fire each", .raw, rows: rows.count, target: nil, time { _ = database.items().count })
        record("100 indexed range fetches (~1%)", .raw, rows: rows.count, target: 1.3, time {
            for step in 0..<100 { _ = database.rangeFetch(Double(step) / 100, Double(step) / 100 + 0.01).count }
        })
        record("group by + count, sum, average", .raw, rows: rows.count, target: 1.5, time { _ = database.groupByFlag() })
        record("fetch + edit all + save", .raw, rows: rows.count, target: 2.0, time { database.editAll() })
        record("batch update", .raw, rows: rows.count, target: 1.2, time { database.batchUpdate() })
        record("fetch + delete all + save", .raw, rows: rows.count, target: 2.0, time { database.deleteAll() })
        record("batch insert", .raw, rows: rows.count, target: 1.2, time { database.insert(rows) })
        record("batch delete", .raw, rows: rows.count, target: 1.2, time { database.batchDelete() })
        database.insertFamilies(parents: parents, children: rows.count)
        record("to-many traversal, prefetching", .raw, rows: rows.count, target: 1.5, time { _ = database.traverse() })
        record("to-many traversal, faulting", .raw, rows: rows.count, target: nil, time { _ = database.traverse() })
    }
    // GRDB.
    if options.runs(.grdb) {
        let path = freshStorePath("grdb.sqlite")
        let database = try GRDBDatabase(path: path)
        try database.createSchema()
        record("insert + save", .grdb, rows: rows.count, target: 1.5, try time { try database.insert(rows) })
        record("fetch all realized", .grdb, rows: rows.count, target: 1.5, try time { _ = try database.fetchAllRecords().count })
        record("fetch all as faults, fire each", .grdb, rows: rows.count, target: nil, try time { _ = try database.fetchAllRows().count })
        record("100 indexed range fetches (~1%)", .grdb, rows: rows.count, target: 1.3, try time {
            for step in 0..<100 { _ = try database.rangeFetch(Double(step) / 100, Double(step) / 100 + 0.01).count }
        })
        record("group by + count, sum, average", .grdb, rows: rows.count, target: 1.5, try time { _ = try database.groupByFlag() })
        record("fetch + edit all + save", .grdb, rows: rows.count, target: 2.0, try time { try database.editAll() })
        record("batch update", .grdb, rows: rows.count, target: 1.2, try time { try database.batchUpdate() })
        record("fetch + delete all + save", .grdb, rows: rows.count, target: 2.0, try time { try database.deleteAll() })
        record("batch insert", .grdb, rows: rows.count, target: 1.2, try time { try database.batchInsert(rows) })
        record("batch delete", .grdb, rows: rows.count, target: 1.2, try time { try database.batchDelete() })
        try database.insertFamilies(parents: parents, children: rows.count)
        record("to-many traversal, prefetching", .grdb, rows: rows.count, target: 1.5, try time { _ = try database.traverse() })
        record("to-many traversal, faulting", .grdb, rows: rows.count, target: nil, try time { _ = try database.traverse() })
    }
    // OpenCoreData.
    if options.runs(.openCoreData) {
        let path = freshStorePath("ocd.sqlite")
        let stack = try OpenCoreDataStack(path: path)
        record("insert + save", .openCoreData, rows: rows.count, target: 1.5, try time { try stack.insert(rows) })
        record("fetch all realized", .openCoreData, rows: rows.count, target: 1.5, try time { _ = try stack.fetchAll(asFaults: false) })
        record("fetch all as faults, fire each", .openCoreData, rows: rows.count, target: nil, try time { _ = try stack.fetchAll(asFaults: true) })
        record("100 indexed range fetches (~1%)", .openCoreData, rows: rows.count, target: 1.3, try time {
            for step in 0..<100 { _ = try stack.rangeFetch(Double(step) / 100, Double(step) / 100 + 0.01) }
        })
        record("group by + count, sum, average", .openCoreData, rows: rows.count, target: 1.5, try time { _ = try stack.groupByFlag() })
        record("fetch + edit all + save", .openCoreData, rows: rows.count, target: 2.0, try time { try stack.editAll() })
        record("batch update", .openCoreData, rows: rows.count, target: 1.2, try time { try stack.batchUpdate() })
        record("fetch + delete all + save", .openCoreData, rows: rows.count, target: 2.0, try time { try stack.deleteAll() })
        record("batch insert", .openCoreData, rows: rows.count, target: 1.2, try time { try stack.batchInsert(rows) })
        frcSamples.append(try time { _ = try stack.fetchedResultsController(changes: 1_000) })
        record("batch delete", .openCoreData, rows: rows.count, target: 1.2, try time { try stack.batchDelete() })
        try stack.insertFamilies(parents: parents, children: rows.count)
        record("to-many traversal, prefetching", .openCoreData, rows: rows.count, target: 1.5, try time { _ = try stack.traverse(prefetching: true) })
        record("to-many traversal, faulting", .openCoreData, rows: rows.count, target: nil, try time { _ = try stack.traverse(prefetching: false) })
    }
}

// Predicate throughput (OpenCoreData only: neither baseline has NSPredicate).
let parseSeconds = time {
    for index in 0..<options.n / 10 { _ = NSPredicate(format: "score > %f AND name BEGINSWITH[c] %@ AND flag == YES", Double(index) / 1000, "item") }
}
let evaluated = NSPredicate(format: "score > 0.5 AND name BEGINSWITH[c] 'item' AND flag == YES")
let dictionaries = rows.prefix(options.n / 10).map { ["score": $0.score, "name": $0.name, "flag": $0.flag] as [String: Any] }
var matched = 0
let evaluateSeconds = time { for dictionary in dictionaries where evaluated.evaluate(with: dictionary) { matched += 1 } }

// Memory per realized object, each implementation in its own process.
var memory: [Implementation: Int] = [:]
for implementation in Implementation.allCases where options.only == nil {
    try MemoryProbe.prepare(implementation, rows: rows)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--memory-child", implementation.rawValue, "--n", String(options.n)]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    process.waitUntilExit()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    memory[implementation] = Int(output) ?? -1
}

// Sanity of the baseline: the sqlite3 shell importing the same rows in one transaction.
let shellSeconds = options.only == nil ? SQLiteShellBaseline.importSeconds(rows) : nil

// The table.
var lines: [String] = []
lines.append("| workload | rows | raw SQLite s | GRDB s | OpenCoreData s | OpenCoreData rows/s | GRDB ÷ raw | OpenCoreData ÷ raw | target | met |")
lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|")
for workload in order {
    guard let measurement = measurements[workload] else { continue }
    // nil for an implementation `--only` left out: its cells, and the ratios and verdict that need it, show "–".
    func seconds(_ implementation: Implementation) -> Double? { samples[workload + "|" + implementation.rawValue].map(median) }
    func cell(_ value: Double?, _ format: String) -> String { value.map { String(format: format, $0) } ?? "–" }
    let raw = seconds(.raw), grdb = seconds(.grdb), ours = seconds(.openCoreData)
    let ratio = raw.flatMap { raw in ours.map { $0 / max(raw, 1e-9) } }
    let grdbRatio = raw.flatMap { raw in grdb.map { $0 / max(raw, 1e-9) } }
    let met = measurement.target.map { target in ratio.map { $0 <= target ? "yes" : "**no**" } ?? "not measured" } ?? "–"
    lines.append("| \(workload) | \(measurement.rows) | \(cell(raw, "%.3f")) | \(cell(grdb, "%.3f")) | \(cell(ours, "%.3f")) | "
                 + "\(cell(ours.map { Double(measurement.rows) / max($0, 1e-9) }, "%.0f")) | \(cell(grdbRatio, "%.2f")) | \(cell(ratio, "%.2f")) | "
                 + "\(measurement.target.map { String(format: "≤ %.1f×", $0) } ?? "–") | \(met) |")
}
if let rawBytes = memory[.raw], let ourBytes = memory[.openCoreData], rawBytes > 0, ourBytes > 0 {
    let grdbBytes = memory[.grdb] ?? -1
    let ratio = Double(ourBytes) / Double(rawBytes)
    lines.append(String(format: "| memory per realized object (bytes) | %d | %d | %d | %d | – | %.2f | %.2f | ≤ 2.0× | %@ |", options.n,
                        rawBytes, grdbBytes, ourBytes, Double(grdbBytes) / Double(rawBytes), ratio, ratio <= 2 ? "yes" : "**no**"))
} else {
    // Not measured (`--only` skips the child processes) or a child failed: no ratio, and no verdict.
    lines.append(String(format: "| memory per realized object (bytes) | %d | – | – | – | – | – | – | ≤ 2.0× | not measured |", options.n))
}
var notes: [String] = []
if !frcSamples.isEmpty {
    notes.append(String(format: "NSFetchedResultsController (OpenCoreData only: neither baseline has one): fetch of %d items by score in batches of 20, then 1,000 edits that move an item, each its own event with the controller's report: %.3f s (median).",
                        options.n, median(frcSamples)))
}
notes.append(String(format: "Predicate throughput: %.0f parses/s, %.0f evaluations/s (%d of %d matched).",
                    Double(options.n / 10) / parseSeconds, Double(dictionaries.count) / evaluateSeconds, matched, dictionaries.count))
if let shellSeconds {
    let rawInsert = median(samples["insert + save|" + Implementation.raw.rawValue] ?? [])
    notes.append(String(format: "Baseline sanity: the sqlite3 shell imports the %d rows in one transaction in %.3f s; raw SQLite here: %.3f s (%.2f× the shell).",
                        options.n, shellSeconds, rawInsert, rawInsert / shellSeconds))
}
print(lines.joined(separator: "\n"))
print("")
for note in notes { print(note) }
if let path = options.markdown {
    let header = """
        # Benchmark results

        Run on \(ISO8601DateFormatter().string(from: Date())) — \(MachineDescription.current).
        Command: `cd Benchmarks && swift run -c release Benchmarks --n \(options.n) --rounds \(options.rounds) --markdown RESULTS.md`.
        Medians of \(options.rounds) interleaved rounds; ratios are to raw SQLite in the same run.

        """
    // Hand-written analysis below the marker (profiles of the missed targets) survives a new run.
    let marker = "<!-- analysis: kept when the benchmark rewrites this file -->"
    let previous = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    let analysis = previous.range(of: marker).map { "\n" + String(previous[$0.lowerBound...]) } ?? ""
    try (header + "\n" + lines.joined(separator: "\n") + "\n\n" + notes.map { "- " + $0 }.joined(separator: "\n") + "\n" + analysis)
        .write(toFile: path, atomically: true, encoding: .utf8)
}
