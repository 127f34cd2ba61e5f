@_spi(OpenSwiftData) import OpenCoreDataSupport

/// Methods that `FUNCTION(target, 'selector:', …)` can call on your own types. Linux has no Objective-C
/// runtime to send an arbitrary selector, so a method a mapping model or predicate names is registered with
/// the closure that performs it; an unregistered selector throws when evaluated.
///
/// For example, for a mapping model whose value expression is `FUNCTION($entityPolicy, "roundedRating:", $source.rating)`:
/// ```swift
/// NSExpression.registerFunction("roundedRating:", on: MoodPolicy.self) { policy, arguments in
///     policy.roundedRating(arguments.first ?? nil)
/// }
/// ```
extension NSExpression {
    /// Registers `body` as the method `selectorName` of values of type `Target` (replacing an earlier one).
    public static func registerFunction<Target>(_ selectorName: String, on targetType: Target.Type, _ body: @escaping @Sendable (Target, [Any?]) throws -> Any?) {
        FunctionRegistry.register(FunctionRegistry.Entry(matches: { $0 is Target }, call: { target, arguments in
            guard let target = target as? Target else { return nil }
            return try body(target, arguments)
        }), for: selectorName, type: ObjectIdentifier(targetType))
    }
}

/// The registered methods, by selector name.
enum FunctionRegistry {
    struct Entry: Sendable {
        let matches: @Sendable (Any) -> Bool
        let call: @Sendable (Any, [Any?]) throws -> Any?
    }

    private static let entries = Locked<[String: [(type: ObjectIdentifier, entry: Entry)]]>([:])

    static func register(_ entry: Entry, for selector: String, type: ObjectIdentifier) {
        entries.withLock { entries in
            entries[selector, default: []].removeAll { $0.type == type }
            entries[selector, default: []].append((type, entry))
        }
    }

    /// The registered method for `selector` that applies to `target`, if any.
    static func method(_ selector: String, for target: Any) -> Entry? {
        entries.withLock { $0[selector] }?.last { $0.entry.matches(target) }?.entry
    }
}
