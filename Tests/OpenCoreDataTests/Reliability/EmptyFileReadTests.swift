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
        let growth = result.output.split(separator: "\n").first { $0.hasPrefix("OCD-EMPTY-FILE-GROWTH ") }.flatMap { Int($0.split(separator: " ")[1]) }
        let bytes = try #require(growth, "\(result.output)")
        // Under AddressSanitizer freed memory stays in its quarantine; its leak checker reports leaks at exit instead.
        let underAddressSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
        #expect(underAddressSanitizer || bytes < 8_000_000, "loading an empty model file 20,000 times grew the process by \(bytes) bytes (4 KiB each would be 80 MB)")
    }

    @Test(.enabled(if: ChildProcess.role == "empty-file-memory"))
    func emptyFileMemoryChild() throws {
        let package = try TemporaryDirectory.make().appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data().write(to: package.appendingPathComponent("contents"))
        func loadAll(_ rounds: Int) {
            for _ in 0..<rounds { _ = try? NSManagedObjectModel(validatingContentsOf: package) }
        }
        // The resident set, in bytes (Linux: the second field of /proc/self/statm, in pages of 4 KiB).
        func resident() -> Int {
            let fields = ((try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "").split(separator: " ")
            return fields.count > 1 ? (Int(fields[1]) ?? 0) * 4_096 : 0
        }
        loadAll(1_000)
        let before = resident()
        loadAll(20_000)
        print("OCD-EMPTY-FILE-GROWTH \(resident() - before)")
    }
}
