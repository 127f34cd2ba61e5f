// Seeing what Core Data does: SQL logging through swift-log, and the concurrency checks, switched on in code.
import Foundation
import OpenCoreData

// Equivalent to `OPENCOREDATA_SQL_DEBUG=1 OPENCOREDATA_CONCURRENCY_DEBUG=1 swift run App` (Apple's
// `-com.apple.CoreData.SQLDebug 1` and `-com.apple.CoreData.ConcurrencyDebug 1` launch arguments work too). They are
// read once, when the library first needs them: set them before anything else runs.
setenv("OPENCOREDATA_SQL_DEBUG", "1", 1)                 // 1: statements and times, 2: bound values, 3: query plans
setenv("OPENCOREDATA_CONCURRENCY_DEBUG", "1", 1)

print("concurrency checks on:", ConcurrencyDebug.isEnabled)
