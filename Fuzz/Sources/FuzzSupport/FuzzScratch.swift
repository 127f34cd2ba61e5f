import Foundation

/// A per-process scratch directory in RAM (`/dev/shm` when it exists, else the temporary directory), where a fuzz
/// target writes its input as a file the way a user's file would arrive.
///
/// ```swift
/// let url = FuzzScratch.shared.write(data, named: "input.sqlite")
/// ```
public final class FuzzScratch: Sendable {
    /// The scratch directory of this process, created on first use.
    public static let shared = FuzzScratch()

    /// The directory (unique to the process id).
    public let directory: URL

    private init() {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm")
            : FileManager.default.temporaryDirectory
        directory = base.appendingPathComponent("opencoredata-fuzz-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // libFuzzer ends the process with exit(): remove the directory then (the path is rebuilt from the pid).
        atexit {
            let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
            try? FileManager.default.removeItem(atPath: "\(base)/opencoredata-fuzz-\(getpid())")
        }
    }

    /// Writes `data` to `name` inside the scratch directory (replacing it) and returns its URL.
    @discardableResult
    public func write(_ data: Data, named name: String) -> URL {
        let url = directory.appendingPathComponent(name)
        let parent = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: parent.path) {
            try? FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        }
        _ = FileManager.default.createFile(atPath: url.path, contents: data)
        return url
    }

    /// Removes `name` and its SQLite side files (`-wal`, `-shm`, `-journal`) if present.
    public func removeStoreFiles(named name: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            unlink(directory.appendingPathComponent(name + suffix).path)
        }
    }
}

/// The fuzzer's input as `Data` (copied: libFuzzer reuses its buffer).
public func fuzzInput(_ start: UnsafeRawPointer, _ count: Int) -> Data {
    Data(bytes: start, count: count)
}
