import OpenCoreData
import Skopelos
import Testing

@Suite("Skopelos managed-object helpers")
struct ManagedObjectHelperTests {
    /// Four users, by hand: (first, last, age).
    static let people: [(String, String, Int32)] = [("John", "Doe", 30), ("Jane", "Doe", 25), ("Ann", "Smith", 41), ("Bob", "Doe", 30)]

    static func seeded() throws -> (RecordingSkopelos, URL) {
        let url = try DALTest.newStoreURL()
        let dal = try DALTest.service(at: url)
        dal.writeSync { context in
            for (first, last, age) in people {
                let user = User.SK_create(context)
                (user.firstname, user.lastname, user.age) = (first, last, age)
            }
        }
        return (dal, url)
    }

    @Test func createCountAndAll() throws {
        let (dal, url) = try Self.seeded()
        #expect(try DALTest.count("User", in: url) == 4)
        dal.read { context in
            #expect(User.SK_numberOfEntities(context) == 4)
            #expect(User.SK_numberOfEntities(NSPredicate(format: "lastname == %@", "Doe"), context: context) == 3)
            let all: [User] = User.SK_all(context)
            #expect(Set(all.compactMap(\.firstname)) == ["John", "Jane", "Ann", "Bob"])
            #expect(Set(User.SK_all(NSPredicate(format: "age >= 30"), context: context).compactMap(\.firstname)) == ["John", "Ann", "Bob"])
            #expect(Pet.SK_numberOfEntities(context) == 0)
            #expect(Pet.SK_first(context) == nil)
            #expect(User.SK_first(context) != nil)
        }
        #expect(dal.log.all.isEmpty)
    }

    @Test func sortedAndByAttributeVariants() throws {
        let (dal, _) = try Self.seeded()
        dal.read { context in
            // age descending (":NO" overrides ascending), then first name ascending.
            let sorted = User.SK_all(context, predicate: NSPredicate(value: true), sortTerm: "age:NO,firstname", ascending: true)
            #expect(sorted.compactMap(\.firstname) == ["Ann", "Bob", "John", "Jane"])
            let does = User.SK_all("lastname", isEqualTo: "Doe", sortTerms: "firstname", ascending: false, context: context)
            #expect(does.compactMap(\.firstname) == ["John", "Jane", "Bob"])
            #expect(User.SK_first("firstname", isEqualTo: "Jane", context: context)?.age == 25)
            #expect(User.SK_first("firstname", isEqualTo: "Nobody", context: context) == nil)
            #expect(User.SK_first(NSPredicate(format: "lastname == %@", "Doe"), sortTerms: "age", ascending: true, context: context)?.firstname == "Jane")
            #expect(User.SK_first(NSPredicate(format: "age == 30"), sortTerms: "firstname:YES", ascending: false, context: context)?.firstname == "Bob")
        }
        #expect(dal.log.all.isEmpty)
    }

    @Test func removeRemoveAllAndInContext() throws {
        let (dal, url) = try Self.seeded()
        var ann: User?
        dal.read { context in ann = User.SK_first("firstname", isEqualTo: "Ann", context: context) }
        dal.writeSync { context in
            let pet = Pet.SK_create(context)
            pet.name = "Rex"
            pet.owner = User.SK_first("firstname", isEqualTo: "John", context: context)
        }
        // An object read on the main context, found again in a write context and removed there.
        dal.writeSync { context in
            let inWrite = ann?.SK_inContext(context)
            #expect(inWrite?.managedObjectContext === context)
            #expect(inWrite?.firstname == "Ann")
            inWrite?.SK_remove(context)
        }
        #expect(try DALTest.count("User", in: url) == 3)
        #expect(try DALTest.count("User", in: url, NSPredicate(format: "firstname == %@", "Ann")) == 0)
        #expect(try DALTest.count("Pet", in: url) == 1)
        dal.writeSync { context in User.SK_removeAll(context) }
        #expect(try DALTest.count("User", in: url) == 0)
        #expect(try DALTest.count("Pet", in: url) == 0)   // the owner's delete rule cascades
        dal.read { context in #expect(User.SK_all(context).isEmpty) }
        #expect(dal.log.all.isEmpty)
    }

    /// A fetch that fails (a class no entity uses, a predicate on an unknown key) is reported to the service whose
    /// block runs, and the helper returns an empty result.
    @Test func helperErrorsGoToTheRunningService() throws {
        let (dal, _) = try Self.seeded()
        let other = try DALTest.service()
        dal.read { context in
            #expect(Stranger.SK_all(context).isEmpty)
            #expect(Stranger.SK_numberOfEntities(context) == 0)
            #expect(User.SK_all(NSPredicate(format: "noSuchKey == 1"), context: context).isEmpty)
        }
        #expect(dal.log.all.count == 3)
        #expect(dal.log.all.allSatisfy { $0.domain == NSCocoaErrorDomain })
        #expect(other.log.all.isEmpty)
    }

    /// Outside any block, the error goes to the service whose stack the context belongs to.
    @Test func helperErrorsOutsideABlockGoToTheContextsService() throws {
        let (dal, _) = try Self.seeded()
        let other = try DALTest.service()
        let context = dal.coreDataStack.mainContext
        context.performAndWait {
            #expect(Stranger.SK_first(context) == nil)
        }
        #expect(dal.log.all.count == 1)
        #expect(other.log.all.isEmpty)
    }

    /// The seed's broadcast reaches every service, so it runs in a process of its own (not to disturb the
    /// services of tests running alongside).
    @Test func errorsPostedAsTheSeedsNotificationReachEveryService() async {
        await #expect(processExitsWith: .success) {
            let first = try DALTest.service()
            let second = try DALTest.service()
            let error = NSError(domain: NSCocoaErrorDomain, code: 134_060)
            NotificationCenter.default.post(name: DALService.handleErrorNotification, object: nil, userInfo: ["error": error])
            // A context that belongs to no service: its helper errors are broadcast too.
            let loose = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            loose.persistentStoreCoordinator = first.coreDataStack.rootContext.persistentStoreCoordinator
            loose.performAndWait { _ = Stranger.SK_all(loose) }
            let codes = [first.log.all.map(\.code), second.log.all.map(\.code)]
            guard codes == [[134_060, NSPersistentStoreOperationError], [134_060, NSPersistentStoreOperationError]] else {
                FileHandle.standardError.write(Data("codes: \(codes)\n".utf8))
                exit(1)
            }
        }
    }
}
