import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// The shared corpus of real models and stores (`../shared/corpus` beside the repository).
enum Corpus {
    /// The corpus folder, whether or not it exists.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // OpenCoreDataTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .deletingLastPathComponent()
        .appendingPathComponent("shared/corpus")

    /// Whether the corpus is present; corpus tests are disabled (with this explanation) when it is not.
    static let isAvailable = FileManager.default.fileExists(atPath: root.appendingPathComponent("README.md").path)

    /// The message Swift Testing prints for a skipped corpus test.
    static let missingMessage: Comment = "corpus not found at ../shared/corpus: corpus tests skipped"

    static var models: URL { root.appendingPathComponent("models") }
    static var stores: URL { root.appendingPathComponent("stores") }

    /// The rows of an INDEX.tsv as dictionaries keyed by the header's column names.
    static func index(_ folder: URL) throws -> [[String: String]] {
        let text = try String(contentsOf: folder.appendingPathComponent("INDEX.tsv"), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = lines.removeFirst()
        return lines.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    /// Installs the XML file `name` from corpus/models as `<Name>.xcdatamodel/contents` in a fresh temporary
    /// directory and returns the package URL.
    static func modelPackage(_ fileName: String, packageName: String = "Model") throws -> URL {
        let directory = try TemporaryDirectory.make()
        let package = directory.appendingPathComponent(packageName + ".xcdatamodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: models.appendingPathComponent(fileName), to: package.appendingPathComponent("contents"))
        return package
    }

    /// Loads the XML model file `name` from corpus/models.
    static func model(_ fileName: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel(validatingContentsOf: modelPackage(fileName))
    }

    /// Copies a store and its -wal/-shm companions into a fresh temporary directory (never open corpus files
    /// in place) and returns the copy's URL.
    static func storeCopy(_ fileName: String) throws -> URL {
        let directory = try TemporaryDirectory.make()
        for suffix in ["", "-wal", "-shm"] {
            let source = stores.appendingPathComponent(fileName + suffix)
            if FileManager.default.fileExists(atPath: source.path) {
                try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent(fileName + suffix))
            }
        }
        return directory.appendingPathComponent(fileName)
    }
}

/// Fresh temporary directories for tests.
enum TemporaryDirectory {
    /// A fresh directory under this test process's own root (`OpenCoreDataTests-run-<pid>` in the system's temporary
    /// directory). The roots of test processes that have ended are removed when a process first asks for one, so
    /// runs do not pile up files.
    static func make(_ prefix: String = "OpenCoreDataTests") throws -> URL {
        let url = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static let rootPrefix = "OpenCoreDataTests-run-"

    private static let root: URL = {
        let base = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix(rootPrefix) {
            guard let pid = Int32(name.dropFirst(rootPrefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
        }
        return base.appendingPathComponent(rootPrefix + String(getpid()))
    }()
}

/// Reads a store's metadata with the SQLite C API and PropertyListSerialization — independent of the
/// library's own store code.
enum RawStoreMetadata {
    /// The `Z_METADATA` plist of the store at `url` (opened read-only on a copy).
    static func read(_ url: URL) throws -> [String: Any] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            defer { sqlite3_close(db) }
            throw NSError(domain: "RawStoreMetadata", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot open \(url.path)"])
        }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT Z_PLIST FROM Z_METADATA", -1, &statement, nil) == SQLITE_OK else {
            throw NSError(domain: "RawStoreMetadata", code: 2, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(db))])
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let bytes = sqlite3_column_blob(statement, 0) else {
            throw NSError(domain: "RawStoreMetadata", code: 3, userInfo: [NSLocalizedDescriptionKey: "no Z_METADATA row"])
        }
        let data = Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, 0)))
        guard let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw NSError(domain: "RawStoreMetadata", code: 4, userInfo: [NSLocalizedDescriptionKey: "Z_PLIST is not a dictionary"])
        }
        return plist
    }
}
