import Foundation

// Apple's iCloud ("ubiquitous") persistent store API, deprecated since iOS 10 / macOS 10.12 and without effect
// here: Linux has no iCloud. The declarations exist so code written for it still compiles; every option is
// accepted and ignored, the notification is never posted (DEVIATIONS.md, "Stores").

/// Option naming a store's iCloud content (deprecated; accepted and ignored).
///
/// ```swift
/// let options = [NSPersistentStoreUbiquitousContentNameKey: "Moody"]
/// ```
@available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; OpenCoreData ignores this option")
public let NSPersistentStoreUbiquitousContentNameKey = "NSPersistentStoreUbiquitousContentNameKey"

/// Option giving the iCloud content's location (deprecated; accepted and ignored).
///
/// ```swift
/// let options = [NSPersistentStoreUbiquitousContentURLKey: "Logs"]
/// ```
@available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; OpenCoreData ignores this option")
public let NSPersistentStoreUbiquitousContentURLKey = "NSPersistentStoreUbiquitousContentURLKey"

/// Option naming the iCloud container (deprecated; accepted and ignored).
///
/// ```swift
/// let options = [NSPersistentStoreUbiquitousContainerIdentifierKey: "iCloud.com.example.moody"]
/// ```
@available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; OpenCoreData ignores this option")
public let NSPersistentStoreUbiquitousContainerIdentifierKey = "NSPersistentStoreUbiquitousContainerIdentifierKey"

/// Option giving a peer token for iCloud content (deprecated; accepted and ignored).
///
/// ```swift
/// let options = [NSPersistentStoreUbiquitousPeerTokenOption: "peer-1"]
/// ```
@available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; OpenCoreData ignores this option")
public let NSPersistentStoreUbiquitousPeerTokenOption = "NSPersistentStoreUbiquitousPeerTokenOption"

/// Option asking to rebuild the local store from iCloud content (deprecated; accepted and ignored).
///
/// ```swift
/// let options = [NSPersistentStoreRebuildFromUbiquitousContentOption: true]
/// ```
@available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; OpenCoreData ignores this option")
public let NSPersistentStoreRebuildFromUbiquitousContentOption = "NSPersistentStoreRebuildFromUbiquitousContentOption"

/// Option asking to strip iCloud metadata from a migrated store (deprecated; accepted and ignored: OpenCoreData
/// never writes iCloud metadata).
///
/// ```swift
/// let options = [NSPersistentStoreRemoveUbiquitousMetadataOption: true]
/// ```
@available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; OpenCoreData ignores this option")
public let NSPersistentStoreRemoveUbiquitousMetadataOption = "NSPersistentStoreRemoveUbiquitousMetadataOption"

/// The `userInfo` key of an iCloud transition's type in store-change notifications (deprecated; never present
/// here).
///
/// ```swift
/// let raw = note.userInfo?[NSPersistentStoreUbiquitousTransitionTypeKey] as? UInt
/// ```
@available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; OpenCoreData never sends this key")
public let NSPersistentStoreUbiquitousTransitionTypeKey = "com.apple.coredata.ubiquity.transitiontype"

/// Why an iCloud store changed (deprecated; OpenCoreData never reports one).
///
/// ```swift
/// if NSPersistentStoreUbiquitousTransitionType(rawValue: raw) == .accountRemoved { /* … */ }
/// ```
@available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; OpenCoreData never reports a transition")
public enum NSPersistentStoreUbiquitousTransitionType: UInt, Sendable, Hashable {
    /// An iCloud account was added.
    case accountAdded = 1
    /// The iCloud account was removed.
    case accountRemoved = 2
    /// The iCloud content was removed.
    case contentRemoved = 3
    /// The initial import of iCloud content finished.
    case initialImportCompleted = 4
}

extension NSNotification.Name {
    /// Posted after iCloud changes were imported into a store (deprecated; never posted here).
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSPersistentStoreDidImportUbiquitousContentChanges, object: nil, queue: nil) { _ in }
    /// ```
    @available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; OpenCoreData never posts this notification")
    public static let NSPersistentStoreDidImportUbiquitousContentChanges =
        NSNotification.Name("com.apple.coredata.ubiquity.importer.didfinishimport")
}

extension NSPersistentStoreCoordinator {
    /// Apple: deletes a store's iCloud content for all peers and the local store. There is no iCloud content on
    /// Linux, so this removes the local store only: it destroys the store at `storeURL` as
    /// `destroyPersistentStore(at:ofType:options:)` does (its type recognised from the file), then deletes the file
    /// with its journal and external data files. A URL with no file is left alone; a file that is not a store throws
    /// `NSPersistentStoreInvalidTypeError` and is kept.
    ///
    /// ```swift
    /// try NSPersistentStoreCoordinator.removeUbiquitousContentAndPersistentStore(at: storeURL)
    /// ```
    @available(*, deprecated, message: "iCloud ubiquitous stores were deprecated in iOS 10; on Linux this removes the local store only")
    public class func removeUbiquitousContentAndPersistentStore(at storeURL: URL, options: [AnyHashable: Any]? = nil) throws {
        guard FileManager.default.fileExists(atPath: storeURL.path) else { return }
        let type = try recognisedStoreType(at: storeURL)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
        try coordinator.destroyPersistentStore(at: storeURL, ofType: type, options: options)
        NSMigrationManager.removeStoreFiles(at: storeURL)   // Apple deletes the local file; destroying only empties it
    }
}
