import Documents
import Foundation
import ModelFiles
import ObjectGraph

/// A small lending-library XML document made with the library (books, an author, a friend).
enum LibraryDocument {
    static func write(to url: URL, modelPath: String, storeIdentifier: String? = nil) throws {
        DocumentStack.registerStoreTypes()
        let model = try ModelLoader.load(from: URL(fileURLWithPath: modelPath)).model
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(
            type: "XML", url: url, options: storeIdentifier.map { ["storeIdentifier": $0] } ?? [:])
        let context = ManagedObjectContext(coordinator: coordinator)
        let author = try context.insertNewObject(forEntityName: "Author")
        try author.setValue(.string("Frank Herbert"), forKey: "name")
        let friend = try context.insertNewObject(forEntityName: "Friend")
        try friend.setValue(.string("Ann"), forKey: "name")
        for (n, (title, isbn)) in [("Dune", "0441013597"), ("Emma", "0141439580")].enumerated() {
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue(.string(title), forKey: "title")
            try book.setValue(.string(isbn), forKey: "isbn")
            try book.setValue(.uuid(UUID(uuidString: "00000000-0000-4000-8000-00000000000\(n + 1)")!), forKey: "id")
            try book.setValue(
                .date(Date(timeIntervalSinceReferenceDate: Double(n) * 86_400 - 1_000_000_000)), forKey: "published")
            try book.setObject(author, forKey: "author")
            if title == "Dune" { try book.setObject(friend, forKey: "borrower") }
        }
        try context.save()
    }
}
