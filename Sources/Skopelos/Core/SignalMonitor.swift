import OpenCoreData

/// The process-wide watcher behind every reactor: one signal source per signal, one exit hook.
final class SignalMonitor: @unchecked Sendable {  // mutable state behind `lock`
    static let shared = SignalMonitor()

    private struct Entry {
        weak var reactor: AppStateReactor?
    }

    private let lock = NSLock()
    private let queue = DispatchQueue(label: "Skopelos.AppStateReactor")
    private var entries: [Entry] = []
    private var sources: [Int32: DispatchSourceSignal] = [:]
    private var exitHookInstalled = false

    func register(_ reactor: AppStateReactor) {
        lock.withLock {
            entries.removeAll { $0.reactor == nil }
            entries.append(Entry(reactor: reactor))
            for signalNumber in reactor.signals where sources[signalNumber] == nil {
                // The default action must be off for the source to see the signal instead of the process dying.
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler { SignalMonitor.shared.received(signalNumber) }
                source.resume()
                sources[signalNumber] = source
            }
            if reactor.savesAtExit && !exitHookInstalled {
                exitHookInstalled = true
                atexit { SignalMonitor.shared.processWillExit() }
            }
        }
    }

    private func liveReactors(_ include: (AppStateReactor) -> Bool) -> [AppStateReactor] {
        lock.withLock { entries.compactMap(\.reactor).filter(include) }
    }

    /// Saves every stack whose reactor listens to the signal, then ends the process as the signal would have.
    private func received(_ signalNumber: Int32) {
        for reactor in liveReactors({ $0.signals.contains(signalNumber) }) {
            reactor.forward(.signal(signalNumber))
        }
        lock.withLock {
            sources.values.forEach { $0.cancel() }
            sources.removeAll()
        }
        signal(signalNumber, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signalNumber)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        kill(getpid(), signalNumber)
        // Only reached if the signal is blocked elsewhere: exit with the shell's status for it.
        usleep(200_000)
        _exit(128 + signalNumber)
    }

    private func processWillExit() {
        for reactor in liveReactors({ $0.savesAtExit }) {
            reactor.forward(.exit)
        }
    }
}
