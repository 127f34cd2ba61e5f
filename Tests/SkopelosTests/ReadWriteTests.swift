import OpenCoreData
import Skopelos
import Testing

@Suite("Skopelos read and write")
struct ReadWriteTests {
    @Test func theStackIsARootWriterWithAMainContextBelowIt() throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        let stack = dal.coreDataStack
        #expect(stack.rootContext.concurrencyType == .privateQueueConcurrencyType)
        #expect(stack.rootContext.persistentStoreCoordinator?.persistentStores.count == 1)
        #expect(stack.mainContext.concurrencyType == .mainQueueConcurrencyType)
        #expect(stack.mainContext.parent === stack.rootContext)
        #expect(stack.storeURL == url)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(dal.log.all.isEmpty)
    }

    @Test func writeSyncIsInTheStoreWhenItReturns() throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        dal.writeSync { context in
            let user = User.SK_create(context)
            user.firstname = "John"
            user.lastname = "Doe"
        }
        // A second coordinator on the file sees the row: the write went write context → main → root → store.
        #expect(try DALTest.count("User", in: url, NSPredicate(format: "firstname == %@ AND lastname == %@", "John", "Doe")) == 1)
        dal.read { context in
            #expect(context === dal.coreDataStack.mainContext)
            #expect(User.SK_all(context).map(\.firstname) == ["John"])
        }
        #expect(dal.log.all.isEmpty)
    }

    @Test func writeIsTheSeedsNameForWriteSync() throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        dal.write { context in User.SK_create(context).firstname = "Ann" }
        #expect(try DALTest.count("User", in: url) == 1)
    }

    @Test func writeSyncCompletionRunsOnTheMainQueueAfterTheSave() async throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        let outcome = Box<(called: Bool, onMain: Bool, error: NSError?, rows: Int)>((false, false, nil, -1))
        dal.writeSync({ context in User.SK_create(context).firstname = "Eve" }, completion: { error in
            let rows = (try? DALTest.count("User", in: url)) ?? -1
            outcome.value = (true, MainQueueProbe.isCurrent, error, rows)
        })
        #expect(await DALTest.waitUntil { outcome.value.called })
        #expect(outcome.value.onMain)
        #expect(outcome.value.error == nil)
        #expect(outcome.value.rows == 1)
    }

    @Test func writeAsyncDoesNotBlockAndCompletesOnceInTheStore() async throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        let outcome = Box<(called: Bool, onMain: Bool, error: NSError?, rows: Int)>((false, false, nil, -1))
        let blockRan = Box(false)
        let gate = DispatchSemaphore(value: 0)
        dal.writeAsync({ context in
            gate.wait()   // the caller is not blocked while the write waits
            blockRan.value = true
            for index in 0..<3 { User.SK_create(context).age = Int32(index) }
        }, completion: { error in
            let rows = (try? DALTest.count("User", in: url)) ?? -1
            outcome.value = (true, MainQueueProbe.isCurrent, error, rows)
        })
        #expect(blockRan.value == false)
        gate.signal()
        #expect(await DALTest.waitUntil { outcome.value.called })
        #expect(outcome.value.onMain)
        #expect(outcome.value.error == nil)
        #expect(outcome.value.rows == 3)
        #expect(dal.log.all.isEmpty)
    }

    @Test func chainedCallsRunInOrder() throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        var steps: [String] = []
        var john: User?
        var seen: [String?] = []
        dal.write { context in
            steps.append("write 1")
            john = User.SK_create(context)
            john?.firstname = "John"
        }.write { context in
            steps.append("write 2")
            john?.SK_inContext(context)?.SK_remove(context)
            User.SK_create(context).firstname = "Jane"
        }.writeSync { context in
            steps.append("write 3")
            User.SK_create(context).firstname = "Joe"
        }.read { context in
            steps.append("read")
            seen = User.SK_all(context).map(\.firstname).sorted { ($0 ?? "") < ($1 ?? "") }
        }
        #expect(steps == ["write 1", "write 2", "write 3", "read"])
        #expect(seen == ["Jane", "Joe"])
        #expect(try DALTest.count("User", in: url) == 2)
        #expect(dal.log.all.isEmpty)
    }

    @Test func asyncReadAndWriteReturnTheirBlocksResults() async throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        let objectID = try await dal.write { context in
            let user = User.SK_create(context)
            user.firstname = "Ada"
            user.age = 36
            try context.obtainPermanentIDs(for: [user])
            return user.objectID
        }
        #expect(!objectID.isTemporaryID)
        #expect(try DALTest.count("User", in: url, NSPredicate(format: "age == 36")) == 1)
        let name = try await dal.read { context in
            (try context.existingObject(with: objectID) as? User)?.firstname
        }
        #expect(name == "Ada")
        #expect(dal.log.all.isEmpty)
    }

    @Test func aThrowingWriteIsRolledBackAndRethrownNotReported() async throws {
        struct Refused: Error {}
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        await #expect(throws: Refused.self) {
            try await dal.write { context in
                User.SK_create(context).firstname = "Ghost"
                throw Refused()
            }
        }
        #expect(throws: Refused.self) {
            try dal.writeSync { context in
                User.SK_create(context).firstname = "Ghost"
                throw Refused()
            }
        }
        // The next write starts clean: the ghosts are not saved with it.
        try await dal.write { context in User.SK_create(context).firstname = "Real" }
        #expect(try DALTest.count("User", in: url) == 1)
        #expect(try DALTest.count("User", in: url, NSPredicate(format: "firstname == %@", "Ghost")) == 0)
        #expect(dal.log.all.isEmpty)
    }

    /// A mandatory attribute left nil fails validation (Apple's NSValidationMissingMandatoryPropertyError, 1570):
    /// the error reaches handleError and the completion, the write is rolled back, and the next write succeeds.
    @Test func aFailedSaveIsReportedAndRolledBack() async throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        let completionError = Box<NSError?>(nil)
        let called = Box(false)
        dal.writeSync({ context in
            _ = Pet.SK_create(context)   // no name
        }, completion: { error in
            completionError.value = error
            called.value = true
        })
        #expect(await DALTest.waitUntil { called.value })
        #expect(completionError.value?.domain == NSCocoaErrorDomain)
        #expect(completionError.value?.code == 1570)
        #expect(dal.log.all.map(\.code) == [1570])
        dal.writeSync { context in Pet.SK_create(context).name = "Rex" }
        #expect(try DALTest.count("Pet", in: url) == 1)
        #expect(dal.log.all.count == 1)

        await #expect(throws: NSError.self) {
            try await dal.write { context in _ = Pet.SK_create(context) }
        }
        #expect(dal.log.all.map(\.code) == [1570, 1570])
    }

    @Test func writesShareOneScratchContextUnlessConcurrentWritingsAreAllowed() throws {
        for allows in [false, true] {
            let dal = try DALTest.service(allowsConcurrentWritings: allows)
            var contexts: [NSManagedObjectContext] = []
            dal.writeSync { contexts.append($0) }.writeSync { contexts.append($0) }
            #expect(contexts.count == 2)
            #expect((contexts[0] === contexts[1]) == !allows)
            #expect(contexts.allSatisfy { $0.parent === dal.coreDataStack.mainContext && $0.concurrencyType == .privateQueueConcurrencyType })
        }
    }

    /// With `allowsConcurrentWritings`, writes run at the same time on their own contexts, and all reach the store.
    @Test func concurrentWritingsAllReachTheStore() async throws {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url, allowsConcurrentWritings: true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for chain in 0..<4 {
                group.addTask {
                    for index in 0..<25 {
                        try await dal.write { context in
                            let record = WriteRecord.SK_create(context)
                            record.chain = Int32(chain)
                            record.index = Int32(index)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try DALTest.count("WriteRecord", in: url) == 100)
        #expect(dal.log.all.isEmpty)
    }
}
