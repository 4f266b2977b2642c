import Foundation
import GRDB
import OpenCoreSpotlight

/// What of a database goes into Spotlight: the tables whose rows become searchable items, how each row's display
/// name is formed, which value feeds which attribute, and which related tables re-index a row when they change.
///
/// It plays the role of Core Data's model flags ("Index in Spotlight" on properties, the entity's
/// `coreSpotlightDisplayNameExpression`).
///
/// ```swift
/// let declaration = SpotlightDeclaration(tables: [
///     SpotlightTable("photo",
///         contentType: .image,
///         displayName: .column("name"),
///         attributes: [
///             .title: .column("name"),
///             .keywords: .query("SELECT tag.name FROM tag JOIN photo_tag ON photo_tag.tagId = tag.id WHERE photo_tag.photoId = ?"),
///         ],
///         relationships: [.hasMany("tag", through: "photo_tag")])
/// ])
/// ```
///
/// Changing the declaration (or its `version`) makes the next `startSpotlightIndexing()` rebuild the index from
/// the database.
public struct SpotlightDeclaration: Sendable, CustomStringConvertible {
    /// The indexed tables. A table appears at most once.
    public var tables: [SpotlightTable]
    /// Bump it when `attributeSet(for:table:in:)` of a subclass changes what it produces, so the index is rebuilt.
    public var version: Int

    /// Declares the indexed tables.
    public init(tables: [SpotlightTable], version: Int = 1) {
        self.tables = tables
        self.version = version
    }

    /// A canonical description; two declarations with the same description index the same way.
    public var description: String {
        "version \(version)\n" + tables.map(\.description).joined(separator: "\n")
    }
}

/// One indexed table: each of its rows becomes one searchable item.
///
/// ```swift
/// SpotlightTable("note", contentType: .text, displayName: .column("title"),
///                attributes: [.textContent: .column("body"), .contentModificationDate: .column("modifiedAt")],
///                filter: "isDeleted = 0")
/// ```
public struct SpotlightTable: Sendable, CustomStringConvertible {
    /// The table name.
    public var name: String
    /// The content type of the items (`contentType` and `contentTypeTree` of their attribute sets).
    public var contentType: UTType
    /// How the item's `displayName` is formed, the analog of Core Data's display-name expression.
    public var displayName: SpotlightValue?
    /// Which value feeds which attribute.
    public var attributes: [SpotlightAttribute: SpotlightValue]
    /// An SQL condition on the table's columns; rows that do not satisfy it are not indexed (and are removed
    /// from the index when they stop satisfying it).
    public var filter: String?
    /// Related tables whose changes re-index this table's rows.
    public var relationships: [SpotlightRelationship]

    /// Declares an indexed table.
    ///
    /// - Parameters:
    ///   - name: the table.
    ///   - contentType: the items' content type.
    ///   - displayName: how the display name is formed; `nil` leaves it unset.
    ///   - attributes: which value feeds which attribute.
    ///   - filter: an SQL condition selecting the rows to index; `nil` indexes every row.
    ///   - relationships: related tables whose changes re-index this table's rows.
    public init(_ name: String, contentType: UTType = .item, displayName: SpotlightValue? = nil,
                attributes: [SpotlightAttribute: SpotlightValue] = [:], filter: String? = nil,
                relationships: [SpotlightRelationship] = []) {
        self.name = name
        self.contentType = contentType
        self.displayName = displayName
        self.attributes = attributes
        self.filter = filter
        self.relationships = relationships
    }

    public var description: String {
        var parts = ["table \(name.debugDescription) \(contentType.identifier)"]
        if let displayName { parts.append("displayName = \(displayName)") }
        for (attribute, value) in attributes.sorted(by: { $0.key.name < $1.key.name }) {
            parts.append("\(attribute.name) = \(value)")
        }
        if let filter { parts.append("filter \(filter.debugDescription)") }
        parts += relationships.map(\.description)
        return parts.joined(separator: "; ")
    }
}

