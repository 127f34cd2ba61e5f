import OpenCoreData

/// Finds a data model by file name among a bundle's resources, the way the seed's `init(sqliteStack:)` found
/// `<name>.momd` in the main bundle.
///
/// On Linux a SwiftPM target's resources live in `<Package>_<Target>.resources` beside the executable, which
/// `Bundle.main` does not search, and a library cannot see its caller's `Bundle.module`. So the caller passes its
/// bundle (`bundle: .module`); when the model is not in that bundle, every SwiftPM resource folder beside the main
/// executable is searched too, in name order. The file extensions tried, in order: `momd`, `mom`, `xcdatamodeld`,
/// `xcdatamodel`.
///
/// For example:
/// ```swift
/// let url = ModelLocator.url(forModelNamed: "Moody", in: .module)
/// ```
public enum ModelLocator {
    /// The model file extensions tried, compiled models first.
    public static let modelExtensions = ["momd", "mom", "xcdatamodeld", "xcdatamodel"]

    /// The URL of the model named `name` in `bundle` or a SwiftPM resource folder beside the main executable.
    public static func url(forModelNamed name: String, in bundle: Bundle = .main) -> URL? {
        for directory in searchDirectories(bundle) {
            for fileExtension in modelExtensions {
                let candidate = directory.appendingPathComponent(name + "." + fileExtension)
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }

    /// The directories searched: the bundle's resources, the bundle itself, then SwiftPM resource folders.
    static func searchDirectories(_ bundle: Bundle) -> [URL] {
        var directories = [bundle.resourceURL, bundle.bundleURL].compactMap { $0 }
        let beside = [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent()].compactMap { $0 }
        for folder in beside {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            directories += names.filter { $0.hasSuffix(".resources") }.sorted().map { folder.appendingPathComponent($0) }
        }
        var seen = Set<String>()
        return directories.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// The error reported when no model file was found.
    static func missingModelError(_ name: String, bundle: Bundle) -> NSError {
        let searched = searchDirectories(bundle).map(\.path).joined(separator: ", ")
        return NSError(domain: NSCocoaErrorDomain, code: NSFileReadNoSuchFileError, userInfo: [
            NSLocalizedDescriptionKey: "No data model named \(name) (\(modelExtensions.map { name + "." + $0 }.joined(separator: ", "))) in: \(searched). Pass the bundle that holds it, e.g. bundle: .module.",
        ])
    }
}
