import Foundation
import GRDB
import OpenCoreSpotlight
import SpotlightGRDB
import XCTest

/// The delegate following the database: rows, relationships, batches, stop and start, deletion, notifications.
final class DelegateTests: SpotlightGRDBTestCase {
    /// The set-up of Documentation/SpotlightGRDB.md, as written there.
    func testTheTwoLineSetUp() async throws {
        let dbPool = self.dbPool!
        let spotlight = try GRDBCoreSpotlightDelegate(forStoreWith: dbPool, declaration: SpotlightDeclaration(tables: [
            SpotlightTable("photo", contentType: .image, displayName: .column("name"), attributes: [.title: .column("name")]),
        ]))
        spotlight.startSpotlightIndexing()

        let id = try addPhoto("Delicate Arch")
        try await eventually("the photo is in Spotlight") { try photoItem(spotlight, id)?.attributeSet.displayName == "Delicate Arch" }
        let context = CSSearchQueryContext()
        context.fetchAttributes = ["displayName"]
        var found: [String] = []
        for try await result in CSSearchQuery(queryString: #"displayName == "delicate*"cd"#, queryContext: context).results {
            found.append(result.item.attributeSet.displayName ?? "")
        }
        XCTAssertEqual(found, ["Delicate Arch"], "found by a query of the app's indexes")
    }

    func testInsertUpdateDeleteOfIndexedRowsAreIndexedAutomatically() async throws {
        let delegate = try makeDelegate()
        XCTAssertFalse(delegate.isIndexingEnabled)
        delegate.startSpotlightIndexing()
        XCTAssertTrue(delegate.isIndexingEnabled)

        let id = try addPhoto("Owachomo Bridge", tags: ["Natural Bridges State Park", "Utah"])
        try await eventually("the inserted photo is indexed") { try photoItem(delegate, id) != nil }
        let item = try XCTUnwrap(try photoItem(delegate, id))
        XCTAssertEqual(item.uniqueIdentifier, "x-grdb://\(delegate.storeIdentifier)/photo/p\(id)")
        XCTAssertEqual(item.domainIdentifier, delegate.storeIdentifier, "the default domain is the store identifier")
        XCTAssertEqual(item.attributeSet.displayName, "Owachomo Bridge")
        XCTAssertEqual(item.attributeSet.title, "Owachomo Bridge")
        XCTAssertEqual(item.attributeSet.keywords, ["Natural Bridges State Park", "Utah"])
        XCTAssertEqual(item.attributeSet.contentType, "public.image")
        XCTAssertNil(item.attributeSet.contentDescription, "no album: the expression is NULL, the attribute unset")
        XCTAssertGreaterThan(item.expirationDate, Date().addingTimeInterval(100 * 365 * 86_400),
                             "mirrored items do not expire")

        // The identifier maps back to the row.
        let parsed = try XCTUnwrap(SpotlightItemIdentifier(item.uniqueIdentifier))
        XCTAssertEqual(parsed, delegate.itemIdentifier(table: "photo", primaryKey: id.databaseValue))
        let name = try await dbPool.read { db in try parsed.fetchRow(db)?["name"] as String? }
        XCTAssertEqual(name, "Owachomo Bridge")

        try await dbPool.write { db in try db.execute(sql: "UPDATE photo SET name = 'Owachomo Bridge at dawn' WHERE id = ?", arguments: [id]) }
        try await eventually("the update is indexed") { try photoItem(delegate, id)?.attributeSet.title == "Owachomo Bridge at dawn" }
        XCTAssertEqual(try itemCount(delegate), 1, "updated in place, not duplicated")

        try await dbPool.write { db in try db.execute(sql: "DELETE FROM photo WHERE id = ?", arguments: [id]) }
        try await eventually("the deletion is indexed") { try itemCount(delegate) == 0 }
        try await eventually("the history is pruned") { try pendingHistory() == 0 }
        delegate.stopSpotlightIndexing()
        XCTAssertFalse(delegate.isIndexingEnabled)
    }

