import CFuzzDriver
import Foundation
import FuzzSupport
import OpenCoreData

// Feeds the input as the `contents` file of an `.xcdatamodel` package and loads it the way users do
// (`NSManagedObjectModel(validatingContentsOf:)`); a model that loads has its entity version hashes and version
// checksum computed. Every failure must be a thrown error; a trap is a bug.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzScratch.shared.write(fuzzInput(start, count), named: "Fuzz.xcdatamodel/contents")
    let package = FuzzScratch.shared.directory.appendingPathComponent("Fuzz.xcdatamodel", isDirectory: true)
    if let model = try? NSManagedObjectModel(validatingContentsOf: package) {
        _ = model.entityVersionHashesByName
        _ = model.versionChecksum
    }
    return 0
}

/// The process entry point SwiftPM links as `main` (see CFuzzDriver): runs libFuzzer with this file's target.
@_cdecl("FuzzModelXML_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    opencoredata_fuzz_main(argc, argv)
}
