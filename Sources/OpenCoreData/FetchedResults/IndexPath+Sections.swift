// UIKit adds `row`, `item` and `section` to `IndexPath` (AppKit adds `item` and `section`); Foundation outside Apple
// platforms has none of them, yet every fetched results controller delegate reads them. They are declared here only
// where neither framework can exist, so code that imports UIKit or AppKit keeps Apple's.

#if !canImport(UIKit)
extension IndexPath {
    /// An index path of a row in a section of a table: `[section, row]`, as UIKit's.
    ///
    /// For example:
    /// ```swift
    /// let first = controller.object(at: IndexPath(row: 0, section: 0))
    /// ```
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The row (the second index) of a table index path, as UIKit's.
    ///
    /// For example:
    /// ```swift
    /// let indexPath = IndexPath(row: 3, section: 1)
    /// print(indexPath.row)   // 3
    /// ```
    public var row: Int {
        get {
            precondition(count == 2, IndexPath.tableIndexPathMessage)
            return self[1]
        }
        set {
            precondition(count == 2, IndexPath.tableIndexPathMessage)
            self[1] = newValue
        }
    }

    static let tableIndexPathMessage = "Invalid index path for use with UITableView. Index paths passed to table view must contain exactly two indices specifying the section and row. Please use the category on NSIndexPath in NSIndexPath+UIKitAdditions.h if possible."
}
#endif

#if !canImport(UIKit) && !canImport(AppKit)
extension IndexPath {
    /// An index path of an item in a section of a collection: `[section, item]`, as UIKit's and AppKit's.
    ///
    /// For example:
    /// ```swift
    /// let indexPath = IndexPath(item: 2, section: 0)
    /// ```
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The item (the second index) of a collection index path, as UIKit's and AppKit's.
    ///
    /// For example:
    /// ```swift
    /// IndexPath(item: 2, section: 0).item   // 2
    /// ```
    public var item: Int {
        get {
            precondition(count == 2, "Invalid index path for use with a collection view. Index paths must contain exactly two indices specifying the section and item.")
            return self[1]
        }
        set {
            precondition(count == 2, "Invalid index path for use with a collection view. Index paths must contain exactly two indices specifying the section and item.")
            self[1] = newValue
        }
    }

    /// The section (the first index) of a table or collection index path, as UIKit's and AppKit's.
    ///
    /// For example:
    /// ```swift
    /// let info = controller.sections![indexPath.section]
    /// ```
    public var section: Int {
        get {
            precondition(count == 2, IndexPath.tableIndexPathMessage)
            return self[0]
        }
        set {
            precondition(count == 2, IndexPath.tableIndexPathMessage)
            self[0] = newValue
        }
    }
}
#endif
