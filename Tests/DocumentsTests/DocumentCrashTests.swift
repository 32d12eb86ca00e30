import Documents
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Saves interrupted by SIGKILL at many points, and saves that run out of space, in real processes (`docutil open`
/// as the child): the document is always the previous one or the new one, never anything else.
struct DocumentCrashTests {
    static let employees = 1500
    static let executable = Fixtures.builtExecutable("docutil")

    /// A saved document with one department and `employees` employees, all at salary 1000.
    static func document(_ kind: Kind, package: Bool = false) throws -> URL {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent(package ? "crash.pkg" : "crash.\(kind.ext)")
        let document = try PersistentDocument(
            creatingAt: url, ofType: kind.type, model: try Company.model(), asPackage: package)
        let context = document.managedObjectContext
        let department = try context.insertNewObject(forEntityName: "Department")
        try department.setValue(.string("All"), forKey: "name")
        for i in 0..<employees {
            let employee = try context.insertNewObject(forEntityName: "Employee")
            try employee.setValue(.string("Employee \(i)"), forKey: "name")
            try employee.setObject(department, forKey: "department")
        }
        try document.save()
        try document.close()
        return url
    }

    /// The salaries in a document as read by a new process's worth of code: opening must work.
    static func salaries(_ url: URL) throws -> (count: Int, values: Set<AttributeValue>) {
        let reader = try PersistentDocument(contentsOf: url, readOnly: true)
        let staff = try reader.managedObjectContext.fetch(FetchRequest(entityName: "Employee"))
        return (staff.count, Set(try staff.map { try $0.attributeValue(forKey: "salary") }))
    }

    /// Copies a document (its file alone: documents we write are single files between saves) to a new folder.
    static func copy(_ url: URL) throws -> URL {
        let target = try Fixtures.temporaryDirectory().appendingPathComponent(url.lastPathComponent)
        try FileManager.default.copyItem(at: url, to: target)
        return target
    }

    /// Starts a session that has changed every salary to `salary` and is ready to save.
    static func session(_ url: URL, salary: Int) throws -> ChildProcess {
        let child = try ChildProcess(executable, ["open", url.path])
        child.send("update Employee set salary=\(salary)\nstatus\n")
        guard child.read(until: "redo:", timeout: 60) != nil, child.readLine(timeout: 60) != nil else {
            throw POSIXError(.ETIMEDOUT)
        }
        return child
    }

    @Test(arguments: Kind.all.map { ($0, false) } + Kind.all.map { ($0, true) })
    func aSaveKilledAnywhereLeavesTheOldOrTheNewDocument(kind: Kind, package: Bool) throws {
        let base = try Self.document(kind, package: package)
        // How long a save takes here, from the command to the answer after it.
        let probe = try Self.session(try Self.copy(base), salary: 7)
        let started = Date()
        probe.send("save\nstatus\n")
        #expect(probe.read(until: "redo:", timeout: 60) != nil)
        let saveTime = Date().timeIntervalSince(started)
        probe.send("quit\n")
        probe.wait()
        var outcomes = (old: 0, new: 0)
        var generator = SystemRandomNumberGenerator()
        for run in 0..<50 {
            let url = try Self.copy(base)
            let child = try Self.session(url, salary: 2000 + run)
            child.send("save\n")
            usleep(UInt32(Double.random(in: 0...(saveTime * 1.2), using: &generator) * 1_000_000))
            child.signal(SIGKILL)
            child.wait()
            let (count, values) = try Self.salaries(url)
            #expect(count == Self.employees, "run \(run): \(count) employees")
            if values == [.integer32(1000)] {
                outcomes.old += 1
            } else if values == [.integer32(Int32(2000 + run))] {
                outcomes.new += 1
            } else {
                Issue.record("run \(run): a mixed document: \(values.count) different salaries")
            }
            // Only the lock file and stale temporary files (removed by the next writer) may be left beside it.
            let storeFolder = package ? DocumentPackage.storeURL(in: url).deletingLastPathComponent() : nil
            let inside = try storeFolder.map { try FileManager.default.contentsOfDirectory(atPath: $0.path) } ?? []
            #expect(
                inside.allSatisfy {
                    $0 == DocumentPackage.storeName || $0.contains(".docutil-tmp-")
                        || $0.hasPrefix(DocumentPackage.storeName + "-")
                }, "run \(run): \(inside)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
                .filter {
                    $0 != url.lastPathComponent && !$0.hasSuffix(".docutil-lock") && !$0.contains(".docutil-tmp-")
                        && $0 != url.lastPathComponent + "-journal"
                }
            #expect(leftovers.isEmpty, "run \(run): \(leftovers)")
            // The next writer opens it and sweeps what the killed save left.
            let next = try PersistentDocument(contentsOf: url)
            try next.close()
            let after = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            #expect(!after.contains { $0.contains(".docutil-tmp-") }, "run \(run): \(after)")
        }
        #expect(outcomes.old + outcomes.new == 50)
        print(
            "\(kind)\(package ? " package" : ""): save \(Int(saveTime * 1000)) ms; killed saves left the old document \(outcomes.old) times, the new \(outcomes.new)"
        )
    }

    @Test(arguments: Kind.all)
    func aSaveThatRunsOutOfSpaceLeavesTheFileAndTheDocumentEdited(kind: Kind) throws {
        let url = try Self.document(kind)
        let original = try Data(contentsOf: url)
        // RLIMIT_FSIZE (ulimit -f, in KiB) below the document's size: writes past it fail with EFBIG, as on a full
        // disk; SIGXFSZ is ignored so that the write returns the error instead of ending the process.
        let limit = max(1, original.count / 1024 / 3)
        let child = try ChildProcess(
            URL(fileURLWithPath: "/bin/bash"),
            [
                "-c", "trap '' XFSZ; ulimit -f \(limit); exec \"$0\" open \"$1\" --keep-going", Self.executable.path,
                url.path,
            ])
        child.send("update Employee set salary=3\nsave\nstatus\nquit --discard\n")
        let status = child.wait()
        #expect(status == 74, "\(child.errorOutput)")
        #expect(child.pendingOutput.contains("edited: yes"))
        #expect(child.errorOutput.contains("save"))
        if kind.type.name == "SQLite" {
            #expect(try Self.salaries(url).values == [.integer32(1000)])
        } else {
            #expect(try Data(contentsOf: url) == original)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(!names.contains { $0.contains(".docutil-tmp-") }, "\(names)")
    }

    @Test(arguments: Kind.all)
    func anotherProcessHoldingTheDocumentKeepsThisOneOut(kind: Kind) throws {
        let url = try Self.document(kind)
        let holder = try Self.session(url, salary: 5)
        #expect {
            _ = try PersistentDocument(contentsOf: url)
        } throws: { error in
            guard let error = error as? DocumentError else { return false }
            return error.code == .conflict && error.message.contains("process \(holder.process.processIdentifier)")
        }
        #expect(PersistentDocument.lockHolder(of: url)?.pid == holder.process.processIdentifier)
        _ = try PersistentDocument(contentsOf: url, readOnly: true)
        holder.signal(SIGKILL)
        holder.wait()
        #expect(PersistentDocument.lockHolder(of: url) == nil)
        _ = try PersistentDocument(contentsOf: url)
    }

    @Test(arguments: Kind.all)
    func anAutosaveOfAKilledSessionIsRecovered(kind: Kind) throws {
        let url = try Self.document(kind)
        let original = try Data(contentsOf: url)
        let child = try Self.session(url, salary: 4321)
        child.send("autosave\nstatus\n")
        #expect(child.read(until: "redo:", timeout: 60) != nil)
        child.signal(SIGKILL)
        child.wait()
        if kind.type.name != "SQLite" { #expect(try Data(contentsOf: url) == original) }
        let document = try PersistentDocument(contentsOf: url)
        let found = try #require(document.foundAutosave)
        #expect(found.updated == Self.employees)
        let recovery = try document.recoverAutosave()
        #expect(recovery.updated == Self.employees && recovery.warnings.isEmpty)
        #expect(document.isEdited)
        try document.save()
        try document.close()
        #expect(try Self.salaries(url).values == [.integer32(4321)])
        #expect(try PersistentDocument.autosave(of: url) == nil)
    }
}
