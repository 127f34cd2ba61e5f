import Foundation
import OpenCoreData
import Testing

/// The dictionary a batch insert's `dictionaryHandler` fills behaves as any `NSMutableDictionary`: the insert
/// reads what the handler left in it, whichever way the entries were set, replaced or removed.
@Suite struct BatchInsertDictionaryTests {
    @Test(arguments: StoreKind.batchCapable)
    func everyWayOfSettingAnEntryReachesTheRow(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let stamp = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
        let bytes = Data((0..<16).map { UInt8($0) })
        var calls = 0
        try stack.run { context in
            let request = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
                defer { calls += 1 }
                switch calls {
                case 0:   // Swift values through the subscript, one replaced, one set and removed again
                    dictionary["name"] = "first"
                    dictionary["rating"] = Int64(1)
                    dictionary["name"] = "replaced"
                    dictionary["price"] = 2.5
                    dictionary["price"] = nil
                    dictionary["flag"] = true
                    dictionary["stamp"] = stamp
                    dictionary["payload"] = bytes
                case 1:   // Foundation objects, NSString keys and setObject(_:forKey:)
                    dictionary.setObject(NSString(string: "second"), forKey: NSString(string: "name"))
                    dictionary.setObject(NSNumber(value: 42), forKey: "rating")
                    dictionary.setObject(NSNumber(value: 0.5), forKey: "price")
                    dictionary.setObject(NSNumber(value: false), forKey: "flag")
                    dictionary.setObject(NSDate(timeIntervalSinceReferenceDate: 1), forKey: "stamp")
                    dictionary.setObject(NSData(data: bytes), forKey: "payload")
                    // A string key matches whichever way it was given.
                    dictionary.removeObject(forKey: NSString(string: "payload"))
                case 2:   // more keys than a linear search serves, then all but one removed
                    for index in 0..<20 { dictionary["extra\(index)"] = index }
                    dictionary["name"] = "third"
                    dictionary.removeObjects(forKeys: (0..<20).map { "extra\($0)" })
                    dictionary["rating"] = 3
                default:
                    return true
                }
                return false
            })
            _ = try context.execute(request)
        }
        let items = try stack.fetch("Item")
        #expect(items.map { $0.value(forKey: "name") as? String } == ["replaced", "second", "third"])
        #expect(items.map { $0.value(forKey: "rating") as? Int } == [1, 42, 3])
        #expect(items.map { $0.value(forKey: "price") as? Double } == [nil, 0.5, nil])
        #expect(items.map { $0.value(forKey: "flag") as? Bool } == [true, false, nil])
        #expect(items[0].value(forKey: "stamp") as? Date == stamp)
        #expect(items[1].value(forKey: "stamp") as? Date == Date(timeIntervalSinceReferenceDate: 1))
        #expect(items[0].value(forKey: "payload") as? Data == bytes)
        #expect(items[1].value(forKey: "payload") == nil)
    }

    /// Each row starts from an empty dictionary, whatever the previous row set and in whichever order; a
    /// dictionary the handler keeps keeps its entries.
    @Test(arguments: StoreKind.batchCapable)
    func everyRowStartsEmptyAndAKeptDictionaryKeepsItsEntries(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        var calls = 0
        var kept: [NSMutableDictionary] = []
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
                defer { calls += 1 }
                #expect(dictionary.count == 0, "row \(calls) starts empty")
                switch calls {
                case 0, 1:   // the same keys in the same order
                    dictionary["name"] = "row \(calls)"
                    dictionary["rating"] = calls
                    dictionary["flag"] = true
                case 2:   // the same keys in another order, one left out, one set twice
                    dictionary["rating"] = 2
                    dictionary["name"] = "two"
                    dictionary["rating"] = 22
                case 3:   // one of the template's keys, then a key it lacks, then the template's next key
                    dictionary["name"] = "three"
                    dictionary["price"] = 3.5
                    dictionary["rating"] = 3
                    kept.append(dictionary)
                case 4:
                    dictionary["name"] = "four"
                default:
                    return true
                }
                return false
            }))
        }
        let items = try stack.fetch("Item")   // by name
        #expect(items.map { $0.value(forKey: "name") as? String } == ["four", "row 0", "row 1", "three", "two"])
        #expect(items.map { $0.value(forKey: "rating") as? Int } == [7, 0, 1, 3, 22])   // 7: the default
        #expect(items.map { $0.value(forKey: "flag") as? Bool } == [nil, true, true, nil, nil])
        #expect(items.map { $0.value(forKey: "price") as? Double } == [nil, nil, nil, 3.5, nil])
        #expect(kept.first?.count == 3)
        #expect(kept.first?["name"] as? String == "three")
    }

    @Test func theHandlersDictionaryReadsBackWhatWasSet() throws {
        let stack = try BatchStack(.sqlite)
        var seen: (count: Int, name: Any?, rating: Any?, keys: Set<String>, copied: Int, iterated: Int, described: String)?
        var calls = 0
        try stack.run { context in
            _ = try context.execute(NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
                defer { calls += 1 }
                guard calls == 0 else { return true }
                dictionary["name"] = "a"
                dictionary[NSString(string: "rating")] = 5
                let keys = Set(dictionary.allKeys.compactMap { ($0 as? String) ?? ($0 as? NSString).map { $0 as String } })
                let copy = dictionary.copy() as? NSDictionary
                var iterated = 0
                for _ in dictionary { iterated += 1 }
                seen = (dictionary.count, dictionary["name"], dictionary.object(forKey: "rating"), keys, copy?.count ?? -1, iterated, dictionary.description)
                return false
            }))
        }
        let reads = try #require(seen)
        #expect(reads.count == 2)
        #expect(reads.name as? String == "a")
        #expect(reads.rating as? Int == 5)
        #expect(reads.rating.map { type(of: $0) == Int.self } == true, "the value as it was set, not an NSNumber (DEVIATIONS B6)")
        #expect(reads.keys == ["name", "rating"])
        #expect(reads.copied == 2)
        #expect(reads.iterated == 2)
        #expect(reads.described.contains("name") && reads.described.contains("rating"))
    }

    @Test(arguments: StoreKind.batchCapable)
    func aNonStringKeyIsStillAnError(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        var calls = 0
        let error = #expect(throws: NSError.self) {
            try stack.run { context in
                _ = try context.execute(NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
                    defer { calls += 1 }
                    guard calls == 0 else { return true }
                    dictionary[7] = "seven"
                    return false
                }))
            }
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSCoreDataError)
        #expect(try stack.fetch("Item").isEmpty)
    }
}
