#!/usr/bin/env python3
"""Peer: hand-rolled SQLite FTS5, what a careful app writes (the GRDB way, through Python's sqlite3 on Debian's
SQLite): an item table plus an external-content FTS5 table kept in sync by triggers, unicode61 remove_diacritics 2,
prefix indexes for 1-3 letters, bm25 with column weights (title 10, keywords 5, description 2, body 1) as the rank,
WAL with synchronous=FULL (durable commits), one transaction for the bulk load, filters as WHERE on indexed columns.

    python3 Benchmarks/peers/fts5_peer.py --corpus tiny|debian|pypi|both [--limit N] [--workdir DIR] [--json]
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.ensure_interpreter(["sqlite3"])
import sqlite3  # noqa: E402

SCHEMA = [
    "CREATE TABLE items(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title TEXT, keywords TEXT, "
    "description TEXT, body TEXT, domain TEXT, month INTEGER, rank_hint REAL)",
    "CREATE INDEX items_domain ON items(domain)",
    "CREATE INDEX items_month ON items(month)",
    "CREATE VIRTUAL TABLE fts USING fts5(title, keywords, description, body, content='items', content_rowid='rowid', "
    "tokenize='unicode61 remove_diacritics 2', prefix='1 2 3')",
    "INSERT INTO fts(fts, rank) VALUES('rank', 'bm25(10.0, 5.0, 2.0, 1.0)')",
    "CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN "
    "INSERT INTO fts(rowid, title, keywords, description, body) "
    "VALUES (new.rowid, new.title, new.keywords, new.description, new.body); END",
    "CREATE TRIGGER items_ad AFTER DELETE ON items BEGIN "
    "INSERT INTO fts(fts, rowid, title, keywords, description, body) "
    "VALUES ('delete', old.rowid, old.title, old.keywords, old.description, old.body); END",
    "CREATE TRIGGER items_au AFTER UPDATE ON items BEGIN "
    "INSERT INTO fts(fts, rowid, title, keywords, description, body) "
    "VALUES ('delete', old.rowid, old.title, old.keywords, old.description, old.body); "
    "INSERT INTO fts(rowid, title, keywords, description, body) "
    "VALUES (new.rowid, new.title, new.keywords, new.description, new.body); END",
]

UPSERT = ("INSERT INTO items(id, title, keywords, description, body, domain, month, rank_hint) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title, "
          "keywords = excluded.keywords, description = excluded.description, body = excluded.body, "
          "domain = excluded.domain, month = excluded.month, rank_hint = excluded.rank_hint")
INSERT = ("INSERT INTO items(id, title, keywords, description, body, domain, month, rank_hint) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")

SEARCH = ("SELECT items.id FROM (SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?) AS top "
          "JOIN items ON items.rowid = top.rowid ORDER BY top.rank")
SEARCH_MONTHS = ("SELECT items.id FROM fts JOIN items ON items.rowid = fts.rowid "
                 "WHERE fts MATCH ? AND items.month BETWEEN ? AND ? ORDER BY fts.rank LIMIT ?")
SEARCH_DOMAINS = ("SELECT items.id FROM fts JOIN items ON items.rowid = fts.rowid "
                  "WHERE fts MATCH ? AND items.domain IN (%s) ORDER BY fts.rank LIMIT ?")
ATTRIBUTE = "SELECT items.id FROM fts JOIN items ON items.rowid = fts.rowid WHERE fts MATCH ? LIMIT ?"


def row(it):
    return (it.id, it.title, " ".join(it.keywords), it.description, it.body, it.domain, it.month, it.rank_hint)


def match_expr(words, column=None, prefix=True):
    terms = ['"%s"' % w for w in words]  # words are letters and digits only
    if prefix and terms:
        terms[-1] += "*"
    expr = " ".join(terms)
    return "{%s} : (%s)" % (column, expr) if column else expr


class FTS5Peer(common.Peer):
    name = "fts5"
    engine = "sqlite-fts5"
    version = sqlite3.sqlite_version
    notes = ["external-content FTS5 table + triggers; unicode61 remove_diacritics 2; prefix='1 2 3'; "
             "rank = bm25(10, 5, 2, 1); WAL, synchronous=FULL; default cache_size and wal_autocheckpoint",
             "disk counts every file: after the one-transaction bulk load the WAL file keeps the size of that "
             "transaction (about the size of the database) until something truncates it (journal_size_limit)",
             "no typo tolerance: typo queries run as ordinary queries"]

    def __init__(self, index_dir, args):
        super().__init__(index_dir, args)
        self.path = os.path.join(index_dir, "index.sqlite")
        self.w = None
        self.r = None

    def _writer(self):
        if self.w is None:
            self.w = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.w.execute("PRAGMA journal_mode=WAL")
            self.w.execute("PRAGMA synchronous=FULL")
        return self.w

    def bulk_index(self, items):
        w = self._writer()
        w.execute("BEGIN")
        for stmt in SCHEMA:
            w.execute(stmt)
        w.executemany(INSERT, map(row, items))
        w.execute("COMMIT")
        return {}

    def open_reader(self):
        self.r = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)

    def search(self, words, flt=None, limit=common.LIMIT, con=None):
        con = con or self.r
        m = match_expr(words)
        if flt is None:
            cur = con.execute(SEARCH, (m, limit))
        elif flt["op"] == "range":
            cur = con.execute(SEARCH_MONTHS, (m, flt["lo"], flt["hi"], limit))
        else:
            vals = flt["values"]
            cur = con.execute(SEARCH_DOMAINS % ",".join("?" * len(vals)), (m, *vals, limit))
        return [r[0] for r in cur]

    def attribute_query(self, op, clauses, limit=common.LIMIT):
        parts = ["(%s)" % match_expr(ws, field, prefix) for field, ws, prefix in clauses if ws]
        expr = (" AND " if op == "and" else " OR ").join(parts)
        return [r[0] for r in self.r.execute(ATTRIBUTE, (expr, limit))]

    def upsert(self, item):
        w = self._writer()
        w.execute("BEGIN IMMEDIATE")
        w.execute(UPSERT, row(item))
        w.execute("COMMIT")

    def delete(self, item_id):
        w = self._writer()
        w.execute("BEGIN IMMEDIATE")
        w.execute("DELETE FROM items WHERE id = ?", (item_id,))
        w.execute("COMMIT")

    def upsert_batch(self, items):
        w = self._writer()
        w.execute("BEGIN IMMEDIATE")
        w.executemany(UPSERT, map(row, items))
        w.execute("COMMIT")

    def close(self):
        for c in (self.r, self.w):
            if c is not None:
                c.close()
        self.r = self.w = None

    def cold_search(self, words, limit=common.LIMIT):
        con = sqlite3.connect(self.path, isolation_level=None)
        try:
            return self.search(words, con=con, limit=limit)
        finally:
            con.close()


if __name__ == "__main__":
    common.main(FTS5Peer)
