import Foundation
import GRDB

/// The unique identifier of an item mirrored from a row, and the way back from a search result to the row.
///
/// Its string form is `x-grdb://<store identifier>/<table>/<key>`, after Core Data's object URIs
/// (`x-coredata://<store UUID>/<Entity>/p<N>`): integer keys are written `p<N>`, text keys `s<text>`, real keys
/// `r<number>` and blob keys `b<hex>`, with the table and text percent-encoded.
///
/// ```swift
/// for try await result in query.results {
///     guard let id = SpotlightItemIdentifier(result.item.uniqueIdentifier) else { continue }
///     let row = try dbQueue.read { db in try id.fetchRow(db) }   // the photo that was found
/// }
/// ```
public struct SpotlightItemIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The identifier of the store (database) the row lives in.
    public let storeIdentifier: String
    /// The row's table.
    public let table: String
    /// The row's primary key (its rowid for a table without an explicit primary key).
    public let primaryKey: DatabaseValue

    static let scheme = "x-grdb://"

    public init(storeIdentifier: String, table: String, primaryKey: DatabaseValue) {
        self.storeIdentifier = storeIdentifier
        self.table = table
        self.primaryKey = primaryKey
    }

    /// Parses an item identifier; `nil` when the string is not one.
    public init?(_ string: String) {
        guard string.hasPrefix(Self.scheme) else { return nil }
        let parts = string.dropFirst(Self.scheme.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, let kind = parts[2].first,
              let table = String(parts[1]).removingPercentEncoding else { return nil }
        let body = String(parts[2].dropFirst())
        let key: DatabaseValue
        switch kind {
        case "p":
            guard let i = Int64(body) else { return nil }
            key = i.databaseValue
        case "r":
            guard let d = Double(body) else { return nil }
            key = d.databaseValue
        case "s":
            guard let s = body.removingPercentEncoding else { return nil }
            key = s.databaseValue
        case "b":
            guard let data = Self.data(hex: body) else { return nil }
            key = data.databaseValue
        default:
            return nil
        }
        self.init(storeIdentifier: String(parts[0]), table: table, primaryKey: key)
    }

    /// The item identifier: `x-grdb://<store>/<table>/<key>`.
    public var description: String {
        let key: String
        switch primaryKey.storage {
        case .int64(let i): key = "p\(i)"
        case .double(let d): key = "r\(d)"
        case .string(let s): key = "s" + Self.escape(s)
        case .blob(let data): key = "b" + data.map { String(format: "%02x", $0) }.joined()
        case .null: key = "n"
        }
        return "\(Self.scheme)\(storeIdentifier)/\(Self.escape(table))/\(key)"
    }

    /// Fetches the row, or nil if it no longer exists. Hidden rowids are selected as `rowid`.
    public func fetchRow(_ db: Database) throws -> Row? {
        let pk = try db.primaryKey(table)
        guard pk.columns.count == 1 else { return nil }
        let hidden = pk.isRowID && pk.rowIDColumn == nil
        let key = hidden ? "rowid" : pk.columns[0].quotedDatabaseIdentifier
        return try Row.fetchOne(db, sql: "SELECT \(hidden ? "rowid, " : "")* FROM \(table.quotedDatabaseIdentifier) WHERE \(key) = ?",
                                arguments: [primaryKey])
    }

    private static let allowed = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escape(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    private static func data(hex: String) -> Data? {
        guard hex.count % 2 == 0 else { return nil }
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }
}
