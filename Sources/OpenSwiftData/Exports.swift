// `import OpenSwiftData` where Apple platforms `import SwiftData`: like SwiftData, it brings Foundation (dates, `#Predicate`,
// `SortDescriptor`) and Observation (models are `Observable`) with it.
@_exported import Foundation
@_exported import Observation
// Foundation types swift-corelibs-foundation lacks that SwiftData code uses (`ModelContext.undoManager`,
// `@Attribute(.transformable(by:))`): OpenCoreData's, under Foundation's names.
@_exported import class OpenCoreData.UndoManager
@_exported import class OpenCoreData.ValueTransformer
