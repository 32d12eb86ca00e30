import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

/// `docutil open`, driven through real processes: scripts, JSON, exit statuses, input that arrives slowly, a
/// terminal, the lock, autosave and recovery after a kill.
struct OpenCommandTests {
    /// A copy of the bundled library document in a new folder.
    static func library(_ name: String = "library.xml") throws -> URL {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent(name)
        try FileManager.default.copyItem(at: Fixtures.project("Library.xml"), to: url)
        return url
    }

    static func json(_ line: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any])
    }

    static let newBook =
        #"insert Book title="Dune Messiah" pages=256 isbn="0441172695" id="6F9619FF-8B86-D011-B42D-00C04FC964FF""#

    @Test func aScriptedSessionEditsAndSaves() throws {
        let url = try Self.library()
        let result = try Docutil.run([
            "open", url.path,
            "-c", "# a comment, then a blank line", "-c", "",
            "-c", Self.newBook,
            "-c", "set Book/t1 author=Author/p102 rating=4.5 published='1969-10-01T00:00:00Z'",
            "-c", "update Book where pages == 100 set readCount=3",
            "-c", "status", "-c", "save", "-c", "list Book where title BEGINSWITH 'Dune' sort -pages",
            "-c", "show Book/t1",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Book/t") == true)
        #expect(lines.contains("2 updated"))
        #expect(lines.contains("edited: yes"))
        #expect(lines.contains("inserted: 1"))
        #expect(lines.contains { $0.hasPrefix("Book/p") && $0.contains("title=\"Dune Messiah\"") })
        // The short reference printed by insert keeps naming the object after the save.
        #expect(lines.contains("  author -> Author/p102"))
        // What was saved is in the file.
        let dump = try Docutil.run(["query", url.path, "--entity", "Book", "--where", "title == 'Dune Messiah'"])
        #expect(dump.stdout.contains("\"rating\" : 4.5") || dump.stdout.contains("\"rating\": 4.5"))
        #expect(dump.stdout.contains("1969-10-01T00:00:00"))
        let read = try Docutil.run(["query", url.path, "--entity", "Book", "--where", "readCount == 3"])
        #expect(read.stdout.components(separatedBy: "\"entity\"").count - 1 == 2)
    }

    /// Saving as a file in a folder that does not exist says so (73), and makes nothing.
    @Test func saveAsIntoAMissingFolderSaysTheFolderIsMissing() throws {
        let document = try Self.library()
        let missing = document.deletingLastPathComponent().appendingPathComponent("nowhere")
        let result = try Docutil.run(
            ["open", document.path, "-c", "save-as \(missing.appendingPathComponent("copy.xml").path)"])
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("the folder \(missing.path) does not exist"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test func jsonOutputIsOneObjectPerLine() throws {
        let url = try Self.library()
        let result = try Docutil.run([
            "open", url.path, "--format", "json", "-c", Self.newBook, "-c", "status", "-c", "list Author",
            "-c", "show Author/p102", "-c", "entities", "-c", "undo", "-c", "status",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        let inserted = try Self.json(lines[0])
        #expect((inserted["ref"] as? String)?.hasPrefix("Book/t") == true)
        #expect((inserted["uri"] as? String)?.hasPrefix("x-coredata:///Book/t") == true)
        let status = try Self.json(lines[1])
        #expect(status["path"] as? String == url.path)
        #expect(status["storeType"] as? String == "XML")
        #expect(status["edited"] as? Bool == true)
        #expect(status["inserted"] as? Int == 1)
        #expect((status["undo"] as? String)?.hasPrefix("insert Book") == true)
        #expect(status["redo"] is NSNull)
        let authors = try #require(try Self.json(lines[2])["objects"] as? [[String: Any]])
        #expect(authors.count == 1 && authors[0]["entity"] as? String == "Author")
        #expect((authors[0]["values"] as? [String: Any])?["name"] as? String == "Frank Herbert")
        #expect((try Self.json(lines[3])["objects"] as? [Any])?.count == 1)
        let entities = try #require(try Self.json(lines[4])["entities"] as? [[String: Any]])
        #expect(entities.contains { $0["name"] as? String == "Book" && $0["count"] as? Int == 3 })
        let after = try Self.json(lines[5])
        #expect(after["edited"] as? Bool == false)
        #expect(after["undo"] is NSNull)
        #expect((after["redo"] as? String)?.hasPrefix("insert Book") == true)
    }

    @Test func eachKindOfFailureHasItsStatusAndNamesTheLine() throws {
        let url = try Self.library()
        let original = try Data(contentsOf: url)
        func run(_ commands: [String], _ extra: [String] = []) throws -> Docutil.Result {
            try Docutil.run(["open", url.path] + extra + commands.flatMap { ["-c", $0] })
        }
        let unknown = try run(["status", "frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("line 2: frobnicate: unknown command"))
        #expect(try run(["set Author/p102 born='not a date'"]).status == 65)
        #expect(try run(["set Author/p102 nosuchkey=1"]).status == 65)
        #expect(try run(["show Author/p999"]).status == 65)
        #expect(try run(["list Book where nosuchkey == 1"]).status == 65)
        #expect(try run(["list Book where pages >"]).status == 65)
        // A save refused by validation lists every failed rule.
        let invalid = try run(["insert Book title='x'", "save"])
        #expect(invalid.status == 65)
        #expect(invalid.stderr.contains("Book.id") && invalid.stderr.contains("Book.isbn"))
        #expect(try run(["undo"]).status == 64)
        #expect(try run(["quit"]).status == 0)
        #expect(try run(["set Author/p102 email='a@b.c'", "quit"]).status == 64)
        let folder = url.deletingLastPathComponent().appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(try run(["save-as \(folder.path)"]).status == 73)
        let missing = try Docutil.run(["open", url.deletingLastPathComponent().appendingPathComponent("no.xml").path])
        #expect(missing.status == 66)
        // Nothing above saved anything.
        #expect(try Data(contentsOf: url) == original)
        // --keep-going runs every command and exits with the first failure's status.
        let going = try run(["frobnicate", "set Author/p102 born='x'", "status"], ["--keep-going"])
        #expect(going.status == 64)
        #expect(going.stdout.contains("edited: no"))
    }

    @Test func aFailingCommandChangesNothing() throws {
        let url = try Self.library()
        let result = try Docutil.run([
            "open", url.path, "-c", "set Author/p102 email='x@y.z' born='not a date'", "-c", "status",
            "--keep-going",
        ])
        #expect(result.status == 65)
        #expect(result.stdout.contains("edited: no"))
        #expect(result.stdout.contains("undo: -"))
    }

    @Test func theEndOfInputDiscardsUnsavedChangesWithAWarning() throws {
        let url = try Self.library()
        let original = try Data(contentsOf: url)
        let result = try Docutil.run(["open", url.path, "-c", "set Author/p102 email='x@y.z'"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("unsaved changes discarded"))
        #expect(try Data(contentsOf: url) == original)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == [
                url.lastPathComponent
            ])
    }

    @Test func linesRunAsTheyArrive() throws {
        let url = try Self.library()
        let child = try ChildProcess(Docutil.executable, ["open", url.path])
        // Each answer comes before the next line is sent: the session does not wait for the end of its input.
        child.send("status\n")
        #expect(child.read(until: "redo: -\n", timeout: 20) != nil)
        child.send("\(Self.newBook)\n")
        let ref = try #require(child.readLine(timeout: 20))
        #expect(ref.hasPrefix("Book/t"))
        child.send("set \(ref) pages=300\n")
        child.send("show \(ref)\n")
        #expect(child.read(until: "pages = 300", timeout: 20) != nil)
        child.send("save\n")
        child.send("quit\n")
        #expect(child.wait() == 0)
        let check = try Docutil.run(["query", url.path, "--entity", "Book", "--where", "pages == 300"])
        #expect(check.stdout.contains("Dune Messiah"))
    }

    @Test func aTerminalGetsAPromptAndALineEditor() throws {
        let url = try Self.library()
        let child = try ChildProcess(Docutil.executable, ["open", url.path], terminal: true)
        #expect(child.read(until: "docutil> ", timeout: 20) != nil)
        child.send("stat")
        child.send("\u{1B}[D\u{1B}[C")  // left, right: the cursor moves, the line stays
        child.send("us\r")
        #expect(child.read(until: "edited: no", timeout: 20) != nil)
        #expect(child.read(until: "docutil> ", timeout: 20) != nil)
        // An error does not end an interactive session.
        child.send("frobnicate\r")
        #expect(child.read(until: "unknown command", timeout: 20) != nil)
        #expect(child.read(until: "docutil> ", timeout: 20) != nil)
        // The up arrow brings back an earlier line; Ctrl-U clears what is typed, Ctrl-C drops a line.
        child.send("junk\u{15}\u{1B}[A\u{1B}[A\r")
        #expect(child.read(until: "edited: no", timeout: 20) != nil)
        #expect(child.read(until: "docutil> ", timeout: 20) != nil)
        child.send("frobnicate again\u{03}")
        #expect(child.read(until: "docutil> ", timeout: 20) != nil)
        child.send("quit\r")
        #expect(child.wait() == 0)
    }

    @Test func aSecondWriterIsRefusedAndReadersAreNot() throws {
        let url = try Self.library()
        let holder = try ChildProcess(Docutil.executable, ["open", url.path])
        holder.send("status\n")
        #expect(holder.read(until: "redo: -\n", timeout: 20) != nil)
        let second = try Docutil.run(["open", url.path, "-c", "status"])
        #expect(second.status == 75)
        #expect(second.stderr.contains("process \(holder.process.processIdentifier)"))
        let info = try Docutil.run(["info", url.path])
        #expect(info.stdout.contains("lock") && info.stdout.contains("\(holder.process.processIdentifier)"))
        let reader = try Docutil.run(["open", url.path, "--read-only", "-c", "list Author"])
        #expect(reader.status == 0)
        #expect(reader.stdout.contains("Frank Herbert"))
        // A holder killed outright leaves a lock file that blocks no one.
        holder.signal(SIGKILL)
        holder.wait()
        #expect(try Docutil.run(["open", url.path, "-c", "status"]).status == 0)
    }

    @Test func aFileChangedOnDiskIsNotOverwrittenUnlessForced() throws {
        let url = try Self.library()
        let child = try ChildProcess(Docutil.executable, ["open", url.path, "--keep-going"])
        child.send("set Author/p102 email='a@b.cd'\nstatus\n")
        #expect(child.read(until: "redo: -\n", timeout: 20) != nil)
        // Someone else rewrites the file.
        var text = try String(contentsOf: url, encoding: .utf8)
        text = text.replacingOccurrences(of: "Frank Herbert", with: "F. Herbert")
        try text.write(to: url, atomically: true, encoding: .utf8)
        child.send("save\nstatus\n")
        #expect(child.read(until: "redo: -\n", timeout: 20)?.contains("edited: yes") == true)
        child.send("save --force\nquit\n")
        #expect(child.wait() == 75)
        #expect(child.errorOutput.contains("changed on disk"))
        let check = try Docutil.run(["query", url.path, "--entity", "Author"])
        #expect(check.stdout.contains("a@b.cd"))
    }

    /// A list of keys or objects with an empty element (`sort title,,pages`, `{a,,b}`) is refused, never read as the
    /// list without it; the same options in `query` too.
    @Test func anEmptyElementOfAListIsRefused() throws {
        let url = try Self.library()
        for (command, status, message) in [
            ("list Book sort title,,pages", Int32(64), "'title,,pages' has an empty key"),
            ("list Book sort title,", 64, "'title,' has an empty key"),
            ("set Author/p102 books={Book/p104,,Book/p105}", 65, "'' is not an object reference"),
        ] {
            let result = try Docutil.run(["open", url.path, "-c", command])
            #expect(result.status == status, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
        }
        let sorted = try Docutil.run(["open", url.path, "-c", "list Book sort -title, pages"])
        #expect(sorted.status == 0 && sorted.stdout.hasPrefix("Book/p105"), "\(sorted.stdout)\(sorted.stderr)")
        let query = try Docutil.run(["query", url.path, "--entity", "Book", "--sort", "title,,pages"])
        #expect(query.status == 64 && query.stderr.contains("has an empty key"), "\(query.stderr)")
    }

    /// The time an autosave says it was written is shown as `docutil info` shows it, whatever the sidecar holds: a
    /// date past the calendar's years (or not a number) as its seconds, never an empty or made-up date.
    @Test(arguments: [(Double.nan, "@nan"), (.infinity, "@inf"), (1e300, "@1e+300"), (0, "2001-01-01T00:00:00Z")])
    func anAutosavesTimeIsShownAsItIs(written: Double, shown: String) throws {
        let url = try Self.library()
        do {
            let document = try PersistentDocument(contentsOf: url)
            try #require(try document.managedObjectContext.fetch(FetchRequest(entityName: "Author")).first)
                .setValue(.string("x@y.z"), forKey: "email")
            try document.autosave()
            guard case .dictionary(var root) = try PropertyList.read(try Data(contentsOf: document.autosaveURL)) else {
                Issue.record("the sidecar is not a dictionary")
                return
            }
            root["written"] = .real(written)
            try BinaryPropertyListWriter.data(.dictionary(root)).write(to: document.autosaveURL)
        }
        let opened = try Docutil.run(["open", url.path, "-c", "status"])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stderr.contains("an autosaved version from \(shown) (process"), "\(opened.stderr)")
        let info = try Docutil.run(["info", url.path])
        #expect(info.stdout.contains("\"written\":\"\(shown.hasPrefix("@") ? shown : "2001-01-01T00:00:00.000Z")\""))
    }

    @Test func autosaveSurvivesAKillAndIsRecovered() throws {
        let url = try Self.library()
        let original = try Data(contentsOf: url)
        let child = try ChildProcess(Docutil.executable, ["open", url.path, "--autosave", "0.2"])
        child.send("set Author/p102 email='kept@after.kill'\n\(Self.newBook)\nstatus\n")
        #expect(child.read(until: "redo: -\n", timeout: 20) != nil)
        let sidecar = url.deletingLastPathComponent().appendingPathComponent(".library.xml.docutil-autosave")
        // Autosaves follow the changes within the interval: wait for one that holds both commands.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let info = try Docutil.run(["info", url.path, "--format", "json"])
            if info.stdout.contains("\"inserted\" : 1") || info.stdout.contains("\"inserted\": 1") { break }
            usleep(100_000)
        }
        #expect(FileManager.default.fileExists(atPath: sidecar.path))
        child.signal(SIGKILL)
        #expect(child.wait() == 128 + SIGKILL)
        // The document itself was never written.
        #expect(try Data(contentsOf: url) == original)
        let info = try Docutil.run(["info", url.path])
        #expect(info.stdout.contains("autosave"))
        let reopened = try Docutil.run([
            "open", url.path, "--format", "json", "-c", "status", "-c", "recover", "-c", "status", "-c", "save",
        ])
        #expect(reopened.status == 0, "\(reopened.stderr)")
        // (Recovering and then ending without a save keeps the autosave: what a crash left is never dropped.)
        #expect(reopened.stderr.contains("autosaved version"))
        let lines = reopened.stdout.split(separator: "\n").map(String.init)
        #expect(try Self.json(lines[0])["edited"] as? Bool == false)
        let recovered = try Self.json(lines[1])
        #expect(recovered["inserted"] as? Int == 1 && recovered["updated"] as? Int == 1)
        #expect(try Self.json(lines[2])["edited"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: sidecar.path))
        let check = try Docutil.run(["query", url.path, "--entity", "Book", "--where", "title == 'Dune Messiah'"])
        #expect(check.stdout.contains("0441172695"))
        #expect(try Docutil.run(["query", url.path, "--entity", "Author"]).stdout.contains("kept@after.kill"))
    }

    @Test func sigtermAutosavesBeforeTheSessionEnds() throws {
        let url = try Self.library()
        let child = try ChildProcess(Docutil.executable, ["open", url.path])
        child.send("set Author/p102 email='term@x.y'\nstatus\n")
        #expect(child.read(until: "redo: -\n", timeout: 20) != nil)
        child.signal(SIGTERM)
        #expect(child.wait() == 128 + SIGTERM)
        #expect(child.errorOutput.contains("autosaved"))
        let found = try Docutil.run([
            "open", url.path, "-c", "recover", "-c", "show Author/p102", "-c", "discard-autosave",
        ])
        #expect(found.stdout.contains("term@x.y"))
        #expect(
            !FileManager.default.fileExists(
                atPath: url.deletingLastPathComponent().appendingPathComponent(".library.xml.docutil-autosave").path))
    }

    @Test func createStartsANewDocumentOfEachType() throws {
        let folder = try Fixtures.temporaryDirectory()
        for type in ["xml", "binary", "sqlite"] {
            let url = folder.appendingPathComponent("new-\(type).doc")
            let result = try Docutil.run([
                "open", url.path, "--create", "--type", type, "--model", Fixtures.project("Library.xcdatamodeld").path,
                "-c", "insert Author name='Ursula'", "-c", "save", "-c", "entities",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Author 1"))
            let check = try Docutil.run(["query", url.path, "--entity", "Author"])
            #expect(check.stdout.contains("Ursula"))
            // Quitting without a save writes nothing.
            let unsaved = folder.appendingPathComponent("unsaved-\(type).doc")
            _ = try Docutil.run([
                "open", unsaved.path, "--create", "--type", type, "--model",
                Fixtures.project("Library.xcdatamodeld").path, "-c", "insert Author name='Le Guin'",
            ])
            #expect(!FileManager.default.fileExists(atPath: unsaved.path))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["new-binary.doc", "new-sqlite.doc", "new-xml.doc"])
    }

    @Test func aNewDocumentKilledBeforeItsFirstSaveIsRecoveredByCreatingItAgain() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("new.sqlite")
        let model = Fixtures.project("Library.xcdatamodeld").path
        let child = try ChildProcess(Docutil.executable, ["open", url.path, "--create", "--model", model])
        child.send("insert Author name='Ursula'\nautosave\nstatus\n")
        let status = child.read(until: "redo: -\n", timeout: 20)
        // `status` names the new document's type, not the memory its objects wait in before the first save.
        #expect(status?.contains("type: SQLite") == true, "\(status ?? "")")
        child.signal(SIGKILL)
        #expect(child.wait() == 128 + SIGKILL)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        // Opening the path says where the work is; creating the document there again finds it.
        let missing = try Docutil.run(["open", url.path, "-c", "status"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("an autosaved new document is beside it"), "\(missing.stderr)")
        let created = try Docutil.run([
            "open", url.path, "--create", "--model", model, "-c", "recover", "-c", "save",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr.contains("an autosaved version from"), "\(created.stderr)")
        #expect(try Docutil.run(["query", url.path, "--entity", "Author"]).stdout.contains("Ursula"))
    }

    @Test func aRecoveredAutosaveStaysUntilSavedOrDiscarded() throws {
        let url = try Self.library()
        let child = try ChildProcess(Docutil.executable, ["open", url.path])
        child.send("set Author/p102 email='kept@x.y'\nautosave\nstatus\n")
        #expect(child.read(until: "redo: -\n", timeout: 20) != nil)
        child.signal(SIGKILL)
        child.wait()
        let sidecar = url.deletingLastPathComponent().appendingPathComponent(".library.xml.docutil-autosave")
        // Recovered, then the session ends without saving: the autosave is still there.
        let first = try Docutil.run(["open", url.path, "-c", "recover", "-c", "quit --discard"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: sidecar.path))
        // Recovered and reverted: still there, and reported again.
        let second = try Docutil.run(["open", url.path, "-c", "recover", "-c", "revert", "-c", "autosave"])
        #expect(second.status == 75)
        #expect(FileManager.default.fileExists(atPath: sidecar.path))
        let third = try Docutil.run(["open", url.path, "-c", "recover", "-c", "save"])
        #expect(third.status == 0)
        #expect(!FileManager.default.fileExists(atPath: sidecar.path))
        #expect(try Docutil.run(["query", url.path, "--entity", "Author"]).stdout.contains("kept@x.y"))
    }
}
