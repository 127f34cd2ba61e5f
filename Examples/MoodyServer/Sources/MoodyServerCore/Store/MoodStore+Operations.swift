import OpenCoreData

/// What the routes do with the store. Every method crosses into a context with `perform` and returns plain values
/// (JSON structs); managed objects never leave the queue of the context that holds them.
extension MoodStore {
    /// Inserts a mood, its country and continent found or created (the book's find-or-create), and saves.
    func create(_ new: NewMood) async throws -> MoodJSON {
        try await write { context in
            let mood = Mood(context: context)
            if let date = new.date { mood.date = date }
            mood.rating = new.rating
            mood.colors = new.colors.isEmpty ? nil : new.colors
            mood.latitude = new.latitude
            mood.longitude = new.longitude
            try Self.place(mood, country: new.country, continent: new.continent, in: context)
            try context.obtainPermanentIDs(for: [mood])
            return MoodJSON(mood)
        }
    }

    /// Relates `mood` to the country with `country`'s code (found or created) and that country to its continent.
    static func place(_ mood: Mood, country code: Int16?, continent continentCode: Int16?, in context: NSManagedObjectContext) throws {
        guard let code else { return }
        let country = try Country.findOrCreate(code: code, in: context)
        if country.continent == nil, let continentCode {
            country.continent = try Continent.findOrCreate(code: continentCode, in: context)
        }
        country.updatedAt = Date()
        country.addToMoods(mood)
    }

    /// One page of moods matching `query`, and how many match in all.
    func list(_ query: MoodQuery) async throws -> MoodPage {
        try await read { context in
            let request = NSFetchRequest<Mood>(entityName: "Mood")
            request.predicate = query.predicate
            let total = try context.count(for: request)
            request.sortDescriptors = query.sort.descriptors
            request.fetchLimit = query.limit
            request.fetchOffset = query.offset
            request.relationshipKeyPathsForPrefetching = ["country", "country.continent"]
            let moods = try context.fetch(request).map(MoodJSON.init)
            return MoodPage(moods: moods, total: total, limit: query.limit, offset: query.offset)
        }
    }

    /// Deletes the mood `id` names (and, by the book's rules, its country and continent if they are left empty);
    /// records its values on `undoLog`. Nil if there is no such mood.
    func delete(_ id: NSManagedObjectID, undoLog: UndoLog) async throws -> Bool {
        let deleted: DeletedMood? = try await write({ context in
            guard let mood = try? context.existingObject(with: id) as? Mood else { return nil }
            let values = DeletedMood(mood)
            context.delete(mood)
            return values
        }, afterSave: { values in
            if let values { undoLog.push(values) }
        })
        return deleted != nil
    }

    /// Re-creates the last deleted mood from its recorded values (a new object with a new ID), or nil if nothing
    /// is left to undo.
    func undoDeletion(_ undoLog: UndoLog) async throws -> MoodJSON? {
        try await write({ context -> MoodJSON? in
            guard let values = undoLog.last else { return nil }
            let mood = Mood(context: context)
            mood.date = values.date
            mood.rating = values.rating
            mood.colors = values.colors
            mood.latitude = values.latitude
            mood.longitude = values.longitude
            try Self.place(mood, country: values.country, continent: values.continent, in: context)
            try context.obtainPermanentIDs(for: [mood])
            return MoodJSON(mood)
        }, afterSave: { restored in
            if restored != nil { undoLog.dropLast() }
        })
    }

    /// Every country with its mood count: one grouped count of moods by country code, no mood realized.
    func countries() async throws -> [CountryJSON] {
        try await read { context in
            let grouped = NSFetchRequest<NSDictionary>(entityName: "Mood")
            grouped.resultType = .dictionaryResultType
            let count = NSExpressionDescription()
            count.name = "moods"
            count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "rating")])
            count.expressionResultType = .integer64AttributeType
            grouped.propertiesToGroupBy = ["country.numericISO3166Code"]
            grouped.propertiesToFetch = ["country.numericISO3166Code", count]
            var moodsByCountry: [Int: Int] = [:]
            for row in try context.fetch(grouped) {
                guard let code = (row["country.numericISO3166Code"] as? NSNumber)?.intValue else { continue }
                moodsByCountry[code] = (row["moods"] as? NSNumber)?.intValue ?? 0
            }
            let request = NSFetchRequest<Country>(entityName: "Country")
            request.sortDescriptors = [NSSortDescriptor(key: "numericISO3166Code", ascending: true)]
            request.relationshipKeyPathsForPrefetching = ["continent"]
            return try context.fetch(request).map { country in
                let code = Int(country.numericISO3166Code)
                return CountryJSON(code: code, continent: country.continent.map { Int($0.numericISO3166Code) },
                                   moods: moodsByCountry[code] ?? 0, updatedAt: JSON.format(country.updatedAt))
            }
        }
    }

    static let countriesOfContinent = NSPredicate(format: "continent == $CONTINENT")
    static let moodsOfContinent = NSPredicate(format: "country.continent == $CONTINENT")

    /// Every continent with its country and mood counts: count fetches (SQL COUNTs), no mood realized.
    func continents() async throws -> [ContinentJSON] {
        try await read { context in
            let request = NSFetchRequest<Continent>(entityName: "Continent")
            request.sortDescriptors = [NSSortDescriptor(key: "numericISO3166Code", ascending: true)]
            return try context.fetch(request).map { continent in
                let countries = NSFetchRequest<Country>(entityName: "Country")
                countries.predicate = Self.countriesOfContinent.withSubstitutionVariables(["CONTINENT": continent])
                let moods = NSFetchRequest<Mood>(entityName: "Mood")
                moods.predicate = Self.moodsOfContinent.withSubstitutionVariables(["CONTINENT": continent])
                let code = continent.numericISO3166Code
                return ContinentJSON(code: Int(code), name: Geography.continents[code],
                                     countries: try context.count(for: countries), moods: try context.count(for: moods))
            }
        }
    }
}
