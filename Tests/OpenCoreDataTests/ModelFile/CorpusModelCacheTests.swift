import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// Reads `Z_MODELCACHE.Z_CONTENT` with the SQLite C API (independent of the library's store code).
enum RawModelCache {
    static func blob(_ url: URL) throws -> Data? {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            defer { sqlite3_close(db) }
            throw NSError(domain: "RawModelCache", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot open \(url.path)"])
        }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT Z_CONTENT FROM Z_MODELCACHE", -1, &statement, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let bytes = sqlite3_column_blob(statement, 0) else { return nil }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, 0)))
    }

    /// The corpus stores (file names) and their cache blobs, for every store that has one.
    static func corpusCaches() throws -> [(store: String, blob: Data, metadata: [String: Any])] {
        var result: [(store: String, blob: Data, metadata: [String: Any])] = []
        for row in try Corpus.index(Corpus.stores) {
            let name = row["filename"] ?? ""
            let copy = try Corpus.storeCopy(name)
            if let blob = try blob(copy) { result.append((name, blob, try RawStoreMetadata.read(copy))) }
        }
        return result
    }
}

/// Every corpus store's model cache decodes to a model whose entity version hashes are the store's
/// `NSStoreModelVersionHashes`, and re-encodes to an archive that decodes to the same model.
@Suite("Corpus: Z_MODELCACHE decoding", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct CorpusModelCacheTests {
    @Test("every model cache decodes to the store's version hashes")
    func everyCacheReproducesTheStoreHashes() throws {
        let caches = try RawModelCache.corpusCaches()
        #expect(caches.count == 26)  // store-format.md §2.3: 26 stores carry a cache
        for cache in caches {
            let model = try CompiledModelReader.model(fromModelCache: cache.blob)
            let stored = try #require(cache.metadata["NSStoreModelVersionHashes"] as? [String: Data], "\(cache.store)")
            let decoded = model.entityVersionHashesByName
            #expect(Set(decoded.keys) == Set(stored.keys), "\(cache.store)")
            for (name, hash) in stored where decoded[name] != hash {
                Issue.record("\(cache.store): entity \(name) hashes differently")
            }
            if let identifiers = cache.metadata["NSStoreModelVersionIdentifiers"] as? [String] {
                #expect(Set(model.versionIdentifiers.compactMap { $0 as? String }) == Set(identifiers), "\(cache.store)")
            }
        }
    }
}
