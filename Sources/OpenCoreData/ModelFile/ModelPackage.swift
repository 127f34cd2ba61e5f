/// Finds and reads model files: `.xcdatamodeld` packages (versioned), `.xcdatamodel` packages (one
/// version, XML `contents`), and the plain `contents` file itself.
enum ModelPackage {
    /// The file extensions of model packages OpenCoreData reads: compiled (`.momd`, `.mom`) and source.
    static let sourceExtensions: Set<String> = ["xcdatamodeld", "xcdatamodel", "momd", "mom"]

    /// Loads the model at `url`: the current version of an `.xcdatamodeld` or a `.momd`, an `.xcdatamodel` or a
    /// `.mom`.
    static func load(_ url: URL) throws -> NSManagedObjectModel {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError.make(url, "no such file or directory")
        }
        switch url.pathExtension {
        case "xcdatamodeld":
            return try loadVersion(named: currentVersionName(of: url), in: url)
        case "xcdatamodel":
            return try loadXCDataModel(url)
        case "mom":
            return try CompiledModelPackage.loadMOM(url)
        case "momd":
            return try CompiledModelPackage.loadMOMD(url)
        default:
            if !isDirectory.boolValue && url.lastPathComponent == "contents" { return try loadContents(url) }
            throw ModelFileError.make(url, "not a model package (expected a .xcdatamodeld or .xcdatamodel)")
        }
    }

    /// Loads one `.xcdatamodel` package.
    static func loadXCDataModel(_ url: URL) throws -> NSManagedObjectModel {
        let contents = url.appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contents.path) {
            let model = try loadContents(contents)
            model.sourceURL = url
            return model
        }
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("elements").path) {
            throw ModelFileError.make(url, "this is an Xcode 3 model in the binary 'elements' format, which is not supported; open it in Xcode and save it to convert it to the XML format")
        }
        throw ModelFileError.make(url, "the package has no 'contents' file")
    }

    /// Loads a model from an XML `contents` file.
    static func loadContents(_ url: URL) throws -> NSManagedObjectModel {
        let data: Data
        do {
            data = try FileContents.read(url)
        } catch {
            throw ModelFileError.make(url, "cannot read the file", underlying: error)
        }
        if data.starts(with: Array("bplist".utf8)) {
            throw ModelFileError.make(url, "this is a binary property list (an Xcode 3 'elements' model), not an XML model")
        }
        return try XCDataModelReader(url: url).read(data)
    }

    /// The names of the versions in an `.xcdatamodeld` package (without the `.xcdatamodel` extension), sorted.
    static func versionNames(of url: URL) throws -> [String] {
        let items: [String]
        do {
            items = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelFileError.make(url, "cannot list the package", underlying: error)
        }
        return items.filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }
            .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
    }

    /// The current version of an `.xcdatamodeld`: the `_XCCurrentVersionName` of its `.xccurrentversion`, or
    /// its only version.
    static func currentVersionName(of url: URL) throws -> String {
        let marker = url.appendingPathComponent(".xccurrentversion")
        let versions = try versionNames(of: url)
        guard FileManager.default.fileExists(atPath: marker.path) else {
            if versions.count == 1 { return versions[0] }
            throw ModelFileError.make(url, versions.isEmpty ? "the package contains no .xcdatamodel version"
                                      : "the package has \(versions.count) versions and no .xccurrentversion file to choose one")
        }
        let plist: Any
        do {
            plist = try PropertyListObject.foundationPropertyList(from: FileContents.read(marker))
        } catch {
            throw ModelFileError.make(marker, "malformed property list", underlying: error)
        }
        guard let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String, !name.isEmpty else {
            throw ModelFileError.make(marker, "no _XCCurrentVersionName string")
        }
        let version = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
        guard versions.contains(version) else {
            throw ModelFileError.make(marker, "the current version '\(name)' is not in the package (versions: \(versions.joined(separator: ", ")))")
        }
        return version
    }

    /// Loads the version `name` of an `.xcdatamodeld`.
    static func loadVersion(named name: String, in url: URL) throws -> NSManagedObjectModel {
        let versionURL = url.appendingPathComponent(name + ".xcdatamodel")
        guard FileManager.default.fileExists(atPath: versionURL.path) else {
            let versions = (try? versionNames(of: url))?.joined(separator: ", ") ?? ""
            throw ModelFileError.make(url, "no version named '\(name)' (versions: \(versions))")
        }
        return try loadXCDataModel(versionURL)
    }

    /// The model packages among a bundle's resources: `.xcdatamodeld` packages and the `.xcdatamodel`
    /// packages that are not versions inside one.
    static func modelURLs(in directory: URL) -> [URL] {
        guard let items = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) else { return [] }
        return items.filter { sourceExtensions.contains($0.pathExtension) }.sorted { $0.path < $1.path }
    }

    /// Where models may live when no bundles are named: `Bundle.main`'s resources and every SwiftPM
    /// `*.resources` folder next to the executable or test bundle (on Linux SwiftPM copies resources there and
    /// `Bundle.allBundles` does not list them).
    static func defaultSearchDirectories() -> [URL] {
        var directories: [URL] = []
        if let resources = Bundle.main.resourceURL { directories.append(resources) }
        let executableDirectory = Bundle.main.executableURL?.deletingLastPathComponent() ?? Bundle.main.bundleURL
        for base in [executableDirectory, Bundle.main.bundleURL] {
            guard let items = try? FileManager.default.contentsOfDirectory(at: base, includingPropertiesForKeys: nil) else { continue }
            for item in items where item.pathExtension == "resources" || item.pathExtension == "bundle" {
                directories.append(item)
                directories.append(item.appendingPathComponent("Contents/Resources"))
            }
        }
        var seen = Set<String>()
        return directories.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }
}

