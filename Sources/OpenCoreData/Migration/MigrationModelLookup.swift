/// Finds the model version that wrote a store, for automatic migration: among the versions of the
/// destination model's own `.xcdatamodeld` package first (an app ships every version there), then among every
/// model version in the given bundles' resources.
enum MigrationModelLookup {
    /// The first model version whose entity version hashes are the store's.
    static func sourceModel(forStoreMetadata metadata: [String: Any], destination: NSManagedObjectModel?, directories: [URL]) -> NSManagedObjectModel? {
        for url in candidatePackages(destination: destination, directories: directories) {
            for model in versions(of: url) where model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
                return model
            }
        }
        return nil
    }

    /// Every model version in a model package (one for an `.xcdatamodel`).
    static func versions(of url: URL) -> [NSManagedObjectModel] {
        guard url.pathExtension == "xcdatamodeld" else { return [NSManagedObjectModel(contentsOf: url)].compactMap { $0 } }
        return ((try? ModelPackage.versionNames(of: url)) ?? []).compactMap { name in
            try? NSManagedObjectModel(validatingContentsOf: url, versionName: name)
        }
    }

    /// The destination's own package, then the packages in `directories`.
    static func candidatePackages(destination: NSManagedObjectModel?, directories: [URL]) -> [URL] {
        var urls: [URL] = []
        if let source = destination?.sourceURL {
            let parent = source.deletingLastPathComponent()
            urls.append(parent.pathExtension == "xcdatamodeld" ? parent : source)
        }
        urls += directories.flatMap(ModelPackage.modelURLs(in:))
        var seen = Set<String>()
        return urls.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// Where mapping models may be: next to the destination model's package, then `directories`.
    static func mappingDirectories(destination: NSManagedObjectModel?, directories: [URL]) -> [URL] {
        var result: [URL] = []
        if let source = destination?.sourceURL {
            let parent = source.deletingLastPathComponent()
            result.append(parent.pathExtension == "xcdatamodeld" ? parent.deletingLastPathComponent() : parent)
        }
        return result + directories
    }
}

extension NSManagedObjectModel {
    /// The model, among every model version in `bundles`' resources (with `nil`: the main bundle and SwiftPM
    /// resource folders), whose entity version hashes are those of a store's metadata — the model that wrote
    /// the store. Returns `nil` when no version matches.
    ///
    /// For example:
    /// ```swift
    /// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// let sourceModel = NSManagedObjectModel.mergedModel(from: [Bundle.module], forStoreMetadata: metadata)
    /// ```
    public class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        let directories = bundles.map { $0.compactMap(\.resourceURL) } ?? ModelPackage.defaultSearchDirectories()
        return MigrationModelLookup.sourceModel(forStoreMetadata: metadata, destination: nil, directories: directories)
    }
}