    func testRelatedRowChangesReindexTheirParent() async throws {
        let delegate = try makeDelegate()
        delegate.startSpotlightIndexing()
        let (arch, bridge) = try await dbPool.write { db in
            try db.execute(sql: "INSERT INTO album(id, name) VALUES (1, 'Utah 2024')")
            return (try Self.addPhoto("Delicate Arch", tags: ["Utah"], album: 1, db),
                    try Self.addPhoto("Owachomo Bridge", tags: ["Utah"], db))
        }
        try await eventually("both photos are indexed") { try itemCount(delegate) == 2 }
        XCTAssertEqual(try photoItem(delegate, arch)?.attributeSet.contentDescription, "in Utah 2024")

        // Tagging (an insert into the join table) re-indexes the photo's keywords.
        try await dbPool.write { db in
            try db.execute(sql: "INSERT INTO tag(name) VALUES ('Natural Bridges State Park')")
            try db.execute(sql: "INSERT INTO photo_tag(photoId, tagId) SELECT ?, id FROM tag WHERE name = 'Natural Bridges State Park'", arguments: [bridge])
        }
        try await eventually("the new tag is a keyword") {
            try photoItem(delegate, bridge)?.attributeSet.keywords == ["Natural Bridges State Park", "Utah"]
        }

        // Renaming a tag re-indexes every photo that has it.
        try await dbPool.write { db in try db.execute(sql: "UPDATE tag SET name = 'UT' WHERE name = 'Utah'") }
        try await eventually("both photos have the renamed tag") {
            try photoItem(delegate, arch)?.attributeSet.keywords == ["UT"]
                && photoItem(delegate, bridge)?.attributeSet.keywords == ["Natural Bridges State Park", "UT"]
        }

        // Untagging, and deleting a tag (cascading to the join table).
        try await dbPool.write { db in
            try db.execute(sql: "DELETE FROM photo_tag WHERE photoId = ? AND tagId = (SELECT id FROM tag WHERE name = 'UT')", arguments: [bridge])
        }
        try await eventually("the untagged keyword is gone") {
            try photoItem(delegate, bridge)?.attributeSet.keywords == ["Natural Bridges State Park"]
        }
        try await dbPool.write { db in try db.execute(sql: "DELETE FROM tag WHERE name = 'UT'") }
        try await eventually("the deleted tag is gone") { try photoItem(delegate, arch)?.attributeSet.keywords == nil }

        // Moving a photo to another tag's row through UPDATE of the join table re-indexes both photos.
        try await dbPool.write { db in
            try db.execute(sql: "UPDATE photo_tag SET photoId = ? WHERE photoId = ?", arguments: [arch, bridge])
        }
        try await eventually("the tag moved from one photo to the other") {
            try photoItem(delegate, arch)?.attributeSet.keywords == ["Natural Bridges State Park"]
                && photoItem(delegate, bridge)?.attributeSet.keywords == nil
        }

        // belongsTo: renaming the album re-indexes its photos.
        try await dbPool.write { db in try db.execute(sql: "UPDATE album SET name = 'Canyon Country' WHERE id = 1") }
        try await eventually("the album's new name is in the description") {
            try photoItem(delegate, arch)?.attributeSet.contentDescription == "in Canyon Country"
        }
        try assertIndexMatchesPhotos(delegate)
    }

    func testABatchWriteIsIndexedInOneIndexBatchPerChunk() async throws {
        let recorder: NotificationRecorder
        let delegate = try makeDelegate(batchSize: 1_000)
        recorder = NotificationRecorder(delegate)
        delegate.startSpotlightIndexing()
        try await delegate.processPendingChanges()
        recorder.reset()
        let before = try lastSequenceNumber()

        try await dbPool.write { db in
            for i in 0..<2_000 {
                try Self.addPhoto("photo \(i)", tags: ["batch", "group \(i % 10)"], db)
            }
        }
        let last = try await delegate.processPendingChanges()
        let recorded = try lastSequenceNumber() - before
        XCTAssertEqual(recorded, 2_000 + 4_000, "one history entry per photo and per tagging")
        XCTAssertEqual(last?.sequenceNumber, before + recorded)
        let tokens = recorder.tokens
        XCTAssertEqual(tokens.count, 6, "6,000 history entries in batches of 1,000: one index batch and notification each")
        XCTAssertEqual(tokens, tokens.sorted())
        XCTAssertEqual(tokens.last, last)
        XCTAssertEqual(try itemCount(delegate), 2_000)
        XCTAssertEqual(try pendingHistory(), 0, "indexed history is pruned")
        let one = try XCTUnwrap(try photoItem(delegate, 1_234))
        XCTAssertEqual(one.attributeSet.keywords, ["batch", "group 3"])
    }

