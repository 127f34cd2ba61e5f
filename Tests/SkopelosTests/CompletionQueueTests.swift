import OpenCoreData
import Skopelos
import Testing

/// Completions run on `completionQueue`: the main queue by default, so a program receives them only while its main
/// queue runs; any other queue receives them even while the main queue is blocked.
@Suite("Skopelos completions")
struct CompletionQueueTests {
    @Test func mainQueueCompletionsWaitForTheMainQueueToRun() async throws {
        let dal = try DALTest.service()
        let called = Box(false)
        let calledWhileMainWasBusy = await MainActor.run { () -> Bool in
            dal.writeSync({ context in User.SK_create(context).firstname = "Main" }, completion: { _ in called.value = true })
            usleep(200_000)   // the main queue is busy: the completion cannot run yet
            return called.value
        }
        #expect(calledWhileMainWasBusy == false)
        #expect(await DALTest.waitUntil { called.value })   // delivered once the main queue runs again
    }

    @Test func anotherCompletionQueueDoesNotNeedTheMainQueue() async throws {
        let queue = DispatchQueue(label: "completions")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let dal = try DALTest.service(completionQueue: queue)
        let onQueue = Box(false)
        let delivered = await MainActor.run { () -> Bool in
            let signal = DispatchSemaphore(value: 0)
            dal.writeSync({ context in User.SK_create(context).firstname = "Off main" }, completion: { error in
                onQueue.value = DispatchQueue.getSpecific(key: key) == 7 && error == nil
                signal.signal()
            })
            // The main queue stays blocked while waiting: only a non-main completion queue can answer.
            return signal.wait(timeout: .now() + 10) == .success
        }
        #expect(delivered)
        #expect(onQueue.value)
    }
}
