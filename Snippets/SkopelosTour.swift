// Skopelos: a data access layer with one-line reads on the main context and writes on write contexts.
import OpenCoreData
import Skopelos

final class User: NSManagedObject {
    @Managed var firstname: String?
}

/// The app's data access layer. In a package target, pass `bundle: .module` (on Linux a target's resources are not
/// in `Bundle.main`) or the model's URL.
final class SkopelosClient: Skopelos, @unchecked Sendable {   // adds no state
    static let sharedInstance = SkopelosClient(sqliteStack: "DataModel", bundle: .main)
    override func handleError(_ error: NSError) { print(error.localizedDescription) }   // every error
}

func tour() {
    let dal = SkopelosClient.sharedInstance
    dal.writeSync { context in
        User.SK_create(context).firstname = "John"           // in the store when writeSync returns
    }.read { context in
        print(User.SK_all(context).count)                    // on the main context
    }
    dal.writeAsync({ context in User.SK_removeAll(context) },
                   completion: { error in print(error == nil ? "removed" : "failed") })
}

/// In async code, `read` and `write` are awaited (an unawaited `read { }` there resolves to this form too).
func countUsers() async throws -> Int {
    try await SkopelosClient.sharedInstance.read { context in User.SK_numberOfEntities(context) }
}
