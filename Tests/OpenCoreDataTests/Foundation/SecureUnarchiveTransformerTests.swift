import Testing
@testable import OpenCoreData
@testable import OpenCoreDataFoundation

/// The app class of the CoreDataPlus test store, archived there as `"CoreDataPlus_Tests.Cover"`. Its name
/// here is `OpenCoreDataTests.Cover`; the unqualified names match.
final class Cover: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let text: String

    init(text: String) {
        self.text = text
    }

    init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: NSString.self, forKey: "text") else { return nil }
        self.text = text as String
    }

    func encode(with coder: NSCoder) {
        coder.encode(text as NSString, forKey: "text")
    }
}

/// The CoreDataPlus page content, archived on Apple platforms as `"Content"`; mapped to this class by name.
final class ArchivedPageContent: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let text: String

    init?(coder: NSCoder) {
        guard let text = coder.decodeObject(of: NSString.self, forKey: "text") else { return nil }
        self.text = text as String
    }

    func encode(with coder: NSCoder) {
        coder.encode(text as NSString, forKey: "text")
    }
}

/// The Wire messenger's search cache object, stored in its store metadata.
final class ZMSearchTopConversations: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let date: Date?
    let conversations: [Any]
    let requestedConversationsCount: Int

    init?(coder: NSCoder) {
        date = coder.decodeObject(of: NSDate.self, forKey: "date").map { $0 as Date }
        conversations = coder.decodeObject(of: [NSArray.self], forKey: "conversations") as? [Any] ?? []
        requestedConversationsCount = coder.decodeInteger(forKey: "requestedConversationsCount")
    }

    func encode(with coder: NSCoder) {}
}

final class CoverTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [Cover.self] }
}

final class StringsOnlyTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSString.self] }
}

/// Overrides only `transformedValueClass()`, which then is the one allowed class.
final class DateTransformer: NSSecureUnarchiveFromDataTransformer {
    override class func transformedValueClass() -> AnyClass { NSDate.self }
}

@Suite struct SecureUnarchiveTransformerTests {
    let secure = NSSecureUnarchiveFromDataTransformer()

    @Test func defaultAllowedClassesAreApplesList() {
        let names = NSSecureUnarchiveFromDataTransformer.allowedTopLevelClasses.map { String(describing: $0) }
        #expect(names == ["NSArray", "NSDictionary", "NSSet", "NSString", "NSNumber", "NSDate", "NSData", "NSURL", "NSUUID", "NSNull"])
        #expect(NSSecureUnarchiveFromDataTransformer.allowsReverseTransformation())
        #expect(DateTransformer.allowedTopLevelClasses.map { String(describing: $0) } == ["NSDate"])
        #expect(CoverTransformer.allowedTopLevelClasses.map { String(describing: $0) } == ["Cover"])
    }

