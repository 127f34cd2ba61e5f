import CFuzzDriver
import Foundation
import FuzzSupport
import OpenCoreData

// Feeds the input as a whole SQLite store file to `metadataForPersistentStore(ofType: NSSQLiteStoreType, at:)` and
// `cachedModelForPersistentStore(at:)` (which decodes Z_MODELCACHE). Every failure must be a thrown error.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzScratch.shared.removeStoreFiles(named: "Fuzz.sqlite")
    let url = FuzzScratch.shared.write(fuzzInput(start, count), named: "Fuzz.sqlite")
    _ = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    if let model = try? NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url) {
        _ = model.entityVersionHashesByName
    }
    return 0
}

/// The process entry point SwiftPM links as `main` (see CFuzzDriver): runs libFuzzer with this file's target.
@_cdecl("FuzzStoreMetadata_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    opencoredata_fuzz_main(argc, argv)
}
