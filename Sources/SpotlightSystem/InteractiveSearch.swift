import Foundation
import OpenCoreSpotlight

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Search as you type in a terminal: results are redrawn on every keystroke; ↑/↓ (or Ctrl-P/Ctrl-N, Tab) choose,
/// Enter returns the chosen result, Esc, Ctrl-C or Ctrl-D cancel.
///
/// ```swift
/// if let (result, query) = try InteractiveSearch(search: SystemSearch()).run() {
///     try Launcher.continue(Continuation.payload(for: result, query: query), in: SpotlightApp.registered(result.applicationIdentifier)!)
/// }
/// ```
///
/// The terminal is put in raw mode (termios) on the alternate screen, and restored before `run()` returns.
/// Searches made while typing do not repair indexes (that may take long); run one search or `spotlight doctor`
/// first.
public final class InteractiveSearch {
    public var search: SystemSearch
    public var query: String
    private let input: Int32
    private let output: Int32
    private var selection = 0
    private var outcome: SystemSearch.Outcome?

    public init(search: SystemSearch, initialQuery: String = "", input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.search = search
        self.search.repairsAutomatically = false
        self.query = initialQuery
        self.input = input
        self.output = output
    }

    /// Runs until the person chooses a result (returned with the query typed) or cancels (`nil`).
    ///
    /// - Throws: `SystemError` when standard input or output is not a terminal.
    public func run() throws -> (result: SystemSearch.Result, query: String)? {
        guard isatty(input) == 1, isatty(output) == 1 else {
            throw SystemError("interactive mode needs a terminal; pass words to search instead (spotlight brent reid)")
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
        tcsetattr(input, TCSAFLUSH, &raw)
        write("\u{1B}[?1049h")
        defer {
            write("\u{1B}[?1049l")
            var restore = original
            tcsetattr(input, TCSAFLUSH, &restore)
        }
        refresh()
        var pending: [UInt8] = []
        while true {
            guard let byte = readByte() else { return nil }
            switch byte {
            case 0x03, 0x04:  // Ctrl-C, Ctrl-D
                return nil
            case 0x0D, 0x0A:  // Enter
                if let results = outcome?.results, results.indices.contains(selection) {
                    return (results[selection], query)
                }
            case 0x1B:
                guard let next = readByte(timeoutMilliseconds: 50) else { return nil }  // a lone Esc
                if next == 0x5B || next == 0x4F, let code = readByte(timeoutMilliseconds: 50) {
                    switch code {
                    case 0x41: move(-1)  // ↑
                    case 0x42: move(1)   // ↓
                    default: break
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
                break
            }
        }
    }

    private func move(_ delta: Int) {
        let count = outcome?.results.count ?? 0
        guard count > 0 else { return }
        selection = (selection + delta + count) % count
        render()
    }

    private func refresh() {
        let rows = terminalSize().rows
        outcome = search.search(query, limit: max(rows - 5, 3))
        selection = 0
        render()
    }

    private func render() {
        let (rows, columns) = terminalSize()
        var screen = "\u{1B}[H\u{1B}[2J"
        screen += fit("\u{1B}[2mSpotlight · type to search · ↑↓ choose · Enter open · Esc quit\u{1B}[0m", columns, escapes: 8) + "\r\n"
        screen += "› " + query + "\r\n"
        var lines: [String] = []
        if let outcome {
            if !outcome.somethingIndexed {
                lines.append("Nothing is indexed yet: apps add their content with Core Spotlight.")
            } else if outcome.results.isEmpty {
                lines.append("No results for \"\(query)\".")
            }
            for (i, result) in outcome.results.enumerated() {
                var line = " \(result.title)"
                if let description = result.description, !description.isEmpty { line += " — \(description)" }
                line += "  · \(result.appDisplayName)"
                let actions = result.actions.filter { $0 != .open }.map(\.rawValue)
                if !actions.isEmpty { line += " [\(actions.joined(separator: ", "))]" }
                line = fit(line, columns - 1, escapes: 0)
                lines.append(i == selection ? "\u{1B}[7m›" + line + "\u{1B}[0m" : " " + line)
            }
        }
        screen += lines.prefix(max(rows - 3, 1)).joined(separator: "\r\n")
        screen += "\u{1B}[2;\(3 + query.count)H"
        write(screen)
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

    private func readByte(timeoutMilliseconds: Int32 = -1) -> UInt8? {
        if timeoutMilliseconds >= 0 {
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, timeoutMilliseconds) > 0 else { return nil }
        }
        var byte: UInt8 = 0
        while true {
            let n = read(input, &byte, 1)
            if n == 1 { return byte }
            if n < 0, errno == EINTR { continue }
            return nil
        }
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(output, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                Darwin.write(output, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if n <= 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }
}
