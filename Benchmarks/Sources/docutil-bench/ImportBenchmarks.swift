import Documents
import Foundation
import ModelFiles
import ObjectGraph

/// Issue 11: importing a CSV of IMPORT_ROWS rows (default 1,000,000; 8 columns, one to-one by key) into a new SQLite
/// document, side by side with the `sqlite3` shell's `.import` of the same file into a plain table. Each import runs
/// in a child process, so that its peak memory (maximum resident set) is its own.
enum ImportBenchmarks {
    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Department" representedClassName="Department" syncable="YES">
                <attribute name="code" attributeType="String"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="employees" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Employee" inverseName="department" inverseEntity="Employee"/>
            </entity>
            <entity name="Employee" representedClassName="Employee" syncable="YES">
                <attribute name="id" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="name" attributeType="String"/>
                <attribute name="email" optional="YES" attributeType="String"/>
                <attribute name="age" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="salary" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="joined" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="active" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Department" inverseName="employees" inverseEntity="Department"/>
            </entity>
        </model>
        """

    /// Runs in the child process: `docutil-bench import-child FOLDER`.
    static func child(_ folder: URL) throws {
        let loaded = try ModelLoader.load(from: folder.appendingPathComponent("Staff.xcdatamodel"))
        try DocumentImport.importNew(
            [folder.appendingPathComponent("Department.csv"), folder.appendingPathComponent("Employee.csv")],
            to: folder.appendingPathComponent("staff.sqlite"), ofType: .sqlite, model: loaded.model,
            options: ImportOptions(), force: true, program: "bench")
    }

    static func run() throws {
        let rows = ProcessInfo.processInfo.environment["IMPORT_ROWS"].flatMap { Int($0) } ?? 1_000_000
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docutil-bench-import-\(getpid())")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Staff.xcdatamodel"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(model.utf8).write(to: folder.appendingPathComponent("Staff.xcdatamodel/contents"))
        var departments = "code,title\n"
        for i in 0..<10 { departments += "D\(i),Department \(i)\n" }
        try Data(departments.utf8).write(to: folder.appendingPathComponent("Department.csv"))
        let employees = folder.appendingPathComponent("Employee.csv")
        guard FileManager.default.createFile(atPath: employees.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: employees.path])
        }
        let handle = try FileHandle(forWritingTo: employees)
        handle.write(Data("id,name,email,age,salary,joined,active,department.code\n".utf8))
        var chunk = ""
        for i in 0..<rows {
            chunk +=
                "\(i),Person \(i),person\(i)@example.com,\(20 + i % 45),\(30000 + (i * 37) % 70000).5,20\(10 + i % 15)-0\(1 + i % 9)-1\(i % 9)T08:30:00Z,\(i % 2 == 1),D\(i % 10)\n"
            if chunk.utf8.count > 1 << 20 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        handle.write(Data(chunk.utf8))
        try handle.close()
        print("\nImport: \(rows) CSV rows (8 columns, a to-one by key) into a new SQLite document (single runs)")

        // The baseline: the sqlite3 shell's .import into a plain table (a new database each run; median of 3).
        var shellTimes: [Double] = []
        for _ in 0..<3 {
            let database = folder.appendingPathComponent("plain.db")
            unlink(database.path)
            shellTimes.append(
                try timeChild("/usr/bin/sqlite3", [database.path, ".import --csv \(employees.path) employee"]).seconds)
        }
        let shell = shellTimes.sorted()[1]
        report("sqlite3 shell: .import into a plain table", seconds: shell)
        let ours = try timeChild(CommandLine.arguments[0], ["import-child", folder.path])
        report("docutil: import into a new SQLite document", seconds: ours.seconds, baseline: shell, goal: "goal ≤ 3×")
        print(String(format: "docutil import peak memory: %.0f MB (goal ≤ 300 MB)", Double(ours.maxRSSKB) / 1024))
    }

    /// Runs a program to completion; its wall time and the largest resident set of any child waited for so far.
    static func timeChild(_ path: String, _ arguments: [String]) throws -> (seconds: Double, maxRSSKB: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard process.terminationStatus == 0 else {
            throw NSError(
                domain: "bench", code: Int(process.terminationStatus),
                userInfo: [
                    NSLocalizedDescriptionKey: "\(path) \(arguments.joined(separator: " ")) failed"
                ])
        }
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return (seconds, Int(usage.ru_maxrss))
    }
}
