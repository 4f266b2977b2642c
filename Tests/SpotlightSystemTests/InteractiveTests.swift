import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `spotlight -i` driven through a pseudo-terminal, as a person would use it.
final class InteractiveTests: SystemTestCase {
    func testSearchAsYouTypeAndOpenTheChosenResult() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let terminal = try PseudoTerminal(rows: 30, columns: 100)
        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent("spotlight")
        process.arguments = ["-i"]
        process.environment = childEnvironment
        process.standardInput = terminal.follower
        process.standardOutput = terminal.follower
        process.standardError = terminal.follower
        try process.run()
        terminal.closeFollower()
        defer { if process.isRunning { process.terminate() } }

        XCTAssertTrue(terminal.waitFor("type to search"), terminal.screen)
        for character in "marc" {
            terminal.type(String(character))
            usleep(30_000)
        }
        XCTAssertTrue(terminal.waitFor("Marcus Chen — Software Engineer"), terminal.screen)
        terminal.type("\u{7F}\u{7F}\u{7F}\u{7F}engineering")  // backspaces, then a new query: redrawn each time
        XCTAssertTrue(terminal.waitFor("Sofia Alvarez"), terminal.screen)
        terminal.type("\u{1B}[B")  // ↓ to the second result
        usleep(100_000)
        let before = terminal.screen
        terminal.type("\r")
        XCTAssertTrue(terminal.waitFor("@example.com ·"), terminal.screen)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        // The app printed the second result's employee.
        let chosen = before.components(separatedBy: "\u{1B}[7m›").last?.split(separator: "—").first?
            .trimmingCharacters(in: .whitespaces) ?? ""
        XCTAssertFalse(chosen.isEmpty, before)
        let card = terminal.screen.components(separatedBy: "\u{1B}[?1049l").last ?? ""
        XCTAssertTrue(card.contains(chosen), "expected \(chosen) in \(card)")
    }

    func testEscapeQuitsAndNonTerminalsAreRefused() throws {
        let terminal = try PseudoTerminal(rows: 24, columns: 80)
        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent("spotlight")
        process.arguments = ["-i", "brent"]
        process.environment = childEnvironment
        process.standardInput = terminal.follower
        process.standardOutput = terminal.follower
        process.standardError = terminal.follower
        try process.run()
        terminal.closeFollower()
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
    private let lock = NSLock()
    private var output = Data()

    init(rows: UInt16, columns: UInt16) throws {
        typealias OpenPT = @convention(c) (Int32) -> Int32
        typealias PTFunction = @convention(c) (Int32) -> Int32
        typealias PTSName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        let libc = dlopen(nil, RTLD_NOW)
        guard let openSymbol = dlsym(libc, "posix_openpt"), let grantSymbol = dlsym(libc, "grantpt"),
              let unlockSymbol = dlsym(libc, "unlockpt"), let nameSymbol = dlsym(libc, "ptsname") else {
            throw XCTSkip("no pseudo-terminals here")
        }
        leader = unsafeBitCast(openSymbol, to: OpenPT.self)(O_RDWR | O_NOCTTY)
        guard leader >= 0, unsafeBitCast(grantSymbol, to: PTFunction.self)(leader) == 0,
              unsafeBitCast(unlockSymbol, to: PTFunction.self)(leader) == 0,
              let name = unsafeBitCast(nameSymbol, to: PTSName.self)(leader) else {
            throw XCTSkip("cannot open a pseudo-terminal")
        }
        let followerDescriptor = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard followerDescriptor >= 0 else { throw XCTSkip("cannot open \(String(cString: name))") }
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
