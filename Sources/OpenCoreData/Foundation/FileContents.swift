import Foundation

/// Reads whole files for the library (model files, mapping models, store files, external data).
///
/// swift-foundation's `Data(contentsOf:)` leaks a 4 KiB buffer for every empty file it reads (LeakSanitizer found it
/// fuzzing `NSManagedObjectModel(validatingContentsOf:)` with an empty `contents` file); an empty regular file is
/// answered here without reading it.
///
/// ```swift
/// let data = try FileContents.read(packageURL.appendingPathComponent("contents"))
/// ```
package enum FileContents {
    /// The bytes of the file at `url`; throws what `Data(contentsOf:)` throws.
    package static func read(_ url: URL) throws -> Data {
        var info = stat()
        if url.isFileURL, stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 {
            return Data()
        }
        return try Data(contentsOf: url)
    }
}
