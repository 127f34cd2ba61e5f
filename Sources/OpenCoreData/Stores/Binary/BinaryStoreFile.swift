/// The file format of OpenCoreData's `NSBinaryStoreType` store — ours, not Apple's. (Apple's binary store file is an
/// `NSKeyedArchiver` archive of private Core Data classes whose layout is not public, so it cannot be reproduced
/// faithfully; see DEVIATIONS.md.) A file is:
///
/// - 8 bytes: the ASCII magic `OCDBINST`;
/// - 4 bytes: the format version, a big-endian `UInt32` (this is version 1);
/// - a binary property list (`bplist00`): a dictionary with
///   - `metadata`: the store metadata (`NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes`, your keys);
///   - `nextReference`: the next reference number to hand out;
///   - `objects`: an array with one dictionary per object: `entity` (name), `reference` (integer, unique in the
///     file), `version` (integer), `attributes` (name → value), `toOne` (name → reference), `toMany` (name → array
///     of references, in order for ordered relationships). Nil values and empty to-many relationships are absent.
///
/// Attribute values: integers and booleans as integers, Double and Float as reals, Decimal as its decimal string,
/// String as string, Date as a real (seconds since 2001-01-01), Binary Data and Transformable (the transformer's
/// data) as data, UUID as its string, URI as its absolute string.
///
/// For example:
/// ```swift
/// let file = try BinaryStoreFile(contentsOf: url)
/// print(file.metadata[NSStoreUUIDKey] ?? "", file.objects.count)
/// ```
struct BinaryStoreFile {
    static let magic = Data("OCDBINST".utf8)
    static let formatVersion: UInt32 = 1

    /// One object as the file keeps it.
    struct Record {
        var entity: String
        var reference: Int
        var version: Int64
        var attributes: [String: Any]
        var toOne: [String: Int]
        var toMany: [String: [Int]]
    }

    var metadata: [String: Any]
    var nextReference: Int
    var objects: [Record]

    init(metadata: [String: Any], nextReference: Int, objects: [Record]) {
        self.metadata = metadata
        self.nextReference = nextReference
        self.objects = objects
    }

