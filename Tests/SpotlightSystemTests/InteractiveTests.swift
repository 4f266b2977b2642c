import Foundation
import XCTest
import OpenCoreSpotlight
#if canImport(Glibc)
import Glibc
#endif

/// `spotlight -i` driven through a pseudo-terminal, as a person would use it.
final class InteractiveTests: SystemTestCase {
    func testSearchAsYouTypeAndOpenTheChosenResult() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let (terminal, process) = try interactive(rows: 30)
        defer { if process.isRunning { process.terminate() } }

        XCTAssertTrue(terminal.waitFor("Esc quit"), terminal.screen)
        for character in "marc" {
            terminal.type(String(character))
            usleep(30_000)
        }
        // The typed letters are bold and underlined where they matched.
        XCTAssertTrue(terminal.waitFor("\u{1B}[1;4mMarc\u{1B}[22;24mus Chen — Software Engineer"), terminal.screen)
        terminal.type("\u{7F}\u{7F}\u{7F}\u{7F}engineering")  // backspaces, then a new query: redrawn each time
        // The frame of the last letter (each letter draws one, and those of "en"… list Sofia Alvarez too): its
        // prompt line, and the cursor put back after the query, which ends a frame.
        let endOfFrame = "\u{1B}[2;\(3 + "engineering".count)H"
        XCTAssertTrue(terminal.waitFor("› engineering\u{1B}[K"), terminal.screen)
        XCTAssertTrue(terminal.waitFor(endOfFrame), terminal.screen)
        XCTAssertTrue(terminal.screen.components(separatedBy: "› engineering\u{1B}[K").last?.contains("Sofia Alvarez") ?? false,
                      terminal.screen)
        let drawn = terminal.screen.utf8.count
        terminal.type("\u{1B}[B")  // ↓ to the second result: one more frame
        let deadline = Date().addingTimeInterval(20)
        while !String(terminal.screen.utf8.dropFirst(drawn))!.contains(endOfFrame), Date() < deadline { usleep(20_000) }
        let before = terminal.screen
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("@example.com ·"), terminal.screen)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        // The app printed the second result's employee.
        let chosen = (before.components(separatedBy: "\u{1B}[7m›").last ?? "")
            .replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
            .split(separator: "—").first?.trimmingCharacters(in: .whitespaces) ?? ""
        XCTAssertFalse(chosen.isEmpty, before)
        let card = terminal.screen.components(separatedBy: "\u{1B}[?1049l").last ?? ""
        XCTAssertTrue(card.contains(chosen), "expected \(chosen) in \(card)")
    }

    /// Starts `spotlight -i` on a fresh pseudo-terminal.
    private func interactive(_ arguments: [String] = ["-i"], rows: UInt16 = 24, columns: UInt16 = 100,
                             environment extra: [String: String] = [:]) throws -> (PseudoTerminal, Process) {
        let terminal = try PseudoTerminal(rows: rows, columns: columns)
        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent("spotlight")
        process.arguments = arguments
        var environment = childEnvironment
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardInput = terminal.follower
        process.standardOutput = terminal.follower
        process.standardError = terminal.follower
        try process.run()
        terminal.closeFollower()
        return (terminal, process)
    }

    func testTerminationRestoresTheTerminal() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let (terminal, process) = try interactive()
        XCTAssertTrue(terminal.waitFor("Esc quit"), terminal.screen)
        terminal.type("brent")
        XCTAssertTrue(terminal.waitFor("\u{1B}[1;4mBrent\u{1B}[22;24m Reid"), terminal.screen)
        XCTAssertFalse(terminal.isCooked, "raw while searching")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertTrue(terminal.waitFor("\u{1B}[?1049l"), "left the alternate screen")
        XCTAssertTrue(terminal.isCooked, "the terminal's settings are restored")
    }

    func testResizeRedrawsWithoutClearingTheScreen() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let (terminal, process) = try interactive(rows: 8)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(terminal.waitFor("Esc quit"), terminal.screen)
        terminal.type("sofia")
        XCTAssertTrue(terminal.waitFor("\u{1B}[1;4mSofia\u{1B}[22;24m Alvarez"), terminal.screen)
        usleep(200_000)
        let before = terminal.screen.components(separatedBy: "\u{1B}[H").count
        terminal.resize(rows: 30, columns: 120)
        kill(process.processIdentifier, SIGWINCH)
        let deadline = Date().addingTimeInterval(10)
        while terminal.screen.components(separatedBy: "\u{1B}[H").count == before, Date() < deadline { usleep(20_000) }
        XCTAssertGreaterThan(terminal.screen.components(separatedBy: "\u{1B}[H").count, before, "redrawn on resize, before any key")
        XCTAssertFalse(terminal.screen.contains("\u{1B}[2J"), "lines are overwritten in place; the screen is never cleared")
        terminal.type("\u{1B}")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    func testCtrlCExitsWith130() throws {
        let (terminal, process) = try interactive()
        XCTAssertTrue(terminal.waitFor("Esc quit"), terminal.screen)
        terminal.type("\u{03}")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertTrue(terminal.isCooked)
    }

    func testCallAndDirectionsKeysAndUnopenableResults() throws {
        try succeed("colleagues", ["setting", "all-records"])
        // An app that indexed but never registered: its results cannot be opened.
        OpenSpotlight.configure(applicationIdentifier: "com.example.unregistered")
        let indexed = expectation(description: "indexed")
        let set = CSSearchableItemAttributeSet(contentType: .text)
        set.title = "Zebra crossing"
        CSSearchableIndex.default().indexSearchableItems([CSSearchableItem(uniqueIdentifier: "z", domainIdentifier: nil,
                                                                           attributeSet: set)]) { error in
            XCTAssertNil(error)
            indexed.fulfill()
        }
        wait(for: [indexed], timeout: 30)

        let (terminal, process) = try interactive()
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(terminal.waitFor("Esc quit"), terminal.screen)
        terminal.type("zebra")
        XCTAssertTrue(terminal.waitFor("\u{1B}[1;4mZebra\u{1B}[22;24m crossing"), terminal.screen)
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("is not registered: its results cannot be opened"), terminal.screen)
        XCTAssertTrue(process.isRunning, "Enter on a result that cannot be opened keeps the search open")
        terminal.type("\u{15}brent reid")
        XCTAssertTrue(terminal.waitFor("^T call, ^G directions"), terminal.screen)
        terminal.type("\u{14}")  // Ctrl-T
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(try String(contentsOf: openerLog, encoding: .utf8), "tel:+15550101\n")
    }

    func testMatchedWordsAreMarkedTheWayTheTerminalCan() throws {
        try succeed("colleagues", ["setting", "all-records"])
        // A capable terminal: bold and underlined. (The test runner sets NO_COLOR; empty counts as unset.)
        let (color, colorProcess) = try interactive(["search", "marc"], environment: ["TERM": "xterm-256color", "NO_COLOR": ""])
        colorProcess.waitUntilExit()
        XCTAssertTrue(color.waitFor("\u{1B}[1;4mMarc\u{1B}[22;24mus Chen"), color.screen)
        // NO_COLOR (https://no-color.org) and a dumb terminal: brackets, no escape codes.
        for environment in [["TERM": "xterm-256color", "NO_COLOR": "1"], ["TERM": "dumb"]] {
            let (plain, process) = try interactive(["search", "marc"], environment: environment)
            process.waitUntilExit()
            XCTAssertTrue(plain.waitFor("[Marc]us Chen"), "\(environment): \(plain.screen)")
            XCTAssertFalse(plain.screen.contains("\u{1B}"), plain.screen)
        }
    }

    func testADumbTerminalGetsNoEscapeCodes() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let (terminal, process) = try interactive([], environment: ["TERM": "dumb"])
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(terminal.waitFor("Recently used and suggested:"), terminal.screen)
        XCTAssertFalse(terminal.screen.contains("\u{1B}"), terminal.screen)
        let (refusing, explicit) = try interactive(["-i"], environment: ["TERM": "dumb"])
        explicit.waitUntilExit()
        XCTAssertNotEqual(explicit.terminationStatus, 0)
        XCTAssertTrue(refusing.waitFor("needs a terminal that can move the cursor"), refusing.screen)
        XCTAssertFalse(refusing.screen.contains("\u{1B}["), refusing.screen)
    }

    func testEscapeQuitsAndNonTerminalsAreRefused() throws {
        let (terminal, process) = try interactive(["-i", "brent"], columns: 80)
        XCTAssertTrue(terminal.waitFor("Nothing is indexed yet"), terminal.screen)
        terminal.type("\u{1B}")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)

        let piped = try run("spotlight", ["-i"])
        XCTAssertNotEqual(piped.status, 0)
        XCTAssertTrue(piped.stderr.contains("needs a terminal"), piped.stderr)
    }
}