    func testStopThenChangesThenStartCatchesUpExactlyOnce() async throws {
        let delegate = try makeDelegate()
        let recorder = NotificationRecorder(delegate)
        delegate.startSpotlightIndexing()
        let kept = try addPhoto("kept", tags: ["a"])
        let renamed = try addPhoto("before rename")
        let deleted = try addPhoto("deleted later")
        try await delegate.processPendingChanges()
        XCTAssertEqual(try itemCount(delegate), 3)

        delegate.stopSpotlightIndexing()
        recorder.reset()
        let tokenAtStop = try await storedToken(delegate)
        // Changes by this connection and by another one (as another process would make them).
        try await dbPool.write { db in
            try db.execute(sql: "UPDATE photo SET name = 'after rename' WHERE id = ?", arguments: [renamed])
            try db.execute(sql: "DELETE FROM photo WHERE id = ?", arguments: [deleted])
        }
        let other = try DatabaseQueue(path: databaseURL.path)
        try await other.write { db in
            _ = try Self.addPhoto("from another connection", tags: ["b"], db)
            try db.execute(sql: "INSERT INTO photo_tag(photoId, tagId) SELECT ?, id FROM tag WHERE name = 'b'", arguments: [kept])
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        let tokenWhileStopped = try await storedToken(delegate)
        XCTAssertEqual(tokenWhileStopped, tokenAtStop, "nothing is indexed while stopped")
        XCTAssertEqual(try photoItem(delegate, renamed)?.attributeSet.title, "before rename")
        XCTAssertTrue(recorder.all.isEmpty, "no notifications while stopped")
        XCTAssertGreaterThan(try pendingHistory(), 0, "the changes are recorded in the database")

        delegate.startSpotlightIndexing()
        try await eventually("the changes are caught up") { try pendingHistory() == 0 && recorder.all.count == 1 }
        XCTAssertEqual(recorder.tokens, [SpotlightHistoryToken(sequenceNumber: try lastSequenceNumber())],
                       "one batch: the catch-up")
        try assertIndexMatchesPhotos(delegate)
        XCTAssertEqual(try photoItem(delegate, kept)?.attributeSet.keywords, ["a", "b"])
        let tokenAfterStart = try await storedToken(delegate)
        XCTAssertEqual(tokenAfterStart, try lastSequenceNumber())

        // Starting again changes nothing: what was indexed is not indexed twice.
        recorder.reset()
        delegate.stopSpotlightIndexing()
        delegate.startSpotlightIndexing()
        try await delegate.processPendingChanges()
        XCTAssertTrue(recorder.all.isEmpty)
    }

    func testARestartedAppIndexesRowsFromBeforeTrackingAndChangesMadeWhileItWasNotRunning() async throws {
        // Rows that predate change tracking.
        try addPhoto("old photo", tags: ["old"])
        do {
            let first = try makeDelegate()
            XCTAssertEqual(try pendingHistory(), 0, "rows from before change tracking are not in the history")
            _ = first   // created, never started: the app quit
        }
        // Another process writes while no delegate runs.
        let other = try DatabaseQueue(path: databaseURL.path)
        try await other.write { db in _ = try Self.addPhoto("new photo", tags: ["new"], db) }

        let restarted = try makeDelegate()
        restarted.startSpotlightIndexing()
        try await eventually("everything is indexed") { try itemCount(restarted) == 2 }
        try await restarted.processPendingChanges()
        try assertIndexMatchesPhotos(restarted)
        XCTAssertEqual(try pendingHistory(), 0)
    }

    func testDeleteSpotlightIndexKeepsTheDataAndTheNextStartIndexesItAgain() async throws {
        let delegate = try makeDelegate()
        delegate.startSpotlightIndexing()
        for i in 0..<5 { try addPhoto("photo \(i)", tags: ["t\(i)"]) }
        try await delegate.processPendingChanges()
        XCTAssertEqual(try itemCount(delegate), 5)

        delegate.stopSpotlightIndexing()
        try await delegate.deleteSpotlightIndex()
        XCTAssertEqual(try itemCount(delegate), 0, "the index is empty")
        let counts = try await dbPool.read { db in
            [try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo_tag")]
        }
        XCTAssertEqual(counts, [5, 5], "the photos and their tags are still in the database")
        let tokenAfterDelete = try await storedToken(delegate)
        XCTAssertNil(tokenAfterDelete, "the index's token is gone with it")

        // The completion-handler form, on an empty index.
        let done = expectation(description: "deleted")
        let failure = LockedBox<(any Error)?>(nil)
        delegate.deleteSpotlightIndex { error in
            failure.set(error)
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 10)
        XCTAssertNil(failure.get())

        delegate.startSpotlightIndexing()
        try await eventually("every row is indexed again") { try itemCount(delegate) == 5 }
        try await delegate.processPendingChanges()
        try assertIndexMatchesPhotos(delegate)
    }

    func testTheNotificationCarriesTheStoreIdentifierAndTheIndexedToken() async throws {
        let delegate = try makeDelegate()
        let recorder = NotificationRecorder(delegate)
        delegate.startSpotlightIndexing()
        try await delegate.processPendingChanges()
        recorder.reset()

        try addPhoto("one", tags: ["x"])
        try await eventually("a notification arrives") { !recorder.all.isEmpty }
        let first = try XCTUnwrap(recorder.all.first)
        XCTAssertTrue(first.object === delegate, "posted by the delegate")
        XCTAssertEqual(first.storeIdentifier, delegate.storeIdentifier)
        XCTAssertEqual(Set(first.userInfo.keys.compactMap { $0 as? String }), ["NSStoreUUID", "historyToken"])
        let token = try XCTUnwrap(first.token)
        XCTAssertEqual(token.sequenceNumber, try lastSequenceNumber(), "the token of the last indexed change")
        let stored = try await storedToken(delegate)
        XCTAssertEqual(stored, token.sequenceNumber, "the token stored with the index")
        XCTAssertNotNil(try photoItem(delegate, 1), "posted once the change is in the index")

        try addPhoto("two")
        try await eventually("a second notification arrives") { recorder.all.count == 2 }
        XCTAssertGreaterThan(try XCTUnwrap(recorder.tokens.last), token, "tokens grow with each save")

        delegate.stopSpotlightIndexing()
        try await Task.sleep(nanoseconds: 100_000_000)
        recorder.reset()
        try addPhoto("three")
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertTrue(recorder.all.isEmpty, "no notification once stopped")
    }

    func testAttributeSetReturningNilKeepsARowOutOfTheIndex() async throws {
        final class PrivatePhotosDelegate: GRDBCoreSpotlightDelegate, @unchecked Sendable {
            override func attributeSet(for row: Row, table: String, in db: Database) throws -> CSSearchableItemAttributeSet? {
                if (row["name"] as String?)?.hasPrefix("private") == true { return nil }
                let set = try super.attributeSet(for: row, table: table, in: db)
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo_tag WHERE photoId = ?", arguments: [row["id"] as Int64]) ?? 0
                set?.comment = "\(count) tag(s)"
                return set
            }
            override func domainIdentifier() -> String { "photos" }
            override func indexName() -> String? { "library" }
        }
        let delegate = try PrivatePhotosDelegate(forStoreWith: dbPool, declaration: Self.photoDeclaration)
        XCTAssertEqual(delegate.searchableIndexName, "library_\(delegate.storeIdentifier)")
        delegate.startSpotlightIndexing()
        let visible = try addPhoto("visible", tags: ["a", "b"])
        let hidden = try addPhoto("private diary")
        try await delegate.processPendingChanges()
        XCTAssertEqual(try itemCount(delegate), 1)
        XCTAssertNil(try photoItem(delegate, hidden))
        let item = try XCTUnwrap(try photoItem(delegate, visible))
        XCTAssertEqual(item.attributeSet.comment, "2 tag(s)", "the override adds to the declared attributes")
        XCTAssertEqual(item.domainIdentifier, "photos")

        try await dbPool.write { db in try db.execute(sql: "UPDATE photo SET name = 'private now' WHERE id = ?", arguments: [visible]) }
        try await delegate.processPendingChanges()
        XCTAssertEqual(try itemCount(delegate), 0, "a row that becomes excluded leaves the index")
    }

    func testAFilterSelectsTheIndexedRows() async throws {
        var table = Self.photoTable
        table.filter = "name NOT LIKE 'draft%'"
        let delegate = try makeDelegate(SpotlightDeclaration(tables: [table]))
        delegate.startSpotlightIndexing()
        let draft = try addPhoto("draft: sunset")
        try addPhoto("sunrise")
        try await delegate.processPendingChanges()
        XCTAssertEqual(try items(delegate).values.compactMap(\.attributeSet.title), ["sunrise"])
        try await dbPool.write { db in try db.execute(sql: "UPDATE photo SET name = 'sunset' WHERE id = ?", arguments: [draft]) }
        try await delegate.processPendingChanges()
        XCTAssertEqual(Set(try items(delegate).values.compactMap(\.attributeSet.title)), ["sunrise", "sunset"])
    }

    func testChangingTheDeclarationRebuildsTheIndex() async throws {
        let first = try makeDelegate(SpotlightDeclaration(tables: [SpotlightTable("photo", displayName: .column("name"))]))
        first.startSpotlightIndexing()
        try addPhoto("Half Dome", tags: ["Yosemite"])
        try await first.processPendingChanges()
        XCTAssertNil(try photoItem(first, 1)?.attributeSet.keywords)
        first.stopSpotlightIndexing()

        // The app's next version declares keywords too, and a second table.
        let notes = SpotlightTable("note", contentType: .text, displayName: .column("uuid"), attributes: [.textContent: .column("body")])
        try await dbPool.write { db in try db.execute(sql: "INSERT INTO note(uuid, body) VALUES ('n-1', 'climbing permit')") }
        let second = try makeDelegate(SpotlightDeclaration(tables: [Self.photoTable, notes]))
        XCTAssertEqual(second.searchableIndexName, first.searchableIndexName)
        second.startSpotlightIndexing()
        try await second.processPendingChanges()
        XCTAssertEqual(try photoItem(second, 1)?.attributeSet.keywords, ["Yosemite"])
        XCTAssertEqual(try itemCount(second), 2)
        let note = try XCTUnwrap(try items(second)["x-grdb://\(second.storeIdentifier)/note/sn-1"])
        XCTAssertEqual(note.attributeSet.displayName, "n-1")
        XCTAssertEqual(note.attributeSet.textContent, "climbing permit")
    }

    func testTextKeysAndHiddenRowIDs() async throws {
        let declaration = SpotlightDeclaration(tables: [
            SpotlightTable("note", contentType: .text, displayName: .expression("'Note ' || uuid"),
                           attributes: [.textContent: .column("body")]),
            SpotlightTable("memo", displayName: .column("text"), attributes: [.title: .column("rowid")]),
        ])
        let delegate = try makeDelegate(declaration)
        delegate.startSpotlightIndexing()
        try await dbPool.write { db in
            try db.execute(sql: "INSERT INTO note(uuid, body) VALUES ('a/b c', 'first'), ('é', 'second')")
            try db.execute(sql: "INSERT INTO memo(text) VALUES ('buy film'), ('clean lens')")
        }
        try await delegate.processPendingChanges()
        let items = try self.items(delegate)
        XCTAssertEqual(items.count, 4)
        let note = try XCTUnwrap(items[delegate.itemIdentifier(table: "note", primaryKey: "a/b c".databaseValue).description])
        XCTAssertEqual(note.uniqueIdentifier, "x-grdb://\(delegate.storeIdentifier)/note/sa%2Fb%20c")
        XCTAssertEqual(note.attributeSet.displayName, "Note a/b c")
        XCTAssertEqual(SpotlightItemIdentifier(note.uniqueIdentifier)?.primaryKey, "a/b c".databaseValue)
        let memo = try XCTUnwrap(items[delegate.itemIdentifier(table: "memo", primaryKey: 2.databaseValue).description])
        XCTAssertEqual(memo.attributeSet.displayName, "clean lens")
        XCTAssertEqual(memo.attributeSet.title, "2")
        let memoID = try XCTUnwrap(SpotlightItemIdentifier(memo.uniqueIdentifier))
        let text = try await dbPool.read { db in try memoID.fetchRow(db)?["text"] as String? }
        XCTAssertEqual(text, "clean lens")

        try await dbPool.write { db in
            try db.execute(sql: "UPDATE note SET uuid = 'renamed' WHERE uuid = 'a/b c'")   // a key change
            try db.execute(sql: "DELETE FROM memo WHERE text = 'buy film'")
        }
        try await delegate.processPendingChanges()
        XCTAssertEqual(Set(try self.items(delegate).values.compactMap(\.attributeSet.displayName)),
                       ["Note renamed", "Note é", "clean lens"])
    }

    func testTheIndexDelegateMethodsReindex() async throws {
        let delegate = try makeDelegate()
        delegate.startSpotlightIndexing()
        let a = try addPhoto("a", tags: ["x"])
        let b = try addPhoto("b", tags: ["y"])
        try await delegate.processPendingChanges()
        delegate.stopSpotlightIndexing()

        // Items lost behind the delegate's back (the index was damaged, say).
        let ids = [a, b].map { delegate.itemIdentifier(table: "photo", primaryKey: $0.databaseValue).description }
        try await index(delegate).deleteSearchableItems(withIdentifiers: ids)
        XCTAssertEqual(try itemCount(delegate), 0)

        let one = expectation(description: "reindex one")
        delegate.searchableIndex(index(delegate), reindexSearchableItemsWithIdentifiers: [ids[0], "x-grdb://other-store/photo/p1", "junk"]) {
            one.fulfill()
        }
        await fulfillment(of: [one], timeout: 20)
        XCTAssertEqual(try items(delegate).keys.sorted(), [ids[0]])

        let all = expectation(description: "reindex all")
        delegate.searchableIndex(index(delegate), reindexAllSearchableItemsWithAcknowledgementHandler: { all.fulfill() })
        await fulfillment(of: [all], timeout: 20)
        try assertIndexMatchesPhotos(delegate)
    }

    func testADatabaseQueueWorksToo() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute(sql: Self.schema) }
        let delegate = try GRDBCoreSpotlightDelegate(forStoreWith: queue, declaration: Self.photoDeclaration)
        delegate.startSpotlightIndexing()
        let id = try await queue.write { db in try Self.addPhoto("in memory", tags: ["queue"], db) }
        try await eventually("the photo is indexed") { try photoItem(delegate, id)?.attributeSet.keywords == ["queue"] }
    }

