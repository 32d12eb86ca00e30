public import Foundation

/// Paths to test inputs: the project's own `Fixtures/` and the shared real Apple files beside the checkout.
public enum Fixtures {
    /// The package root (the folder holding Package.swift).
    public static let projectRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// An executable of this package, found next to the running test bundle in the build folder.
    public static func builtExecutable(_ name: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return projectRoot.appendingPathComponent(".build/debug").appendingPathComponent(name)
    }

    /// The project's own fixtures.
    public static func project(_ relativePath: String) -> URL {
        projectRoot.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
    }

    /// `../shared/fixtures/real`, the real files written by Apple's tools.
    public static let realRoot: URL = projectRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/real")

    /// Whether the real fixtures are present (tests that need them are skipped otherwise).
    public static let realAvailable: Bool = FileManager.default.fileExists(
        atPath: realRoot.appendingPathComponent("SOURCES.tsv").path)

    /// A real fixture by its path below `fixtures/real`.
    public static func real(_ relativePath: String) -> URL {
        realRoot.appendingPathComponent(relativePath)
    }

    /// The files of a real fixture folder, sorted.
    public static func realFiles(in folder: String, suffix: String = "") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: real(folder).path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { "\(folder)/\($0)" }
    }

    /// The folder that holds this test run's temporary directories; removed when the test process exits.
    private static let runDirectory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "docutil-test-\(getpid())-\(UUID().uuidString)")
        atexit {
            // A test that failed half-way may have left anything here; nothing in it is kept.
            _ = try? FileManager.default.removeItem(at: Fixtures.runDirectory)
        }
        return url
    }()

    /// A new empty temporary directory, inside this run's folder (removed when the test process exits).
    public static func temporaryDirectory() throws -> URL {
        let url = runDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Copies a SQLite fixture with its `-wal`/`-shm` side files into a new temporary directory and returns the copy.
    public static func copySQLiteStore(_ relativePath: String) throws -> URL {
        let directory = try temporaryDirectory()
        let source = real(relativePath)
        let target = directory.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: target)
        for suffix in ["-wal", "-shm"] {
            let side = URL(fileURLWithPath: source.path + suffix)
            if FileManager.default.fileExists(atPath: side.path) {
                try FileManager.default.copyItem(at: side, to: URL(fileURLWithPath: target.path + suffix))
            }
        }
        return target
    }
}
