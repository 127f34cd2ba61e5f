import Logging

/// How `NSPersistentContainer(name:)` finds its model: the first `<name>.momd`, `<name>.mom`, `<name>.xcdatamodeld`
/// or `<name>.xcdatamodel` that loads, in `Bundle.main`'s resources and then in every SwiftPM resource bundle
/// (`<Package>_<Target>.resources`) beside the executable or test bundle, in name order.
///
/// Apple looks for `<name>.momd` and `<name>.mom` in the container class's bundle and then in the main bundle. A
/// library cannot see its caller's `Bundle.module`, and on Linux SwiftPM's resource bundles are not in
/// `Bundle.allBundles`, so the resource folders are searched by their location instead.
enum ContainerModelLookup {
    static let logger = Logger(label: "OpenCoreData.NSPersistentContainer")

    /// The model file extensions tried, in order (compiled models first, as Apple's order).
    static let extensions = ["momd", "mom", "xcdatamodeld", "xcdatamodel"]

    /// The model named `name`, or the error `loadPersistentStores` reports when there is none. Logs what Apple
    /// logs: "Failed to load model at path: …" for a model file that cannot be read, and "Failed to load model
    /// named …" when no model was found.
    static func model(named name: String, searching directories: [URL] = ModelPackage.defaultSearchDirectories()) -> Result<NSManagedObjectModel, NSError> {
        var firstFailure: NSError?
        for directory in directories {
            for fileExtension in extensions {
                let candidate = directory.appendingPathComponent(name + "." + fileExtension)
                guard FileManager.default.fileExists(atPath: candidate.path) else { continue }
                do {
                    return .success(try NSManagedObjectModel(validatingContentsOf: candidate))
                } catch let error as NSError {
                    logger.error("CoreData: error:  Failed to load model at path: \(candidate.path) (\(error.localizedDescription))")
                    if firstFailure == nil { firstFailure = error }
                }
            }
        }
        logger.error("CoreData: error:  Failed to load model named \(name)")
        let searched = directories.filter { FileManager.default.fileExists(atPath: $0.path) }.map(\.path).joined(separator: ", ")
        var userInfo: [String: Any] = [:]
        if let firstFailure { userInfo[NSUnderlyingErrorKey] = firstFailure }
        let reason = firstFailure.map { " (\($0.localizedDescription))" } ?? ""
        return .failure(CoreDataError.make(
            NSCoreDataError,
            "Failed to load model named \(name)\(reason). Looked for \(name).xcdatamodeld, \(name).xcdatamodel, \(name).momd and \(name).mom in: \(searched.isEmpty ? "(no resource folders)" : searched). Load the model yourself (NSManagedObjectModel(contentsOf: Bundle.module.url(forResource: \"\(name)\", withExtension: \"xcdatamodeld\")!)) and pass it to NSPersistentContainer(name:managedObjectModel:).",
            userInfo: userInfo))
    }
}
