// `import OpenSwiftData` where Apple platforms `import SwiftData`: like SwiftData, it brings Foundation (dates, `#Predicate`,
// `SortDescriptor`) and Observation (models are `Observable`) with it.
@_exported import Foundation
@_exported import Observation
