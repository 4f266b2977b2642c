import Foundation

/// An error of SpotlightGRDB: a declaration that does not match the database, or a failure to track or index
/// changes.
///
/// ```swift
/// do {
///     delegate = try GRDBCoreSpotlightDelegate(forStoreWith: dbPool, declaration: declaration)
/// } catch let error as SpotlightGRDBError where error.code == .unknownColumn {
///     print(error)   // table "photo": displayName: no such column "nmae" (columns: id, name)
/// }
/// ```
public struct SpotlightGRDBError: Error, CustomStringConvertible, Sendable {
    /// What kind of error it is. Codes may be added in later versions.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A declared table does not exist.
        public static let unknownTable = Code("unknownTable")
        /// A declared column does not exist.
        public static let unknownColumn = Code("unknownColumn")
        /// A declared SQL expression, query or filter does not compile, or a query does not take exactly one
        /// parameter.
        public static let invalidSQL = Code("invalidSQL")
        /// A relationship's foreign key is missing, ambiguous or not a single column.
        public static let invalidRelationship = Code("invalidRelationship")
        /// An indexed table's primary key has several columns.
        public static let unsupportedPrimaryKey = Code("unsupportedPrimaryKey")
        /// A table is declared twice, or the declaration is otherwise inconsistent.
        public static let invalidDeclaration = Code("invalidDeclaration")
        /// The database failed (installing change tracking, reading history).
        public static let database = Code("database")
        /// The Spotlight index failed.
        public static let index = Code("index")
    }

    /// What kind of error it is.
    public let code: Code
    /// What went wrong, for people: names the table, the column or the SQL at fault.
    public let message: String
    /// The error that caused this one, if any.
    public let underlyingError: (any Error)?
    /// Where the error was raised, for bug reports.
    public let file: String
    public let line: Int

    public init(_ code: Code, _ message: String, underlyingError: (any Error)? = nil,
                file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
        self.file = file
        self.line = line
    }

    public var description: String {
        "SpotlightGRDBError.\(code): \(message)"
    }
}

extension SpotlightGRDBError: LocalizedError {
    public var errorDescription: String? { message }
}