    /// Reads and checks a store file; a file that is not one (or is damaged) throws `NSFileReadCorruptFileError`.
    init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try FileContents.read(url)
        } catch {
            throw CoreDataError.make(NSFileReadUnknownError, "Cannot read the binary store at \(url.path)", userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
        try self.init(data: data, path: url.path)
    }

    init(data: Data, path: String) throws {
        func corrupt(_ reason: String) -> NSError {
            CoreDataError.make(NSFileReadCorruptFileError, "The file at \(path) is not an OpenCoreData binary store or is damaged: \(reason)",
                               userInfo: [NSFilePathErrorKey: path])
        }
        let header = Self.magic.count + 4
        guard data.count >= header, data.prefix(Self.magic.count) == Self.magic else { throw corrupt("it does not start with the binary store's signature") }
        let versionBytes = Array(data[data.startIndex + Self.magic.count ..< data.startIndex + header])
        let version = versionBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard version == Self.formatVersion else { throw corrupt("format version \(version) is not supported (this library reads version \(Self.formatVersion))") }
        let root: Any
        do {
            // OpenCoreData's own readers: Foundation's leaks memory on malformed lists (found by AddressSanitizer).
            root = try PropertyListObject.foundationPropertyList(from: data.dropFirst(header))
        } catch {
            throw corrupt("its contents are not a valid property list")
        }
        guard let dictionary = root as? [String: Any], let metadata = dictionary["metadata"] as? [String: Any],
            let objects = dictionary["objects"] as? [Any]
        else { throw corrupt("the top-level dictionary lacks `metadata` or `objects`") }
        self.metadata = metadata
        self.nextReference = (dictionary["nextReference"] as? NSNumber)?.intValue ?? 1
        self.objects = try objects.map { element in
            guard let record = element as? [String: Any], let entity = record["entity"] as? String,
                let reference = (record["reference"] as? NSNumber)?.intValue
            else { throw corrupt("an object record lacks its entity or reference") }
            let toOne = try (record["toOne"] as? [String: Any] ?? [:]).mapValues { value -> Int in
                guard let number = value as? NSNumber else { throw corrupt("a to-one reference of \(entity) is not a number") }
                return number.intValue
            }
            let toMany = try (record["toMany"] as? [String: Any] ?? [:]).mapValues { value -> [Int] in
                guard let numbers = value as? [Any] else { throw corrupt("a to-many relationship of \(entity) is not an array") }
                return try numbers.map { element in
                    guard let number = element as? NSNumber else { throw corrupt("a to-many reference of \(entity) is not a number") }
                    return number.intValue
                }
            }
            return Record(entity: entity, reference: reference, version: (record["version"] as? NSNumber)?.int64Value ?? 1,
                          attributes: record["attributes"] as? [String: Any] ?? [:], toOne: toOne, toMany: toMany)
        }
    }

    /// The file's bytes.
    func encoded() throws -> Data {
        let records: [[String: Any]] = objects.map { record in
            var dictionary: [String: Any] = ["entity": record.entity, "reference": record.reference, "version": record.version]
            if !record.attributes.isEmpty { dictionary["attributes"] = record.attributes }
            if !record.toOne.isEmpty { dictionary["toOne"] = record.toOne }
            if !record.toMany.isEmpty { dictionary["toMany"] = record.toMany }
            return dictionary
        }
        let root: [String: Any] = ["metadata": metadata, "nextReference": nextReference, "objects": records]
        let body: Data
        do {
            body = try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
        } catch {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The binary store's contents cannot be written as a property list (metadata values must be property-list types)",
                                     userInfo: [NSUnderlyingErrorKey: error])
        }
        var data = Self.magic
        withUnsafeBytes(of: Self.formatVersion.bigEndian) { data.append(contentsOf: $0) }
        data.append(body)
        return data
    }

    /// Writes the file atomically: to a temporary file in the same directory, flushed to disk, then renamed over
    /// the store (so a crash leaves either the old store or the new one, never a partial file).
    func write(to url: URL) throws {
        let data = try encoded()
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: temporary.path, contents: data) else {
                throw CoreDataError.make(NSFileWriteUnknownError, "Cannot create \(temporary.path)", userInfo: [NSFilePathErrorKey: temporary.path])
            }
            let handle = try FileHandle(forUpdating: temporary)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary.path, url.path) == 0 else {
                throw CoreDataError.make(NSFileWriteUnknownError, "Cannot move the new binary store into place at \(url.path) (errno \(errno))",
                                         userInfo: [NSFilePathErrorKey: url.path])
            }
        } catch let error as NSError {
            try? FileManager.default.removeItem(at: temporary)
            throw CoreDataError.make(NSPersistentStoreSaveError, "Cannot write the binary store at \(url.path): \(error.localizedDescription)",
                                     userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
    }

    // MARK: Values

    /// The property-list form of an attribute's stored value (nil for null).
    static func propertyListValue(_ value: StoredValue) -> Any? {
        switch value {
        case .null: return nil
        case .integer(let value): return NSNumber(value: value)
        case .real(let value): return NSNumber(value: value)
        case .decimal(let value): return NSDecimalNumber(decimal: value).description(withLocale: nil)
        case .text(let value): return value
        case .date(let value): return NSNumber(value: value.timeIntervalSinceReferenceDate)
        case .data(let value): return value
        case .uuid(let value): return value.uuidString
        case .url(let value): return value.absoluteString
        }
    }

    /// The stored value of a property-list value for `attribute`; nil when the value is not of the attribute's kind.
    static func storedValue(_ value: Any, for attribute: NSAttributeDescription) -> StoredValue? {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            return (value as? NSNumber).map { .integer($0.int64Value) }
        case .doubleAttributeType, .floatAttributeType:
            return (value as? NSNumber).map { .real($0.doubleValue) }
        case .decimalAttributeType:
            if let text = value as? String { return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(StoredValue.decimal) }
            return (value as? NSNumber).map { .real($0.doubleValue) }
        case .stringAttributeType:
            return (value as? String).map(StoredValue.text)
        case .dateAttributeType:
            return (value as? NSNumber).map { .date(Date(timeIntervalSinceReferenceDate: $0.doubleValue)) }
        case .binaryDataAttributeType, .transformableAttributeType:
            return (value as? Data).map(StoredValue.data)
        case .UUIDAttributeType:
            return (value as? String).flatMap(UUID.init(uuidString:)).map(StoredValue.uuid)
        case .URIAttributeType:
            return (value as? String).flatMap { URL(string: $0) }.map(StoredValue.url)
        case .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType:
            return nil
        }
    }
}
