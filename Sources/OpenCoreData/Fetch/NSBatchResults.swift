/// The result of an executed `NSBatchInsertRequest`.
///
/// For example:
/// ```swift
/// request.resultType = .count
/// let result = try context.execute(request) as! NSBatchInsertResult
/// print(result.result as! Int)   // how many objects were inserted
/// ```
open class NSBatchInsertResult: NSPersistentStoreResult {
    /// `true`, the inserted objects' IDs, or their number, as `resultType` says.
    open var result: Any? { _result }
    /// The kind of `result`.
    open var resultType: NSBatchInsertRequestResultType { _resultType }

    private let _result: Any?
    private let _resultType: NSBatchInsertRequestResultType

    init(result: Any?, resultType: NSBatchInsertRequestResultType) {
        _result = result
        _resultType = resultType
        super.init()
    }

    open override var description: String { "<NSBatchInsertResult: resultType: \(_resultType.rawValue); result: \(BatchResultDescription.text(_result))>" }
}

/// The result of an executed `NSBatchUpdateRequest`.
///
/// For example:
/// ```swift
/// request.resultType = .updatedObjectsCountResultType
/// let result = try context.execute(request) as! NSBatchUpdateResult
/// print(result.result as! Int)   // how many objects were updated
/// ```
open class NSBatchUpdateResult: NSPersistentStoreResult {
    /// `true`, the updated objects' IDs, or their number, as `resultType` says.
    open var result: Any? { _result }
    /// The kind of `result`.
    open var resultType: NSBatchUpdateRequestResultType { _resultType }

    private let _result: Any?
    private let _resultType: NSBatchUpdateRequestResultType

    init(result: Any?, resultType: NSBatchUpdateRequestResultType) {
        _result = result
        _resultType = resultType
        super.init()
    }

    open override var description: String { "<NSBatchUpdateResult: resultType: \(_resultType.rawValue); result: \(BatchResultDescription.text(_result))>" }
}

/// The result of an executed `NSBatchDeleteRequest`.
///
/// For example:
/// ```swift
/// request.resultType = .resultTypeObjectIDs
/// let result = try context.execute(request) as! NSBatchDeleteResult
/// let deleted = result.result as! [NSManagedObjectID]
/// ```
open class NSBatchDeleteResult: NSPersistentStoreResult {
    /// `true`, the deleted objects' IDs, or their number, as `resultType` says.
    open var result: Any? { _result }
    /// The kind of `result`.
    open var resultType: NSBatchDeleteRequestResultType { _resultType }

    private let _result: Any?
    private let _resultType: NSBatchDeleteRequestResultType

    init(result: Any?, resultType: NSBatchDeleteRequestResultType) {
        _result = result
        _resultType = resultType
        super.init()
    }

    open override var description: String { "<NSBatchDeleteResult: resultType: \(_resultType.rawValue); result: \(BatchResultDescription.text(_result))>" }
}

/// Short descriptions of batch results (object ID lists are summarized by their count).
enum BatchResultDescription {
    static func text(_ result: Any?) -> String {
        switch result {
        case let ids as [NSManagedObjectID]: return "\(ids.count) object IDs"
        case let value?: return "\(value)"
        case nil: return "nil"
        }
    }
}
