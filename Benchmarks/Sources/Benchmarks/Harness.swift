import Foundation

/// The three implementations every workload runs on.
enum Implementation: String, CaseIterable, Sendable {
    case raw = "raw SQLite"
    case grdb = "GRDB"
    case openCoreData = "OpenCoreData"

    /// `raw`, `grdb` or `ocd` (for `--only`).
    init?(shortName: String) {
        switch shortName {
        case "raw": self = .raw
        case "grdb": self = .grdb
        case "ocd": self = .openCoreData
        default: return nil
        }
    }
}

/// One workload's timings.
struct Measurement {
    var workload: String
    var rows: Int
    var seconds: [Implementation: Double] = [:]
    /// The target ratio to raw SQLite, if the issue sets one.
    var target: Double?
}

/// Runs `body` and returns its wall-clock seconds.
func time(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let duration = clock.now - start
    return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The median of some timings.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// The benchmark's temporary directory (one per process).
func freshStoreDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("ocd-bench-\(ProcessInfo.processInfo.processIdentifier)").path
}

/// A fresh store path in a temporary directory (with its -wal/-shm and external-data companions removed).
func freshStorePath(_ name: String) -> String {
    let directory = URL(fileURLWithPath: freshStoreDirectory())
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name).path
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    return path
}

/// The rows every implementation stores: `Item(id, name, score, createdAt, flag, payload)`.
struct ItemRow {
    var id: Int64
    var name: String
    var score: Double
    var createdAt: Date
    var flag: Bool
    var payload: Data

    /// N deterministic rows (scores spread uniformly over [0, 1)).
    static func make(_ n: Int) -> [ItemRow] {
        var generator = SplitMix64(seed: 42)
        let base = Date(timeIntervalSinceReferenceDate: 700_000_000)
        return (0..<n).map { index in
            var payload = Data(count: 16)
            for byte in 0..<16 { payload[byte] = UInt8(truncatingIfNeeded: generator.next() >> 56) }
            return ItemRow(id: Int64(index), name: "item \(index)", score: Double(generator.next() >> 11) / Double(1 << 53),
                           createdAt: base.addingTimeInterval(Double(index)), flag: index % 2 == 0, payload: payload)
        }
    }
}

/// A small deterministic random generator.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The resident set size of this process, in bytes (Linux `/proc/self/statm`).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
