import Testing
@testable import OpenCoreData
@testable import OpenCoreDataFoundation

/// Damaged and hostile archives — transformable columns of foreign or corrupt stores — give nil without
/// stopping the process, where Linux Foundation's NSKeyedUnarchiver alone would stop it for several of them.
@Suite struct KeyedArchiveRobustnessTests {
    /// Archives laid out by hand (as binary property lists written with Python's `plistlib`), each damaged in
    /// one way.
    static let malformed: [(String, String)] = [
        /// An NSArray whose element reference points past `$objects`.
        ("referenceOutOfRange", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGjCwwSVSRudWxs0g0ODxFaTlMub2JqZWN0c1YkY2xhc3OhEIBjgALSExQVFlokY2xhc3NuYW1lWCRjbGFzc2VzV05T
            QXJyYXmiFRdYTlNPYmplY3QIERokKTI3SUxRU1ddYm10dnh6f4qTm54AAAAAAAABAQAAAAAAAAAYAAAAAAAAAAAAAAAAAAAApw==
            """),
        /// An object whose `$class` refers to a string, not a class description.
        ("classIsNotADescription", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGjCwwRVSRudWxs0g0ODxBaTlMub2JqZWN0c1YkY2xhc3OggAJXTlNBcnJheQgRGiQpMjdJTFFTV11ibXR1dwAAAAAA
            AAEBAAAAAAAAABIAAAAAAAAAAAAAAAAAAAB/
            """),
        /// An NSMutableArray that contains itself (Linux Foundation recurses until the stack overflows).
        ("arrayContainingItself", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGjCwwSVSRudWxs0g0ODxFaTlMub2JqZWN0c1YkY2xhc3OhEIABgALSExQVFlokY2xhc3NuYW1lWCRjbGFzc2VzXk5T
            TXV0YWJsZUFycmF5oxUXGFdOU0FycmF5WE5TT2JqZWN0CBEaJCkyN0lMUVNXXWJtdHZ4en+Kk6KmrgAAAAAAAAEBAAAAAAAAABkA
            AAAAAAAAAAAAAAAAAAC3
            """),
        /// An NSURL whose string is empty (Linux Foundation decodes it, then stops when it is bridged to URL).
        ("emptyURLString", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGkCwwTFFUkbnVsbNMNDg8QERJXTlMuYmFzZVtOUy5yZWxhdGl2ZVYkY2xhc3OAAIACgANQ0hUWFxhaJGNsYXNzbmFt
            ZVgkY2xhc3Nlc1VOU1VSTKIXGVhOU09iamVjdAgRGiQpMjdJTFFTWF5lbXmAgoSGh4yXoKapAAAAAAAAAQEAAAAAAAAAGgAAAAAA
            AAAAAAAAAAAAALI=
            """),
        /// An NSDate without `NS.time`.
        ("dateWithoutTime", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGjCwwPVSRudWxs0Q0OViRjbGFzc4AC0hAREhNaJGNsYXNzbmFtZVgkY2xhc3Nlc1ZOU0RhdGWiEhRYTlNPYmplY3QI
            ERokKTI3SUxRU1ddYGdpbnmCiYwAAAAAAAABAQAAAAAAAAAVAAAAAAAAAAAAAAAAAAAAlQ==
            """),
        /// An NSDictionary with two keys and one value.
        ("dictionaryCountMismatch", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGlCwwWFxhVJG51bGzTDQ4PEBMVV05TLmtleXNaTlMub2JqZWN0c1YkY2xhc3OiERKAAoADoRSAAoAEUWFRYtIZGhsc
            WiRjbGFzc25hbWVYJGNsYXNzZXNcTlNEaWN0aW9uYXJ5ohsdWE5TT2JqZWN0CBEaJCkyN0lMUVNZX2ZueYCDhYeJi42PkZahqre6
            AAAAAAAAAQEAAAAAAAAAHgAAAAAAAAAAAAAAAAAAAMM=
            """),
        /// An NSError, a Foundation class whose Linux decoder stops the process on bad input.
        ("uncheckedFoundationClass", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGkCwwTFFUkbnVsbNMNDg8QERJYTlNEb21haW5WTlNDb2RlViRjbGFzc4ACEAGAA1F40hUWFxhaJGNsYXNzbmFtZVgk
            Y2xhc3Nlc1dOU0Vycm9yohcZWE5TT2JqZWN0CBEaJCkyN0lMUVNYXmVudXx+gIKEiZSdpagAAAAAAAABAQAAAAAAAAAaAAAAAAAA
            AAAAAAAAAAAAsQ==
            """),
        /// An NSArray holding `$null`.
        ("nilInsideArray", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGjCwwSVSRudWxs0g0ODxFaTlMub2JqZWN0c1YkY2xhc3OhEIAAgALSExQVFlokY2xhc3NuYW1lWCRjbGFzc2VzV05T
            QXJyYXmiFRdYTlNPYmplY3QIERokKTI3SUxRU1ddYm10dnh6f4qTm54AAAAAAAABAQAAAAAAAAAYAAAAAAAAAAAAAAAAAAAApw==
            """),
        /// An object of a class named by a mangled Swift name, which Linux Foundation logs about.
        ("mangledClassName", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGjCwwPVSRudWxs0Q0OViRjbGFzc4AC0hAREhNaJGNsYXNzbmFtZVgkY2xhc3Nlc18QD19UdEM1TW9vZHk0TW9vZKIS
            FFhOU09iamVjdAgRGiQpMjdJTFFTV11gZ2lueYKUlwAAAAAAAAEBAAAAAAAAABUAAAAAAAAAAAAAAAAAAACg
            """),
        /// An NSUUID of 15 bytes.
        ("uuidOfFifteenBytes", """
            YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEI
            CVRyb290gAGjCwwRVSRudWxs0g0ODxBcTlMudXVpZGJ5dGVzViRjbGFzc08QDwAAAAAAAAAAAAAAAAAAAIAC0hITFBVaJGNsYXNz
            bmFtZVgkY2xhc3Nlc1ZOU1VVSUSiFBZYTlNPYmplY3QIERokKTI3SUxRU1ddYm92iIqPmqOqrQAAAAAAAAEBAAAAAAAAABcAAAAA
            AAAAAAAAAAAAAAC2
            """),
        /// A property list that names another archiver.
        ("wrongArchiver", """
            YnBsaXN0MDDUAQIDBAUGCQxZJGFyY2hpdmVyWCRvYmplY3RzVCR0b3BYJHZlcnNpb25aTlNBcmNoaXZlcqIHCFUkbnVsbFF40QoL
            VHJvb3SAARIAAYagCBEbJCkyPUBGSEtQUgAAAAAAAAEBAAAAAAAAAA0AAAAAAAAAAAAAAAAAAABX
            """),
        /// A binary property list that is not an archive (store metadata).
        ("plainPropertyList", """
            YnBsaXN0MDDSAQIDBF8QHU5TUGVyc2lzdGVuY2VGcmFtZXdvcmtWZXJzaW9uW05TU3RvcmVUeXBlEQVDVlNRTGl0ZQgNLTk8AAAA
            AAAAAQEAAAAAAAAABQAAAAAAAAAAAAAAAAAAAEM=
            """),
    ]

    @Test(arguments: malformed.map(\.0))
    func malformedArchiveGivesNil(name: String) throws {
        let base64 = try #require(Self.malformed.first { $0.0 == name }?.1)
        let data = ArchiveFixtures.data(base64)
        #expect(throws: KeyedArchiveError.self) {
            try KeyedArchive(data: data).decodingPlan(rootKey: "root", allowedClasses: nil, requiresSecureCoding: false)
        }
        #expect(NSSecureUnarchiveFromDataTransformer().transformedValue(data) == nil)
        #expect(ValueTransformer(forName: .keyedUnarchiveFromDataTransformerName)?.transformedValue(data) == nil)
        #expect(ValueTransformer(forName: .unarchiveFromDataTransformerName)?.transformedValue(data) == nil)
    }

    @Test func objectGraphsDeeperThanTheLimitGiveNil() throws {
        func chain(_ length: Int) -> ChainLink {
            (1..<length).reduce(ChainLink(next: nil)) { next, _ in ChainLink(next: next) }
        }
        let transformer = ChainTransformer()
        let shallow = try #require(transformer.reverseTransformedValue(chain(50)) as? Data)
        #expect((transformer.transformedValue(shallow) as? ChainLink)?.length == 50)
        // Written by Foundation directly: the transformer itself refuses to archive a graph this deep.
        let deepChain = chain(KeyedArchive.maximumGraphDepth + 10)
        #expect(transformer.reverseTransformedValue(deepChain) == nil)
        let deep = try NSKeyedArchiver.archivedData(withRootObject: deepChain, requiringSecureCoding: true)
        #expect(transformer.transformedValue(deep) == nil)
    }

    /// Linux Foundation cannot decode an object graph with a cycle (it recurses until the stack overflows), so
    /// such a graph is refused when written, rather than written and then refused when read.
    @Test func objectGraphsWithCyclesAreRefused() {
        let first = PairNode(), second = PairNode()
        first.partner = second
        second.partner = first
        defer { first.partner = nil }
        #expect(PairTransformer().reverseTransformedValue(first) == nil)
        second.partner = nil
        let data = PairTransformer().reverseTransformedValue(first) as? Data
        #expect((PairTransformer().transformedValue(data) as? PairNode)?.partner != nil)
    }

    /// Linux Foundation's NSKeyedUnarchiver fails the whole decoding when `init(coder:)` asks `decodeObject` for a
    /// key the archive lacks (Apple's returns nil for that key); classes check `containsValue(forKey:)` first.
    @Test func linuxFoundationFailsOnMissingKeys() throws {
        let checked = try #require(OptionalNoteTransformer().reverseTransformedValue(OptionalNote(checksKeys: true)) as? Data)
        #expect((OptionalNoteTransformer().transformedValue(checked) as? OptionalNote)?.subtitle == nil)
        let unchecked = try #require(OptionalNoteTransformer().reverseTransformedValue(OptionalNote(checksKeys: false)) as? Data)
        #expect(OptionalNoteTransformer().transformedValue(unchecked) == nil)
    }

    @Test func propertyListReaderRefusesBadStructure() {
        let valid = ArchiveFixtures.handBuiltInteger
        #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyList.read(Data("bplist00".utf8)) }
        #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyList.read(valid.dropLast(1)) }
        #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyList.read(Data("hello, world, not a plist at all!!!!!!!!!!!".utf8)) }
        var badTrailer = valid
        badTrailer[badTrailer.count - 1] = 0xFF  // offset table past the end
        #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyList.read(badTrailer) }
        #expect(throws: Never.self) { try BinaryPropertyList.read(valid) }
    }

    /// Every fixture, damaged thousands of ways (bytes overwritten, cut short, inserted), goes through the three
    /// archive transformers and the bridges to Swift types without stopping the process. (The "Content" archive is
    /// left out: another test maps that name to an app class, whose failures Linux Foundation logs.)
    @Test func randomlyDamagedArchivesNeverStopTheProcess() {
        let fixtures = [ArchiveFixtures.appleCloudKitMetadataDictionary, ArchiveFixtures.appleHistoryToken,
                        ArchiveFixtures.appleBookCover,
                        ArchiveFixtures.appleWireSearchTopConversations, ArchiveFixtures.handBuiltUUID,
                        ArchiveFixtures.handBuiltURL, ArchiveFixtures.handBuiltDate, ArchiveFixtures.handBuiltString,
                        ArchiveFixtures.handBuiltMutableString, ArchiveFixtures.handBuiltMutableData,
                        ArchiveFixtures.handBuiltArray, ArchiveFixtures.handBuiltSet, ArchiveFixtures.handBuiltDictionary,
                        ArchiveFixtures.handBuiltNested]
        let transformers: [ValueTransformer] = [NSSecureUnarchiveFromDataTransformer(),
                                                ValueTransformer(forName: .keyedUnarchiveFromDataTransformerName)!,
                                                ValueTransformer(forName: .unarchiveFromDataTransformerName)!]
        var random = SplitMix64(seed: 0x0C0DE_DA7A)
        var decoded = 0
        for _ in 0..<250 {
            for fixture in fixtures {
                var bytes = [UInt8](fixture)
                switch random.next() % 4 {
                case 0:
                    bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
                case 1:
                    let index = Int(random.next() % UInt64(bytes.count))
                    bytes.insert(contentsOf: (0..<(1 + random.next() % 6)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: index)
                default:
                    for _ in 0..<(1 + random.next() % 4) {
                        bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                    }
                }
                for transformer in transformers {
                    guard let value = transformer.transformedValue(Data(bytes)) else { continue }
                    decoded += 1
                    Self.bridge(value)
                }
            }
        }
        #expect(decoded > 0)  // some damage (in string contents, say) leaves a readable archive
    }

    /// Casts a decoded value to the Swift types a caller would, recursively.
    static func bridge(_ value: Any, depth: Int = 0) {
        guard depth < 20 else { return }
        _ = String(describing: value)
        _ = (value as? URL)?.absoluteString
        _ = (value as? UUID)?.uuidString
        _ = (value as? Date)?.timeIntervalSinceReferenceDate
        if let array = value as? [Any] { array.forEach { bridge($0, depth: depth + 1) } }
        if let dictionary = value as? [AnyHashable: Any] {
            for (key, element) in dictionary {
                bridge(key.base, depth: depth + 1)
                bridge(element, depth: depth + 1)
            }
        }
    }
}

/// A linked list of objects, to build object graphs of any depth.
final class ChainLink: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let next: ChainLink?

    init(next: ChainLink?) {
        self.next = next
    }

    init?(coder: NSCoder) {
        next = coder.containsValue(forKey: "next") ? coder.decodeObject(of: ChainLink.self, forKey: "next") : nil
    }

    func encode(with coder: NSCoder) {
        if let next { coder.encode(next, forKey: "next") }
    }

    var length: Int { 1 + (next?.length ?? 0) }
}

final class ChainTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [ChainLink.self] }
}

/// A note whose optional subtitle is never written; its decoder asks for it with or without checking first.
final class OptionalNote: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let checksKeys: Bool
    let subtitle: String?

    init(checksKeys: Bool) {
        self.checksKeys = checksKeys
        self.subtitle = nil
    }

    init?(coder: NSCoder) {
        checksKeys = coder.decodeBool(forKey: "checksKeys")
        if checksKeys && !coder.containsValue(forKey: "subtitle") {
            subtitle = nil
        } else {
            subtitle = coder.decodeObject(of: NSString.self, forKey: "subtitle").map { $0 as String }
        }
    }

    func encode(with coder: NSCoder) {
        coder.encode(checksKeys, forKey: "checksKeys")
    }
}

final class OptionalNoteTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [OptionalNote.self] }
}

/// An object that refers to another, possibly in a cycle.
final class PairNode: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var partner: PairNode?

    override init() {
        super.init()
    }

    init?(coder: NSCoder) {
        partner = coder.containsValue(forKey: "partner") ? coder.decodeObject(of: PairNode.self, forKey: "partner") : nil
    }

    func encode(with coder: NSCoder) {
        if let partner { coder.encode(partner, forKey: "partner") }
    }
}

final class PairTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [PairNode.self] }
}

/// A small deterministic random number generator (SplitMix64), so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
