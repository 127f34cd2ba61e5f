import CSQLiteFuzz
import CFuzzDriver
import Foundation
import FuzzSupport
import OpenCoreData

// Feeds the input as the Z_METADATA plist blob of a fixed, valid Core Data SQLite store (the template named by
// FUZZ_STORE_TEMPLATE, copied into the scratch directory once), then reads it back through
// `metadataForPersistentStore(ofType: NSSQLiteStoreType, at:)` and checks it against the store's cached model with
// `isConfiguration(withName:compatibleWithStoreMetadata:)`, where the metadata's values are consumed. Mutating whole
// SQLite files rarely reaches the plist decoder; this target aims at it directly. Every failure must be a thrown error.

/// The store the blob is written into, and the connection that writes it (kept open across inputs).
final class PlistTemplate: @unchecked Sendable {  // used only from libFuzzer's single fuzzing thread
    static let shared = PlistTemplate()
    let url: URL
    let model: NSManagedObjectModel?
    private var db: OpaquePointer?
    private var update: OpaquePointer?

    private init() {
        guard let template = ProcessInfo.processInfo.environment["FUZZ_STORE_TEMPLATE"] else {
            fatalError("Set FUZZ_STORE_TEMPLATE to a Core Data SQLite store to copy (Fuzz/run.sh does)")
        }
        let source = URL(fileURLWithPath: template)
        url = FuzzScratch.shared.write((try? Data(contentsOf: source)) ?? Data(), named: "Template.sqlite")
        for suffix in ["-wal", "-shm"] {
            if let side = try? Data(contentsOf: URL(fileURLWithPath: template + suffix)) {
                FuzzScratch.shared.write(side, named: "Template.sqlite" + suffix)
            }
        }
        guard sqlite3_open(url.path, &db) == SQLITE_OK,
              sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nil, nil, nil) == SQLITE_OK,
              sqlite3_prepare_v2(db, "UPDATE Z_METADATA SET Z_PLIST = ?", -1, &update, nil) == SQLITE_OK else {
            fatalError("Cannot open the template store \(template): \(String(cString: sqlite3_errmsg(db)))")
        }
        model = try? NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url)
    }

    /// Replaces the template's Z_PLIST with `blob`.
    func write(_ blob: UnsafeRawPointer, _ count: Int) {
        sqlite3_reset(update)
        sqlite3_bind_blob(update, 1, blob, Int32(count), nil)
        guard sqlite3_step(update) == SQLITE_DONE else {
            fatalError("Cannot write Z_PLIST: \(String(cString: sqlite3_errmsg(db)))")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let template = PlistTemplate.shared
    template.write(start, count)
    if let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: template.url),
       let model = template.model {
        _ = model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
    }
    return 0
}

/// The process entry point SwiftPM links as `main` (see CFuzzDriver): runs libFuzzer with this file's target.
@_cdecl("FuzzStoreMetadataPlist_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    opencoredata_fuzz_main(argc, argv)
}
