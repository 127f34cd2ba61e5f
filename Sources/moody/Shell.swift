import OpenCoreData
import Skopelos

/// `moody shell [--store PATH]`: the tour's operations as commands read from standard input, one per line.
/// Every change is a Skopelos write (saved when the command ends); the write context has an undo manager, so
/// `undo` and `redo` step through the changes, saved or not.
enum MoodyShell {
    static let help = """
        commands:
          places                 the places moods can be recorded at
          record PLACE [RATING]  record a mood (rating 0–4, default 2)
          list                   moods by country
          regions                countries and continents with their mood counts
          delete PLACE           delete the oldest mood of PLACE's country (empty countries and continents go too)
          undo / redo            undo or redo the last change
          help / quit
        """

    static func run(storeURL: URL) {
        let moody = MoodyStore(sqliteStack: "Moody", bundle: .module, storeURL: storeURL)
        moody.writeSync { context in
            let undoManager = UndoManager()
            undoManager.levelsOfUndo = 50
            context.undoManager = undoManager
        }
        var colors = ColorGenerator(seed: UInt64(Date().timeIntervalSince1970))
        print("Moody shell on \(storeURL.path) — type 'help' for the commands.")
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first?.lowercased() else { continue }
            do {
                switch command {
                case "help": print(help)
                case "quit", "exit": return
                case "places": print(Geography.places.map(\.name).joined(separator: ", "))
                case "list": try moody.read { try MoodyOperations.listMoods(in: $0) }
                case "regions": try moody.read { try MoodyOperations.listRegions(in: $0) }
                case "record":
                    guard words.count >= 2, let place = MoodyOperations.place(named: words[1]) else {
                        print("record needs a place: \(Geography.places.map(\.name).joined(separator: ", "))")
                        continue
                    }
                    guard let rating = words.count >= 3 ? Int16(words[2]) : 2, (0...4).contains(rating) else {
                        print("a rating is a number from 0 to 4")
                        continue
                    }
                    try moody.writeSync { context in _ = try MoodyOperations.record(at: place, rating: rating, colors: &colors, in: context) }
                case "delete":
                    guard words.count >= 2, let place = MoodyOperations.place(named: words[1]) else {
                        print("delete needs a place: \(Geography.places.map(\.name).joined(separator: ", "))")
                        continue
                    }
                    try moody.writeSync { context in
                        if let count = try MoodyOperations.deleteMood(at: place, in: context) {
                            print("deleted the oldest mood in \(place.name) (\(count) object(s) to delete)")
                        } else {
                            print("no mood in \(place.name)")
                        }
                    }
                case "undo", "redo":
                    moody.writeSync { context in
                        guard let undoManager = context.undoManager, command == "undo" ? undoManager.canUndo : undoManager.canRedo else {
                            print("nothing to \(command)")
                            return
                        }
                        command == "undo" ? undoManager.undo() : undoManager.redo()
                        context.processPendingChanges()
                        print("\(command == "undo" ? "undid" : "redid") the last change (\(context.insertedObjects.count) inserted, \(context.updatedObjects.count) updated, \(context.deletedObjects.count) deleted)")
                    }
                default:
                    print("unknown command '\(command)' — type 'help' for the commands")
                }
            } catch {
                print("error: \((error as NSError).localizedDescription)")
            }
        }
    }
}
