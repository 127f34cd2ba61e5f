// `import OpenCoreData` brings Foundation along, the way `import CoreData` does on Apple platforms.
// Our NSPredicate, NSExpression and NSSortDescriptor shadow swift-corelibs-foundation's unusable ones
// in files that import only OpenCoreData (see DESIGN.md §2 and the README).
@_exported import Foundation

// The lowest layers are targets of their own (README "Layout"), so that the compiler enforces that they use nothing
// above them; `import OpenCoreData` brings them along, the way the one `import CoreData` brings Foundation's
// predicates, undo manager and value transformers on Apple platforms.
@_spi(OpenSwiftData) @_exported import OpenCoreDataSupport
@_exported import OpenCoreDataPredicate
@_exported import OpenCoreDataFoundation

// The predicate classes whose names swift-corelibs-foundation also declares (as unusable stubs). Declared here, in
// the module that re-exports both, so that `NSPredicate` is this module's own name: in this module's files, in
// `OpenCoreData.NSPredicate` and `import class OpenCoreData.NSPredicate` it names ours and is never ambiguous with
// Foundation's, as it was not when the classes were declared in this module.
public typealias NSPredicate = OpenCoreDataPredicate.NSPredicate
public typealias NSComparisonPredicate = OpenCoreDataPredicate.NSComparisonPredicate
public typealias NSCompoundPredicate = OpenCoreDataPredicate.NSCompoundPredicate
public typealias NSExpression = OpenCoreDataPredicate.NSExpression
public typealias NSSortDescriptor = OpenCoreDataPredicate.NSSortDescriptor
