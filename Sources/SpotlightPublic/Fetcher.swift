import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The crawler's HTTP: one GET at a time per call, redirects never followed (the crawler decides where a redirect
/// may lead), a time limit, a size limit, and no fetch from loopback or private addresses unless allowed.
struct Fetcher: Sendable {
    struct Page: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: Data
        func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case refusedAddress(String), tooLarge(Int), unsupportedURL(String)
        var description: String {
            switch self {
            case .refusedAddress(let host): return "refused: \(host) is a loopback or private address"
            case .tooLarge(let limit): return "larger than \(limit) bytes"
            case .unsupportedURL(let url): return "not an http(s) URL the service may fetch: \(url)"
            }
        }
    }

    let client: HTTPClient
    let userAgent: String
    let timeout: Double
    let allowInsecure: Bool
    let allowPrivateAddresses: Bool

    init(configuration: PublicConfiguration) {
        client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(redirectConfiguration: .disallow,
                                 timeout: .init(connect: .seconds(5), read: .seconds(Int64(configuration.fetchTimeout)))))
        userAgent = configuration.userAgent
        timeout = configuration.fetchTimeout
        allowInsecure = configuration.allowInsecureSites
        allowPrivateAddresses = configuration.allowPrivateAddresses
    }

    func shutdown() async {
        try? await client.shutdown()
    }

    /// GETs `url`, reading at most `limit` bytes of body (more is `.tooLarge`).
    func get(_ url: URL, limit: Int) async throws -> Page {
        try check(url)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Accept", value: "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8")
        let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1_000)))
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > limit {
            throw Failure.tooLarge(limit)
        }
        var body = Data()
        for try await buffer in response.body {
            guard body.count + buffer.readableBytes <= limit else { throw Failure.tooLarge(limit) }
            body.append(contentsOf: buffer.readableBytesView)
        }
        return Page(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: body)
    }

    /// Refuses other schemes, `http` unless allowed, and hosts that are or resolve to loopback, link-local or private
    /// addresses unless allowed. (A name that resolves differently between this check and the connection is not
    /// caught: run the crawler where the private network is firewalled off, as ARCHITECTURE.md says.)
    func check(_ url: URL) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || (scheme == "http" && allowInsecure),
              let host = url.host, !host.isEmpty else {
            throw Failure.unsupportedURL(url.absoluteString)
        }
        guard !allowPrivateAddresses else { return }
        let lowered = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if lowered == "localhost" || lowered.hasSuffix(".localhost") { throw Failure.refusedAddress(host) }
        for address in Self.resolve(lowered) where Self.isPrivate(address) {
            throw Failure.refusedAddress(host)
        }
    }

    /// The host's addresses (numeric strings); an address literal resolves to itself.
    static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [host] }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0,
                           NI_NUMERICHOST) == 0 {
                addresses.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }

    /// Loopback, private (RFC 1918, unique local), link-local, unspecified and carrier-grade NAT addresses.
    static func isPrivate(_ address: String) -> Bool {
        let lowered = address.lowercased()
        if lowered.contains(":") {
            if lowered == "::1" || lowered == "::" { return true }
            if lowered.hasPrefix("fc") || lowered.hasPrefix("fd") || lowered.hasPrefix("fe8") || lowered.hasPrefix("fe9")
                || lowered.hasPrefix("fea") || lowered.hasPrefix("feb") { return true }
            if lowered.hasPrefix("::ffff:") { return isPrivate(String(lowered.dropFirst(7))) }
            return false
        }
        let parts = lowered.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4 else { return true }
        switch (parts[0], parts[1]) {
        case (0, _), (10, _), (127, _): return true
        case (169, 254), (192, 168): return true
        case (172, 16...31): return true
        case (100, 64...127): return true
        default: return false
        }
    }
}
