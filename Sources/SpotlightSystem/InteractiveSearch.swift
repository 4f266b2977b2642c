import Foundation
import OpenCoreSpotlight

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Search as you type in a terminal: results are redrawn on every keystroke and when the terminal is resized;
/// ↑/↓ (or Ctrl-P/Ctrl-N, Tab) choose, Enter opens the chosen result, Ctrl-T calls it and Ctrl-G asks for
/// directions (where the result offers them), Esc or Ctrl-D quit, Ctrl-C interrupts.
///
/// ```swift
/// let session = try InteractiveSearch(search: SystemSearch())
/// if let choice = try session.run() {
///     // choice.action is .open, .call or .directions
/// }
/// ```
///
/// The terminal is put in raw mode (termios) on the alternate screen, and restored before `run()` returns — and
/// also when the process is terminated (SIGTERM, SIGHUP). Each redraw overwrites the previous lines in place
/// (no clearing of the whole screen, so nothing flickers). A terminal that cannot move the cursor (`TERM=dumb` or
/// no `TERM`) is refused. Searches made while typing do not repair indexes (that may take long); run one search
/// or `spotlight doctor` first.
public final class InteractiveSearch {
    public var search: SystemSearch
    public var query: String
    /// The apps searched (`nil`: every app).
    public var applications: Set<String>?
    /// Whether the session ended with Ctrl-C (the caller exits with status 130, as an interrupted program does).
    public private(set) var wasInterrupted = false
    private let input: Int32
    private let output: Int32
    private var selection = 0
    private var outcome: SystemSearch.Outcome?
    /// A message for the person, shown under the query until the next key.
    private var status: String?
    /// Whether a result's app can be launched, by app identifier (looked up once per app).
    private var launchable: [String: Bool] = [:]

    /// What the person chose.
    public struct Choice: Sendable {
        public var result: SystemSearch.Result
        public var query: String
        public var action: SystemSearch.Action
    }

    public init(search: SystemSearch, initialQuery: String = "", input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.search = search
        self.search.repairsAutomatically = false
        self.query = initialQuery
        self.input = input
        self.output = output
    }

    /// Whether this process's terminal can run the interactive search: input and output are terminals and `TERM`
    /// names one that moves the cursor.
    public static func isSupported(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) -> Bool {
        isatty(input) == 1 && isatty(output) == 1 && capableTerminal
    }

    private static var capableTerminal: Bool {
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        return !term.isEmpty && term != "dumb"
    }

