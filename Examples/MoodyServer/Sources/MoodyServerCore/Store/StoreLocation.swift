import OpenCoreData

/// Where the server keeps its moods. Today an SQLite file; the store option is a URL-or-path so that a PostgreSQL
/// store (`postgres://…`) can be added here once the library has one, without changing the command line.
public struct StoreLocation: Sendable, Equatable {
    /// The SQLite file.
    public let fileURL: URL

    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// Parses `--store` / `MOODY_STORE`: a file path, or a `file:` URL. Any other URL scheme is refused with a
    /// message that says which stores this build supports.
    public init(parsing text: String) throws(ConfigurationError) {
        guard !text.isEmpty else { throw ConfigurationError("the store path is empty") }
        if let colon = text.firstIndex(of: ":"), let url = URL(string: text), let scheme = url.scheme,
           scheme.count > 1, text[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            guard scheme.lowercased() == "file" else {
                throw ConfigurationError("unsupported store '\(scheme):…': this build stores moods in SQLite only — give a file path (or a file: URL); a PostgreSQL store (postgres://) comes with the library's PostgreSQL store")
            }
            fileURL = URL(fileURLWithPath: url.path)
        } else {
            fileURL = URL(fileURLWithPath: text)
        }
    }
}

/// A command-line or environment setting the server cannot use.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