    func testADatabaseOlderThanItsIndexIsIndexedAgain() async throws {
        let delegate = try makeDelegate()
        for i in 0..<3 { try addPhoto("photo \(i)") }
        try await delegate.processPendingChanges()
        // Change tracking removed and installed again: sequence numbers start over, below the index's token.
        try GRDBCoreSpotlightDelegate.removeChangeTracking(from: dbPool)
        let again = try makeDelegate()
        XCTAssertNotEqual(again.storeIdentifier, delegate.storeIdentifier, "a new store identifier")
        try addPhoto("after reinstall")
        try await again.processPendingChanges()
        try assertIndexMatchesPhotos(again)
    }

    func testHistoryPrunedByAnotherIndexMakesTheNextStartRebuild() async throws {
        // Two apps (two indexes) follow one database; that is not supported, but must not lose changes.
        let mine = try makeDelegate()
        mine.startSpotlightIndexing()
        try addPhoto("first")
        try await mine.processPendingChanges()
        mine.stopSpotlightIndexing()

        OpenSpotlight.configure(applicationIdentifier: app + ".other")
        let theirs = try makeDelegate()
        XCTAssertNotEqual(theirs.searchableIndexName, mine.searchableIndexName)
        try addPhoto("second", tags: ["t"])
        try await theirs.processPendingChanges()   // indexes and prunes the history `mine` has not seen
        XCTAssertEqual(try pendingHistory(), 0)

        OpenSpotlight.configure(applicationIdentifier: app)
        try await mine.processPendingChanges()
        try assertIndexMatchesPhotos(mine)
    }
}

/// The override example of Documentation/SpotlightGRDB.md, compiled.
final class PhotoSpotlight: GRDBCoreSpotlightDelegate, @unchecked Sendable {
    override func attributeSet(for row: Row, table: String, in db: Database) throws -> CSSearchableItemAttributeSet? {
        if (row["isPrivate"] as Bool?) == true { return nil }           // nil: not in Spotlight
        let set = try super.attributeSet(for: row, table: table, in: db)  // the declared attributes
        set?.thumbnailURL = URL(fileURLWithPath: "/var/lib/photos/thumbnails/\(row["id"] as Int64).jpg")
        return set
    }
    override func domainIdentifier() -> String { "photos" }   // default: the store identifier
    override func indexName() -> String? { "library" }        // default: nil
}

/// A value shared with a completion handler.
final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ newValue: Value) { lock.lock(); value = newValue; lock.unlock() }
    func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
}
