import Documents
import Foundation
import ModelFiles
import ObjectGraph
import TestSupport
import Testing

@testable import DocUtilCLI

/// What `docutil` does with hostile, damaged or unusual inputs and outputs, run as real processes: a clear error
/// and a documented exit status, never a crash, a hang, a file replaced that should not be, or a file left behind.
struct SafetyCommandTests {
    static let model = Fixtures.project("Library.xcdatamodeld").path

    /// The bundled library as a SQLite document in a new folder.
    static func sqliteLibrary() throws -> URL {
        let directory = try Fixtures.temporaryDirectory()
        let url = directory.appendingPathComponent("library.sqlite")
        let result = try Docutil.run(["convert", Fixtures.project("Library.xml").path, url.path])
        #expect(result.status == 0, "\(result.stderr)")
        return url
    }

    static func listing(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func forceNeverReplacesADirectoryOrADevice() throws {
        let directory = try Fixtures.temporaryDirectory()
        let folder = directory.appendingPathComponent("out.sqlite")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(atPath: folder.appendingPathComponent("keep").path, contents: Data("x".utf8))
        )
        for (output, type) in [(folder.path, "sqlite"), (folder.path, "xml"), ("/dev/null", "binary")] {
            let result = try Docutil.run(
                ["convert", Fixtures.project("Library.xml").path, output, "--to", type, "--force"])
            #expect(result.status == 73, "\(output): \(result.stderr)")
        }
        #expect(try Self.listing(folder) == ["keep"])
        #expect(try Self.listing(directory) == ["out.sqlite"])
    }

    @Test func forceReplacesARegularFileWholeAndFollowsALink() throws {
        let directory = try Fixtures.temporaryDirectory()
        let target = directory.appendingPathComponent("target.sqlite")
        #expect(FileManager.default.createFile(atPath: target.path, contents: Data("old".utf8)))
        #expect(FileManager.default.createFile(atPath: target.path + "-wal", contents: Data("stale".utf8)))
        let link = directory.appendingPathComponent("link.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let result = try Docutil.run(["convert", Fixtures.project("Library.xml").path, link.path, "--force"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        // One complete file: no stale or new side files, no temporary file.
        #expect(try Self.listing(directory) == ["link.sqlite", "target.sqlite"])
        let info = try Docutil.run(["info", "--format", "json", target.path])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("\"Book\" : 2") || info.stdout.contains("\"Book\": 2"), "\(info.stdout)")
    }

    /// A link to a file that does not exist yet is written through, as `open` would: the file is made where the link
    /// points and the link stays a link (it was replaced by the new file). A loop of links is refused.
    @Test func aLinkToAMissingFileIsWrittenThroughAndALoopIsRefused() throws {
        let directory = try Fixtures.temporaryDirectory()
        let link = directory.appendingPathComponent("link.xml")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "sub/target.xml")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let result = try Docutil.run(["convert", Fixtures.project("Library.xml").path, link.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "sub/target.xml")
        #expect(try Self.listing(directory.appendingPathComponent("sub")) == ["target.xml"])
        let info = try Docutil.run(["info", link.path])
        #expect(info.status == 0, "\(info.stderr)")
        // Now that the target exists, writing again needs --force.
        #expect(try Docutil.run(["convert", Fixtures.project("Library.xml").path, link.path]).status == 73)
        let (a, b) = (directory.appendingPathComponent("a.xml"), directory.appendingPathComponent("b.xml"))
        try FileManager.default.createSymbolicLink(atPath: a.path, withDestinationPath: b.path)
        try FileManager.default.createSymbolicLink(atPath: b.path, withDestinationPath: a.path)
        let loop = try Docutil.run(["convert", Fixtures.project("Library.xml").path, a.path, "--force"])
        #expect(loop.status == 73, "\(loop.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: a.path) == b.path)
        // Read, a loop is the same error for every command (not a missing file).
        for arguments in [["info"], ["schema"], ["dump"], ["check"]] {
            let read = try Docutil.run(arguments + [a.path])
            #expect(read.status == 74, "\(arguments): \(read.stderr)")
            #expect(read.stderr.contains("symbolic links"), "\(arguments): \(read.stderr)")
        }
        #expect(try Self.listing(directory) == ["a.xml", "b.xml", "link.xml", "sub"])
    }