    /// Runs until the person chooses a result and an action (returned with the query typed) or quits (`nil`;
    /// `wasInterrupted` tells Ctrl-C).
    ///
    /// - Throws: `SystemError` when standard input or output is not a terminal, or the terminal is dumb.
    public func run() throws -> Choice? {
        guard isatty(input) == 1, isatty(output) == 1 else {
            throw SystemError("interactive mode needs a terminal; pass words to search instead (spotlight brent reid)")
        }
        guard Self.capableTerminal else {
            throw SystemError("interactive mode needs a terminal that can move the cursor (TERM is \(ProcessInfo.processInfo.environment["TERM"].map { "\"\($0)\"" } ?? "unset")); pass words to search instead")
        }
        var original = termios()
        guard tcgetattr(input, &original) == 0 else { throw SystemError("cannot read the terminal's settings") }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        TerminalRestoration.install(input: input, output: output, original: original)
        defer { TerminalRestoration.restore(); TerminalRestoration.uninstall() }
        tcsetattr(input, TCSAFLUSH, &raw)
        write("\u{1B}[?1049h")
        refresh()
        var pending: [UInt8] = []
        while true {
            let event = readEvent()
            let byte: UInt8
            switch event {
            case .end, nil: return nil
            case .resize: refresh(keepSelection: true); continue
            case .byte(let b): byte = b
            }
            status = nil
            switch byte {
            case 0x03:  // Ctrl-C
                wasInterrupted = true
                return nil
            case 0x04:  // Ctrl-D
                return nil
            case 0x0D, 0x0A:  // Enter
                if let choice = choose(.open) { return choice }
            case 0x14:  // Ctrl-T
                if let choice = choose(.call) { return choice }
            case 0x07:  // Ctrl-G
                if let choice = choose(.directions) { return choice }
            case 0x1B:
                guard case .byte(let next)? = readEvent(timeoutMilliseconds: 50) else { return nil }  // a lone Esc
                if next == 0x5B || next == 0x4F, case .byte(let code)? = readEvent(timeoutMilliseconds: 50) {
                    switch code {
                    case 0x41: move(-1)  // ↑
                    case 0x42: move(1)   // ↓
                    default: render()
                    }
                }
            case 0x10: move(-1)  // Ctrl-P
            case 0x0E, 0x09: move(1)  // Ctrl-N, Tab
            case 0x7F, 0x08:  // Backspace
                if !query.isEmpty { query.removeLast() }
                refresh()
            case 0x15:  // Ctrl-U
                query = ""
                refresh()
            case 0x17:  // Ctrl-W
                while query.last == " " { query.removeLast() }
                while let last = query.last, last != " " { query.removeLast() }
                refresh()
            case 0x20...0xFF:
                pending.append(byte)
                if let text = String(validating: pending, as: UTF8.self) {
                    query += text
                    pending.removeAll()
                    refresh()
                } else if pending.count >= 4 {
                    pending.removeAll()
                }
            default:
                render()
            }
        }
    }

    /// The chosen result with `action`, or `nil` (and a message on screen) when it cannot be done.
    private func choose(_ action: SystemSearch.Action) -> Choice? {
        guard let results = outcome?.results, results.indices.contains(selection) else {
            status = "Nothing to \(action.rawValue): type to search."
            render()
            return nil
        }
        let result = results[selection]
        if action == .open {
            let canLaunch = launchable[result.applicationIdentifier] ?? {
                let known = SpotlightApp.registered(result.applicationIdentifier) != nil
                launchable[result.applicationIdentifier] = known
                return known
            }()
            guard canLaunch else {
                status = "\(result.appDisplayName) is not registered: its results cannot be opened."
                render()
                return nil
            }
        }
        guard result.actions.contains(action) else {
            status = "\(result.title) has no \(action.rawValue) action."
            render()
            return nil
        }
        return Choice(result: result, query: query, action: action)
    }

    private func move(_ delta: Int) {
        let count = outcome?.results.count ?? 0
        guard count > 0 else { return }
        selection = (selection + delta + count) % count
        render()
    }

    private func refresh(keepSelection: Bool = false) {
        let rows = terminalSize().rows
        outcome = search.search(query, limit: max(rows - 5, 3), applications: applications)
        let count = outcome?.results.count ?? 0
        selection = keepSelection && selection < count ? selection : 0
        render()
    }

    private func render() {
        let (rows, columns) = terminalSize()
        // Overwrite in place: home, each line then "clear to end of line", then "clear below".
        var screen = "\u{1B}[H"
        var lines: [String] = []
        lines.append(fit("\u{1B}[2mSpotlight · ↑↓ choose · Enter open · ^T call · ^G directions · Esc quit\u{1B}[0m",
                         columns, escapes: 8))
        lines.append("› " + query)
        if let status { lines.append(fit("\u{1B}[1m" + status + "\u{1B}[0m", columns, escapes: 8)) }
        if let outcome {
            if !outcome.somethingIndexed {
                lines.append("Nothing is indexed yet: apps add their content with Core Spotlight.")
            } else if outcome.results.isEmpty {
                lines.append(fit("No results for \(TextReport.quoted(query)).", columns, escapes: 0))
            }
            for (i, result) in outcome.results.enumerated() {
                // The words that matched in bold and underlined, the rest plain; cut to the width by what shows.
                var pieces: [(text: String, isMatch: Bool)] = [(" ", false)]
                pieces += result.titleHighlight?.pieces ?? [(result.title, false)]
                if let snippet = result.snippet {
                    pieces.append((" — ", false))
                    pieces += snippet.pieces
                } else if let description = result.description, !description.isEmpty {
                    pieces.append((" — " + description, false))
                }
                pieces.append(("  · \(result.appDisplayName)", false))
                let actions = result.actions.filter { $0 != .open }.map { $0 == .call ? "^T call" : "^G directions" }
                if !actions.isEmpty { pieces.append((" [\(actions.joined(separator: ", "))]", false)) }
                let line = TextReport.HighlightStyle.terminal.render(Self.fit(pieces, columns - 1))
                lines.append(i == selection ? "\u{1B}[7m›" + line + "\u{1B}[0m" : " " + line)
            }
        }
        screen += lines.prefix(max(rows - 1, 2)).joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K\u{1B}[J"
        screen += "\u{1B}[2;\(3 + query.count)H"
        write(screen)
    }

    /// `pieces` cut to `width` visible characters, the last one an ellipsis when something was cut.
    static func fit(_ pieces: [(text: String, isMatch: Bool)], _ width: Int) -> [(text: String, isMatch: Bool)] {
        let total = pieces.reduce(0) { $0 + $1.text.count }
        guard total > width, width > 1 else { return pieces }
        var left = width - 1
        var result: [(text: String, isMatch: Bool)] = []
        for piece in pieces where left > 0 {
            let kept = String(piece.text.prefix(left))
            result.append((kept, piece.isMatch))
            left -= kept.count
        }
        result.append(("…", false))
        return result
    }

    private func fit(_ text: String, _ width: Int, escapes: Int) -> String {
        guard text.count - escapes > width, width > 1 else { return text }
        return String(text.prefix(width - 1 + escapes)) + "…"
    }

    private func terminalSize() -> (rows: Int, columns: Int) {
        var size = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
            return (Int(size.ws_row), Int(size.ws_col))
        }
        let env = ProcessInfo.processInfo.environment
        return (env["LINES"].flatMap(Int.init) ?? 24, env["COLUMNS"].flatMap(Int.init) ?? 80)
    }

    private enum Event {
        case byte(UInt8)
        case resize
        case end
    }

    /// The next key byte, or a resize of the terminal; `nil` when a timeout passed.
    private func readEvent(timeoutMilliseconds: Int32 = -1) -> Event? {
        while true {
            var descriptors = [pollfd(fd: input, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: TerminalRestoration.resizeReader, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, descriptors[1].fd >= 0 ? 2 : 1, timeoutMilliseconds)
            if ready < 0 { if errno == EINTR { continue }; return .end }
            if ready == 0 { return nil }
            if descriptors[1].fd >= 0, descriptors[1].revents & Int16(POLLIN) != 0 {
                TerminalRestoration.drainResizes()
                return .resize
            }
            var byte: UInt8 = 0
            let n = read(input, &byte, 1)
            if n == 1 { return .byte(byte) }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            return .end
        }
    }

    private func write(_ text: String) {
        TerminalRestoration.writeAll(output, Array(text.utf8))
    }
}

