import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// Stores whose `Z_METADATA` blob tests read and replace with raw SQL.
enum MetadataStoreFixture {
    /// A new SQLite store of a one-entity model (removed from its coordinator), with `extra` added to its metadata.
    static func makeStore(extra: [String: Any] = [:]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metadata-plist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("Store.sqlite")
        let entity = NSEntityDescription()
        entity.name = "Item"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        entity.properties = [name]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let metadata = store.metadata.merging(extra) { _, new in new }
        try coordinator.remove(store)
        if !extra.isEmpty { try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url) }
        return url
    }

    private static func sql(_ url: URL, _ body: (OpaquePointer?) -> Void) {
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        body(db)
        sqlite3_close(db)
    }

    static func blob(_ url: URL) -> Data {
        var data = Data()
        sql(url) { db in
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, "SELECT Z_PLIST FROM Z_METADATA", -1, &statement, nil)
            if sqlite3_step(statement) == SQLITE_ROW, let bytes = sqlite3_column_blob(statement, 0) {
                data = Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, 0)))
            }
            sqlite3_finalize(statement)
        }
        return data
    }

    /// Replaces the store's `Z_METADATA.Z_PLIST` with raw SQL, as a tampered file would arrive.
    static func replaceBlob(_ url: URL, with data: Data) {
        sql(url) { db in
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, "UPDATE Z_METADATA SET Z_PLIST = ?", -1, &statement, nil)
            _ = data.withUnsafeBytes { sqlite3_bind_blob(statement, 1, $0.baseAddress, Int32($0.count), nil) }
            #expect(sqlite3_step(statement) == SQLITE_DONE)
            sqlite3_finalize(statement)
        }
    }
}

/// The `Z_METADATA` blob is decoded by OpenCoreData's own binary and XML property-list readers (Foundation's crashed on
/// some malformed lists and leaked memory on others under fuzzing): the values are those `PropertyListSerialization`
/// returns, and hostile blobs are refused with Core Data's error, without leaking memory.
@Suite struct MetadataPlistTests {
    private let extra: [String: Any] = [
        "text": "ünïcode", "integer": 42, "negative": -7, "real": 2.5, "flag": true, "date": Date(timeIntervalSinceReferenceDate: 86_400),
        "data": Data([0, 1, 2]), "list": ["a", 1] as [Any], "nested": ["inner": ["deep": false]],
    ]


