import Foundation
import NIOHTTP1
import Testing

@Suite("Moods API", .timeLimit(.minutes(2)))
struct MoodsAPITests {
    @Test("POST /moods creates a mood in a found-or-created country and continent; GET /moods lists it")
    func createAndList() async throws {
        try await TestServer.run { server in
            let mood = try await server.createMood(##"{"rating": 4, "colors": ["#3A7FC2", "00ff10"], "latitude": 48.86, "longitude": 2.35, "country": 250, "date": "2026-05-01T12:00:00.250Z"}"##)
            let id = try #require(mood["id"] as? String)
            #expect(id.hasPrefix("x-coredata://") && id.contains("/Mood/p"))
            #expect(mood["rating"] as? Int == 4)
            #expect(mood["colors"] as? [String] == ["#3a7fc2", "#00ff10"])
            #expect(mood["latitude"] as? Double == 48.86)
            #expect(mood["country"] as? Int == 250)
            #expect(mood["continent"] as? Int == 10005)
            #expect(mood["date"] as? String == "2026-05-01T12:00:00.250Z")

            // A second mood in France reuses the country (find-or-create), Japan creates another country and continent.
            try await server.createMood(#"{"rating": 2, "country": 250}"#)
            try await server.createMood(#"{"rating": 0, "country": 392}"#)
            let countries = try await server.get("/countries")
            let list = try #require(try countries.json()["countries"] as? [[String: Any]])
            #expect(list.map { $0["code"] as? Int } == [250, 392])

            let page = try await server.get("/moods")
            #expect(page.status == 200)
            #expect(page.contentType?.hasPrefix("application/json") == true)
            let json = try page.json()
            #expect(json["total"] as? Int == 3)
            let moods = try #require(json["moods"] as? [[String: Any]])
            #expect(moods.contains { $0["id"] as? String == id && $0["colors"] as? [String] == ["#3a7fc2", "#00ff10"] })
        }
    }

    @Test("GET /moods filters by rating, country and date, sorts and pages")
    func filterSortPaginate() async throws {
        try await TestServer.run { server in
            // Ratings 0…5 on May 1st…6th, alternately in France and Japan.
            for day in 1...6 {
                try await server.createMood(#"{"rating": \#(day - 1), "country": \#(day % 2 == 0 ? 250 : 392), "date": "2026-05-0\#(day)T08:00:00Z"}"#)
            }
            func ratings(_ path: String) async throws -> [Int] {
                try await server.moods(path).compactMap { $0["rating"] as? Int }
            }
            #expect(try await ratings("/moods?sort=rating") == [0, 1, 2, 3, 4, 5])
            #expect(try await ratings("/moods?sort=-rating") == [5, 4, 3, 2, 1, 0])
            #expect(try await ratings("/moods?sort=date") == [0, 1, 2, 3, 4, 5])
            #expect(try await ratings("/moods") == [5, 4, 3, 2, 1, 0], "the default order is newest first")
            #expect(try await ratings("/moods?minRating=2&maxRating=4&sort=rating") == [2, 3, 4])
            #expect(try await ratings("/moods?country=250&sort=rating") == [1, 3, 5])
            #expect(try await ratings("/moods?since=2026-05-03T00:00:00Z&until=2026-05-05T08:00:00Z&sort=date") == [2, 3, 4])
            #expect(try await ratings("/moods?since=2026-05-03T02:00:00%2B02:00&sort=date") == [2, 3, 4, 5], "an offset time zone, its + percent-encoded")
            #expect(try await ratings("/moods?sort=rating&limit=2") == [0, 1])
            #expect(try await ratings("/moods?sort=rating&limit=2&offset=2") == [2, 3])
            #expect(try await ratings("/moods?sort=rating&limit=2&offset=6") == [])
            let page = try await server.get("/moods?country=392&limit=1")
            #expect(try page.json()["total"] as? Int == 3)
            #expect(try await ratings("/moods?country=999") == [])
        }
    }

    @Test("GET /countries and GET /continents count moods and countries")
    func regionCounts() async throws {
        try await TestServer.run { server in
            for body in [#"{"rating": 1, "country": 250}"#, #"{"rating": 2, "country": 250}"#, #"{"rating": 3, "country": 276}"#,
                         #"{"rating": 4, "country": 392}"#, #"{"rating": 5, "country": 999, "continent": 10002}"#, #"{"rating": 3}"#] {
                try await server.createMood(body)
            }
            let countries = try #require(try await server.get("/countries").json()["countries"] as? [[String: Any]])
            #expect(countries.map { $0["code"] as? Int } == [250, 276, 392, 999])
            #expect(countries.map { $0["moods"] as? Int } == [2, 1, 1, 1])
            #expect(countries.map { $0["continent"] as? Int } == [10005, 10005, 10003, 10002])
            let continents = try #require(try await server.get("/continents").json()["continents"] as? [[String: Any]])
            #expect(continents.map { $0["code"] as? Int } == [10002, 10003, 10005])
            #expect(continents.map { $0["name"] as? String } == ["Antarctica", "Asia", "Europe"])
            #expect(continents.map { $0["countries"] as? Int } == [1, 1, 2])
            #expect(continents.map { $0["moods"] as? Int } == [1, 1, 3])
        }
    }

    @Test("DELETE /moods/{id} deletes (an emptied country and continent go too); POST /undo brings the mood back")
    func deleteAndUndo() async throws {
        try await TestServer.run { server in
            let kenya = try await server.createMood(##"{"rating": 3, "country": 404, "colors": ["#102030"], "latitude": -1.29, "longitude": 36.82, "date": "2026-04-01T10:00:00Z"}"##)
            let france = try await server.createMood(#"{"rating": 1, "country": 250}"#)
            let kenyaID = try #require(kenya["id"] as? String)
            let encoded = try #require(kenyaID.addingPercentEncoding(withAllowedCharacters: .alphanumerics))

            #expect(try await server.post("/undo", "").status == 409, "nothing deleted yet")
            #expect(try await server.send(.DELETE, "/moods/" + encoded).status == 204)
            #expect(try await server.moods("/moods").map { $0["id"] as? String } == [france["id"] as? String])
            let countries = try #require(try await server.get("/countries").json()["countries"] as? [[String: Any]])
            #expect(countries.map { $0["code"] as? Int } == [250], "Kenya had no mood left")
            let continents = try #require(try await server.get("/continents").json()["continents"] as? [[String: Any]])
            #expect(continents.map { $0["code"] as? Int } == [10005], "Africa had no country left")
            #expect(try await server.send(.DELETE, "/moods/" + encoded).status == 404, "already deleted")

            let undo = try await server.post("/undo", "")
            #expect(undo.status == 200)
            let restored = try undo.json()
            for key in ["rating", "country", "continent", "colors", "latitude", "longitude", "date"] {
                #expect("\(restored[key] ?? "nil")" == "\(kenya[key] ?? "nil")", "\(key)")
            }
            #expect(try await server.get("/moods").json()["total"] as? Int == 2)
            let again = try #require(try await server.get("/continents").json()["continents"] as? [[String: Any]])
            #expect(again.map { $0["code"] as? Int } == [10001, 10005])
            let second = try await server.post("/undo", "")
            #expect(second.status == 409)
            #expect(second.errorMessage != nil)
        }
    }

    @Test("what the server wrote is in the store when it is started again on the file")
    func persists() async throws {
        let storeURL = try TestServer.temporaryStore()
        try await TestServer.run(storeURL: storeURL) { server in
            try await server.createMood(#"{"rating": 5, "country": 76}"#)
        }
        try await TestServer.run(storeURL: storeURL) { server in
            let moods = try await server.moods("/moods")
            #expect(moods.map { $0["rating"] as? Int } == [5])
            #expect(moods.map { $0["continent"] as? Int } == [10007])
        }
    }
}
