import Foundation
import Testing

@testable import OpenCoreData

/// Version hashes of models loaded from real Xcode model files equal the hashes Apple's Core Data wrote into
/// real stores (store-format.md §12).
@Suite("Corpus: version hashes against Apple-written stores", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct CorpusVersionHashTests {
    /// Stores whose model is an XML file, except the documented exception (the Apple Recipes store, whose
    /// XML was re-saved by a newer Xcode; only its own Z_MODELCACHE reproduces its hashes).
    static func pairedStores() throws -> [(store: String, model: String)] {
        try Corpus.index(Corpus.stores).compactMap { row in
            guard let store = row["filename"], let model = row["model_file"], model.hasSuffix(".xml"),
                !store.contains("Recipes")
            else { return nil }
            return (store, model)
        }
    }

    @Test func everyEntityHashOfEveryXMLPairedStoreMatches() throws {
        let pairs = try Self.pairedStores()
        #expect(pairs.count == 23)
        var entitiesChecked = 0
        var checksumsChecked = 0
        var digestsChecked = 0
        for (storeFile, modelFile) in pairs {
            let metadata = try RawStoreMetadata.read(Corpus.storeCopy(storeFile))
            let model = try Corpus.model(modelFile)
            let stored = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data], "\(storeFile)")
            let computed = model.entityVersionHashesByName
            #expect(Set(stored.keys) == Set(computed.keys), "\(storeFile): entity names")
            for (name, hash) in stored {
                #expect(computed[name] == hash, "\(storeFile): entity \(name)")
                entitiesChecked += 1
            }
            if let checksum = metadata["NSStoreModelVersionChecksumKey"] as? String {
                #expect(model.versionChecksum == checksum, "\(storeFile): versionChecksum")
                checksumsChecked += 1
            }
            if let digest = metadata["NSStoreModelVersionHashesDigest"] as? String {
                #expect(ModelDigests.versionHashesDigest(computed) == digest, "\(storeFile): digest")
                digestsChecked += 1
            }
        }
        print("Corpus version hashes: \(pairs.count) stores, \(entitiesChecked) entity hashes, \(checksumsChecked) checksums, \(digestsChecked) digests compared")
        #expect(entitiesChecked > 150)
    }
}
