import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import OpenCoreSpotlight
import SpotlightEngine
@testable import SpotlightSystem

/// A test case with a fresh temporary OpenSpotlight root, XDG data and config directories, for in-process use
/// (process-wide settings) and for the child processes it runs.
class SystemTestCase: XCTestCase {
    var temporary: URL!
    var home: URL { temporary.appendingPathComponent("openspotlight") }
    var dataHome: URL { temporary.appendingPathComponent("data") }
    var configHome: URL { temporary.appendingPathComponent("config") }
    var openerLog: URL { temporary.appendingPathComponent("opener.log") }
    private var savedEnvironment: [String: String?] = [:]

    override func setUp() {
        super.setUp()
        temporary = FileManager.default.temporaryDirectory.appendingPathComponent("openspotlight-system-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        StoreRegistry.forgetAll()
        OpenSpotlight.setRootDirectory(home)
        for (key, value) in ["XDG_DATA_HOME": dataHome.path, "XDG_CONFIG_HOME": configHome.path,
                             "XDG_DATA_DIRS": temporary.appendingPathComponent("none").path,
                             "OPENSPOTLIGHT_HOME": home.path] {
            savedEnvironment[key] = ProcessInfo.processInfo.environment[key]
            setenv(key, value, 1)
        }
    }

    override func tearDown() {
        StoreRegistry.forgetAll()
        OpenSpotlight.setRootDirectory(nil)
        OpenSpotlight.resetApplicationIdentifier()
        for (key, value) in savedEnvironment {
            if let value { setenv(key, value, 1) } else { unsetenv(key) }
        }
        savedEnvironment = [:]
        try? FileManager.default.removeItem(at: temporary)
        super.tearDown()
    }

    /// The environment of child processes: this test's directories, and an opener that logs its arguments.
    var childEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["OPENSPOTLIGHT_HOME"] = home.path
        env["XDG_DATA_HOME"] = dataHome.path
        env["XDG_CONFIG_HOME"] = configHome.path
        env["XDG_STATE_HOME"] = temporary.appendingPathComponent("state").path
        env["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        env["HOME"] = temporary.appendingPathComponent("home").path
        env["XDG_DATA_DIRS"] = temporary.appendingPathComponent("none").path
        env["OPENSPOTLIGHT_OPENER"] = openerScript.path
        env["OPENSPOTLIGHT_APP_ID"] = nil
        env["TERM"] = "xterm"
        return env
    }

    /// The children's `$XDG_RUNTIME_DIR` (where each terminal session's numbered results live).
    var runtimeDirectory: URL {
        let url = temporary.appendingPathComponent("runtime")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        return url
    }

    /// A shell script standing in for xdg-open: appends its arguments to `openerLog`.
    var openerScript: URL {
        let url = temporary.appendingPathComponent("opener.sh")
        if !FileManager.default.fileExists(atPath: url.path) {
            let script = "#!/bin/sh\necho \"$@\" >> '\(openerLog.path)'\n"
            _ = FileManager.default.createFile(atPath: url.path, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755])
        }
        return url
    }

    /// A stand-in for a terminal emulator (`$OPENSPOTLIGHT_TERMINAL`): runs the app's command and writes what it
    /// showed to `output` (atomically, once it has finished).
    func terminalStandIn(output: URL) throws -> URL {
        let script = temporary.appendingPathComponent("terminal.sh")
        try "#!/bin/sh\n\"$@\" > '\(output.path).tmp' 2>&1; mv '\(output.path).tmp' '\(output.path)'\n"
            .write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return script
    }

