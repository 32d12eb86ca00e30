import Foundation

/// One line of session input, with its number (for messages).
struct SessionLine {
    var text: String
    var number: Int
}

/// Where a session's commands come from. `idle` is called while waiting (at least every `tick` seconds) and between
/// lines, so the session can autosave and notice signals.
protocol LineSource {
    mutating func next(idle: () -> Void) -> SessionLine?
}

/// Commands given on the command line (`-c`) or read from a script file.
struct ListSource: LineSource {
    private var lines: [String]
    private var index = 0

    init(_ lines: [String]) { self.lines = lines }

    mutating func next(idle: () -> Void) -> SessionLine? {
        idle()
        guard index < lines.count else { return nil }
        index += 1
        return SessionLine(text: lines[index - 1], number: index)
    }
}

/// Lines read from a file descriptor that is not a terminal (a pipe, a file): each line is handed over as soon as it
/// is complete, without waiting for the end of the input.
struct StreamSource: LineSource {
    let descriptor: Int32
    let tick: TimeInterval
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    private var number = 0

    init(descriptor: Int32, tick: TimeInterval) {
        self.descriptor = descriptor
        self.tick = tick
    }

    mutating func next(idle: () -> Void) -> SessionLine? {
        idle()
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return make(line)
            }
            // Consumed lines are dropped only when no whole line is left, so a long burst of input is not copied
            // again for every line.
            buffer.removeSubrange(..<start)
            start = 0
            if ended {
                guard !buffer.isEmpty else { return nil }
                let line = buffer
                buffer = []
                return make(line)
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(tick * 1000))
            if ready <= 0 {
                idle()
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN {
                    idle()
                    continue
                }
                ended = true
            } else if count == 0 {
                ended = true
            } else {
                buffer += chunk[..<count]
            }
        }
    }

    private mutating func make(_ bytes: [UInt8]) -> SessionLine {
        number += 1
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        return SessionLine(text: text, number: number)
    }
}

/// An interactive terminal: a prompt and a line editor with history (arrows, Home/End, Ctrl-A/E/K/U, Ctrl-C to drop
/// the line, Ctrl-D to end on an empty line). The terminal is in raw mode only while a line is being typed.
final class TerminalSource: LineSource {
    let prompt: String
    let tick: TimeInterval
    private var history: [String] = []
    private var number = 0

    init(prompt: String, tick: TimeInterval) {
        self.prompt = prompt
        self.tick = tick
    }

    func next(idle: () -> Void) -> SessionLine? {
        idle()
        guard let line = readLine(idle: idle) else { return nil }
        number += 1
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty && history.last != line { history.append(line) }
        return SessionLine(text: line, number: number)
    }

    private func output(_ text: String) {
        // The prompt and line editing: one that cannot be written is not reported (a command's output that cannot
        // be is, and ends the session with the I/O status).
        do {
            try OutputFile.standardOutput.write(text)
        } catch {
            return
        }
    }

    /// Reads one byte, calling `idle` while none comes; `nil` at the end of input.
    private func byte(idle: () -> Void) -> UInt8? {
        while true {
            var poller = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(tick * 1000))
            if ready <= 0 {
                idle()
                continue
            }
            var value: UInt8 = 0
            let count = read(0, &value, 1)
            if count == 1 { return value }
            if count < 0 && (errno == EINTR || errno == EAGAIN) {
                idle()
                continue
            }
            return nil
        }
    }

    private func readLine(idle: () -> Void) -> String? {
        var original = termios()
        let isTerminal = tcgetattr(0, &original) == 0
        if isTerminal {
            var raw = original
            raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
            raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            tcsetattr(0, TCSADRAIN, &raw)
        }
        defer { if isTerminal { tcsetattr(0, TCSADRAIN, &original) } }
        var line: [Character] = []
        var cursor = 0
        var browsing = history.count
        var draft: [Character] = []
        func redraw() {
            var text = "\r" + prompt + String(line) + "\u{1B}[K"
            let back = line.count - cursor
            if back > 0 { text += "\u{1B}[\(back)D" }
            output(text)
        }
        output(prompt)
        while let first = byte(idle: idle) {
            switch first {
            case 13, 10:
                output("\r\n")
                return String(line)
            case 3:
                output("^C\r\n")
                return ""
            case 4:
                if line.isEmpty {
                    output("\r\n")
                    return nil
                }
                if cursor < line.count { line.remove(at: cursor) }
            case 127, 8:
                if cursor > 0 {
                    line.remove(at: cursor - 1)
                    cursor -= 1
                }
            case 1: cursor = 0
            case 5: cursor = line.count
            case 11: line.removeSubrange(cursor...)
            case 21:
                line.removeSubrange(..<cursor)
                cursor = 0
            case 27:
                guard let second = byte(idle: idle) else { return nil }
                guard second == UInt8(ascii: "[") || second == UInt8(ascii: "O"), let third = byte(idle: idle) else {
                    break
                }
                switch third {
                case UInt8(ascii: "A"), UInt8(ascii: "B"):
                    let up = third == UInt8(ascii: "A")
                    if browsing == history.count { draft = line }
                    browsing = up ? max(0, browsing - 1) : min(history.count, browsing + 1)
                    line = browsing == history.count ? draft : Array(history[browsing])
                    cursor = line.count
                case UInt8(ascii: "C"): cursor = min(line.count, cursor + 1)
                case UInt8(ascii: "D"): cursor = max(0, cursor - 1)
                case UInt8(ascii: "H"): cursor = 0
                case UInt8(ascii: "F"): cursor = line.count
                case UInt8(ascii: "3"):
                    if byte(idle: idle) == UInt8(ascii: "~"), cursor < line.count { line.remove(at: cursor) }
                default: break
                }
            default:
                guard first >= 32 else { break }
                var bytes = [first]
                let length = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2
                while bytes.count < length, let more = byte(idle: idle) { bytes.append(more) }
                for character in String(decoding: bytes, as: UTF8.self) {
                    line.insert(character, at: cursor)
                    cursor += 1
                }
            }
            redraw()
        }
        return line.isEmpty ? nil : String(line)
    }
}
