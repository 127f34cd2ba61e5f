import Foundation
import NIOHTTP1
import Testing
@testable import MoodyServerCore

@Suite("Bad requests get a 4xx JSON error and the server keeps serving", .timeLimit(.minutes(2)))
struct BadRequestTests {
    static let badBodies: [String] = [
        "",                                                      // empty
        "{",                                                     // malformed
        "not json",
        #"{"rating": 3,}"#,
        #"{"rating": 3, "colors": [],}"#,
        #"{'rating': 3}"#,
        #"{"rating": 03}"#,
        "[1, 2, 3]",                                             // not an object
        "null",
        #""rating""#,
        #"{"rating": 3, "mood": "happy"}"#,                      // unknown field
        #"{"rating": 3, "Rating": 3}"#,
        #"{"country": 250}"#,                                    // rating missing
        #"{"rating": "3"}"#,                                     // wrong types
        #"{"rating": true}"#,
        #"{"rating": 1}garbage"#,
        #"{"rating": 3.5}"#,
        #"{"rating": null}"#,
        #"{"rating": 6}"#,                                       // out of range
        #"{"rating": -1}"#,
        #"{"rating": 1e300}"#,
        #"{"rating": 99999999999999999999999999}"#,
        ##"{"rating": 3, "colors": "#ffffff"}"##,
        ##"{"rating": 3, "colors": ["#fffff"]}"##,
        ##"{"rating": 3, "colors": ["#gggggg"]}"##,
        ##"{"rating": 3, "colors": ["#ffffff", 7]}"##,
        #"{"rating": 3, "colors": ["%@%@%@"]}"#,
        #"{"rating": 3, "latitude": 91}"#,
        #"{"rating": 3, "longitude": "east"}"#,
        #"{"rating": 3, "country": "250"}"#,
        #"{"rating": 3, "country": 0}"#,
        #"{"rating": 3, "country": 40000}"#,
        #"{"rating": 3, "country": 123}"#,                       // continent unknown, none given
        #"{"rating": 3, "continent": 10005}"#,                   // continent without a country
        #"{"rating": 3, "country": 123, "continent": 42}"#,
        #"{"rating": 3, "date": "yesterday"}"#,
        #"{"rating": 3, "date": "2026-05-01"}"#,                 // no time
        #"{"rating": 3, "date": 1714550400}"#,
        #"{"rating": 3, "date": "2026-05-01T12:00:00Z' OR 1=1"}"#,
        #"{"rating": 3, "\u0000": 1}"#,
        #"{"rating": 3, "pays": "🇫🇷"}"#,
        String(repeating: "[", count: 5000),                     // deep nesting
    ]

