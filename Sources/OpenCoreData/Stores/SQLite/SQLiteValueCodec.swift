/// Converts attribute values between their stored form and the SQLite values of Apple's layout
/// (store-format.md §4): dates as seconds since 2001 (REAL, or INTEGER for whole seconds), UUIDs as 16-byte
/// blobs, URIs as text, decimals as REAL (INTEGER/TEXT accepted when reading), booleans as 0/1.
enum SQLiteValueCodec {
    /// The SQLite value to write for an attribute (external binary data is handled by the store).
    static func sqliteValue(_ value: StoredValue, for type: NSAttributeType) -> SQLiteValue {
        switch value {
        case .null: return .null
        case .integer(let integer):
            switch type {
            case .doubleAttributeType, .floatAttributeType, .decimalAttributeType, .dateAttributeType: return .real(Double(integer))
            default: return .integer(integer)
            }
        case .real(let real):
            switch type {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
                return .integer(Int64(exactly: real.rounded(.towardZero)) ?? 0)
            default: return .real(real)
            }
        case .decimal(let decimal): return .real(DecimalConversion.double(decimal))
        case .text(let text): return .text(text)
        case .date(let date): return .real(date.timeIntervalSinceReferenceDate)
        case .data(let data): return .blob(data)
        case .uuid(let uuid): return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
        case .url(let url): return .text(url.absoluteString)
        }
    }

    /// The stored value for what a column holds (tolerant of the storage classes real stores use).
    static func storedValue(_ value: SQLiteValue, for type: NSAttributeType) -> StoredValue {
        switch (type, value) {
        case (_, .null): return .null
        case (.integer16AttributeType, _), (.integer32AttributeType, _), (.integer64AttributeType, _), (.booleanAttributeType, _):
            switch value {
            case .integer(let integer): return .integer(type == .booleanAttributeType ? (integer == 0 ? 0 : 1) : integer)
            case .real(let real): return .integer(Int64(exactly: real.rounded(.towardZero)) ?? 0)
            case .text(let text): return .integer(LenientNumberParsing.integerPrefix(text))
            default: return .null
            }
        case (.doubleAttributeType, _), (.floatAttributeType, _):
            switch value {
            case .integer(let integer): return .real(Double(integer))
            case .real(let real): return .real(real)
            case .text(let text): return .real(LenientNumberParsing.doublePrefix(text))
            default: return .null
            }
        case (.decimalAttributeType, _):
            switch value {
            case .integer(let integer): return .decimal(Decimal(integer))
            case .real(let real): return .decimal(DecimalConversion.decimal(real))
            case .text(let text): return .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0)
            default: return .null
            }
        case (.dateAttributeType, _):
            switch value {
            case .integer(let integer): return .date(Date(timeIntervalSinceReferenceDate: Double(integer)))
            case .real(let real): return .date(Date(timeIntervalSinceReferenceDate: real))
            default: return .null
            }
        case (.stringAttributeType, .text(let text)): return .text(text)
        case (.stringAttributeType, .blob(let data)): return .text(String(decoding: data, as: UTF8.self))
        case (.stringAttributeType, .integer(let integer)): return .text(String(integer))
        case (.stringAttributeType, .real(let real)): return .text(String(real))
        case (.URIAttributeType, .text(let text)): return URL(string: text).map { .url($0) } ?? .null
        case (.UUIDAttributeType, .blob(let data)) where data.count == 16:
            let bytes = Array(data)
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case (.UUIDAttributeType, .text(let text)): return UUID(uuidString: text).map { .uuid($0) } ?? .null
        case (_, .blob(let data)): return .data(data)
        case (_, .text(let text)): return .data(Data(text.utf8))
        default: return .null
        }
    }
}
