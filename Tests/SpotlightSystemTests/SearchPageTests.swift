import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest
@testable import SpotlightDesktop
@testable import SpotlightSystem

#if canImport(Glibc)
import Glibc
#endif

/// The local search page served by the built `spotlight serve`: the token on every request, search grouped by app,
/// the actions, health; and the page itself in a real headless Chromium.
final class SearchPageTests: SystemTestCase {
    private var server: Process?

    override func tearDown() {
        if let server, server.isRunning {
            server.terminate()
            server.waitUntilExit()
        }
        super.tearDown()
    }

    func testEveryRequestWithoutTheTokenIsRefused() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let page = try startPage()
        for path in ["/", "/api/search?q=bre", "/api/health", "/favicon.ico"] {
            XCTAssertEqual(try page.get(path, token: nil).status, 403, path)
            XCTAssertEqual(try page.get(path, token: String(repeating: "0", count: 64)).status, 403, path)
        }
        XCTAssertEqual(try page.post("/api/open", json: #"{"id":"com.example.colleagues/employee-1"}"#, token: nil).status, 403)
        let home = try page.get("/")
        XCTAssertEqual(home.status, 200)
        XCTAssertTrue(home.text.contains("<input id=\"query\""), home.text)
        XCTAssertEqual(home.headers["Referrer-Policy"], "no-referrer", "the token must not leak in a Referer")
        XCTAssertTrue(home.headers["Content-Security-Policy"]?.contains("default-src 'none'") == true, "\(home.headers)")
        // The header works as the address does.
        XCTAssertEqual(try page.get("/api/search?q=bre", token: nil, header: page.token).status, 200)
    }

    func testSearchIsGroupedByAppWithHighlightsAndActions() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("smoothies", ["list"])
        let page = try startPage()
        let reply = try page.get("/api/search?q=bre")
        XCTAssertEqual(reply.status, 200, reply.text)
        let outcome = try XCTUnwrap(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
        let apps = try XCTUnwrap(outcome["apps"] as? [[String: Any]])
        let colleagues = try XCTUnwrap(apps.first { $0["displayName"] as? String == "Colleagues" }, "\(apps)")
        let first = try XCTUnwrap((colleagues["results"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["title"] as? String, "Brent Reid")
        XCTAssertEqual(first["id"] as? String, "com.example.colleagues/employee-1")
        XCTAssertEqual(first["actions"] as? [String], ["open", "call", "directions"])
        let ranges = (first["titleHighlight"] as? [String: Any])?["ranges"] as? [[String: Int]]
        XCTAssertEqual(ranges ?? [], [["location": 0, "length": 3]])
    }

    func testActionsDoWhatTheCommandDoesAndBadRequestsGetClearErrors() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let page = try startPage()
        let id = #"{"id":"com.example.colleagues/employee-1"}"#
        XCTAssertEqual(try page.post("/api/call", json: id).status, 200)
        XCTAssertEqual(try page.post("/api/directions", json: id).status, 200)
        let opened = try String(contentsOf: openerLog, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(opened.first, "tel:+15550101")
        XCTAssertTrue(opened.last?.hasPrefix("geo:") == true, "\(opened)")

        let unknown = try page.post("/api/open", json: #"{"id":"com.example.colleagues/employee-404"}"#)
        XCTAssertEqual(unknown.status, 404, unknown.text)
        XCTAssertTrue(unknown.text.contains("no item employee-404"), unknown.text)
        for bad in ["not json", #"{"query":"no id"}"#, #"{"id":"no-slash"}"#, ""] {
            let reply = try page.post("/api/open", json: bad)
            XCTAssertTrue((400..<500).contains(reply.status), "\(bad): \(reply.status) \(reply.text)")
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: reply.body), "a JSON error: \(reply.text)")
        }
        // An action the result does not have: a clear 422, not a crash or a 500.
        try succeed("smoothies", ["list"])
        let smoothie = try XCTUnwrap(try page.firstResultID("berry"))
        let call = try page.post("/api/call", json: #"{"id":"\#(smoothie)"}"#)
        XCTAssertEqual(call.status, 422, call.text)

        let health = try page.get("/api/health")
        XCTAssertEqual(health.status, 200)
        XCTAssertTrue(health.text.contains(#""indexName":"_default""#) && health.text.contains(#""status":"ok""#), health.text)
    }

    func testServeOpenReusesTheRunningPage() throws {
        try succeed("colleagues", ["setting", "all-records"])
        let page = try startPage()
        try succeed("spotlight", ["serve", "--open", "--query", "brent reid"])
        let opened = try String(contentsOf: openerLog, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(opened, "http://127.0.0.1:\(page.port)/?token=\(page.token)&q=brent%20reid")
    }

    /// The page in a real headless Chromium (Debian's chromium and chromium-driver, driven by Selenium): typing
    /// "bre" shows Brent Reid under Colleagues, the arrow keys move the selection, Enter continues the chosen result
    /// in its app, and the page without its token is refused. Saves a screenshot.
    func testThePageInARealBrowser() throws {
        try succeed("colleagues", ["setting", "all-records"])
        try succeed("smoothies", ["list"])
        try succeed("colleagues", ["view", "Brent Reid"])
        // Colleagues is a terminal app: from the page it opens in $OPENSPOTLIGHT_TERMINAL, here a stand-in that runs
        // it and keeps what it shows.
        let shown = temporary.appendingPathComponent("terminal.out")
        let terminal = try terminalStandIn(output: shown)
        let page = try startPage(environment: ["OPENSPOTLIGHT_TERMINAL": terminal.path])
        let script = Self.packageDirectory.appendingPathComponent("Tests/Browser/search_page.py")
        let screenshot = ProcessInfo.processInfo.environment["OPENSPOTLIGHT_SCREENSHOT"]
            ?? temporary.appendingPathComponent("page.png").path
        guard let python = Launcher.resolve("python3") else { return XCTFail("python3 is needed for the browser test") }
        let output = try run(executable: python, [script.path, page.url, "--screenshot", screenshot, "--shown", shown.path])
        XCTAssertEqual(output.status, 0, "the browser test failed:\n\(output.stdout)\n\(output.stderr)")
        XCTAssertTrue(output.stdout.contains("browser test passed"), output.stdout + output.stderr)
        let app = try String(contentsOf: shown, encoding: .utf8)
        XCTAssertTrue(app.contains("brent.reid@example.com"), "Enter continued Brent Reid in Colleagues: \(app)")
    }

    // MARK: Helpers

    static var packageDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Starts `spotlight serve` and waits for the address it prints.
    private func startPage(environment extra: [String: String] = [:]) throws -> PageClient {
        let process = Process()
        process.executableURL = Self.productsDirectory.appendingPathComponent("spotlight")
        process.arguments = ["serve"]
        var environment = childEnvironment
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        server = process
        let printed = Self.read(out, until: "\n")
        guard let line = printed.split(separator: "\n").first, line.hasPrefix("Search page: ") else {
            throw SystemError("spotlight serve printed no address: \(printed)")
        }
        return try PageClient(url: String(line.dropFirst("Search page: ".count)))
    }
}

/// Requests to a running search page, with or without its token.
struct PageClient {
    let base: String
    let port: Int
    let token: String
    let url: String

    init(url: String) throws {
        guard let components = URLComponents(string: url), let port = components.port,
              let token = components.queryItems?.first(where: { $0.name == "token" })?.value else {
            throw SystemError("not a page address: \(url)")
        }
        self.url = url
        self.port = port
        self.token = token
        base = "http://127.0.0.1:\(port)"
    }

    struct Reply {
        var status: Int
        var body: Data
        var headers: [String: String]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A request with the page's token in the address.
    func get(_ path: String) throws -> Reply {
        try send("GET", path, body: nil, token: token, header: nil)
    }

    /// A request with this token in the address (nil: none) and this one in the header (nil: none).
    func get(_ path: String, token: String?, header: String? = nil) throws -> Reply {
        try send("GET", path, body: nil, token: token, header: header)
    }

    func post(_ path: String, json: String) throws -> Reply {
        try send("POST", path, body: Data(json.utf8), token: token, header: nil)
    }

    func post(_ path: String, json: String, token: String?) throws -> Reply {
        try send("POST", path, body: Data(json.utf8), token: token, header: nil)
    }

    func firstResultID(_ text: String) throws -> String? {
        let reply = try get("/api/search?q=\(text)")
        let outcome = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
        let app = (outcome?["apps"] as? [[String: Any]])?.first
        return ((app?["results"] as? [[String: Any]])?.first)?["id"] as? String
    }

    private func send(_ method: String, _ path: String, body: Data?, token: String?, header: String?) throws -> Reply {
        var address = base + path
        if let token { address += (path.contains("?") ? "&" : "?") + "token=\(token)" }
        var request = URLRequest(url: URL(string: address)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let header { request.setValue(header, forHTTPHeaderField: SearchPage.tokenHeader) }
        let done = DispatchSemaphore(value: 0)
        let box = ReplyBox()
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(data: data, response: response as? HTTPURLResponse, error: error)
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 30) == .success else { throw SystemError("\(method) \(path) timed out") }
        let (data, response, error) = box.get()
        guard let response else { throw SystemError("\(method) \(path) failed: \(String(describing: error))") }
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        return Reply(status: response.statusCode, body: data ?? Data(), headers: headers)
    }
}

private final class ReplyBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    private var response: HTTPURLResponse?
    private var error: (any Error)?

    func set(data: Data?, response: HTTPURLResponse?, error: (any Error)?) {
        lock.lock(); defer { lock.unlock() }
        self.data = data
        self.response = response
        self.error = error
    }

    func get() -> (Data?, HTTPURLResponse?, (any Error)?) {
        lock.lock(); defer { lock.unlock() }
        return (data, response, error)
    }
}