    @Test("POST /moods refuses malformed JSON, unknown fields, wrong types and values out of range")
    func badBodies() async throws {
        try await TestServer.run { server in
            for body in Self.badBodies {
                let reply = try await server.post("/moods", body)
                #expect(reply.status == 400, "\(body.prefix(60)): \(reply.status) \(reply.text)")
                #expect(reply.errorMessage?.isEmpty == false, "\(body.prefix(60)): \(reply.text)")
                #expect(reply.contentType?.hasPrefix("application/json") == true)
            }
            #expect(try await server.get("/moods").json()["total"] as? Int == 0, "nothing was inserted")
            try await server.createMood(#"{"rating": 3}"#)
            #expect(try await server.get("/moods").json()["total"] as? Int == 1, "the server still serves")
        }
    }

    static let badQueries: [String] = [
        "country='%20OR%201=1", "country=%27%20OR%201%3D1", "minRating=1;%20DROP%20TABLE%20ZMOOD", "minRating=1%3B%20DROP",
        "minRating=99999999999999999999999999", "maxRating=9223372036854775808", "minRating=-1", "maxRating=6", "minRating=",
        "minRating=1.5", "minRating=0x1", "minRating=%2B1", "minRating=%E2%91%A0", "minRating=%D9%A3", "country=%25@", "country=$X",
        "country=ANY", "country=250%20OR%20TRUEPREDICATE", "since=yesterday", "since=%25@", "until=2026-13-01T00:00:00Z",
        "since=2026-05-01", "since=2026-05-01T00:00:00Z%27%20OR%201=1", "until=2026-05-01T00:00:00Zjunk", "limit=0", "limit=501", "limit=-5", "limit=ten", "offset=-1", "offset=99999999999",
        "sort=name", "sort=rating;DROP", "sort=", "sort=-date,rating", "rating=3", "minrating=3", "%24MIN_RATING=1", "x=1",
        "minRating=1&minRating=2", "SUBQUERY(x)=1", "limit=%F0%9F%98%80", "country=%00",
    ]

    @Test("GET /moods refuses unknown parameters and values that are not what the parameter takes")
    func badQueries() async throws {
        try await TestServer.run { server in
            try await server.createMood(#"{"rating": 3, "country": 250}"#)
            for query in Self.badQueries {
                let reply = try await server.get("/moods?" + query)
                #expect(reply.status == 400, "\(query): \(reply.status) \(reply.text)")
                #expect(reply.errorMessage?.isEmpty == false, "\(query): \(reply.text)")
            }
            for path in ["/countries?country=1", "/continents?x", "/live?since=now"] {
                #expect(try await server.get(path).status == 400, "\(path)")
            }
            #expect(try await server.moods("/moods?minRating=3&country=250").count == 1, "the server still serves")
        }
    }

    @Test("unknown routes, bad ids and wrong methods get a JSON 4xx")
    func badRoutesAndIDs() async throws {
        try await TestServer.run { server in
            let mood = try await server.createMood(#"{"rating": 2, "country": 250}"#)
            let id = try #require(mood["id"] as? String)
            let storeUUID = try #require(URL(string: id)?.host)
            let otherEntity = "x-coredata://\(storeUUID)/Country/p1".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let missing = "x-coredata://\(storeUUID)/Mood/p999999".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let otherStore = "x-coredata://\(UUID().uuidString)/Mood/p1".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            func idPath(_ uri: String) -> String { "/moods/" + uri.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
            var paths = ["/moods/1", "/moods/abc", otherEntity, missing, otherStore].map { $0.hasPrefix("/") ? $0 : "/moods/" + $0 }
            paths += ["/moods/%25@", "/moods/%E2%9C%93", "/moods/x-coredata%3A%2F%2F%2FMood%2Ft1"]
            for suffix in ["Mood/p0", "Mood/p-1", "Mood/p99999999999999999999999", "Mood/pabc", "Mood/", "Mood/t1", "Mood/p1%00",
                           "GeographicRegion/p1", "NoSuchEntity/p1", "Mood", ""] {
                paths.append(idPath("x-coredata://\(storeUUID)/" + suffix))
            }
            for path in paths {
                let reply = try await server.send(.DELETE, path)
                #expect(reply.status == 404, "\(path): \(reply.status) \(reply.text)")
                #expect(reply.errorMessage != nil, "\(path): \(reply.text)")
            }
            let unknown = try await server.get("/nothing-here")
            #expect(unknown.status == 404)
            #expect(unknown.errorMessage != nil)
            let method = try await server.send(.PUT, "/moods", body: "{}")
            #expect((400..<500).contains(method.status))
            #expect(try await server.moods("/moods").count == 1, "the mood was not deleted")
        }
    }

    @Test("a body over 64 KiB gets 413 and the server keeps serving")
    func hugeBody() async throws {
        try await TestServer.run { server in
            let colors = Array(repeating: "\"#ffffff\"", count: 10_000).joined(separator: ",")
            let huge = try await server.post("/moods", #"{"rating": 1, "colors": [\#(colors)]}"#)
            #expect(huge.status == 413, "\(huge.status) \(huge.text)")
            #expect(huge.errorMessage != nil)
            let megabyte = try await server.send(.POST, "/moods", bytes: Data(repeating: 0x20, count: 1 << 20))
            #expect(megabyte.status == 413)
            #expect(try await server.get("/moods").status == 200)
            try await server.createMood(#"{"rating": 1}"#)
        }
    }

    @Test("the store option takes SQLite paths and file URLs, and says why it refuses other URLs")
    func storeLocation() throws {
        #expect(try StoreLocation(parsing: "/tmp/a.sqlite").fileURL.path == "/tmp/a.sqlite")
        #expect(try StoreLocation(parsing: "file:///tmp/b.sqlite").fileURL.path == "/tmp/b.sqlite")
        #expect(try StoreLocation(parsing: "relative/c.sqlite").fileURL.path.hasSuffix("/relative/c.sqlite"))
        #expect { try StoreLocation(parsing: "postgres://localhost/moody") } throws: { error in
            "\(error)".contains("SQLite only") && "\(error)".contains("postgres")
        }
        #expect(throws: ConfigurationError.self) { try StoreLocation(parsing: "") }
        let configuration = try ServerConfiguration.parse(arguments: ["--port", "9000"], environment: ["MOODY_STORE": "/tmp/m.sqlite", "PORT": "1"])
        #expect(configuration.port == 9000)
        #expect(configuration.store.fileURL.path == "/tmp/m.sqlite")
        #expect(configuration.host == "127.0.0.1")
        let defaults = try ServerConfiguration.parse(arguments: [], environment: [:])
        #expect(defaults.port == 8080 && defaults.store.fileURL.lastPathComponent == "moody-server.sqlite")
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.parse(arguments: ["--port", "http"], environment: [:]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.parse(arguments: ["--verbose"], environment: [:]) }
    }
}