extension NSManagedObjectModel {
    /// Loads a model: a compiled `.momd` (its current version, from `VersionInfo.plist`) or `.mom`, as Apple's
    /// Core Data does, or an Xcode source package — the current version of an `.xcdatamodeld`, or an `.xcdatamodel`.
    /// Returns `nil` if the model cannot be read; use `init(validatingContentsOf:)` to learn why.
    ///
    /// With SwiftPM, ship the `.xcdatamodeld` (or a `.momd` made by `coredata model compile`) as a `.copy` resource
    /// and load it portably:
    /// ```swift
    /// let url = Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld")!
    /// let model = NSManagedObjectModel(contentsOf: url)!
    /// ```
    public convenience init?(contentsOf url: URL) {
        do {
            try self.init(validatingContentsOf: url)
        } catch {
            return nil
        }
    }

    /// Apple's Objective-C-derived spelling of `init(contentsOf:)`.
    public convenience init?(contentsOfURL url: URL) {
        self.init(contentsOf: url)
    }

    /// Loads a model from an Xcode model package, throwing an `NSError` (`NSCoreDataError`, 134060) that names
    /// the file, the element and the problem when the package is missing or malformed.
    ///
    /// For example:
    /// ```swift
    /// do {
    ///     let model = try NSManagedObjectModel(validatingContentsOf: url)
    /// } catch let error as NSError {
    ///     print(error.localizedDescription)   // "Cannot load the model at …/contents:12: relationship 'country' …"
    /// }
    /// ```
    public convenience init(validatingContentsOf url: URL) throws {
        try self.init(copying: ModelPackage.load(url))
    }

    /// Loads the version `versionName` (for example `"Moody 3"`) of an `.xcdatamodeld` package — the model a
    /// migration starts from. Equivalent to loading `<package>/<versionName>.xcdatamodel`.
    ///
    /// For example:
    /// ```swift
    /// let v3 = try NSManagedObjectModel(validatingContentsOf: modeld, versionName: "Moody 3")
    /// ```
    public convenience init(validatingContentsOf url: URL, versionName: String) throws {
        try self.init(copying: ModelPackage.loadVersion(named: versionName, in: url))
    }

    /// The version names of an `.xcdatamodeld` package, sorted as Finder sorts them.
    public static func versionNames(ofModelAt url: URL) throws -> [String] {
        try ModelPackage.versionNames(of: url)
    }

    /// The current version name of an `.xcdatamodeld` package (from its `.xccurrentversion`).
    public static func currentVersionName(ofModelAt url: URL) throws -> String {
        try ModelPackage.currentVersionName(of: url)
    }

    /// A model that merges every model found in `bundles`' resources; with `nil`, in `Bundle.main` and every
    /// SwiftPM resource folder next to the executable. Returns `nil` if none is found or two models define the
    /// same entity.
    ///
    /// For example:
    /// ```swift
    /// let model = NSManagedObjectModel.mergedModel(from: nil)!
    /// ```
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        let directories = bundles.map { $0.compactMap(\.resourceURL) } ?? ModelPackage.defaultSearchDirectories()
        var models: [NSManagedObjectModel] = []
        var seen = Set<[String: Data]>()
        for url in directories.flatMap(ModelPackage.modelURLs(in:)) {
            // The same model can sit in several resource folders (SwiftPM copies a test target's resources
            // for its tools too): identical models are merged once.
            guard let model = NSManagedObjectModel(contentsOf: url), seen.insert(model.entityVersionHashesByName).inserted else { continue }
            models.append(model)
        }
        guard !models.isEmpty else { return nil }
        return NSManagedObjectModel(byMerging: models)
    }

    /// Takes over the contents of a freshly loaded model (lets the public initializers be convenience inits).
    convenience init(copying loaded: NSManagedObjectModel) {
        self.init()
        entities = loaded._entities
        loaded._entities = []
        _configurations = loaded._configurations
        _fetchRequestTemplates = loaded._fetchRequestTemplates
        _localizationDictionary = loaded._localizationDictionary
        _versionIdentifiers = loaded._versionIdentifiers
        sourceURL = loaded.sourceURL
    }
}