    /// Reads a child's pipe until what it wrote contains `marker` (or the pipe closes); returns what was read.
    static func read(_ pipe: Pipe, until marker: String) -> String {
        var text = ""
        while !text.contains(marker) {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        return text
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a built product as a real process and waits for it.
    @discardableResult
    func run(_ product: String, _ arguments: [String], environment extra: [String: String] = [:],
             file: StaticString = #filePath, line: UInt = #line) throws -> Output {
        try run(executable: Self.productsDirectory.appendingPathComponent(product), arguments, environment: extra)
    }

    /// Runs any program as a real process with this test's environment (plus `extra`) and waits for it.
    func run(executable: URL, _ arguments: [String], environment extra: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = childEnvironment
        for (key, value) in extra { env[key] = value }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A child that hangs fails its test instead of the whole run.
        DispatchQueue.global().asyncAfter(deadline: .now() + 300) { if process.isRunning { process.terminate() } }
        let group = DispatchGroup()
        let box = OutputBox()
        DispatchQueue.global().async(group: group) { box.setOut(out.fileHandleForReading.readDataToEndOfFile()) }
        DispatchQueue.global().async(group: group) { box.setErr(err.fileHandleForReading.readDataToEndOfFile()) }
        process.waitUntilExit()
        group.wait()
        return Output(status: process.terminationStatus, stdout: String(decoding: box.out, as: UTF8.self),
                      stderr: String(decoding: box.err, as: UTF8.self))
    }

    /// Runs a product and fails the test unless it exits with status 0.
    @discardableResult
    func succeed(_ product: String, _ arguments: [String], environment: [String: String] = [:],
                 file: StaticString = #filePath, line: UInt = #line) throws -> Output {
        let output = try run(product, arguments, environment: environment)
        XCTAssertEqual(output.status, 0, "\(product) \(arguments.joined(separator: " ")) failed:\n\(output.stdout)\n\(output.stderr)",
                       file: file, line: line)
        return output
    }

    /// Runs `spotlight <arguments> --json` and decodes its output.
    func spotlightJSON<T: Decodable>(_ type: T.Type, _ arguments: [String], environment: [String: String] = [:],
                                     file: StaticString = #filePath, line: UInt = #line) throws -> T {
        let output = try succeed("spotlight", arguments + ["--json"], environment: environment, file: file, line: line)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(T.self, from: Data(output.stdout.utf8))
        } catch {
            XCTFail("not JSON of \(T.self): \(error)\n\(output.stdout)", file: file, line: line)
            throw error
        }
    }

    func search(_ words: String, file: StaticString = #filePath, line: UInt = #line) throws -> SystemSearch.Outcome {
        try spotlightJSON(SystemSearch.Outcome.self, ["search"] + words.split(separator: " ").map(String.init),
                          file: file, line: line)
    }

    func storeURL(app: String, index: String) -> URL {
        StoreLocation.storeURL(app: app, indexName: index, root: home)
    }

    /// Damages an index as a disk fault would: random bytes over the database file and its write-ahead log.
    func corrupt(_ url: URL) throws {
        var random = SystemRandomNumberGenerator()
        let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) })
        try garbage.write(to: url)
        if let wal = FileHandle(forWritingAtPath: url.path + "-wal") {
            wal.write(garbage.prefix(4096))
            wal.closeFile()
        }
    }

    /// The directory of the built products (the `spotlight` and example executables).
    static var productsDirectory: URL {
        var candidates: [URL] = []
        for arg in [CommandLine.arguments.first, Bundle.main.executablePath].compactMap({ $0 }) {
            var url = URL(fileURLWithPath: arg)
            for _ in 0..<4 {
                url.deleteLastPathComponent()
                candidates.append(url)
            }
        }
        for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent()) }
        for dir in candidates where FileManager.default.fileExists(atPath: dir.appendingPathComponent("spotlight").path) {
            return dir
        }
        return candidates.first ?? URL(fileURLWithPath: ".")
    }
}

private final class OutputBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _out = Data(), _err = Data()
    var out: Data { lock.lock(); defer { lock.unlock() }; return _out }
    var err: Data { lock.lock(); defer { lock.unlock() }; return _err }
    func setOut(_ d: Data) { lock.lock(); _out = d; lock.unlock() }
    func setErr(_ d: Data) { lock.lock(); _err = d; lock.unlock() }
}