    @Test func binaryMetadataDecodesAsPropertyListSerializationDoes() throws {
        let url = try MetadataStoreFixture.makeStore(extra: extra)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let data = MetadataStoreFixture.blob(url)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let ours = try #require(try SQLiteStore.metadataPropertyList(data) as? [String: Any])
        let foundations = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(NSDictionary(dictionary: ours).isEqual(to: foundations))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata["text"] as? String == "ünïcode" && metadata["integer"] as? Int == 42 && metadata["negative"] as? Int == -7)
        #expect(metadata["real"] as? Double == 2.5 && metadata["flag"] as? Bool == true)
        #expect(metadata["date"] as? Date == Date(timeIntervalSinceReferenceDate: 86_400) && metadata["data"] as? Data == Data([0, 1, 2]))
        #expect(((metadata["nested"] as? [String: Any])?["inner"] as? [String: Any])?["deep"] as? Bool == false)
        #expect(metadata[NSStoreModelVersionHashesKey] is [String: Any])
    }

    @Test func anXMLPropertyListIsStillRead() throws {
        let url = try MetadataStoreFixture.makeStore(extra: extra)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        var plist = metadata
        plist[NSStoreUUIDKey] = nil
        MetadataStoreFixture.replaceBlob(url, with: try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0))
        let reread = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(reread["integer"] as? Int == 42 && reread["text"] as? String == "ünïcode")
    }

    @Test func xmlMetadataDecodesAsPropertyListSerializationDoes() throws {
        var plist = extra
        plist["empty"] = [String: Any]()
        plist["escaped"] = "a < b & \"c\" > 'd'"
        plist["big"] = UInt64.max
        plist["old"] = Date(timeIntervalSinceReferenceDate: -1_000_000_000)
        plist["list"] = ["a", 1, 2.5, Data([9]), [] as [Any]] as [Any]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        let ours = try #require(try SQLiteStore.metadataPropertyList(data) as? [String: Any])
        let foundations = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(NSDictionary(dictionary: ours).isEqual(to: foundations), "\(ours)\n\(foundations)")
        #expect(ours["date"] as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
        #expect(ours["old"] as? Date == Date(timeIntervalSinceReferenceDate: -1_000_000_000))
        #expect(ours["escaped"] as? String == "a < b & \"c\" > 'd'")
    }

    /// Malformed XML property lists; the first is the input with which fuzzing under AddressSanitizer found
    /// Foundation's reader leaking (464 bytes a call).
    static let malformedXML: [Data] = [
        Self.hex("3c706c6973743030df10100102030405060708090a0b0c0d0e0f1011121314161718191a4d4e4f505152535f101862706c6973743030df100f"
                + "0102030405060708090a0b0c0d0e0f1011121315161718193a3b3c3d3e3f5f10185a4d526567697374657265644f6e5468697344657669"
                + "63655f101150657273695a4d5265676973746573746564436c69656e7449645f10114c6173745570646174654576656e7449445f101e4e"
                + "5353746f72654d6f7265644f"),
        Data(#"<?xml version="1.0"?><plist version="1.0"><dict><key>a</key></dict></plist>"#.utf8),
        Data(#"<plist version="1.0"><integer>twelve</integer></plist>"#.utf8),
        Data(#"<plist version="1.0"><dict><key>a</key><date>yesterday</date></dict></plist>"#.utf8),
        Data(#"<plist version="1.0"><array><string>open"#.utf8),
        Data(#"<!DOCTYPE plist><plist><data>!!!</data></plist>"#.utf8),
    ]

    private static func hex(_ text: String) -> Data {
        let digits = Array(text.utf8)
        return Data(stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! })
    }

    @Test(.enabled(if: ChildProcess.role == nil))
    func malformedXMLMetadataAndBinaryStoresAreRefusedWithoutLeaking() throws {
        for data in Self.malformedXML {
            #expect(throws: (any Error).self) { try SQLiteStore.metadataPropertyList(data) }
        }
        // Memory is measured in a child process, where no other test allocates meanwhile.
        let result = try ChildProcess.run(test: "malformedXMLMetadataMemoryChild", role: "xml-plist-memory", path: "")
        #expect(result.status == 0, "\(result.output)")
        let bytes = try #require(ProcessMemory.reported("OCD-XML-PLIST-GROWTH", in: result.output), "\(result.output)")
        #expect(ProcessMemory.underAddressSanitizer || bytes < 4_000_000, "refusing 60,000 malformed XML lists and 70,000 damaged binary stores grew the process by \(bytes) bytes")
    }

    @Test(.enabled(if: ChildProcess.role == "xml-plist-memory"))
    func malformedXMLMetadataMemoryChild() {
        // Damaged binary store files (signature and version, then a damaged list) go through the same readers.
        let damagedBinaryStores = Self.malformedXML.map { BinaryStoreFile.magic + Data([0, 0, 0, 1]) + $0 }
            + [BinaryStoreFile.magic + Data([0, 0, 0, 1]) + Data("{ metadata = (; objects".utf8)]
        func refuseAll(_ rounds: Int) {
            for _ in 0..<rounds {
                for data in Self.malformedXML { _ = try? SQLiteStore.metadataPropertyList(data) }
                for data in damagedBinaryStores { _ = try? BinaryStoreFile(data: data, path: "/damaged.binarystore") }
            }
        }
        refuseAll(1_000)
        let before = ProcessMemory.residentBytes()
        refuseAll(10_000)
        print("OCD-XML-PLIST-GROWTH \(ProcessMemory.residentBytes() - before)")
    }

    /// A binary plist of `levels` arrays, each holding the next one twice: a few hundred bytes describing 2^levels
    /// leaves.
    private func exponentialPlist(levels: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for level in 0..<levels {
            offsets.append(bytes.count)
            bytes += [0xA2, UInt8(level + 1), UInt8(level + 1)]
        }
        offsets.append(bytes.count)
        bytes += [0x51, UInt8(ascii: "x")]
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        func be64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1] + be64(offsets.count) + be64(0) + be64(table)
        return Data(bytes)
    }

    @Test(arguments: ["garbage", "exponential", "set", "truncated"])
    func hostileBlobsAreRefused(kind: String) throws {
        let url = try MetadataStoreFixture.makeStore(extra: extra)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let data: Data
        switch kind {
        case "garbage": data = Data([0x62, 0x54, 0xF4])
        case "exponential": data = exponentialPlist(levels: 60)
        case "set":   // a set holding `false`: objects at 8 and 10, offset table at 11
            data = Data(Array("bplist00".utf8) + [0xC1, 0x01, 0x08] + [0x08, 0x0A]
                        + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 11])
        default: data = MetadataStoreFixture.blob(url).prefix(40)
        }
        MetadataStoreFixture.replaceBlob(url, with: data)
        let started = ContinuousClock.now
        let error = #expect(throws: NSError.self) {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        }
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(started.duration(to: .now) < .seconds(5), "refused without expanding the list")
    }
}
