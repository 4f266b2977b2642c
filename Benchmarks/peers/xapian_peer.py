#!/usr/bin/env python3
"""Peer: Xapian 1.4 (Debian python3-xapian; importable only from /usr/bin/python3 and venvs made from it).
TermGenerator without stemming; field weights as wdf increments (title 10, keywords 5, description 2, body 1) into
one free-text space, keywords also under the "K" prefix for attribute queries; text folded (lower case, no
diacritics) before indexing, as the other peers' tokenizers do. QueryParser with OP_AND and FLAG_PARTIAL for the last
word (its default expansion: the 100 most frequent completions); BM25 (default). Filters: OP_FILTER with a value
range (month, slot 0) or boolean "XS" section terms. Bulk: add_document for each item, commit (fsync); Xapian's
default flush threshold (XAPIAN_FLUSH_THRESHOLD, 10,000 documents) applies.

    python3 Benchmarks/peers/xapian_peer.py --corpus tiny|debian|pypi|both [--limit N] [--workdir DIR] [--json]
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.ensure_interpreter(["xapian"])
import xapian  # noqa: E402

fold = common.fold
SLOT_MONTH, SLOT_RANK = 0, 1
Q = xapian.Query


class XapianPeer(common.Peer):
    name = "xapian"
    engine = "xapian"
    version = xapian.version_string()
    notes = ["no stemming; FLAG_PARTIAL on the last word (default expansion: 100 most frequent terms); BM25",
             "no typo tolerance configured (spelling data not built): typo queries run as ordinary queries"]

    def __init__(self, index_dir, args):
        super().__init__(index_dir, args)
        self.path = os.path.join(index_dir, "xapian")
        self.w = self.r = None
        self.tg = xapian.TermGenerator()

    def _doc(self, it):
        doc = xapian.Document()
        tg = self.tg
        tg.set_document(doc)
        kw = fold(" ".join(it.keywords))
        tg.index_text(fold(it.title), 10)
        tg.increase_termpos()
        tg.index_text(kw, 5)
        tg.increase_termpos()
        tg.index_text(fold(it.description), 2)
        if it.body:
            tg.increase_termpos()
            tg.index_text(fold(it.body), 1)
        tg.index_text_without_positions(kw, 1, "K")
        idterm = "Q" + it.id
        doc.add_boolean_term(idterm)
        if it.domain:
            doc.add_boolean_term("XS" + it.domain)
        doc.add_value(SLOT_MONTH, xapian.sortable_serialise(it.month))
        doc.add_value(SLOT_RANK, xapian.sortable_serialise(it.rank_hint))
        doc.set_data(it.id)
        return idterm, doc

    def _writer(self):
        if self.w is None:
            self.w = xapian.WritableDatabase(self.path, xapian.DB_CREATE_OR_OPEN)
        return self.w

    def bulk_index(self, items):
        w = self._writer()
        for it in items:
            w.add_document(self._doc(it)[1])
        w.commit()
        return {}

    def _reader(self, db):
        qp = xapian.QueryParser()
        qp.set_database(db)
        qp.set_default_op(Q.OP_AND)
        enq = xapian.Enquire(db)
        return db, qp, enq

    def open_reader(self):
        self.r, self.qp, self.enq = self._reader(xapian.Database(self.path))
        self.enq_bool = xapian.Enquire(self.r)
        self.enq_bool.set_weighting_scheme(xapian.BoolWeight())  # attribute queries: unranked, docid order
        self.qp_and, self.qp_or = xapian.QueryParser(), xapian.QueryParser()
        for qp, dop in ((self.qp_and, Q.OP_AND), (self.qp_or, Q.OP_OR)):
            qp.set_database(self.r)
            qp.add_prefix("keywords", "K")
            qp.set_default_op(dop)

    def refresh_reader(self):
        self.r.reopen()

    def _filter(self, flt):
        if flt["op"] == "range":
            return Q(Q.OP_VALUE_RANGE, SLOT_MONTH, xapian.sortable_serialise(flt["lo"]),
                     xapian.sortable_serialise(flt["hi"]))
        return Q(Q.OP_OR, [Q("XS" + v) for v in flt["values"]])

    def search(self, words, flt=None, limit=common.LIMIT, handles=None):
        _db, qp, enq = handles or (self.r, self.qp, self.enq)
        q = qp.parse_query(" ".join(words), xapian.QueryParser.FLAG_PARTIAL)
        if flt is not None:
            q = Q(Q.OP_FILTER, q, self._filter(flt))
        enq.set_query(q)
        return [m.document.get_data().decode() for m in enq.get_mset(0, limit)]

    def attribute_query(self, op, clauses, limit=common.LIMIT):
        terms = []
        for field, ws, prefix in clauses:
            if field != "keywords":
                raise ValueError("xapian peer indexes only keywords as an attribute field")
            terms += ["keywords:" + w + ("*" if prefix and i == len(ws) - 1 else "") for i, w in enumerate(ws)]
        qp = self.qp_and if op == "and" else self.qp_or
        self.enq_bool.set_query(qp.parse_query(" ".join(terms), xapian.QueryParser.FLAG_WILDCARD))
        return [m.document.get_data().decode() for m in self.enq_bool.get_mset(0, limit)]

    def upsert(self, item):
        w = self._writer()
        w.replace_document(*self._doc(item))
        w.commit()

    def delete(self, item_id):
        w = self._writer()
        w.delete_document("Q" + item_id)
        w.commit()

    def upsert_batch(self, items):
        w = self._writer()
        for it in items:
            w.replace_document(*self._doc(it))
        w.commit()

    def close(self):
        for db in (self.r, self.w):
            if db is not None:
                db.close()
        self.r = self.w = None
        self.enq = self.enq_bool = self.qp = self.qp_and = self.qp_or = None

    def cold_search(self, words, limit=common.LIMIT):
        db = xapian.Database(self.path)
        try:
            return self.search(words, limit=limit, handles=self._reader(db))
        finally:
            db.close()


if __name__ == "__main__":
    common.main(XapianPeer)
