/// The errors thrown for model files that cannot be read: `NSCoreDataError` (134060) in
/// `NSCocoaErrorDomain`, with a message naming the file, the element and the problem, and the file's
/// path under `NSFilePathErrorKey`.
enum ModelFileError {
    /// An error about the file at `url`, optionally at an element (`"entity 'Mood'"`) and line.
    static func make(_ url: URL, element: String? = nil, line: Int? = nil, _ problem: String, underlying: Error? = nil) -> NSError {
        var location = url.path
        if let line { location += ":\(line)" }
        var message = "Cannot load the model at \(location): "
        if let element { message += "\(element): " }
        message += problem
        var userInfo: [String: Any] = [NSFilePathErrorKey: url.path]
        if let underlying { userInfo[NSUnderlyingErrorKey] = underlying }
        return CoreDataError.make(NSCoreDataError, message, userInfo: userInfo)
    }
}
