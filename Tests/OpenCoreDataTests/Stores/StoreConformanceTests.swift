import OpenCoreData
import Testing

/// One suite, the same test bodies, run against every store (`StoreKind.allCases`): what Apple's Core Data
/// documents for any persistent store — values, relationships, saves, conflicts, constraints, fetch semantics,
/// object IDs and faults — through the public API only. Where Apple's own stores differ (`!=` and nil, decimal
/// precision) the difference is a property of the `StoreKind`, asserted for each.
@Suite struct StoreConformanceTests {
    // MARK: Values

    @Test(arguments: StoreKind.allCases)
    func everyAttributeTypeRoundTrips(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        let big = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })  // > 128 KiB: external storage
        let date = Date(timeIntervalSinceReferenceDate: 712_345_678.123_456_7)
        let uuid = UUID()
        let url = URL(string: "https://example.com/a%20b/c?q=1&r=%C3%A9#frag")!
        let exactDecimal = Decimal(string: "12345.6789")!
        let longDecimal = Decimal(string: "3.1415926535897932384626433832795")!
        let context = stack.newContext()
        try context.performAndWait {
            context.insertObject("Sample", [
                "string": "full", "int16": Int16.max, "int32": Int32.min, "int64": Int64.max, "decimal": exactDecimal,
                "double": 0.1 + 0.2, "float": Float(1.1), "bool": true, "date": date, "data": Data([0, 1, 2, 255, 0]),
                "bigData": big, "uuid": uuid, "uri": url, "color": ConformanceColor(red: 1, green: 128, blue: 255),
            ])
            context.insertObject("Sample", [
                "string": "extremes", "int16": Int16.min, "int32": Int32.max, "int64": Int64.min, "decimal": longDecimal,
                "double": -Double.greatestFiniteMagnitude, "float": -Float.leastNonzeroMagnitude, "bool": false,
                "date": Date(timeIntervalSinceReferenceDate: -3_000_000_000.5), "data": Data(), "bigData": Data([1, 2, 3]),
            ])
            context.insertObject("Sample", ["string": ""])
            context.insertObject("Sample", ["int16": 7])  // every other attribute nil
            try context.save()
        }

        let reader = try stack.reopened().newContext()
        try reader.performAndWait {
            let full = try reader.only("Sample", "string", "full")
            #expect(full.value(forKey: "int16") as? Int16 == .max)
            #expect(full.value(forKey: "int32") as? Int32 == .min)
            #expect(full.value(forKey: "int64") as? Int64 == .max)
            // Every store keeps at least a double's precision, and the double nearest 12345.6789 prints back as
            // 12345.6789, so even a store that keeps decimals as REAL returns it exactly.
            #expect((full.value(forKey: "decimal") as? NSDecimalNumber)?.decimalValue == exactDecimal)
            #expect(full.value(forKey: "double") as? Double == 0.1 + 0.2)
            #expect(full.value(forKey: "float") as? Float == Float(1.1))
            #expect(full.value(forKey: "bool") as? Bool == true)
            // Dates are seconds since 2001 in a Double: every bit of it survives.
            #expect((full.value(forKey: "date") as? Date)?.timeIntervalSinceReferenceDate == 712_345_678.123_456_7)
            #expect(full.value(forKey: "data") as? Data == Data([0, 1, 2, 255, 0]))
            #expect((full.value(forKey: "bigData") as? Data) == big, "binary data above 128 KiB with external storage allowed")
            #expect(full.value(forKey: "uuid") as? UUID == uuid)
            #expect(full.value(forKey: "uri") as? URL == url)
            #expect(full.value(forKey: "color") as? ConformanceColor == ConformanceColor(red: 1, green: 128, blue: 255))

            let extremes = try reader.only("Sample", "string", "extremes")
            #expect(extremes.value(forKey: "int16") as? Int16 == .min)
            #expect(extremes.value(forKey: "int32") as? Int32 == .max)
            #expect(extremes.value(forKey: "int64") as? Int64 == .min)
            #expect(extremes.value(forKey: "double") as? Double == -.greatestFiniteMagnitude)
            #expect(extremes.value(forKey: "float") as? Float == -.leastNonzeroMagnitude)
            #expect(extremes.value(forKey: "bool") as? Bool == false)
            #expect((extremes.value(forKey: "date") as? Date)?.timeIntervalSinceReferenceDate == -3_000_000_000.5)
            #expect(extremes.value(forKey: "data") as? Data == Data(), "empty data stays empty data, not nil")
            #expect(extremes.value(forKey: "bigData") as? Data == Data([1, 2, 3]))
            let decimal = try #require((extremes.value(forKey: "decimal") as? NSDecimalNumber)?.decimalValue)
            if kind.keepsDecimalsExactly {
                #expect(decimal == longDecimal)
            } else {
                // Kept as a REAL: the double nearest the decimal (about 16 significant digits), nothing worse.
                #expect(NSDecimalNumber(decimal: decimal).doubleValue == NSDecimalNumber(decimal: longDecimal).doubleValue)
                var difference = decimal - longDecimal
                var magnitude = Decimal()
                NSDecimalRound(&magnitude, &difference, 20, .plain)
                #expect(abs(NSDecimalNumber(decimal: magnitude).doubleValue) < 1e-14)
            }

            let emptyString = try reader.only("Sample", "string", "")
            #expect(emptyString.value(forKey: "string") as? String == "", "an empty string stays empty, not nil")

            let nils = try reader.only("Sample", "int16", 7)
            for key in ["int32", "int64", "decimal", "double", "float", "string", "bool", "date", "data", "bigData", "uuid", "uri", "color", "owner"] {
                #expect(nils.value(forKey: key) == nil, "\(key) should stay nil")
            }
        }
    }

    // MARK: Relationships

    @Test(arguments: StoreKind.allCases)
    func relationshipsRoundTrip(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let alice = context.insertObject("Person", ["name": "Alice", "email": "alice@example.com"])
            let bob = context.insertObject("Person", ["name": "Bob", "email": "bob@example.com"])
            let rex = context.insertObject("Dog", ["name": "Rex", "legs": 4, "breed": "Collie"])
            let tom = context.insertObject("Cat", ["name": "Tom", "legs": 4, "indoor": true])
            rex.setValue(alice, forKey: "owner")  // set from the to-one side
            alice.mutableSetValue(forKey: "pets").add(tom)  // and from the to-many side
            let tasks = ["write", "review", "ship", "celebrate"].map { context.insertObject("Task", ["title": $0]) }
            let ordered = alice.mutableOrderedSetValue(forKey: "tasks")
            for index in [2, 0, 3, 1] { ordered.add(tasks[index]) }
            let chess = context.insertObject("Group", ["title": "Chess"])
            let hiking = context.insertObject("Group", ["title": "Hiking"])
            alice.mutableSetValue(forKey: "groups").addObjects(from: [chess, hiking])
            hiking.mutableSetValue(forKey: "members").add(bob)
            context.insertObject("Sample", ["string": "owned", "owner": bob])
            try context.save()
        }

        var reader = try stack.reopened().newContext()
        try reader.performAndWait {
            let alice = try reader.only("Person", "name", "Alice")
            let bob = try reader.only("Person", "name", "Bob")
            #expect(alice.memberStrings("pets") == ["Rex", "Tom"])
            #expect(try reader.only("Animal", "name", "Rex").entity.name == "Dog", "a sub-entity comes back as itself")
            #expect(try reader.only("Animal", "name", "Tom").entity.name == "Cat")
            #expect((try reader.only("Dog", "name", "Rex").value(forKey: "owner") as? NSManagedObject)?.string("name") == "Alice")
            #expect(alice.memberStrings("tasks", "title") == ["ship", "write", "celebrate", "review"], "ordered to-many keeps its order")
            for task in try reader.objects("Task") {
                #expect((task.value(forKey: "person") as? NSManagedObject)?.objectID == alice.objectID)
            }
            #expect(alice.memberStrings("groups", "title") == ["Chess", "Hiking"])
            #expect(bob.memberStrings("groups", "title") == ["Hiking"])
            #expect(try reader.only("Group", "title", "Hiking").memberStrings("members") == ["Alice", "Bob"])
            #expect(try reader.only("Group", "title", "Chess").memberStrings("members") == ["Alice"])
            #expect(bob.memberStrings("samples", "string") == ["owned"])
            #expect((try reader.only("Sample", "string", "owned").value(forKey: "owner") as? NSManagedObject)?.objectID == bob.objectID)

            // Change every kind of relationship.
            let tasks = alice.mutableOrderedSetValue(forKey: "tasks")
            let review = try reader.only("Task", "title", "review")
            tasks.remove(review)
            tasks.insert(review, at: 0)  // move
            tasks.remove(try reader.only("Task", "title", "write"))  // remove (the task stays, without a person)
            tasks.insert(reader.insertObject("Task", ["title": "plan"]), at: 2)  // insert in the middle
            try reader.only("Dog", "name", "Rex").setValue(bob, forKey: "owner")  // move to another person
            alice.mutableSetValue(forKey: "groups").remove(try reader.only("Group", "title", "Chess"))
            try reader.save()
        }

        reader = try stack.reopened().newContext()
        try reader.performAndWait {
            let alice = try reader.only("Person", "name", "Alice")
            let bob = try reader.only("Person", "name", "Bob")
            #expect(alice.memberStrings("tasks", "title") == ["review", "ship", "plan", "celebrate"])
            #expect(try reader.only("Task", "title", "write").value(forKey: "person") == nil)
            #expect(alice.memberStrings("pets") == ["Tom"])
            #expect(bob.memberStrings("pets") == ["Rex"])
            #expect(alice.memberStrings("groups", "title") == ["Hiking"])
            #expect(try reader.only("Group", "title", "Chess").memberStrings("members") == [])
            #expect(try reader.only("Group", "title", "Hiking").memberStrings("members") == ["Alice", "Bob"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func updatesAndDeletesPersistWithTheirDeleteRules(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let alice = context.insertObject("Person", ["name": "Alice", "nickname": "Ally", "age": 30, "email": "alice@example.com"])
            let bob = context.insertObject("Person", ["name": "Bob", "email": "bob@example.com"])
            context.insertObject("Dog", ["name": "Rex", "owner": alice])
            context.insertObject("Cat", ["name": "Tom", "owner": alice])
            context.insertObject("Dog", ["name": "Fido", "owner": bob])
            let tasks = alice.mutableOrderedSetValue(forKey: "tasks")
            tasks.add(context.insertObject("Task", ["title": "one"]))
            tasks.add(context.insertObject("Task", ["title": "two"]))
            let chess = context.insertObject("Group", ["title": "Chess"])
            chess.mutableSetValue(forKey: "members").addObjects(from: [alice, bob])
            context.insertObject("Sample", ["string": "s1", "owner": alice])
            try context.save()
        }

        var reader = try stack.reopened().newContext()
        try reader.performAndWait {
            let alice = try reader.only("Person", "name", "Alice")
            alice.setValue("Alicia", forKey: "name")
            alice.setValue(nil, forKey: "nickname")
            alice.setValue(31, forKey: "age")
            reader.delete(try reader.only("Dog", "name", "Fido"))
            try reader.save()
        }

        reader = try stack.reopened().newContext()
        try reader.performAndWait {
            let alicia = try reader.only("Person", "name", "Alicia")
            #expect(alicia.value(forKey: "nickname") == nil)
            #expect(alicia.value(forKey: "age") as? Int32 == 31)
            #expect(try reader.objects("Person", "name == 'Alice'").isEmpty)
            #expect(try reader.only("Person", "name", "Bob").memberStrings("pets") == [], "a deleted pet leaves its owner's to-many")
            reader.delete(alicia)
            try reader.save()
        }

        reader = try stack.reopened().newContext()
        try reader.performAndWait { () throws in
            #expect(strings(try reader.objects("Person")) == ["Bob"])
            #expect(try reader.objects("Animal").isEmpty, "cascade: the deleted person's pets are gone")
            #expect(try reader.objects("Task").isEmpty, "cascade: the deleted person's tasks are gone")
            #expect(try reader.only("Group", "title", "Chess").memberStrings("members") == ["Bob"], "nullify: the group stays, without her")
            #expect(try reader.only("Sample", "string", "s1").value(forKey: "owner") == nil, "nullify: the sample stays, without an owner")
        }
    }

    // MARK: Conflicts and constraints

    @Test(arguments: StoreKind.allCases)
    func optimisticLockingConflictBetweenTwoContexts(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        let objectID = try Self.insertAda(stack)
        let first = stack.newContext(), second = stack.newContext()
        // Both contexts read the row at version 1.
        let adaInFirst = first.performAndWait { first.object(with: objectID) }
        let adaInSecond = second.performAndWait { second.object(with: objectID) }
        first.performAndWait { _ = adaInFirst.value(forKey: "name") }
        second.performAndWait { _ = adaInSecond.value(forKey: "name") }
        // The first saves (version 2); the second's save, still based on version 1, must fail.
        try first.performAndWait {
            adaInFirst.setValue(37, forKey: "age")
            try first.save()
        }
        let error = second.performAndWait {
            adaInSecond.setValue("Ada L.", forKey: "name")
            return #expect(throws: NSError.self) { try second.save() }
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSManagedObjectMergeError)
        let conflicts = error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
        #expect(conflicts?.count == 1)
        if let conflict = conflicts?.first {
            #expect(conflict.sourceObject === adaInSecond)
            #expect(conflict.oldVersionNumber == 1, "the version the context read")
            // Apple logs such a conflict as "oldVersion = 1 and newVersion = 2": the row's version in the store now.
            #expect(conflict.newVersionNumber == 2, "the version in the store now")
        }
        let reader = try stack.reopened().newContext()
        try reader.performAndWait {
            let ada = try reader.only("Person", "email", "ada@example.com")
            #expect(ada.string("name") == "Ada" && ada.value(forKey: "age") as? Int32 == 37, "the failed save wrote nothing")
        }
        // After a refresh that keeps its changes, the second context saves on top of version 2.
        try second.performAndWait {
            second.refresh(adaInSecond, mergeChanges: true)
            #expect(adaInSecond.string("name") == "Ada L.")
            try second.save()
        }
        let after = try stack.reopened().newContext()
        try after.performAndWait {
            let ada = try after.only("Person", "email", "ada@example.com")
            #expect(ada.string("name") == "Ada L." && ada.value(forKey: "age") as? Int32 == 37)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func optimisticLockingConflictWithADeletedRow(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        let objectID = try Self.insertAda(stack)
        let first = stack.newContext(), second = stack.newContext()
        let adaInSecond = second.performAndWait { second.object(with: objectID) }
        second.performAndWait { _ = adaInSecond.value(forKey: "name") }
        try first.performAndWait {
            first.delete(first.object(with: objectID))
            try first.save()
        }
        let error = second.performAndWait {
            adaInSecond.setValue("Ada L.", forKey: "name")
            return #expect(throws: NSError.self) { try second.save() }
        }
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSManagedObjectMergeError)
        let conflict = (error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.first
        #expect(conflict?.sourceObject === adaInSecond)
        #expect(conflict?.persistedSnapshot == nil, "the row is gone")
        // Apple: "A value of 0 means the object was deleted and the corresponding snapshot is nil."
        #expect(conflict?.newVersionNumber == 0)
        let reader = try stack.reopened().newContext()
        try reader.performAndWait { () throws in #expect(try reader.objects("Person").isEmpty, "the failed save did not resurrect the row") }
    }

    @Test(arguments: StoreKind.allCases)
    func uniquenessConstraintViolations(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        let adaID = try Self.insertAda(stack)

        // A new object colliding with a stored one.
        let context = stack.newContext()
        let error = context.performAndWait {
            context.insertObject("Person", ["name": "Impostor", "email": "ada@example.com"])
            return #expect(throws: NSError.self) { try context.save() }
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSManagedObjectConstraintMergeError)
        let conflict = (error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])?.first
        #expect(conflict?.constraint == ["email"])
        #expect(conflict?.databaseObject?.objectID == adaID)
        context.performAndWait { #expect(strings(conflict?.conflictingObjects ?? []) == ["Impostor"]) }

        // Two new objects colliding with each other.
        let twins = stack.newContext()
        let twinError = twins.performAndWait {
            twins.insertObject("Person", ["name": "Twin 1", "email": "twin@example.com"])
            twins.insertObject("Person", ["name": "Twin 2", "email": "twin@example.com"])
            return #expect(throws: NSError.self) { try twins.save() }
        }
        #expect(twinError?.code == NSManagedObjectConstraintMergeError)
        let twinConflict = (twinError?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])?.first
        #expect(twinConflict?.databaseObject == nil)
        twins.performAndWait { #expect(Set(strings(twinConflict?.conflictingObjects ?? [])) == ["Twin 1", "Twin 2"]) }

        // An updated object colliding with a stored one.
        let updater = stack.newContext()
        try updater.performAndWait {
            let bea = updater.insertObject("Person", ["name": "Bea", "email": "bea@example.com"])
            try updater.save()
            bea.setValue("ada@example.com", forKey: "email")
            let updateError = #expect(throws: NSError.self) { try updater.save() }
            #expect(updateError?.code == NSManagedObjectConstraintMergeError)
        }

        // NULLs never collide.
        let nulls = stack.newContext()
        try nulls.performAndWait {
            nulls.insertObject("Person", ["name": "No email 1"])
            nulls.insertObject("Person", ["name": "No email 2"])
            try nulls.save()
        }

        let reader = try stack.reopened().newContext()
        try reader.performAndWait { () throws in
            #expect(Set(strings(try reader.objects("Person"))) == ["Ada", "Bea", "No email 1", "No email 2"], "failed saves wrote nothing")
            #expect(try reader.only("Person", "name", "Bea").string("email") == "bea@example.com")
        }
    }

    // MARK: Fetching

    @Test(arguments: StoreKind.allCases)
    func predicatesMatchTheSameObjectsInEveryStore(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        try Self.seedPeople(stack)
        let context = try stack.reopened().newContext()
        try context.performAndWait {
            let alice = try context.only("Person", "name", "Alice")
            let bob = try context.only("Person", "name", "bob")
            let everyone: Set<String> = ["Alice", "bob", "Émile", "Zoë", "alice", "Charlie O'Brien"]
            let noNickname: Set<String> = ["bob", "Zoë", "Charlie O'Brien"]
            // (entity, format, arguments, expected names/titles)
            let cases: [(String, String, [Any], Set<String>)] = [
                ("Person", "age == 30", [], ["Alice"]),
                ("Person", "age != 30", [], everyone.subtracting(["Alice"])),
                ("Person", "age < 25", [], ["Zoë"]),
                ("Person", "age <= 25", [], ["Zoë", "bob"]),
                ("Person", "age > 40", [], ["Émile", "Charlie O'Brien"]),
                ("Person", "age BETWEEN {25, 35}", [], ["bob", "Alice", "alice"]),
                ("Person", "age BETWEEN %@", [[25, 35]], ["bob", "Alice", "alice"]),
                ("Person", "age IN {19, 41, 99}", [], ["Zoë", "Émile"]),
                ("Person", "name IN %@", [["bob", "Zoë", "nobody"]], ["bob", "Zoë"]),
                ("Person", "NOT (age IN {19, 41})", [], ["Alice", "bob", "alice", "Charlie O'Brien"]),
                ("Person", "name BEGINSWITH 'Al'", [], ["Alice"]),
                ("Person", "name BEGINSWITH[c] 'al'", [], ["Alice", "alice"]),
                ("Person", "name ENDSWITH 'e'", [], ["Alice", "alice", "Émile"]),
                ("Person", "name ENDSWITH[c] 'E'", [], ["Alice", "alice", "Émile"]),
                ("Person", "name CONTAINS 'li'", [], ["Alice", "alice", "Charlie O'Brien"]),
                ("Person", "name CONTAINS[c] 'LI'", [], ["Alice", "alice", "Charlie O'Brien"]),
                ("Person", "name CONTAINS %@", ["'"], ["Charlie O'Brien"]),
                ("Person", "name LIKE 'a*e'", [], ["alice"]),
                ("Person", "name LIKE[c] 'a*e'", [], ["Alice", "alice"]),
                ("Person", "name LIKE '?ob'", [], ["bob"]),
                ("Person", "name BEGINSWITH 'Emi'", [], []),
                ("Person", "name BEGINSWITH[d] 'Emi'", [], ["Émile"]),
                ("Person", "name ==[cd] 'EMILE'", [], ["Émile"]),
                ("Person", "name == 'Zoe'", [], []),
                ("Person", "name ==[d] 'Zoe'", [], ["Zoë"]),
                ("Person", "name ==[c] 'ZOË'", [], ["Zoë"]),
                ("Person", "name ENDSWITH[d] 'oe'", [], ["Zoë"]),
                ("Person", "name CONTAINS[cd] 'MIL'", [], ["Émile"]),
                ("Person", "name LIKE[cd] 'emil?'", [], ["Émile"]),
                ("Person", "birthday > %@", [Date(timeIntervalSinceReferenceDate: 60_000_000)], ["bob", "Zoë"]),
                ("Person", "birthday < %@", [Date(timeIntervalSinceReferenceDate: 1)], ["Alice", "Émile"]),
                ("Person", "birthday == nil", [], ["Charlie O'Brien"]),
                ("Person", "nickname == nil", [], noNickname),
                ("Person", "nickname != nil", [], ["Alice", "Émile", "alice"]),
                ("Person", "nickname != 'Ally'", [], kind.inequalityMatchesNil ? everyone.subtracting(["Alice"]) : ["Émile", "alice"]),
                ("Person", "age >= 30 AND nickname != nil", [], ["Alice", "Émile", "alice"]),
                ("Person", "age < 20 OR name == 'bob'", [], ["Zoë", "bob"]),
                ("Person", "SELF == %@", [alice], ["Alice"]),
                ("Person", "SELF IN %@", [[alice, bob]], ["Alice", "bob"]),
                ("Person", "ANY pets.legs == 3", [], ["Alice"]),
                ("Person", "ANY groups.title == 'Hiking'", [], ["Alice", "Émile", "Zoë"]),
                ("Person", "ANY tasks.priority > 5", [], ["Alice", "Émile"]),
                ("Person", "SUBQUERY(pets, $p, $p.legs == 4).@count >= 1", [], ["Alice", "bob", "Émile"]),
                ("Person", "SUBQUERY(groups, $g, $g.title BEGINSWITH 'C').@count > 0", [], ["Alice", "bob"]),
                ("Person", "pets.@count == 0", [], ["Zoë", "alice", "Charlie O'Brien"]),
                ("Person", "groups.@count >= 1", [], ["Alice", "bob", "Émile", "Zoë"]),
                ("Animal", "owner.name == 'Alice'", [], ["Rex", "Tripod"]),
                ("Animal", "owner.age > 40", [], ["Fido"]),
                ("Animal", "owner == nil", [], ["Kitty"]),
                ("Animal", "owner == %@", [bob], ["Tom"]),
                ("Animal", "owner.nickname BEGINSWITH[c] 'a'", [], ["Rex", "Tripod"]),
                ("Animal", "legs == 4 AND owner.name != 'Alice'", [], kind.inequalityMatchesNil ? ["Tom", "Fido", "Kitty"] : ["Tom", "Fido"]),
                ("Dog", "breed == nil", [], ["Tripod"]),
                ("Cat", "indoor == YES", [], ["Tom"]),
                ("Task", "person.name == 'Alice' AND priority > 2", [], ["Task 10", "task 1"]),
                ("Group", "ANY members.name BEGINSWITH[c] 'a'", [], ["Chess", "Hiking"]),
                ("Group", "members.@count == 0", [], ["Empty"]),
            ]
            for (entity, format, arguments, expected) in cases {
                let key = ["Task", "Group"].contains(entity) ? "title" : "name"
                let matches: [NSManagedObject]
                do {
                    matches = try context.objects(entity, format, arguments)
                } catch {
                    Issue.record("\(kind): fetching \(entity) where \(format) threw \(error)")
                    continue
                }
                #expect(Set(strings(matches, key)) == expected, "\(kind): \(entity) where \(format)")
                #expect(matches.count == expected.count, "\(kind): \(entity) where \(format) returned duplicates")
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.predicate = NSPredicate(format: format, argumentArray: arguments)
                #expect((try? context.count(for: request)) == expected.count, "\(kind): count(for:) of \(entity) where \(format)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func sortDescriptors(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        try Self.seedPeople(stack)
        let context = try stack.reopened().newContext()
        try context.performAndWait { () throws in
            func sorted(_ entity: String, _ descriptors: [NSSortDescriptor], _ key: String = "name") throws -> [String] {
                strings(try context.objects(entity) { $0.sortDescriptors = descriptors }, key)
            }
            // Émile is left out where its precomposed É would decide the order: see everyStoreOrdersAndComparesStringsAlike.
            func sortedWithoutEmile(_ descriptors: [NSSortDescriptor]) throws -> [String] {
                strings(try context.objects("Person", "name != 'Émile'") { $0.sortDescriptors = descriptors })
            }
            let byName = try sortedWithoutEmile([NSSortDescriptor(key: "name", ascending: true)])
            #expect(byName == ["Alice", "Charlie O'Brien", "Zoë", "alice", "bob"], "compare: is case-sensitive: capitals first")
            let byAgeDescending = try sorted("Person", [NSSortDescriptor(key: "age", ascending: false)])
            #expect(byAgeDescending == ["Charlie O'Brien", "Émile", "alice", "Alice", "bob", "Zoë"])
            let caseInsensitive = try sortedWithoutEmile([
                NSSortDescriptor(key: "name", ascending: true, selector: Selector("caseInsensitiveCompare:")),
                NSSortDescriptor(key: "age", ascending: true),
            ])
            #expect(caseInsensitive == ["Alice", "alice", "bob", "Charlie O'Brien", "Zoë"], "case folded, then by age")
            let localizedStandard = try sorted("Task", [NSSortDescriptor(key: "title", ascending: true, selector: Selector("localizedStandardCompare:"))], "title")
            #expect(localizedStandard == ["Étude", "task 1", "Task 2", "Task 10"], "localizedStandardCompare: ignores case and diacritics, compares numbers")
            let byOwnerAge = try sorted("Animal", [NSSortDescriptor(key: "owner.age", ascending: true), NSSortDescriptor(key: "name", ascending: true)])
            #expect(byOwnerAge == ["Kitty", "Tom", "Rex", "Tripod", "Fido"], "a to-one key path; no owner sorts first")
            let byOwnerNameDescending = try sorted("Animal", [NSSortDescriptor(key: "owner.name", ascending: false), NSSortDescriptor(key: "name", ascending: true)])
            #expect(byOwnerNameDescending.last == "Kitty", "no owner sorts last when descending")
            #expect(Array(byOwnerNameDescending.suffix(3)) == ["Rex", "Tripod", "Kitty"], "Alice's pets, then the one without an owner")
            let byNickname = try sorted("Person", [NSSortDescriptor(key: "nickname", ascending: true), NSSortDescriptor(key: "name", ascending: true)])
            #expect(byNickname == ["Charlie O'Brien", "Zoë", "bob", "Alice", "Émile", "alice"], "nil sorts first")
            let byBirthdayDescending = try sorted("Person", [NSSortDescriptor(key: "birthday", ascending: false)])
            #expect(byBirthdayDescending == ["Zoë", "bob", "alice", "Alice", "Émile", "Charlie O'Brien"], "dates; nil last when descending")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func fetchLimitAndOffset(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        try Self.seedPeople(stack)
        let context = try stack.reopened().newContext()
        try context.performAndWait {
            func page(_ format: String? = nil, limit: Int, offset: Int) throws -> [String] {
                strings(try context.objects("Person", format, sortedBy: ["age"]) {
                    $0.fetchLimit = limit
                    $0.fetchOffset = offset
                })
            }
            // By age: Zoë 19, bob 25, Alice 30, alice 35, Émile 41, Charlie O'Brien 50.
            #expect(try page(limit: 2, offset: 0) == ["Zoë", "bob"])
            #expect(try page(limit: 2, offset: 1) == ["bob", "Alice"])
            #expect(try page(limit: 0, offset: 4) == ["Émile", "Charlie O'Brien"])
            #expect(try page(limit: 10, offset: 5) == ["Charlie O'Brien"])
            #expect(try page(limit: 3, offset: 6) == [])
            // A predicate a store may have to evaluate in memory: limit and offset apply after it.
            #expect(try page("SUBQUERY(pets, $p, $p.legs == 4).@count >= 1", limit: 1, offset: 1) == ["Alice"])
            #expect(try page("name ==[cd] 'emile' OR name LIKE[c] 'ALICE'", limit: 2, offset: 1) == ["alice", "Émile"])

            // Unsaved changes count (includesPendingChanges), and the limit applies to the merged result.
            context.insertObject("Person", ["name": "Newcomer", "age": 20])
            context.delete(try context.only("Person", "name", "Zoë"))
            #expect(try page(limit: 2, offset: 0) == ["Newcomer", "bob"])
            #expect(try page(limit: 2, offset: 4) == ["Émile", "Charlie O'Brien"])
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 6)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func includesSubentitiesAndCounts(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        try Self.seedPeople(stack)
        let context = try stack.reopened().newContext()
        try context.performAndWait {
            /// [fetched objects, count(for:)]
            func count(_ entity: String, _ format: String? = nil, includesSubentities: Bool = true) throws -> [Int] {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.includesSubentities = includesSubentities
                if let format { request.predicate = NSPredicate(format: format) }
                return [try context.fetch(request).count, try context.count(for: request)]
            }
            #expect(try count("Animal") == [5, 5])
            #expect(try count("Animal", includesSubentities: false) == [0, 0], "Animal is abstract: no object is exactly an Animal")
            #expect(try count("Dog") == [3, 3])
            #expect(try count("Dog", includesSubentities: false) == [3, 3])
            #expect(try count("Cat") == [2, 2])
            #expect(try count("Animal", "legs == 4") == [4, 4])
            #expect(try count("Person", "age > 100") == [0, 0])
            let kinds = Dictionary(grouping: try context.objects("Animal"), by: { $0.entity.name ?? "" }).mapValues { Set(strings($0)) }
            #expect(kinds == ["Dog": ["Rex", "Tripod", "Fido"], "Cat": ["Tom", "Kitty"]])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func resultTypes(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        try Self.seedPeople(stack)
        let context = try stack.reopened().newContext()
        try context.performAndWait {
            let objects = try context.objects("Person", "age >= 30", sortedBy: ["age"])
            #expect(strings(objects) == ["Alice", "alice", "Émile", "Charlie O'Brien"])

            let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Person")
            idRequest.resultType = .managedObjectIDResultType
            idRequest.predicate = NSPredicate(format: "age >= 30")
            idRequest.sortDescriptors = [NSSortDescriptor(key: "age", ascending: true)]
            let ids = try context.fetch(idRequest)
            #expect(ids == objects.map(\.objectID))
            #expect(ids.allSatisfy { !$0.isTemporaryID && $0.persistentStore === context.persistentStoreCoordinator?.persistentStores.first })

            let countRequest = NSFetchRequest<NSNumber>(entityName: "Person")
            countRequest.resultType = .countResultType
            countRequest.predicate = NSPredicate(format: "age >= 30")
            #expect(try context.fetch(countRequest) == [NSNumber(value: 4)])

            let all = NSFetchRequest<NSManagedObject>(entityName: "Person")
            #expect(try context.count(for: all) == 6)
        }
    }

    // MARK: Identity and faults

    @Test(arguments: StoreKind.allCases)
    func objectIDsAreStableAndRoundTripThroughURIs(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        try Self.seedPeople(stack)
        let context = stack.newContext()
        let (aliceID, rexID, aliceURI, rexURI) = try context.performAndWait {
            let alice = try context.only("Person", "name", "Alice")
            let rex = try context.only("Dog", "name", "Rex")
            return (alice.objectID, rex.objectID, alice.objectID.uriRepresentation(), rex.objectID.uriRepresentation())
        }
        #expect(!aliceID.isTemporaryID)
        #expect(aliceURI.scheme == "x-coredata")
        #expect(aliceURI.host == stack.store.identifier, "the store's UUID")
        #expect(aliceURI.pathComponents.dropFirst().first == "Person")
        #expect(rexURI.pathComponents.dropFirst().first == "Dog", "the concrete sub-entity")
        #expect(aliceURI.lastPathComponent.hasPrefix("p"))

        #expect(stack.coordinator.managedObjectID(forURIRepresentation: aliceURI) == aliceID)
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: rexURI)?.entity.name == "Dog")
        #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://not-this-store/Person/p1")!) == nil)

        let reader = try stack.reopened()
        let readerContext = reader.newContext()
        try readerContext.performAndWait {
            let id = try #require(reader.coordinator.managedObjectID(forURIRepresentation: aliceURI))
            #expect(id == aliceID, "equal across coordinators of the same store")
            #expect(try readerContext.existingObject(with: id).string("name") == "Alice")
            #expect(try readerContext.only("Person", "name", "Alice").objectID.uriRepresentation() == aliceURI, "the same URI after reopening")
            let rex = try readerContext.existingObject(with: try #require(reader.coordinator.managedObjectID(forURIRepresentation: rexURI)))
            #expect(rex.entity.name == "Dog" && rex.string("name") == "Rex")

            // An ID of a deleted object no longer yields an object.
            readerContext.delete(rex)
            try readerContext.save()
            #expect(throws: NSError.self) { try readerContext.existingObject(with: rexID) }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func faultsFireOnAccessAndToManyRelationshipsStayFaultsUntilTouched(_ kind: StoreKind) throws {
        let stack = try ConformanceStack(kind)
        try Self.seedPeople(stack)
        let reader = try stack.reopened()

        let faulting = reader.newContext()
        try faulting.performAndWait {
            let people = try faulting.objects("Person")  // returnsObjectsAsFaults defaults to true
            #expect(people.count == 6)
            #expect(people.filter { !$0.isFault }.isEmpty, "fetched objects are faults")
            let alice = people[0]
            _ = alice.value(forKey: "name")
            #expect(!alice.isFault, "reading a property fires the fault")
            // An object already registered and realized is returned as it is.
            #expect(try faulting.objects("Person", "SELF == %@", [alice]).first.map(\.isFault) == false)
        }

        let realized = reader.newContext()
        try realized.performAndWait {
            let people = try realized.objects("Person", "name == 'Alice'") { $0.returnsObjectsAsFaults = false }
            let alice = try #require(people.first)
            #expect(!alice.isFault, "returnsObjectsAsFaults = false realizes the objects")
            #expect(alice.hasFault(forRelationshipNamed: "pets"), "a to-many relationship is a fault until touched")
            #expect(alice.hasFault(forRelationshipNamed: "tasks"))
            #expect(alice.hasFault(forRelationshipNamed: "groups"))
            #expect(alice.memberStrings("pets") == ["Rex", "Tripod"])
            #expect(!alice.hasFault(forRelationshipNamed: "pets"), "touching it loads it")
            #expect(alice.hasFault(forRelationshipNamed: "groups"), "other relationships stay faults")
            #expect(alice.memberStrings("tasks", "title") == ["Task 10", "task 1", "Task 2"])
            #expect(!alice.hasFault(forRelationshipNamed: "tasks"))
        }
    }

    /// Every store must order and compare strings alike, whether it evaluates in SQL or in memory — including
    /// precomposed letters (É, U+00C9, sorts after Z by code point but before it once decomposed) and canonically
    /// equivalent spellings (precomposed "café" and "cafe" + U+0301). The expected answers are the other stores':
    /// this test compares the stores with each other, not with a fixed list.
    @Test func everyStoreOrdersAndComparesStringsAlike() throws {
        var answers: [StoreKind: [String: [String]]] = [:]
        for kind in StoreKind.allCases {
            let stack = try ConformanceStack(kind)
            try Self.seedPeople(stack)
            let writer = stack.newContext()
            try writer.performAndWait {
                writer.insertObject("Person", ["name": "café", "age": 60])
                writer.insertObject("Person", ["name": "cafe\u{301}", "age": 61])
                try writer.save()
            }
            let context = try stack.reopened().newContext()
            answers[kind] = try context.performAndWait {
                func run(_ entity: String, _ format: String?, _ sort: [NSSortDescriptor]) throws -> [String] {
                    strings(try context.objects(entity, format) { $0.sortDescriptors = sort }).map { name in
                        name.unicodeScalars.map { $0.isASCII ? String($0) : "U+" + String($0.value, radix: 16, uppercase: true) }.joined()
                    }
                }
                let byName = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "age", ascending: true)]
                return [
                    "Person by name (compare:)": try run("Person", nil, byName),
                    "Person by name (caseInsensitiveCompare:)": try run("Person", nil, [
                        NSSortDescriptor(key: "name", ascending: true, selector: Selector("caseInsensitiveCompare:")),
                        NSSortDescriptor(key: "age", ascending: true),
                    ]),
                    "Animal by owner.name": try run("Animal", nil, [NSSortDescriptor(key: "owner.name", ascending: true), NSSortDescriptor(key: "name", ascending: true)]),
                    "name == 'café' (precomposed)": try run("Person", "name == 'caf\u{E9}'", byName),
                    "name == 'cafe' + U+0301": try run("Person", "name == 'cafe\u{301}'", byName),
                    "name >= 'Z'": try run("Person", "name >= 'Z'", byName),
                    "name BETWEEN {'D', 'F'}": try run("Person", "name BETWEEN {'D', 'F'}", byName),
                    "name IN {'café'}": try run("Person", "name IN {'caf\u{E9}'}", byName),
                ]
            }
        }
        let reference = try #require(answers[.inMemory])
        for kind in StoreKind.allCases where kind != .inMemory {
            for (query, expected) in reference.sorted(by: { $0.key < $1.key }) {
                #expect(answers[kind]?[query] == expected, "\(query): \(kind) disagrees with inMemory")
            }
        }
    }

    // MARK: Hostile strings

    @Test(arguments: StoreKind.allCases)
    func hostileStringsAreStoredAndMatchedExactly(_ kind: StoreKind) throws {
        let long = String(repeating: "Ωж漢🙂e\u{301}", count: 2_000)
        #expect(long.count == 10_000)
        let hostile = [
            "He said \"hi\" & it's", "'; DROP TABLE ZPERSON--", "Robert'); DROP TABLE Students;--", "a\u{0}b", "a", "a\u{0}c", "\u{0}",
            "👩‍👩‍👧‍👦🇫🇷🏳️‍🌈", "100%_done", "100 percent done", "back\\slash", "café", "cafe\u{301}", long, long + "!",
        ]
        let stack = try ConformanceStack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            for name in hostile { context.insertObject("Person", ["name": name]) }
            try context.save()
        }
        let reader = try stack.reopened().newContext()
        try reader.performAndWait {
            #expect(try reader.objects("Person").count == hostile.count, "nothing was dropped (or executed)")
            for name in hostile {
                let matches = try reader.objects("Person", "name == %@", [name])
                let label = name.count > 40 ? "the \(name.count)-character string" : name.debugDescription
                #expect(matches.count == 1, "\(kind): name == \(label) matched \(matches.count) objects")
                if let stored = matches.first?.value(forKey: "name") as? String {
                    #expect(Array(stored.unicodeScalars) == Array(name.unicodeScalars), "\(kind): \(label) came back changed")
                }
            }
            #expect(Set(strings(try reader.objects("Person", "name CONTAINS 'DROP TABLE'")))
                == ["'; DROP TABLE ZPERSON--", "Robert'); DROP TABLE Students;--"])
            #expect(strings(try reader.objects("Person", "name BEGINSWITH '100%'")) == ["100%_done"], "% is not a wildcard")
            #expect(strings(try reader.objects("Person", "name LIKE '100%_*'")) == ["100%_done"], "only * and ? are wildcards")
        }
    }

    // MARK: Fixtures

    /// Saves Ada (version 1) and returns her ID.
    static func insertAda(_ stack: ConformanceStack) throws -> NSManagedObjectID {
        let context = stack.newContext()
        return try context.performAndWait {
            let ada = context.insertObject("Person", ["name": "Ada", "age": 36, "email": "ada@example.com"])
            try context.save()
            return ada.objectID
        }
    }

    /// The graph the fetch tests query:
    ///
    /// | Person | age | nickname | birthday (s since 2001) | pets | tasks (in order) | groups |
    /// |---|---|---|---|---|---|---|
    /// | Alice | 30 | Ally | 0 | Rex (4), Tripod (3) | Task 10 (3), task 1 (7), Task 2 (1) | Chess, Hiking |
    /// | bob | 25 | – | 100,000,000 | Tom (cat, 4) | – | Chess |
    /// | Émile | 41 | Em | −500,000,000 | Fido (4) | Étude (9) | Hiking |
    /// | Zoë | 19 | – | 600,000,000 | – | – | Hiking |
    /// | alice | 35 | al | 50,000,000.5 | – | – | – |
    /// | Charlie O'Brien | 50 | – | – | – | – | – |
    ///
    /// Kitty (cat, 4 legs) has no owner; the group Empty has no members.
    static func seedPeople(_ stack: ConformanceStack) throws {
        let context = stack.newContext()
        try context.performAndWait {
            func person(_ name: String, _ age: Int, _ nickname: String?, _ birthday: Double?) -> NSManagedObject {
                context.insertObject("Person", [
                    "name": name, "age": age, "nickname": nickname, "email": "\(name.lowercased().filter(\.isLetter))\(age)@example.com",
                    "birthday": birthday.map { Date(timeIntervalSinceReferenceDate: $0) },
                ])
            }
            let alice = person("Alice", 30, "Ally", 0)
            let bob = person("bob", 25, nil, 100_000_000)
            let emile = person("Émile", 41, "Em", -500_000_000)
            let zoe = person("Zoë", 19, nil, 600_000_000)
            _ = person("alice", 35, "al", 50_000_000.5)
            _ = person("Charlie O'Brien", 50, nil, nil)
            context.insertObject("Dog", ["name": "Rex", "legs": 4, "breed": "Collie", "owner": alice])
            context.insertObject("Dog", ["name": "Tripod", "legs": 3, "owner": alice])
            context.insertObject("Cat", ["name": "Tom", "legs": 4, "indoor": true, "owner": bob])
            context.insertObject("Dog", ["name": "Fido", "legs": 4, "breed": "Beagle", "owner": emile])
            context.insertObject("Cat", ["name": "Kitty", "legs": 4, "indoor": false])
            let tasks = alice.mutableOrderedSetValue(forKey: "tasks")
            for (title, priority) in [("Task 10", 3), ("task 1", 7), ("Task 2", 1)] {
                tasks.add(context.insertObject("Task", ["title": title, "priority": priority]))
            }
            emile.mutableOrderedSetValue(forKey: "tasks").add(context.insertObject("Task", ["title": "Étude", "priority": 9]))
            context.insertObject("Group", ["title": "Chess"]).mutableSetValue(forKey: "members").addObjects(from: [alice, bob])
            context.insertObject("Group", ["title": "Hiking"]).mutableSetValue(forKey: "members").addObjects(from: [alice, emile, zoe])
            context.insertObject("Group", ["title": "Empty"])
            try context.save()
        }
    }
}
