import OpenCoreData
import Skopelos

/// `moody --wait-for-signal [--store PATH]` (used by the Skopelos tests): records one mood with a write (rating 1,
/// saved), leaves one inserted in the main context (rating 2) and one in the root context (rating 3) unsaved,
/// writes `<store>.ready`, then runs the main queue until a signal arrives. The stack's `AppStateReactor` saves the
/// two pending moods on SIGTERM or SIGINT, and the process then ends by that signal.
func waitForSignal(storeURL: URL) -> Never {
    let moody = MoodyStore(sqliteStack: "Moody", bundle: .module, storeURL: storeURL)
    moody.writeSync { context in Mood(context: context).rating = 1 }
    moody.read { context in Mood(context: context).rating = 2 }
    let root = moody.coreDataStack.rootContext
    root.performAndWait { Mood(context: root).rating = 3 }
    _ = FileManager.default.createFile(atPath: storeURL.path + ".ready", contents: Data("\(getpid())\n".utf8))
    withExtendedLifetime(moody) { dispatchMain() }
}
