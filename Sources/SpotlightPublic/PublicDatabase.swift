import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The service's PostgreSQL: the connection pool, the checked-in migrations and the mapping of database failures to
/// answers (503, never 500).
public struct PublicDatabase: Sendable {
    public let client: PostgresClient
    let logger: Logger
    /// The `application_name` of this pool's connections, unique to it, so that its own queries can be found in
    /// `pg_stat_activity` (`cancelQueriesInFlight`).
    let applicationName: String

    /// A pool for `url` (see `PublicConfiguration.databaseURL`). Run `client.run()` in a task while it is used.
    public init(url: String, logger: Logger = Logger(label: "org.openspotlight.public.db")) throws {
        var configuration = try Self.configuration(url)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 16
        applicationName = "spotlight-public \(UUID().uuidString.prefix(13).lowercased())"
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
    }

    /// Cancels on the server the queries this pool's connections are running (`pg_cancel_backend`); returns how
    /// many. PostgresNIO does not stop a query when its task is cancelled: it waits for the server's answer, which a
    /// query waiting for a lock or a long refresh may not give for minutes. Used while stopping, once the workers'
    /// tasks are cancelled: the query then fails at once with `query_canceled`, and the worker sees its
    /// cancellation.
    @discardableResult
    func cancelQueriesInFlight() async throws -> Int {
        var cancelled = 0
        for try await done in try await client.query("""
            select pg_cancel_backend(pid) from pg_stat_activity
            where application_name = \(applicationName) and pid <> pg_backend_pid() and state = 'active'
            """, logger: logger).decode(Bool.self) where done {
            cancelled += 1
        }
        return cancelled
    }

    /// Parses a `postgres://` URL.
    static func configuration(_ text: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
              let user = components.user, !user.isEmpty else {
            throw PublicServiceError.configuration("database URL must look like postgres://user@host:port/database: \(text)")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            let port = components.port ?? 5432
            return .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user,
                         password: components.password, database: database.isEmpty ? nil : database)
        }
        guard let host = components.host, !host.isEmpty else {
            throw PublicServiceError.configuration("database URL has no host: \(text)")
        }
        let tls: PostgresClient.Configuration.TLS
        switch query["sslmode"] ?? "prefer" {
        case "disable": tls = .disable
        case "require", "verify-full", "verify-ca": tls = .require(.makeClientConfiguration())
        default: tls = .prefer(.makeClientConfiguration())
        }
        return .init(host: host, port: components.port ?? 5432, username: user, password: components.password,
                     database: database.isEmpty ? nil : database, tls: tls)
    }

    /// Ranks the search candidate lists and remakes the typo corrections now, whenever they were last made
    /// (`spotlight-public refresh-search`). Returns the number of lists.
    public func refreshSearchCandidates(minimumItems: Int) async throws -> Int {
        try await PublicSearch.refreshCandidates(minimumItems: minimumItems, client: client, logger: logger)
    }

    // MARK: Migrations

    /// The checked-in migrations, in order: `Migrations/NNNN_name.sql`.
    static func migrations() throws -> [(version: Int, name: String, sql: String)] {
        guard let directory = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw PublicServiceError.configuration("the service's migrations are missing from its bundle")
        }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".sql") }
            .compactMap { name -> (Int, String, String)? in
                guard let version = Int(name.prefix(while: \.isNumber)) else { return nil }
                return (version, name, try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
            }
            .sorted { $0.0 < $1.0 }
    }

    /// Applies the migrations this database lacks, each in its own transaction, under an advisory lock so that
    /// instances starting together apply each one once. Returns the versions applied.
    @discardableResult
    public func migrate() async throws -> [Int] {
        let migrations = try Self.migrations()
        return try await client.withConnection { connection in
            try await connection.query("select pg_advisory_lock(7160411)", logger: logger)
            do {
                try await connection.query("""
                    create table if not exists schema_migration (
                        version int primary key, name text not null, applied_at timestamptz not null default now())
                    """, logger: logger)
                var applied = Set<Int>()
                for try await version in try await connection.query("select version from schema_migration", logger: logger)
                    .decode(Int.self) { applied.insert(version) }
                var done: [Int] = []
                for migration in migrations where !applied.contains(migration.version) {
                    try await connection.withTransaction(logger: logger) { connection in
                        for statement in Self.statements(migration.sql) {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query(
                            "insert into schema_migration (version, name) values (\(migration.version), \(migration.name))",
                            logger: logger)
                    }
                    logger.info("applied migration \(migration.name)")
                    done.append(migration.version)
                }
                try await connection.query("select pg_advisory_unlock(7160411)", logger: logger)
                return done
            } catch {
                _ = try? await connection.query("select pg_advisory_unlock(7160411)", logger: logger)
                throw error
            }
        }
    }

    /// A migration file's statements: split at `;` outside quotes, dollar-quoted bodies and comments.
    static func statements(_ sql: String) -> [String] {
        var statements: [String] = [], current = ""
        var index = sql.startIndex
        func flush() {
            let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { statements.append(trimmed) }
            current = ""
        }
        while index < sql.endIndex {
            let rest = sql[index...]
            if rest.hasPrefix("--") {
                index = rest.firstIndex(of: "\n") ?? sql.endIndex
            } else if rest.hasPrefix("'") {
                var end = sql.index(after: index)
                while end < sql.endIndex {
                    if sql[end] == "'" {
                        let next = sql.index(after: end)
                        if next < sql.endIndex, sql[next] == "'" { end = sql.index(after: next); continue }
                        break
                    }
                    end = sql.index(after: end)
                }
                end = end < sql.endIndex ? sql.index(after: end) : end
                current += sql[index..<end]
                index = end
            } else if rest.hasPrefix("$"), let close = rest.dropFirst().firstIndex(of: "$"),
                      rest[rest.index(after: rest.startIndex)..<close].allSatisfy({ $0.isLetter || $0 == "_" }) {
                let tag = String(rest[rest.startIndex...close])
                let bodyStart = sql.index(after: close)
                let end = sql[bodyStart...].range(of: tag)?.upperBound ?? sql.endIndex
                current += sql[index..<end]
                index = end
            } else if sql[index] == ";" {
                flush()
                index = sql.index(after: index)
            } else {
                current.append(sql[index])
                index = sql.index(after: index)
            }
        }
        flush()
        return statements
    }

    /// The hash key kept in the database, drawn by the first instance that needs it.
    func storedHashKey() async throws -> Data {
        var random = SystemRandomNumberGenerator()
        let drawn = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
        try await client.query(
            "insert into service_key (id, key) values (1, \(drawn)) on conflict (id) do nothing", logger: logger)
        for try await key in try await client.query("select key from service_key where id = 1", logger: logger)
            .decode(Data.self) { return key }
        throw PublicServiceError.configuration("the service key could not be stored")
    }
}