/// Where a value of an indexed row comes from.
///
/// ```swift
/// .column("name")                                   // the row's column
/// .expression("firstName || ' ' || lastName")      // an SQL expression over the row's columns
/// .query("SELECT name FROM tag JOIN photo_tag ON tagId = tag.id WHERE photoId = ?")  // values of related rows
/// ```
public enum SpotlightValue: Sendable, Hashable, CustomStringConvertible {
    /// The value of one of the row's columns.
    case column(String)
    /// An SQL expression evaluated against the row, like `name || ' (' || year || ')'`.
    case expression(String)
    /// An SQL query whose one `?` parameter is bound to the row's primary key; the first column of every result row
    /// is a value. A multi-valued attribute (`keywords`) gets them all, a single-valued one gets them joined with
    /// ", ".
    case query(String)

    public var description: String {
        switch self {
        case .column(let c): return "column(\(c.debugDescription))"
        case .expression(let e): return "expression(\(e.debugDescription))"
        case .query(let q): return "query(\(q.debugDescription))"
        }
    }
}

/// A relationship along which a change of a related row re-indexes rows of the declaring table.
///
/// For a photo with tags (`photo`, `tag`, and the join table `photo_tag(photoId, tagId)`):
///
/// ```swift
/// .hasMany("photo_tag", foreignKey: "photoId")          // tagging or untagging re-indexes the photo
/// .hasMany("tag", through: "photo_tag")                 // the above, and renaming a tag re-indexes its photos
/// .belongsTo("album", foreignKey: "albumId")            // renaming the photo's album re-indexes the photo
/// ```
///
/// Foreign keys may be omitted when the schema declares exactly one foreign key between the two tables.
/// Relationships are not followed for attribute values: a `.query` value (or an override of `attributeSet`) reads
/// the related data; a relationship only says when to read it again.
public struct SpotlightRelationship: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case hasMany(table: String, foreignKey: String?)
        case hasManyThrough(table: String, through: String, foreignKey: String?, otherForeignKey: String?)
        case belongsTo(table: String, foreignKey: String?)
    }

    let kind: Kind

    /// Rows of `table` whose `foreignKey` column refers to the indexed row: inserting, updating or deleting one
    /// re-indexes the row it refers to (before and after the change).
    public static func hasMany(_ table: String, foreignKey: String? = nil) -> SpotlightRelationship {
        SpotlightRelationship(kind: .hasMany(table: table, foreignKey: foreignKey))
    }

    /// Rows of `table` linked to the indexed row through the join table `joinTable`, whose `foreignKey` column refers
    /// to the indexed row and whose `otherForeignKey` column refers to `table`: a change of the join table or of a
    /// linked row re-indexes the rows it is linked to.
    public static func hasMany(_ table: String, through joinTable: String, foreignKey: String? = nil,
                               otherForeignKey: String? = nil) -> SpotlightRelationship {
        SpotlightRelationship(kind: .hasManyThrough(table: table, through: joinTable, foreignKey: foreignKey,
                                                    otherForeignKey: otherForeignKey))
    }

    /// The row of `table` that the indexed row's `foreignKey` column refers to: changing it re-indexes every row
    /// that refers to it. An index on the foreign key column keeps this fast.
    public static func belongsTo(_ table: String, foreignKey: String? = nil) -> SpotlightRelationship {
        SpotlightRelationship(kind: .belongsTo(table: table, foreignKey: foreignKey))
    }

    public var description: String {
        func fk(_ name: String, _ value: String?) -> String { value.map { ", \(name): \($0.debugDescription)" } ?? "" }
        switch kind {
        case let .hasMany(table, foreignKey):
            return "hasMany(\(table.debugDescription)\(fk("foreignKey", foreignKey)))"
        case let .hasManyThrough(table, through, foreignKey, otherForeignKey):
            return "hasMany(\(table.debugDescription), through: \(through.debugDescription)"
                + "\(fk("foreignKey", foreignKey))\(fk("otherForeignKey", otherForeignKey)))"
        case let .belongsTo(table, foreignKey):
            return "belongsTo(\(table.debugDescription)\(fk("foreignKey", foreignKey)))"
        }
    }
}