/// A pseudo-terminal pair: the test types on the leader side; the child runs on the follower.
final class PseudoTerminal: @unchecked Sendable {
    // @unchecked Sendable: `output` is only touched under `lock`.
    let leader: Int32
    let follower: FileHandle
    /// The follower's device, to read its settings after the child changed them.
    private(set) var followerPath = ""
    private let lock = NSLock()
    private var output = Data()

    init(rows: UInt16, columns: UInt16) throws {
        typealias OpenPT = @convention(c) (Int32) -> Int32
        typealias PTFunction = @convention(c) (Int32) -> Int32
        typealias PTSName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        let libc = dlopen(nil, RTLD_NOW)
        guard let openSymbol = dlsym(libc, "posix_openpt"), let grantSymbol = dlsym(libc, "grantpt"),
              let unlockSymbol = dlsym(libc, "unlockpt"), let nameSymbol = dlsym(libc, "ptsname") else {
            throw PseudoTerminalError("this C library has no posix_openpt/grantpt/unlockpt/ptsname")
        }
        leader = unsafeBitCast(openSymbol, to: OpenPT.self)(O_RDWR | O_NOCTTY)
        guard leader >= 0, unsafeBitCast(grantSymbol, to: PTFunction.self)(leader) == 0,
              unsafeBitCast(unlockSymbol, to: PTFunction.self)(leader) == 0,
              let name = unsafeBitCast(nameSymbol, to: PTSName.self)(leader) else {
            throw PseudoTerminalError("cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let followerDescriptor = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard followerDescriptor >= 0 else { throw PseudoTerminalError("cannot open \(String(cString: name))") }
        followerPath = String(cString: name)
        follower = FileHandle(fileDescriptor: followerDescriptor, closeOnDealloc: true)
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(leader, UInt(TIOCSWINSZ), &size)
        let descriptor = leader
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(descriptor, &buffer, buffer.count)
                if n <= 0 { break }
                lock.lock()
                output.append(contentsOf: buffer[0..<n])
                lock.unlock()
            }
        }
    }

    /// Whether the follower is back in cooked mode (echo and line editing on), as a shell needs it.
    var isCooked: Bool {
        let descriptor = open(followerPath, O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { return false }
        return settings.c_lflag & tcflag_t(ECHO) != 0 && settings.c_lflag & tcflag_t(ICANON) != 0
    }

    func resize(rows: UInt16, columns: UInt16) {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(leader, UInt(TIOCSWINSZ), &size)
    }

    func closeFollower() {
        try? follower.close()
    }

    var screen: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    func type(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(leader, $0.baseAddress, $0.count - 1) }
    }

    func waitFor(_ text: String, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if screen.contains(text) { return true }
            usleep(20_000)
        }
        return false
    }
}

struct PseudoTerminalError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
