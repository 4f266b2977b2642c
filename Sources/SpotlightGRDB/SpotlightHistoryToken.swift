import Foundation

/// A position in a database's change history: every change recorded up to it is reflected in the index. The
/// analog of Core Data's `NSPersistentHistoryToken`.
///
/// Tokens of one database are ordered: a later token covers more changes.
///
/// ```swift
/// NotificationCenter.default.addObserver(forName: GRDBCoreSpotlightDelegate.indexDidUpdateNotification,
///                                        object: nil, queue: nil) { note in
///     let token = note.userInfo?[GRDBCoreSpotlightDelegate.historyTokenKey] as? SpotlightHistoryToken
///     print("indexed through", token?.sequenceNumber ?? 0)
/// }
/// ```
public struct SpotlightHistoryToken: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The sequence number of the last change reflected in the index (0: none yet).
    public let sequenceNumber: Int64

    public init(sequenceNumber: Int64) {
        self.sequenceNumber = sequenceNumber
    }

    public static func < (lhs: SpotlightHistoryToken, rhs: SpotlightHistoryToken) -> Bool {
        lhs.sequenceNumber < rhs.sequenceNumber
    }

    public var description: String { "SpotlightHistoryToken(\(sequenceNumber))" }
}

/// What the delegate stores as its index's client state: the token and the fingerprint of the declaration it was
/// produced with, in less than 250 bytes.
struct IndexClientState: Equatable {
    static let prefix = "spotlightgrdb/1 "

    var token: SpotlightHistoryToken
    var fingerprint: String

    var data: Data {
        Data("\(Self.prefix)\(token.sequenceNumber) \(fingerprint)".utf8)
    }

    /// Parses a stored client state; nil when there is none or it is not ours.
    init?(_ data: Data?) {
        guard let data, let text = String(data: data, encoding: .utf8), text.hasPrefix(Self.prefix) else { return nil }
        let fields = text.dropFirst(Self.prefix.count).split(separator: " ")
        guard fields.count == 2, let seq = Int64(fields[0]) else { return nil }
        self.token = SpotlightHistoryToken(sequenceNumber: seq)
        self.fingerprint = String(fields[1])
    }

    init(token: SpotlightHistoryToken, fingerprint: String) {
        self.token = token
        self.fingerprint = fingerprint
    }
}

/// A stable 64-bit FNV-1a hash, in hex (Swift's `Hasher` is seeded per process).
func stableFingerprint(_ text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
