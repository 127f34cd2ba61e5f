// `import OpenCoreData` brings Foundation along, the way `import CoreData` does on Apple platforms.
// Our NSPredicate, NSExpression and NSSortDescriptor shadow swift-corelibs-foundation's unusable ones
// in files that import only OpenCoreData (see DESIGN.md §2 and the README).
@_exported import Foundation
