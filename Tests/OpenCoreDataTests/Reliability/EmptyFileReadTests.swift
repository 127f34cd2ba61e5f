import Foundation
import Testing

@testable import OpenCoreData

/// Empty files the library reads (an empty model `contents` file, an empty `.xccurrentversion`, an empty binary store
/// or mapping model) are refused with an error and cost nothing: swift-foundation's `Data(contentsOf:)` leaks a 4 KiB
/// buffer per empty file (LeakSanitizer, fuzzing `FuzzModelXML` under AddressSanitizer), so the library reads files
/// through `FileContents`.
@Suite struct EmptyFileReadTests {
    @Test func emptyFilesAreRefusedWithAnError() throws {
        let folder = try TemporaryDirectory.make()
        let package = folder.appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data().write(to: package.appendingPathComponent("contents"))
        #expect(throws: (any Error).self) { try NSManagedObjectModel(validatingContentsOf: package) }
        let store = folder.appendingPathComponent("Empty.binarystore")
        try Data().write(to: store)
        #expect(try FileContents.read(store) == Data())
        #expect(throws: (any Error).self) { try FileContents.read(folder.appendingPathComponent("missing")) }
    }

    @Test(.enabled(if: ChildProcess.role == nil))
    func readingEmptyFilesDoesNotLeak() throws {
        // Memory is measured in a child process, where no other test allocates meanwhile.
        let result = try ChildProcess.run(test: "emptyFileMemoryChild", role: "empty-file-memory", path: "")
        #expect(result.status == 0, "\(result.output)")
        let bytes = try #require(ProcessMemory.reported("OCD-EMPTY-FILE-GROWTH", in: result.output), "\(result.output)")
        #expect(ProcessMemory.underAddressSanitizer || bytes < 8_000_000, "loading an empty model file 20,000 times grew the process by \(bytes) bytes (4 KiB each would be 80 MB)")
    }

    @Test(.enabled(if: ChildProcess.role == "empty-file-memory"))
    func emptyFileMemoryChild() throws {
        let package = try TemporaryDirectory.make().appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data().write(to: package.appendingPathComponent("contents"))
        func loadAll(_ rounds: Int) {
            for _ in 0..<rounds { _ = try? NSManagedObjectModel(validatingContentsOf: package) }
        }
        loadAll(1_000)
        let before = ProcessMemory.residentBytes()
        loadAll(20_000)
        print("OCD-EMPTY-FILE-GROWTH \(ProcessMemory.residentBytes() - before)")
    }
}
