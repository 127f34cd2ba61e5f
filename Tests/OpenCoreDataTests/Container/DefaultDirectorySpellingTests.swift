import OpenCoreData
import Testing

// NSPersistentContainer.defaultDirectoryURL: Apple declares both the Objective-C class method and an iOS 15 class
// property of the same name; Swift allows only one in a module, so OpenCoreData has the method (DEVIATIONS.md C4).

/// A container that keeps its stores in its own directory, as apps override it.
private final class AppGroupContainer: NSPersistentContainer, @unchecked Sendable {
    // @unchecked Sendable: adds no state.
    override class func defaultDirectoryURL() -> URL { URL(fileURLWithPath: "/tmp/app-group", isDirectory: true) }
}

@Suite struct DefaultDirectorySpellingTests {
    @Test func theClassMethodSpellingIsTheOneThatExistsAndSubclassesOverrideIt() {
        let directory: URL = NSPersistentContainer.defaultDirectoryURL()
        #expect(directory.isFileURL && !directory.path.isEmpty)
        let container = AppGroupContainer(name: "Moody", managedObjectModel: MoodyModel.shared)
        #expect(container.persistentStoreDescriptions.first?.url == URL(fileURLWithPath: "/tmp/app-group/Moody.sqlite"))
    }
}
