import OpenCoreData
import Testing

// What a container does to the process: the default store directory follows the environment (checked in child
// processes, so the real XDG data directory is never written), and loading with no store descriptions stops
// the program as Apple's raises NSInvalidArgumentException.

@Suite("NSPersistentContainer in a child process", .timeLimit(.minutes(1)))
struct ContainerProcessTests {
    @Test func defaultStoresGoToTheXDGDataDirectory() async {
        await #expect(processExitsWith: .success) {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-xdg-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            let application = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

            // $XDG_DATA_HOME when it is an absolute path.
            setenv("XDG_DATA_HOME", scratch.appendingPathComponent("data").path, 1)
            precondition(NSPersistentContainer.defaultDirectoryURL().path == scratch.appendingPathComponent("data/\(application)").path)
            // A relative $XDG_DATA_HOME is ignored, as the XDG specification says: ~/.local/share.
            setenv("HOME", scratch.appendingPathComponent("home").path, 1)
            setenv("XDG_DATA_HOME", "relative/data", 1)
            precondition(NSPersistentContainer.defaultDirectoryURL().path == scratch.appendingPathComponent("home/.local/share/\(application)").path)
            unsetenv("XDG_DATA_HOME")
            precondition(NSPersistentContainer.defaultDirectoryURL().path == scratch.appendingPathComponent("home/.local/share/\(application)").path)

            // Loading the default description creates the directory and the store there.
            setenv("XDG_DATA_HOME", scratch.appendingPathComponent("data").path, 1)
            guard let url = Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld"),
                let model = NSManagedObjectModel(contentsOf: url)
            else { preconditionFailure("no Library model") }
            let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
            var loadError: (any Error)?
            var calls = 0
            container.loadPersistentStores { _, error in
                calls += 1
                loadError = error
            }
            precondition(calls == 1 && loadError == nil, "\(String(describing: loadError))")
            let store = scratch.appendingPathComponent("data/\(application)/Library.sqlite")
            precondition(FileManager.default.fileExists(atPath: store.path), "no store at \(store.path)")
            precondition(container.persistentStoreCoordinator.persistentStores.first?.url?.standardizedFileURL == store.standardizedFileURL)
        }
    }

    @Test func loadingWithNoStoreDescriptionsStops() async {
        await #expect(processExitsWith: .failure) {
            let container = NSPersistentContainer(name: "Library", managedObjectModel: NSManagedObjectModel())
            container.persistentStoreDescriptions = []
            container.loadPersistentStores { _, _ in }
        }
    }
}
