import Documents
import Foundation
import ObjectGraph

/// Issue 10: the persistent document with 100,000 objects of each store type — the first save (the whole file),
/// a save of one change, save as and save a copy, and the cost of an autosave (only the unsaved changes go to the
/// sidecar) against a save of the same changes.
enum DocumentBenchmarks {
    static func run() throws {
        let count = ProcessInfo.processInfo.environment["DOCUMENT_OBJECTS"].flatMap { Int($0) } ?? 100_000
        let model = try ObjectGraphBenchmarks.model()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "docutil-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // DOCUMENT_KEEP=1 keeps the documents, for profiling `docutil` on them.
        let keep = ProcessInfo.processInfo.environment["DOCUMENT_KEEP"] != nil
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
        if keep { print("documents in \(directory.path)") }
        print("\nPersistent documents (\(count) objects + 1 group)")
        for type in [DocumentType.xml, .binary, .sqlite] {
            let url = directory.appendingPathComponent("doc.\(type.fileExtensions[0])")
            let document = try PersistentDocument(creatingAt: url, ofType: type, model: model, program: "bench")
            let context = document.managedObjectContext
            context.undoManager = nil
            let group = try context.insertNewObject(forEntityName: "Group")
            try group.setAttributeValue(.string("all"), forKey: "title")
            var items: [ManagedObject] = []
            for i in 0..<count {
                let item = try context.insertNewObject(forEntityName: "Item")
                try ObjectGraphBenchmarks.setValues(i, on: item)
                try item.setObject(group, forKey: "group")
                items.append(item)
            }
            var start = DispatchTime.now().uptimeNanoseconds
            try document.save()
            let firstSave = seconds(since: start)
            report("\(type.name): first save (the whole document)", seconds: firstSave)

            var round = 0
            func change(_ n: Int) throws {
                round += 1
                for i in 0..<n {
                    try items[(i * 7919 + round) % count].setAttributeValue(.integer32(Int32(-round)), forKey: "rank")
                }
                context.processPendingChanges()
            }
            let oneSave = try Benchmark(name: "save one", iterations: 5).measure {
                try change(1)
                try document.save()
            }
            report("\(type.name): save of 1 changed object", seconds: oneSave, baseline: firstSave)
            let manySave = try Benchmark(name: "save 1000", iterations: 5).measure {
                try change(1000)
                try document.save()
            }
            report("\(type.name): save of 1,000 changed objects", seconds: manySave, baseline: firstSave)
            // Autosave: the same changes to the sidecar, measured alone (the changes are made outside the timing).
            var autosaveOne: [Double] = []
            var autosaveMany: [Double] = []
            for _ in 0..<5 {
                try change(1)
                start = DispatchTime.now().uptimeNanoseconds
                try document.autosave()
                autosaveOne.append(seconds(since: start))
                try change(1000)
                start = DispatchTime.now().uptimeNanoseconds
                try document.autosave()
                autosaveMany.append(seconds(since: start))
                try document.save()
            }
            report("\(type.name): autosave of 1 unsaved change", seconds: median(autosaveOne), baseline: oneSave)
            report(
                "\(type.name): autosave of 1,000 unsaved changes (cumulative)", seconds: median(autosaveMany),
                baseline: manySave)
            try change(10)
            let copy = directory.appendingPathComponent("copy.\(type.fileExtensions[0])")
            let saveCopy = try Benchmark(name: "copy", iterations: 3).measure {
                try document.saveCopy(to: copy, force: true)
            }
            report("\(type.name): save a copy (same type, 10 unsaved changes)", seconds: saveCopy, baseline: firstSave)
            try document.save()
            let moved = directory.appendingPathComponent("moved-\(type.name).binary")
            start = DispatchTime.now().uptimeNanoseconds
            try document.saveAs(to: moved, ofType: .binary)
            report("\(type.name): save as binary", seconds: seconds(since: start), baseline: firstSave)
            try document.close()
            start = DispatchTime.now().uptimeNanoseconds
            let reopened = try PersistentDocument(contentsOf: url, program: "bench")
            report("\(type.name): open", seconds: seconds(since: start))
            try reopened.close()
        }
    }

    static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
