import Foundation

/// `--profile <workload>`: one OpenCoreData workload repeated, so that a profiler sees it alone.
enum ProfileLoop {
    static func run(_ workload: String, rows: [ItemRow], repetitions: Int = 10) throws {
        let stack = try OpenCoreDataStack(path: freshStorePath("profile.sqlite"))
        let parents = max(1, rows.count / 100)
        var seconds: [Double] = []
        switch workload {
        case "insert":
            for _ in 0..<repetitions {
                seconds.append(try time { try stack.insert(rows) })
                try stack.batchDelete()
            }
        case "fetch", "faults", "range", "edit":
            try stack.insert(rows)
            for _ in 0..<repetitions {
                seconds.append(try time {
                    switch workload {
                    case "fetch": _ = try stack.fetchAll(asFaults: false)
                    case "faults": _ = try stack.fetchAll(asFaults: true)
                    case "range": for step in 0..<100 { _ = try stack.rangeFetch(Double(step) / 100, Double(step) / 100 + 0.01) }
                    default: try stack.editAll()
                    }
                })
            }
        case "delete":
            for _ in 0..<repetitions {
                try stack.insert(rows)
                seconds.append(try time { try stack.deleteAll() })
            }
        case "prefetch", "traverse":
            try stack.insertFamilies(parents: parents, children: rows.count)
            for _ in 0..<repetitions { seconds.append(try time { _ = try stack.traverse(prefetching: workload == "prefetch") }) }
        default:
            FileHandle.standardError.write(Data("unknown workload \(workload)\n".utf8))
            exit(2)
        }
        print("\(workload): median \(median(seconds)) s over \(repetitions) runs")
    }
}
