/// Unsafe fast path "shared typed set" (see ``UnsafeFastPaths``): a `@Managed` `Set<Mood>` property shares the
/// relationship's `Set<NSManagedObject>`.
///
/// The layout assumption: a native set of class references is laid out alike for every element class, and members
/// hash and compare through `NSObject`'s one `Hashable` conformance. Checked by `ToManyPropertyReadTests` and
/// `UnsafeFastPathsTests.theSwitchTurnsEachFastPathOff`.
extension Set: ManagedToManySet where Element: NSManagedObject {
    init?<Members: Collection<NSManagedObject>>(managedMembers: Members) {
        // An unordered relationship's own set, shared once every member is known to be of the element class.
        // Inserting member by member ran unspecialized (the element class is the application's: 1,800 instructions
        // a member), and the runtime's set cast (`as? Set<Element>`) hashes every member into a new table.
        // Sharing is sound because a native set of class references is laid out alike for every element class,
        // and an `NSObject` subclass has one `Hashable` conformance, `NSObject`'s, which dispatches to `hash` and
        // `isEqual(_:)` dynamically: the shared table hashes and compares each member as the relationship's does.
        // An unsafe fast path (a layout assumption): off when `UnsafeFastPaths.isEnabled` is false.
        if UnsafeFastPaths.isEnabled, let members = managedMembers as? Set<NSManagedObject> {
            for member in members where ObjectIdentifier(type(of: member)) != ObjectIdentifier(Element.self) {
                guard member is Element else { return nil }
            }
            self = unsafeBitCast(members, to: Set<Element>.self)
            return
        }
        self.init(minimumCapacity: managedMembers.count)
        for member in managedMembers {
            guard let typed = member as? Element else { return nil }
            insert(typed)
        }
    }
}
