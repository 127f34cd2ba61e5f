import OpenCoreData

/// Told by an `AppStateReactor` that the program is about to stop (or asked to save now).
public protocol AppStateReactorDelegate: AnyObject, Sendable {
    /// Save everything pending, synchronously.
    func didReceiveStateChange(_ appStateReactor: AppStateReactor)
}

/// The seed's "silent friend" for servers and command-line programs: where the iOS library saved when the app
/// resigned active, went to the background or was terminated, this one saves pending changes
///
/// - on SIGTERM and SIGINT, received through `DispatchSource` signal sources (so the save runs as ordinary code on
///   a dispatch queue, never inside a signal handler); once every stack is saved, the process ends the way the
///   signal would have ended it (the default action is restored and the signal raised again);
/// - on an explicit `saveNow()`;
/// - at normal exit (`exit()` or returning from `main`), as best effort.
///
/// Every `CoreDataStack` has one (its delegate is the stack). Saving waits for the main queue at most `timeout`:
/// a program whose main queue is blocked when the signal comes keeps the main context's changes unsaved (the
/// root context is still saved), and the error is recorded in `lastErrors`.
///
/// For example:
/// ```swift
/// let skopelos = Skopelos(sqliteStack: "Model", bundle: .module)
/// skopelos.coreDataStack.appStateReactor.saveNow()   // or: kill -TERM <pid>
/// ```
public final class AppStateReactor: @unchecked Sendable {  // mutable state behind `lock`
    /// What made the reactor save.
    public enum StateChange: Sendable, Hashable {
        /// A termination signal (SIGTERM, SIGINT, …).
        case signal(Int32)
        /// `saveNow()`.
        case explicitSave
        /// The process is exiting normally.
        case exit
    }

    /// The signals the reactor saves on.
    public let signals: [Int32]
    /// Whether it saves at normal exit.
    public let savesAtExit: Bool
    /// How long a save waits for the main queue and for writes under way.
    public let timeout: DispatchTimeInterval

    private let lock = NSLock()
    private weak var _delegate: AppStateReactorDelegate?
    private var _lastStateChange: StateChange?
    private var _lastErrors: [NSError] = []

    /// Watches `signals` (by default SIGTERM and SIGINT) and the normal exit of the process.
    ///
    /// For example:
    /// ```swift
    /// let reactor = AppStateReactor(signals: [SIGTERM], savesAtExit: true)
    /// ```
    public init(signals: [Int32] = [SIGTERM, SIGINT], savesAtExit: Bool = true, timeout: DispatchTimeInterval = .seconds(5)) {
        self.signals = signals
        self.savesAtExit = savesAtExit
        self.timeout = timeout
        SignalMonitor.shared.register(self)
    }

    /// The object that saves (the stack).
    public var delegate: AppStateReactorDelegate? {
        get { lock.withLock { _delegate } }
        set { lock.withLock { _delegate = newValue } }
    }

    /// The last reason the reactor saved for.
    public var lastStateChange: StateChange? { lock.withLock { _lastStateChange } }

    /// The errors the last save met (empty when it went well).
    public var lastErrors: [NSError] { lock.withLock { _lastErrors } }

    /// Saves everything pending now, synchronously.
    ///
    /// For example:
    /// ```swift
    /// stack.appStateReactor.saveNow()
    /// ```
    public func saveNow() {
        forward(.explicitSave)
    }

    /// Records the errors of a save (called by the delegate).
    public func record(_ errors: [NSError]) {
        lock.withLock { _lastErrors = errors }
    }

    func forward(_ change: StateChange) {
        let delegate = lock.withLock { () -> AppStateReactorDelegate? in
            _lastStateChange = change
            return _delegate
        }
        delegate?.didReceiveStateChange(self)
    }
}
