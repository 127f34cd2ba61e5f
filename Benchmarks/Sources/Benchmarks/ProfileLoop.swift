import Foundation

/// `--profile <workload>`: one OpenCoreData workload repeated, so that a profiler sees it alone (and the probes of
/// the batch-update investigation in RESULTS.md).
enum ProfileLoop {
    static func run(_ workload: String, rows: [ItemRow], repetitions: Int = 10) throws {
        let stack = try OpenCoreDataStack(path: freshStorePath("profile.sqlite"))
        let parents = max(1, rows.count / 100)
        var seconds: [Double] = []
        switch workload {
        case "insert":
            for _ in 0..<repetitions {
                seconds.append(try measured { try stack.insert(rows) })
                try stack.batchDelete()
            }
        case "fetch", "faults", "range", "edit", "batchupdate", "groupby":
            try stack.insert(rows)
            for _ in 0..<repetitions {
                seconds.append(try measured {
                    switch workload {
                    case "fetch": _ = try stack.fetchAll(asFaults: false)
                    case "faults": _ = try stack.fetchAll(asFaults: true)
                    case "range": for step in 0..<100 { _ = try stack.rangeFetch(Double(step) / 100, Double(step) / 100 + 0.01) }
                    case "groupby": _ = try stack.groupByFlag()
                    case "batchupdate": try stack.batchUpdate()
                    default: try stack.editAll()
                    }
                })
            }
        case "editbatchupdate":   // the batch update as the benchmark runs it: right after an edit of every row
            try stack.insert(rows)
            var second: [Double] = []
            for _ in 0..<repetitions {
                try stack.editAll()
                seconds.append(try measured { try stack.batchUpdate() })
                second.append(try time { try stack.batchUpdate() })
            }
            print("the batch update after that one: median \(median(second)) s")
        case "rawbatchupdate":   // raw SQLite's batch update after an edit, in its own file format and in Apple's
            for autoVacuum in ["NONE", "INCREMENTAL"] {
                let path = freshStorePath("raw-\(autoVacuum).sqlite")
                let raw = RawDatabase(path: path)
                raw.execute("PRAGMA auto_vacuum = \(autoVacuum)")
                RawDatabase.createSchema(raw)
                raw.insert(rows)
                var afterEdit: [Double] = [], alone: [Double] = []
                for _ in 0..<repetitions {
                    raw.editAll()
                    afterEdit.append(time { raw.batchUpdate() })
                    alone.append(time { raw.batchUpdate() })
                }
                print("raw, auto_vacuum \(autoVacuum): batch update after an edit \(median(afterEdit)) s, alone \(median(alone)) s")
            }
            return
        case "walsize":   // the write-ahead log each implementation leaves after inserting and editing every row
            let path = freshStorePath("walsize-raw.sqlite")
            let raw = RawDatabase(path: path)
            RawDatabase.createSchema(raw)
            raw.insert(rows)
            raw.editAll()
            try stack.insert(rows)
            try stack.editAll()
            let size = { (file: String) in ((try? FileManager.default.attributesOfItem(atPath: file + "-wal"))?[.size] as? Int) ?? -1 }
            print("WAL after insert + edit: raw \(size(path)) bytes, OpenCoreData \(size(freshStoreDirectory() + "/profile.sqlite")) bytes")
            return
        case "fetchbatchupdate":   // the batch update after a fetch of every row (no save)
            try stack.insert(rows)
            for _ in 0..<repetitions {
                _ = try stack.fetchAll(asFaults: false)
                seconds.append(try measured { try stack.batchUpdate() })
            }
        case "batchinsert":
            for _ in 0..<repetitions {
                seconds.append(try measured { try stack.batchInsert(rows) })
                try stack.batchDelete()
            }
        case "delete":
            for _ in 0..<repetitions {
                try stack.insert(rows)
                seconds.append(try measured { try stack.deleteAll() })
            }
        case "prefetch", "traverse":
            try stack.insertFamilies(parents: parents, children: rows.count)
            for _ in 0..<repetitions { seconds.append(try measured { _ = try stack.traverse(prefetching: workload == "prefetch") }) }
        case "bigfamily":   // n children added to one parent in one event (inverse maintenance of a large to-many)
            for _ in 0..<repetitions { seconds.append(try measured { try stack.insertFamilies(parents: 1, children: rows.count) }) }
        case "children":   // the traversal's children fetched realized, without their relationship
            try stack.insertFamilies(parents: parents, children: rows.count)
            for _ in 0..<repetitions { seconds.append(try measured { _ = try stack.fetchChildren() }) }
        case "traversephases":   // the prefetching traversal's phases timed apart, and the plain fetch of its children
            try stack.insertFamilies(parents: parents, children: rows.count)
            var phases: [String: [Double]] = [:]
            for _ in 0..<repetitions {
                for (phase, seconds) in try stack.traversePhases() { phases[phase, default: []].append(seconds) }
                seconds.append(["fetch parents, prefetch children", "read children", "reset"].reduce(0) { $0 + phases[$1]!.last! })
            }
            for phase in ["fetch parents", "fetch parents, prefetch children", "read children", "reset", "fetch children (no relationships)", "reset after it"] {
                print("\(phase): median \(median(phases[phase] ?? [])) s")
            }
        case "raw-insert", "raw-fetch", "raw-range", "raw-delete", "raw-traverse", "raw-groupby":   // raw SQLite's side, for instruction counts
            let raw = RawDatabase(path: freshStorePath("raw-profile.sqlite"))
            RawDatabase.createSchema(raw)
            if workload == "raw-traverse" { raw.insertFamilies(parents: parents, children: rows.count) }
            if workload == "raw-fetch" || workload == "raw-range" || workload == "raw-groupby" { raw.insert(rows) }
            for _ in 0..<repetitions {
                switch workload {
                case "raw-insert":
                    seconds.append(measured { raw.insert(rows) })
                    raw.batchDelete()
                case "raw-fetch":
                    seconds.append(measured { _ = raw.items().count })
                case "raw-groupby":
                    seconds.append(measured { _ = raw.groupByFlag() })
                case "raw-range":
                    seconds.append(measured { for step in 0..<100 { _ = raw.rangeFetch(Double(step) / 100, Double(step) / 100 + 0.01).count } })
                case "raw-delete":
                    raw.insert(rows)
                    seconds.append(measured { raw.deleteAll() })
                default:
                    seconds.append(measured { _ = raw.traverse() })
                }
            }
        case "coldtraverse":   // the faulting traversal with an empty row cache: a new coordinator each run
            try stack.insertFamilies(parents: parents, children: rows.count)
            for _ in 0..<repetitions {
                let cold = try OpenCoreDataStack(path: freshStoreDirectory() + "/profile.sqlite")
                seconds.append(try measured { _ = try cold.traverse(prefetching: false) })
            }
        default:
            FileHandle.standardError.write(Data("unknown workload \(workload)\n".utf8))
            exit(2)
        }
        print("\(workload): median \(median(seconds)) s over \(repetitions) runs")
    }
}

/// A timed workload body: one function for all of them, so that `valgrind --tool=callgrind
/// --toggle-collect='$s10Benchmarks8measured*'` counts the instructions of the workload alone.
@inline(never)
func measured(_ body: () throws -> Void) rethrows -> Double {
    try time(body)
}
