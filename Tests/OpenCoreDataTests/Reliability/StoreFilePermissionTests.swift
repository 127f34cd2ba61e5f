import Testing

@testable import OpenCoreData

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The permissions of everything a SQLite store creates — the file, its -wal and -shm, the `.<name>_SUPPORT` and
/// `_EXTERNAL_DATA` folders and an external binary value's file: they follow the umask by default, as Apple's do, and
/// are owner-only (0600 files, 0700 folders) when `NSPersistentStoreFileProtectionKey` names a protection class.
/// (The connection-level option: `SQLiteFilePermissionTests`.) The umask is process-wide, so this runs in a child.
@Suite struct StoreFilePermissionTests {
    static let role = "storePermissions"

    @Test(.enabled(if: ChildProcess.role == nil))
    func defaultFollowsTheUmaskAndFileProtectionMakesEverythingOwnerOnly() throws {
        let directory = try TemporaryDirectory.make()
        let result = try ChildProcess.run(test: "StoreFilePermissionTests/storePermissionsChild", role: Self.role, path: directory.path)
        #expect(result.status == 0 && result.output.contains("storePermissionsChild() passed"), "child output:\n\(result.output.suffix(3_000))")
        let report = try String(contentsOf: directory.appendingPathComponent("report.txt"), encoding: .utf8)
        // store -wal -shm support-folder external-folder external-file
        #expect(report == """
            default 644 644 644 755 755 644
            complete 600 600 600 700 700 600
            completeUntilFirstUserAuthentication 600 600 600 700 700 600
            none 644 644 644 755 755 644

            """)
    }

    /// The child: umask 022, one store per option value, each with an external binary value, inspected while open.
    @Test(.enabled(if: ChildProcess.role == StoreFilePermissionTests.role))
    func storePermissionsChild() throws {
        umask(0o022)
        let directory = URL(fileURLWithPath: ChildProcess.path)
        let variants: [(String, Any?)] = [("default", nil), ("complete", FileProtectionType.complete),
                                          ("completeUntilFirstUserAuthentication", FileProtectionType.completeUntilFirstUserAuthentication.rawValue),
                                          ("none", FileProtectionType.none)]
        var report = ""
        for (name, protection) in variants {
            let url = directory.appendingPathComponent(name + ".sqlite")
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
            let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                           options: protection.map { [NSPersistentStoreFileProtectionKey: $0] })
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(Data(repeating: 7, count: 300_000), forKey: "payload")
            try context.save()
            let support = directory.appendingPathComponent(".\(name)_SUPPORT"), external = support.appendingPathComponent("_EXTERNAL_DATA")
            let files = try FileManager.default.contentsOfDirectory(atPath: external.path)
            #expect(files.count == 1, "\(name): one external file")
            let paths = [url.path, url.path + "-wal", url.path + "-shm", support.path, external.path, external.appendingPathComponent(files.first ?? "").path]
            report += name + paths.map { " " + (SQLiteTestFiles.permissions($0).map { String($0, radix: 8) } ?? "missing") }.joined() + "\n"
            try coordinator.remove(store)
        }
        try report.write(to: directory.appendingPathComponent("report.txt"), atomically: true, encoding: .utf8)
    }
}
