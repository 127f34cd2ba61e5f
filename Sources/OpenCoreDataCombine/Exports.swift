// `import OpenCoreDataCombine` is what code ported from Apple platforms writes where it had `import Combine`: it
// brings OpenCombine's publishers and operators, its Foundation publishers (`NotificationCenter.default.publisher(for:)`,
// `Timer.publish`) and its Dispatch schedulers (`receive(on: DispatchQueue.main)`), and the Core Data publishers of
// this module.
//
//     import OpenCoreData
//     import OpenCoreDataCombine
//
//     let cancellable = NotificationCenter.default.publisher(for: .NSManagedObjectContextDidSave, object: context)
//         .sink { notification in print(notification.userInfo ?? [:]) }

@_exported import OpenCombine
@_exported import OpenCombineDispatch
@_exported import OpenCombineFoundation
