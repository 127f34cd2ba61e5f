import Synchronization

/// The one off switch of the library's unsafe fast paths: code that reads raw memory or relies on a memory layout
/// Swift does not promise, to save work on a hot path. Each has a safe path that gives the same results, taken when
/// the switch is off (and when the assumption cannot be confirmed). Each lives in this folder (`Unsafe/`), with the
/// assumption it relies on at the top of its file:
///
/// | fast path | where | the assumption it relies on | test that fails if it breaks |
/// |---|---|---|---|
/// | row-cache prefetch | `PagedIDTable.prefetch(store:primaryKey:)` (`RowTable+Prefetch.swift`), called by `RowCache.passingRows` in key-order scans | a `RowCache.Entry`'s object ID and attribute array are one reference each at `Entry.objectIDOffset`/`attributesOffset`, and an empty slot has a null word at the ID's offset | `PagedIDTableTests.theRawAddressesOfARowAreItsIDAndItsValues` |
/// | shared typed set | `Set.init?(managedMembers:)` (`Set+ManagedMembers.swift`; a `@Managed` `Set<Mood>` property) | `Set<NSManagedObject>` and `Set<Mood>` have one layout, and members hash and compare through `NSObject`'s one conformance | `ToManyPropertyReadTests`, `UnsafeFastPathsTests.theSwitchTurnsEachFastPathOff` |
/// | vtable probing | `OverriddenMethods` (`OverriddenMethods.swift`; used by `@Managed` setters and by save validation) | Swift class metadata holds a method's vtable entry at one word that an override changes | `OverriddenMethodsTests` |
/// | property-name bits | `SlotTable.position(of:)` (`SlotTable+NameWords.swift`) | a `String` is two words, and equal words are equal strings | `UnsafeFastPathsTests` (every workload reads properties by name) |
///
/// `OPENCOREDATA_UNSAFE_FAST_PATHS=0` (read once, when the switch is first used) turns them all off, for example to
/// rule them out when chasing a memory error, or to run under a sanitizer or a new Swift runtime before trusting them.
/// Tests flip ``isEnabled`` in process (`UnsafeFastPathsTests` runs the same workloads both ways and compares the
/// results). The property-name bits are decided when an entity's layout is made (an entity made while the switch is
/// off keeps the safe look-up); the others are decided at each use, an object's setter path at its first setter.
///
/// ```swift
/// UnsafeFastPaths.isEnabled = false   // every fast path above takes its safe path from now on
/// ```
enum UnsafeFastPaths {
    /// The switch, initialized from `OPENCOREDATA_UNSAFE_FAST_PATHS` ("0", "false", "no" or "off" turn it off).
    private static let enabled = Atomic<Bool>(readEnvironment())

    /// Whether the unsafe fast paths are used (true unless `OPENCOREDATA_UNSAFE_FAST_PATHS=0`).
    static var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    private static func readEnvironment() -> Bool {
        guard let value = ProcessInfo.processInfo.environment["OPENCOREDATA_UNSAFE_FAST_PATHS"] else { return true }
        return !["0", "false", "no", "off"].contains(value.lowercased())
    }
}
