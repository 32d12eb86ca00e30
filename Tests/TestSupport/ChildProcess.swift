import CSupport
public import Foundation

/// A real child process the test talks to while it runs: lines written to its standard input (a pipe, or a
/// pseudo-terminal), its output read as it comes with time limits, signals sent to it.
public final class ChildProcess {
    public let process = Process()
    private let input: FileHandle
    private let outputDescriptor: Int32
    private let errorDescriptor: Int32?
    private var outputBuffer: [UInt8] = []
    private var errorBuffer: [UInt8] = []
    private var keepAlive: [AnyObject] = []

    /// Starts `executable` with pipes for its standard input, output and error; or, with `terminal`, a
    /// pseudo-terminal for all three (output and error then arrive together).
    public init(
        _ executable: URL, _ arguments: [String], currentDirectory: URL? = nil, environment: [String: String] = [:],
        terminal: Bool = false
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if terminal {
            var name = [CChar](repeating: 0, count: 256)
            let master = docutil_open_pseudo_terminal(&name, name.count)
            guard master >= 0 else { throw POSIXError(.EIO) }
            let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let slave = open(path, O_RDWR | O_NOCTTY)
            guard slave >= 0 else { throw POSIXError(.EIO) }
            let slaveHandle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
            process.standardInput = slaveHandle
            process.standardOutput = slaveHandle
            process.standardError = slaveHandle
            input = FileHandle(fileDescriptor: master, closeOnDealloc: true)
            outputDescriptor = master
            errorDescriptor = nil
            try process.run()
            try slaveHandle.close()
        } else {
            let stdin = Pipe()
            let stdout = Pipe()
            let stderr = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stderr
            input = stdin.fileHandleForWriting
            outputDescriptor = stdout.fileHandleForReading.fileDescriptor
            errorDescriptor = stderr.fileHandleForReading.fileDescriptor
            keepAlive = [stdin, stdout, stderr]
            try process.run()
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Writes text to the child's standard input.
    public func send(_ text: String) {
        BrokenPipe.write(Data(text.utf8), to: input)
    }

    /// Closes the child's standard input (the end of its input).
    public func closeInput() {
        try? input.close()
    }

    /// Sends a signal.
    public func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the child to end (killing it after `timeout` seconds) and returns its status: the exit status, or
    /// 128 + the signal that ended it.
    @discardableResult
    public func wait(timeout: TimeInterval = 60) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            drain(timeout: 0.05)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        drain(timeout: 0.05)
        return process.terminationReason == .uncaughtSignal
            ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Reads whatever output is ready within `timeout` seconds into the buffers.
    private func drain(timeout: TimeInterval) {
        var fds = [pollfd(fd: outputDescriptor, events: Int16(POLLIN), revents: 0)]
        if let errorDescriptor { fds.append(pollfd(fd: errorDescriptor, events: Int16(POLLIN), revents: 0)) }
        guard poll(&fds, nfds_t(fds.count), Int32(timeout * 1000)) > 0 else { return }
        for entry in fds where entry.revents != 0 {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(entry.fd, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            if entry.fd == outputDescriptor {
                outputBuffer += chunk[..<count]
            } else {
                errorBuffer += chunk[..<count]
            }
        }
    }

    /// Waits until the output holds `text` (then returns everything up to and including it, taking it out of the
    /// buffer), or `nil` after `timeout` seconds.
    public func read(until text: String, timeout: TimeInterval = 30) -> String? {
        let needle = Array(text.utf8)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let range = Self.find(needle, in: outputBuffer) {
                let taken = Array(outputBuffer[..<range])
                outputBuffer.removeSubrange(..<range)
                return String(decoding: taken, as: UTF8.self)
            }
            if Date() >= deadline { return nil }
            drain(timeout: 0.05)
        }
    }

    /// The next line of output (without its newline), or `nil` after `timeout` seconds.
    public func readLine(timeout: TimeInterval = 30) -> String? {
        read(until: "\n", timeout: timeout).map { String($0.dropLast()).replacingOccurrences(of: "\r", with: "") }
    }

    /// Everything written to standard error so far (after the child ended, all of it).
    public var errorOutput: String {
        drain(timeout: 0)
        return String(decoding: errorBuffer, as: UTF8.self)
    }

    /// The output not read yet.
    public var pendingOutput: String {
        drain(timeout: 0)
        return String(decoding: outputBuffer, as: UTF8.self)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start + needle.count }
        }
        return nil
    }
}
