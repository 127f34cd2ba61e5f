import Foundation
import Hummingbird

/// JSON encoding of responses, and ISO 8601 dates.
enum JSON {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        // Every value the server encodes is a plain struct of strings and numbers: encoding cannot fail.
        let data = (try? encoder.encode(value)) ?? Data(#"{"error":"internal error"}"#.utf8)
        fields[.contentLength] = String(data.count)
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `2026-05-01T12:00:00.250Z` (milliseconds, UTC).
    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// An ISO 8601 date-time with a time zone (`Z` or `±hh:mm`), with or without fractional seconds; nil
    /// otherwise. The shape is checked first: Foundation's parser ignores what follows a date.
    static func parseDate(_ text: String) -> Date? {
        guard text.count <= 40, text.wholeMatch(of: dateShape) != nil else { return nil }
        if text.contains(".") {
            return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
        }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    nonisolated(unsafe) private static let dateShape = /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})/
}
