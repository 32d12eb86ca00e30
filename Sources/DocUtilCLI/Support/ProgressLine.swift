import Foundation

/// A progress line on standard error, redrawn in place — only when standard error is a terminal, and only once the
/// work has taken about a second (short runs print nothing; `DOCUTIL_PROGRESS_DELAY` gives another number of seconds),
/// at most ten times a second.
final class ProgressLine {
    private let verb: String
    private let start = Date()
    private let delay = ProgressLine.delay
    private var lastDrawn = Date.distantPast
    private var drawn = false
    /// Seconds of work before a progress line appears: about a second, or `DOCUTIL_PROGRESS_DELAY`.
    static let delay: TimeInterval =
        ProcessInfo.processInfo.environment["DOCUTIL_PROGRESS_DELAY"].flatMap(TimeInterval.init) ?? 1

    /// Whether a line is ever drawn: standard error is a terminal.
    let isShown: Bool

    /// A line that begins with `verb` ("checking", "dumping").
    init(_ verb: String, shown: Bool = isatty(2) != 0) {
        self.verb = verb
        isShown = shown
    }

    /// Shows `done` of `total` objects.
    func update(_ done: Int, of total: Int) {
        guard isShown else { return }
        let now = Date()
        guard now.timeIntervalSince(start) >= delay, now.timeIntervalSince(lastDrawn) >= 0.1 || done == total else {
            return
        }
        lastDrawn = now
        drawn = true
        let percent = total > 0 ? " (\(done * 100 / total)%)" : ""
        OutputFile.message("\r\u{1B}[K\(verb): \(done) of \(total) objects\(percent)")
    }

    /// Clears the line, if one was drawn.
    func end() {
        if drawn { OutputFile.message("\r\u{1B}[K") }
        drawn = false
    }
}