/// Puts the terminal back when the process is terminated in interactive mode, and turns SIGWINCH into a byte on
/// a pipe the input loop polls. Signal handlers cannot capture context, so the state is process-wide; only
/// async-signal-safe calls (`tcsetattr`, `write`, `signal`, `raise`) run in the handlers.
enum TerminalRestoration {
    nonisolated(unsafe) private static var input: Int32 = -1
    nonisolated(unsafe) private static var output: Int32 = -1
    nonisolated(unsafe) private static var original = termios()
    nonisolated(unsafe) private static var active = false
    nonisolated(unsafe) private(set) static var resizeReader: Int32 = -1
    nonisolated(unsafe) private static var resizeWriter: Int32 = -1

    static func install(input: Int32, output: Int32, original: termios) {
        self.input = input
        self.output = output
        self.original = original
        if resizeReader < 0 {
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
                resizeReader = ends[0]
                resizeWriter = ends[1]
            }
        }
        active = true
        for signalNumber in [SIGTERM, SIGHUP, SIGQUIT] {
            signal(signalNumber) { received in
                TerminalRestoration.restore()
                signal(received, SIG_DFL)
                raise(received)
            }
        }
        signal(SIGWINCH) { _ in
            var byte: UInt8 = 1
            _ = posixWrite(TerminalRestoration.resizeWriter, &byte, 1)
        }
    }

    /// Leaves the alternate screen and restores the terminal's settings (once).
    static func restore() {
        guard active else { return }
        active = false
        let leave: [UInt8] = Array("\u{1B}[?1049l".utf8)
        writeAll(output, leave)
        var settings = original
        tcsetattr(input, TCSAFLUSH, &settings)
    }

    static func uninstall() {
        for signalNumber in [SIGTERM, SIGHUP, SIGQUIT, SIGWINCH] { signal(signalNumber, SIG_DFL) }
    }

    static func drainResizes() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(resizeReader, &buffer, buffer.count) > 0 {}
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                posixWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if n <= 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }
}

/// `write(2)`, which the standard library's `write` names shadow inside types.
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}
