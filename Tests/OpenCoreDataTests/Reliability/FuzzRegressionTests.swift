import Foundation
import OpenCoreData
import Testing

/// Inputs that crashed a fuzz target (Fuzz/, see RELIABILITY.md), replayed through the public API: each must now be
/// a thrown Core Data error.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// FuzzStoreMetadataPlist, crash-42ec21bf…: a binary Z_METADATA plist holding a malformed set crashed
    /// swift-corelibs-foundation's PropertyListSerialization (SEGV bridging NSSet) inside metadataForPersistentStore.
    @Test func metadataPlistWithMalformedSetThrows() throws {
        let url = try MetadataStoreFixture.makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let blob = Array(hexBytes: "62706c6973743030c80102030405060708090b0c0d0e0f12135f101e4e5353746f72654d6f64656c56657273696f6e4964656e746966696572735b4e5353746f7265547970655f10125f4e534175746f56616375756d4c6576656c5f101f4e5353746f72654d6f64656c56657273696f6e4861736865734469676573745f101e4e5353746f72654d6f64656c56657273696f6e436865636b73756d4b65795f10194e5353746f72654d6f64656c56657273696f6e4861736865735f101d4e5350657273697374656e63654672616d65776f726b56657273696f6e5f10204e5353746f72654d6f64656c56657273696f6e48617368657356657273696f6ea10a51305653514c69746551325f1058304b4c422f466e4c38726f4d636765737a6543786e506e7659716e6e34567a4232447046503663737172444b7a4c423666794735727256666a593544746e517878343335356f57754b4675626c5066324a6f315557673d3d5f102c75393730516759685248454a474974307a5172315568755a4c325a4a314b7842532b4237726b417830696b3dd1101154557365724f10206b31f4e97b691d16c4c820bae55f89408d47013bd42151ecfde1eac7fe4be798110540100300080019003a0046005b007d009e00ba00da00fd00ff01010108010a016501940197019c01bf01c200000000000002010000000000000014000000000000000000000000000001c4")
        MetadataStoreFixture.replaceBlob(url, with: Data(blob))
        let error = #expect(throws: NSError.self) {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == 134020)  // NSPersistentStoreIncompatibleSchemaError
    }
}

private extension Array where Element == UInt8 {
    /// Bytes from a hexadecimal string ("0a1b…").
    init(hexBytes hex: String) {
        let digits = Array(hex.utf8)
        self = stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }
}