    @Test func handBuiltArchivesOfEachFoundationClassDecode() throws {
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltUUID) as? UUID == UUID(uuidString: "E6E69196-8A95-4EB7-91B9-C22B5EA4612F"))
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltURL) as? URL == URL(string: "https://www.objc.io/books/core-data/"))
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltDate) as? Date == Date(timeIntervalSinceReferenceDate: 481107494.745437))
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltInteger) as? Int == 42)
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltDouble) as? Double == 3.25)
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltBool) as? Bool == true)
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltString) as? String == "héllo wörld")
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltMutableString) as? String == "mutable")
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltMutableString) is NSMutableString)
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltData) as? Data == Data([1, 2, 3]))
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltMutableData) as? Data == Data([4, 5]))
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltMutableArray) as? [String] == ["x"])
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltSet) as? Set<String> == ["p", "q"])
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltMutableDictionary) as? [String: Bool] == ["k": true])
        #expect(secure.transformedValue(ArchiveFixtures.handBuiltNull) is NSNull)

        let array = try #require(secure.transformedValue(ArchiveFixtures.handBuiltArray) as? [Any])
        #expect(array.count == 4)
        #expect(array[0] as? String == "a")
        #expect(array[1] as? Int == 7)
        #expect(array[2] as? Double == 2.5)
        #expect(array[3] as? Bool == false)

        let dictionary = try #require(secure.transformedValue(ArchiveFixtures.handBuiltDictionary) as? [String: Any])
        #expect(dictionary["k1"] as? Int == 1)
        #expect(dictionary["k2"] is NSNull)

        let nested = try #require(secure.transformedValue(ArchiveFixtures.handBuiltNested) as? [String: Any])
        #expect(nested["when"] as? [Date] == [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSince1970: 0)])
        #expect(nested["link"] as? URL == URL(string: "file:///var/mobile/photo.jpg"))
        #expect(nested["id"] as? UUID == UUID(uuidString: "00010203-0405-0607-0809-0A0B0C0D0E0F"))
        #expect(nested["tags"] as? Set<String> == ["a"])
    }

    @Test func appleWrittenArchivesDecode() throws {
        let metadata = try #require(secure.transformedValue(ArchiveFixtures.appleCloudKitMetadataDictionary) as? [String: Data])
        #expect(Array(metadata.keys) == ["CDProfile"])
        #expect(metadata["CDProfile"]?.count == 32)
        #expect(metadata["CDProfile"]?.prefix(4) == Data([0x4C, 0x35, 0xA1, 0x3D]))

        // An app's Swift class, archived under its Apple module name, decodes into a class of the same name here.
        let cover = try #require(CoverTransformer().transformedValue(ArchiveFixtures.appleBookCover) as? Cover)
        #expect(cover.text == "default cover")

        // An `@objc(Content)` class: map the name to a Linux class once, as with Apple's NSKeyedUnarchiver.
        NSKeyedUnarchiver.setClass(ArchivedPageContent.self, forClassName: "Content")
        let content = ArchivedContentTransformer().transformedValue(ArchiveFixtures.applePageContent) as? ArchivedPageContent
        #expect(content?.text == "content for page 50")

        // Wire's store metadata holds an NSDate and an NSMutableArray inside an app class, under the key "top".
        let top = KeyedArchiving.unarchivedRootObject(from: ArchiveFixtures.appleWireSearchTopConversations, rootKey: "top",
                                                      allowedClasses: [ZMSearchTopConversations.self], requiresSecureCoding: true)
        let conversations = try #require(top as? ZMSearchTopConversations)
        #expect(conversations.date == Date(timeIntervalSinceReferenceDate: 481107494.745437))
        #expect(conversations.conversations.isEmpty)
        #expect(conversations.requestedConversationsCount == 24)
        #expect(secure.transformedValue(ArchiveFixtures.appleWireSearchTopConversations) == nil)  // no "root" object
    }

    @Test func classesOutsideTheAllowedListAreRefused() {
        // App and private classes are not among the default classes.
        #expect(secure.transformedValue(ArchiveFixtures.appleBookCover) == nil)
        #expect(secure.transformedValue(ArchiveFixtures.appleHistoryToken) == nil)
        // The top-level object must be allowed …
        #expect(CoverTransformer().transformedValue(ArchiveFixtures.handBuiltMutableArray) == nil)
        #expect(DateTransformer().transformedValue(ArchiveFixtures.handBuiltURL) == nil)
        #expect(DateTransformer().transformedValue(ArchiveFixtures.handBuiltDate) as? Date != nil)
        // … and so must what a top-level collection holds.
        #expect(StringsOnlyTransformer().transformedValue(ArchiveFixtures.handBuiltMutableArray) as? [String] == ["x"])
        #expect(StringsOnlyTransformer().transformedValue(ArchiveFixtures.handBuiltArray) == nil)  // holds numbers
        #expect(StringsOnlyTransformer().transformedValue(ArchiveFixtures.handBuiltSet) == nil)  // an NSSet
    }

    @Test func swiftValuesRoundTrip() throws {
        func roundTrip(_ value: Any) throws -> Any? {
            let data = try #require(secure.reverseTransformedValue(value) as? Data)
            #expect(data.starts(with: Array("bplist00".utf8)))
            return secure.transformedValue(data)
        }
        #expect(try roundTrip(["a", "b"]) as? [String] == ["a", "b"])
        #expect(try roundTrip(["one": 1, "two": 2]) as? [String: Int] == ["one": 1, "two": 2])
        #expect(try roundTrip(Date(timeIntervalSinceReferenceDate: 12.5)) as? Date == Date(timeIntervalSinceReferenceDate: 12.5))
        #expect(try roundTrip(URL(string: "https://example.com/a?b=c")!) as? URL == URL(string: "https://example.com/a?b=c"))
        let uuid = UUID()
        #expect(try roundTrip(uuid) as? UUID == uuid)
        #expect(try roundTrip(Data([0, 255])) as? Data == Data([0, 255]))
        #expect(try roundTrip(Set(["s"])) as? Set<String> == ["s"])
        #expect(try roundTrip("text") as? String == "text")
        #expect(try roundTrip(-7) as? Int == -7)
        #expect(try roundTrip(true) as? Bool == true)
        #expect(try roundTrip(UInt64.max) as? UInt64 == UInt64.max)  // a 16-byte integer in the property list
        #expect(try roundTrip(Int64.min) as? Int64 == Int64.min)
        #expect(try roundTrip(["ümlaut", "日本"]) as? [String] == ["ümlaut", "日本"])  // UTF-16 strings
        #expect(try roundTrip(NSNull()) is NSNull)
        let nested = try #require(try roundTrip(["dates": [Date(timeIntervalSince1970: 0)], "flag": false] as [String: Any]) as? [String: Any])
        #expect(nested["dates"] as? [Date] == [Date(timeIntervalSince1970: 0)])
        #expect(nested["flag"] as? Bool == false)

        let cover = try #require(CoverTransformer().reverseTransformedValue(Cover(text: "front")) as? Data)
        #expect((CoverTransformer().transformedValue(cover) as? Cover)?.text == "front")
    }

    @Test func reverseRefusesValuesItCannotArchiveSecurely() {
        #expect(secure.reverseTransformedValue(nil) == nil)
        #expect(secure.reverseTransformedValue(Cover(text: "not allowed by default")) == nil)
        #expect(secure.reverseTransformedValue(MoodyColor(red: 1, green: 2, blue: 3)) == nil)  // not NSCoding
        #expect(secure.reverseTransformedValue([MoodyColor(red: 1, green: 2, blue: 3)]) == nil)  // inside an array
        #expect(InsecureNoteTransformer().reverseTransformedValue(InsecureNote(text: "n")) == nil)  // not NSSecureCoding
        #expect(DateTransformer().reverseTransformedValue("a string") == nil)
        // Linux Foundation cannot name a nested class in an archive (NSStringFromClass stops the process).
        #expect(NestedClassTransformer().reverseTransformedValue(ArchiveOwner.Nested()) == nil)
        #expect(secure.transformedValue(Data()) == nil)
        #expect(secure.transformedValue(nil) == nil)
        #expect(secure.transformedValue(42) == nil)
    }
}

final class ArchivedContentTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [ArchivedPageContent.self] }
}

final class InsecureNoteTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [InsecureNote.self] }
}

enum ArchiveOwner {
    final class Nested: NSObject, NSSecureCoding {
        static var supportsSecureCoding: Bool { true }
        override init() {
            super.init()
        }
        init?(coder: NSCoder) {}
        func encode(with coder: NSCoder) {}
    }
}

final class NestedClassTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [ArchiveOwner.Nested.self] }
}