    /// The bytes of a SQLite store and its side files.
    static func storeBytes(_ url: URL) -> [String: Data] {
        var result: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            if let data = FileManager.default.contents(atPath: url.path + suffix) { result[suffix] = data }
        }
        return result
    }

    /// Apple's WAL stores with the `-wal` and `-shm` they were shipped with: every reading command leaves all three
    /// files byte-identical (their indexes were written on other machines, and a reader sharing them rebuilds them)
    /// and the folder as it was.
    @Test(
        .needsRealFixtures,
        arguments: [
            "carekit-apple__CareKit__SampleStore2.1.sqlite",
            "duckduckgo__BrowserServicesKit__Tests__BookmarksTests__Resources__Bookmarks_V1.sqlite",
            "duckduckgo__BrowserServicesKit__Tests__BookmarksTests__Resources__Bookmarks_V4.sqlite",
            "Karim-ezzedine__CartKit__Tests__CartKitStorageSwiftDataTests__LegacySwiftData__CartKitSwiftData_v1.sqlite",
        ])
    func readingARealWALStoreChangesNoneOfItsFiles(store: String) throws {
        let url = try Fixtures.copySQLiteStore("sqlite/\(store)")
        let folder = url.deletingLastPathComponent()
        let before = Self.storeBytes(url)
        let listing = try Self.listing(folder)
        #expect(before["-wal"] != nil && before["-shm"] != nil)
        for arguments in [["info"], ["schema"], ["dump"], ["check"], ["diff", url.path]] {
            let result = try Docutil.run(arguments + [url.path])
            #expect(result.status == 0 || result.status == 1, "\(arguments): \(result.stderr)")
            #expect(Self.storeBytes(url) == before, "\(arguments)")
        }
        #expect(try Self.listing(folder) == listing)
    }

    /// Output that cannot be written (standard output on a full disk: `/dev/full`) is an I/O error, 74, that names
    /// standard output — never a crash, and never a success that lost the output.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func aFullStandardOutputIsAnIOError() throws {
        let document = try Self.sqliteLibrary()
        for arguments in [
            ["dump", document.path], ["dump", document.path, "--format", "csv"],
            ["query", document.path, "--entity", "Book"], ["info", document.path], ["schema", document.path],
            ["predicate", "a == 1"], ["convert", document.path, "-"], ["open", document.path, "-c", "entities"],
            ["--help"],
        ] {
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            defer { try? full.close() }  // the test's own handle on a device: nothing to lose
            let result = try Docutil.run(arguments, output: full)
            #expect(result.status == 74, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("standard output"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"), "\(arguments)")
        }
    }

    /// A WAL store's `-wal` without its `-shm` (as a crashed writer or a partial copy leaves it) is read in place,
    /// its index built in memory: the same objects as with the index, nothing created beside it, nothing copied to
    /// the temporary folder, the files unchanged.
    @Test func aWALWithoutItsIndexIsReadInPlace() throws {
        DocumentStack.registerStoreTypes()
        let live = try Fixtures.temporaryDirectory().appendingPathComponent("live.sqlite")
        let folder = try Fixtures.temporaryDirectory()
        let withIndex = folder.appendingPathComponent("with.sqlite")
        let copy = folder.appendingPathComponent("without.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(model: try Company.model())
            let store = try coordinator.addPersistentStore(type: "SQLite", url: live)
            let context = ManagedObjectContext(coordinator: coordinator)
            try Company.department("Sales", staff: ["Ann", "Bob"], in: context)
            try context.save()
            for suffix in ["", "-wal", "-shm"] {
                try FileManager.default.copyItem(atPath: live.path + suffix, toPath: withIndex.path + suffix)
            }
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: live.path + suffix, toPath: copy.path + suffix)
            }
            store.close()
        }
        let before = Self.storeBytes(copy)
        #expect(before["-wal"]?.count ?? 0 > 32, "the -wal holds frames")
        let listing = try Self.listing(folder)
        // A temporary folder that does not exist: a read that made a private copy would fail.
        let noTemporary = try Fixtures.temporaryDirectory().appendingPathComponent("missing")
        let read = try Docutil.run(["dump", copy.path], environment: ["TMPDIR": noTemporary.path])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("Ann") && read.stdout.contains("Bob"))
        #expect(read.stdout == (try Docutil.run(["dump", withIndex.path])).stdout)
        #expect(Self.storeBytes(copy) == before)
        #expect(try Self.listing(folder) == listing)
    }

    @Test func aHostileXMLStoreNeverReachesSQLAndLeavesNothing() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = directory.appendingPathComponent("hostile.xml")
        let text = """
            <?xml version="1.0"?>
            <database><databaseInfo><version>134481920</version><UUID>ABC</UUID><nextObjectID>103</nextObjectID></databaseInfo>
            <object type="X&quot;(a); ATTACH DATABASE 'pwned.db' AS p; --" id="z102"><attribute name="n" type="string">a</attribute></object>
            </database>
            """
        try Data(text.utf8).write(to: input)
        let result = try Docutil.run(
            ["convert", input.path, directory.appendingPathComponent("out.sqlite").path], currentDirectory: directory)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("not a valid name"))
        #expect(try Self.listing(directory) == ["hostile.xml"])
    }

    @Test func aFIFOIsRefusedAtOnce() throws {
        let directory = try Fixtures.temporaryDirectory()
        let fifo = directory.appendingPathComponent("doc.sqlite")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        for arguments in [["info"], ["dump"], ["schema"], ["query", "--entity", "Book"]] {
            let result = try Docutil.run(arguments + [fifo.path], timeout: 20)
            #expect(result.status == 66, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("FIFO"))
        }
        let model = try Docutil.run(["dump", Fixtures.project("Library.xml").path, "--model", fifo.path], timeout: 20)
        #expect(model.status == 66, "\(model.stderr)")
    }

    @Test func entityDeclarationsAreRefusedInBoundedMemory() throws {
        let directory = try Fixtures.temporaryDirectory()
        var declarations = "<!ENTITY l0 \"lol\">\n"
        for i in 1...12 {
            declarations += "<!ENTITY l\(i) \"" + String(repeating: "&l\(i - 1);", count: 10) + "\">\n"
        }
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE database [\n\(declarations)]>
            <database><object type="BOOK" id="z1"><attribute name="title" type="string">x</attribute><attribute name="isbn" type="string">&l12;</attribute></object></database>
            """
        let url = directory.appendingPathComponent("laughs.xml")
        try Data(laughs.utf8).write(to: url)
        for arguments in [["dump", url.path, "--model", Self.model], ["info", url.path]] {
            let result = try Docutil.run(arguments, timeout: 30)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("internal subset"))
        }
        let deep =
            "<?xml version=\"1.0\"?>\n<database><databaseInfo><metadata><plist>"
            + String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000)
            + "</plist></metadata></databaseInfo></database>\n"
        let deepURL = directory.appendingPathComponent("deep.xml")
        try Data(deep.utf8).write(to: deepURL)
        let result = try Docutil.run(["info", deepURL.path], timeout: 30)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("nested deeper"))
    }

    @Test func unknownKeysBadPatternsAndUndecodableTemplatesExit65() throws {
        let document = Fixtures.project("Library.xml").path
        for arguments in [
            ["--where", "nosuchkey == 3"], ["--sort=nosuchkey"], ["--sort", "author.nosuch"],
            ["--where", "title MATCHES '('"],
        ] {
            let result = try Docutil.run(["query", document, "--entity", "Book"] + arguments)
            #expect(result.status == 65, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        // Templates archived in a compiled model filter; one that could not be decoded is an error.
        let directory = try Fixtures.temporaryDirectory()
        let books = directory.appendingPathComponent("books.xml")
        let mom = Fixtures.project("Archived/Templates.mom")
        DocumentStack.registerStoreTypes()
        let coordinator = PersistentStoreCoordinator(model: try ModelLoader.load(from: mom).model)
        try coordinator.addPersistentStore(type: "XML", url: books)
        let context = ManagedObjectContext(coordinator: coordinator)
        for (title, pages) in [("Short", 90), ("Long", 900)] {
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue(.string(title), forKey: "title")
            try book.setAttributeValue(.integer32(Int32(pages)), forKey: "pages")
        }
        try context.save()
        let long = try Docutil.run(
            ["query", books.path, "--entity", "Book", "--template", "LongBooks", "--var", "MIN=300", "--format", "csv"])
        #expect(long.status == 0, "\(long.stderr)")
        #expect(long.stdout.contains("Long") && !long.stdout.contains("Short"))
        let bad = try Docutil.run(["query", books.path, "--entity", "Book", "--template", "Undecodable"])
        #expect(bad.status == 65, "\(bad.stderr)")
        #expect(bad.stdout.isEmpty)
    }

    @Test func aLongNameIsNotEchoedWhole() throws {
        let name = String(repeating: "N", count: 20_000)
        let result = try Docutil.run(["query", Fixtures.project("Library.xml").path, "--entity", name])
        #expect(result.status == 65)
        #expect(result.stderr.count < 1_000, "\(result.stderr.count) characters")
        let predicate = try Docutil.run(["predicate", "a == " + String(repeating: "b + ", count: 4_000) + "))"])
        #expect(predicate.status == 65)
        #expect(predicate.stderr.count < 2_000, "\(predicate.stderr.count) characters")
        // A name with control characters is echoed escaped (C0, DEL and C1).
        let escape = try Docutil.run([
            "query", Fixtures.project("Library.xml").path, "--entity", "Bad\u{1B}[2J\u{7F}\u{9B}",
        ])
        #expect(escape.status == 65)
        #expect(escape.stderr.contains("Bad\\u{1b}[2J\\u{7f}\\u{9b}"), "\(escape.stderr)")
    }

    @Test func aValueThatDoesNotFitFailsTheDumpOrIsShownWithLenient() throws {
        let url = try Self.sqliteLibrary()
        try execute(url, "UPDATE ZBOOK SET ZPAGES = '12abc' WHERE ZTITLE = 'Dune'")
        let strict = try Docutil.run(["dump", url.path])
        #expect(strict.status == 65)
        #expect(strict.stderr.contains("Book.pages"), "\(strict.stderr)")
        let lenient = try Docutil.run(["dump", url.path, "--lenient", "--format", "text"])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stdout.contains("pages = \"12abc\""), "\(lenient.stdout)")
        #expect(lenient.stderr.contains("warning") && lenient.stderr.contains("Book.pages"))
    }

    @Test func aMissingEntityColumnExits65() throws {
        let url = try Self.sqliteLibrary()
        try execute(url, "ALTER TABLE ZBOOK DROP COLUMN Z_ENT")
        let result = try Docutil.run(["dump", url.path])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("Z_ENT"))
    }

    @Test func aBrokenEmbeddedModelNamesTheDocument() throws {
        let directory = try Fixtures.temporaryDirectory()
        let url = directory.appendingPathComponent("broken-model.xml")
        var text = try String(contentsOf: Fixtures.project("Library.xml"), encoding: .utf8)
        let key = "<key>DocutilStoreModel</key>"
        let range = try #require(text.range(of: key))
        let valueStart = try #require(text.range(of: "<string>", range: range.upperBound..<text.endIndex))
        text.replaceSubrange(valueStart, with: "<string>&lt;model&gt;&lt;entity")
        try Data(text.utf8).write(to: url)
        let result = try Docutil.run(["dump", url.path])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(url.path), "\(result.stderr)")
        #expect(result.stderr.contains("model in its metadata"), "\(result.stderr)")
    }

    /// Text from a file that holds control characters (an escape sequence a terminal would act on) is shown quoted
    /// and escaped by the text outputs (`info`, `query --format text`), never written to the terminal as it is; a
    /// quote in a string is escaped too, so a string's end is where it shows.
    @Test func textOutputEscapesControlCharactersFromTheFile() throws {
        let url = try Self.sqliteLibrary()
        try SQLiteScript.execute(url, "UPDATE Z_METADATA SET Z_UUID = 'A' || char(27) || '[31mB' || char(155) || 'C'")
        try SQLiteScript.execute(
            url, "UPDATE ZBOOK SET ZTITLE = 'Du' || char(27) || '[2J\"ne' || char(127) WHERE ZTITLE = 'Dune'")
        let info = try Docutil.run(["info", url.path])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains(#"uuid: "A\u001b[31mB\u009bC""#), "\(info.stdout)")
        let query = try Docutil.run(["query", url.path, "--entity", "Book", "--format", "text"])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout.contains(#"title = "Du\u001b[2J\"ne\u007f""#), "\(query.stdout)")
        for output in [info.stdout, query.stdout] {
            #expect(!output.unicodeScalars.contains { [27, 127, 155].contains($0.value) }, "\(output)")
        }
    }

    /// Text outputs keep their layout (newlines, tabs) and show every other control character escaped.
    @Test func terminalTextEscapesControlsButKeepsLayout() {
        #expect(TerminalText.safe("plain\ttext\nnext") == "plain\ttext\nnext")
        #expect(TerminalText.safe("a\u{1B}[2J\u{7F}\u{9B}\r\u{0}z") == "a\\u{1b}[2J\\u{7f}\\u{9b}\\u{d}\\u{0}z")
        #expect(TerminalText.safe("caf\u{E9} \u{A0}") == "caf\u{E9} \u{A0}")
    }

    @Test func aStoreUUIDWithSpacesGivesValidURIs() throws {
        let directory = try Fixtures.temporaryDirectory()
        let url = directory.appendingPathComponent("spaced.xml")
        try LibraryDocument.write(to: url, modelPath: Self.model, storeIdentifier: "A B/C")
        let result = try Docutil.run(["dump", url.path, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("x-coredata://A%20B%2FC/Book/p"), "\(result.stdout.prefix(400))")
    }

    @Test func notANumberIsWrittenAsAStringJSONReads() throws {
        let directory = try Fixtures.temporaryDirectory()
        let url = directory.appendingPathComponent("nan.xml")
        DocumentStack.registerStoreTypes()
        let coordinator = PersistentStoreCoordinator(
            model: try ModelLoader.load(from: URL(fileURLWithPath: Self.model)).model)
        try coordinator.addPersistentStore(type: "XML", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for (title, weight) in [("Nan", Double.nan), ("Up", .infinity), ("Down", -.infinity)] {
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue(.string(title), forKey: "title")
            try book.setValue(.string("0441013597"), forKey: "isbn")
            try book.setValue(.uuid(UUID()), forKey: "id")
            try book.setValue(.double(weight), forKey: "weight")
        }
        try context.save()
        let result = try Docutil.run(["dump", url.path, "--entity", "Book"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"weight\": \"NaN\""))
        #expect(result.stdout.contains("\"weight\": \"Infinity\""))
        #expect(result.stdout.contains("\"weight\": \"-Infinity\""))
        #expect(!result.stdout.contains("\"nan\""))
        #expect(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) is [String: Any])
    }

    @Test func theSmallestIntegerPrintsCanonically() throws {
        let result = try Docutil.run(["predicate", "x == -9223372036854775808"])
        #expect(result.status == 0)
        #expect(result.stdout == "x == -9223372036854775808\n")
    }

    @Test func interruptedReadsLeaveNothingInTheTemporaryFolder() throws {
        // A store whose WAL lost its index: `docutil` reads it in place (see `aWALWithoutItsIndexIsReadInPlace`).
        let url = try Self.sqliteLibrary()
        try execute(url, "PRAGMA journal_mode = WAL")
        let folder = url.deletingLastPathComponent()
        let copy = folder.appendingPathComponent("copy.sqlite")
        try Self.withOpenWriter(url) {
            try FileManager.default.copyItem(at: url, to: copy)
            try FileManager.default.copyItem(atPath: url.path + "-wal", toPath: copy.path + "-wal")
        }
        let temporary = try Fixtures.temporaryDirectory()
        // A document read from standard input is read from a scratch copy. Interrupted while writing its output:
        // dump blocks on a pipe nobody reads, then gets SIGINT or SIGTERM.
        for signal in [SIGINT, SIGTERM] {
            let process = Process()
            process.executableURL = Docutil.executable
            process.arguments = ["dump", "-", "--format", "text"]
            process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
            process.standardInput = try FileHandle(forReadingFrom: url)
            process.standardOutput = Pipe()
            process.standardError = FileHandle.nullDevice
            try process.run()
            var waited = 0
            while try Self.listing(temporary).isEmpty && waited < 200 {
                usleep(20_000)
                waited += 1
            }
            #expect(waited < 200, "a scratch folder was made (signal \(signal))")
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            #expect(try Self.listing(temporary).isEmpty, "after signal \(signal)")
        }
        // Killed outright, a folder stays behind; the next run that makes one sweeps it. The document read from
        // standard input is still held when the command ends (a read document is let go with the process): its
        // folder goes at exit all the same.
        let stale = temporary.appendingPathComponent("docutil-stdin-999999998-0badf00d")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: true)
        let piped = try Docutil.run(
            ["query", "-", "--entity", "Book"], environment: ["TMPDIR": temporary.path],
            input: try Data(contentsOf: url))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains("\"entity\": \"Book\""))
        #expect(try Self.listing(temporary).isEmpty)
        // The WAL without its index: read in place, nothing in the temporary folder, nothing beside it.
        let result = try Docutil.run(["info", copy.path], environment: ["TMPDIR": temporary.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.listing(temporary).isEmpty)
        #expect(try Self.listing(folder).sorted() == ["copy.sqlite", "copy.sqlite-wal", "library.sqlite"])
    }

    /// Runs `body` while a connection holds the store open, so its WAL file exists with frames.
    static func withOpenWriter(_ url: URL, _ body: () throws -> Void) throws {
        DocumentStack.registerStoreTypes()
        let coordinator = PersistentStoreCoordinator(
            model: try ModelLoader.load(from: URL(fileURLWithPath: model)).model)
        try coordinator.addPersistentStore(type: "SQLite", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for i in 0..<400 {
            let friend = try context.insertNewObject(forEntityName: "Friend")
            try friend.setValue(.string("friend \(i) " + String(repeating: "x", count: 200)), forKey: "name")
        }
        try context.save()
        try body()
    }
}

func execute(_ url: URL, _ sql: String) throws {
    try SQLiteScript.execute(url, sql)
}

/// A store crafted so that reading each object's to-many relationship on its own is slow: its foreign-key index is
/// dropped, so each read scans the whole table. Reading the store whole must stay linear.
struct CraftedStoreTests {
    @Test func aStoreWithoutItsIndexesDumpsInLinearTime() throws {
        DocumentStack.registerStoreTypes()
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("unindexed.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try Company.model())
        let store = try coordinator.addPersistentStore(type: "SQLite", url: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try Company.department("Seed", staff: ["Seed"], in: context)
        try context.save()
        store.close()
        // 20,000 departments and 40,000 employees, written by SQL, and no index on the employees' department key:
        // one query per department would read 800 million rows.
        try execute(
            url,
            """
            DROP INDEX IF EXISTS ZEMPLOYEE_ZDEPARTMENT_INDEX;
            WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 20001)
            INSERT INTO ZDEPARTMENT (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT i, 1, 1, 'd' || i FROM n;
            WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 40001)
            INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZNAME, ZSALARY, ZDEPARTMENT) SELECT i, 2, 1, 'e' || i, 1000, i / 2 + 1 FROM n;
            UPDATE Z_PRIMARYKEY SET Z_MAX = 40001;
            """)
        let result = try Docutil.run(["dump", url.path, "--format", "csv"], timeout: 120)
        #expect(result.status == 0, "\(result.status) \(result.stderr.prefix(300))")
        // The header, the seed department and employee, and the 60,000 made by SQL.
        #expect(result.stdout.components(separatedBy: "\r\n").count - 1 == 60_003)
    }
}
