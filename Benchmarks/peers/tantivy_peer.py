#!/usr/bin/env python3
"""Peer: Tantivy (PyPI `tantivy`, 0.27) embedded in the process. Text fields use a simple tokenizer + lowercase +
ascii_fold analyzer (the counterpart of unicode61 remove_diacritics 2). Each query word is a disjunction over the
fields with boosts (title 10, keywords 5, description 2, body 1); words are ANDed; the last word is a prefix through
Query.regex_query (Tantivy's query parser does not read `word*` as a prefix). Typo queries also run through
fuzzy_term_query with Meilisearch's distances (prefix Levenshtein on the last word). Writer with 2 threads; bulk =
add every document + commit (fsync); merges that run after the commit are timed apart.

    python3 Benchmarks/peers/tantivy_peer.py --corpus tiny|debian|pypi|both [--limit N] [--workdir DIR] [--json]
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.ensure_interpreter(["tantivy"])
import tantivy  # noqa: E402
from tantivy import Occur, Query  # noqa: E402

try:
    from importlib.metadata import version as _pkg_version
    TANTIVY_VERSION = _pkg_version("tantivy")
except Exception:  # pragma: no cover
    TANTIVY_VERSION = getattr(tantivy, "__version__", "?")

ANALYZER = "fold"
TEXT_FIELDS = [f for f, _w in common.FIELDS]


def build_schema(stored=False):
    """Only the id is stored by default (a hit is an id); `stored` keeps every field too, as an engine that hands
    back its items' attributes must (ours keeps every attribute of every item, and FTS5 its columns)."""
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw")
    for f in TEXT_FIELDS:
        sb.add_text_field(f, stored=stored, tokenizer_name=ANALYZER)
    sb.add_text_field("domain", stored=stored, tokenizer_name="raw")
    sb.add_integer_field("month", stored=stored, indexed=True, fast=True)
    sb.add_float_field("rank_hint", stored=stored, indexed=False, fast=True)
    return sb.build()


def open_index(schema, path):
    idx = tantivy.Index(schema, path=path, reuse=True)
    idx.register_tokenizer(ANALYZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
                           .filter(tantivy.Filter.lowercase()).filter(tantivy.Filter.ascii_fold()).build())
    return idx


class TantivyPeer(common.Peer):
    name = "tantivy"
    engine = "tantivy"
    version = TANTIVY_VERSION
    typo_tolerant = True

    @staticmethod
    def add_arguments(ap):
        ap.add_argument("--threads", type=int, default=2, help="Tantivy writer threads")
        ap.add_argument("--heap-mb", type=int, default=128, help="Tantivy writer heap, all threads together")
        ap.add_argument("--stored", action="store_true",
                        help="store every field, not only the id (what an engine that returns attributes keeps)")

    def __init__(self, index_dir, args):
        super().__init__(index_dir, args)
        self.threads, self.heap = args.threads, args.heap_mb * 1_000_000
        self.schema = build_schema(stored=args.stored)
        self.widx = self.writer = self.ridx = self.searcher = None
        self.notes = ["writer: %d threads, %d MB heap; regex_query for the last-word prefix; fuzzy_term_query "
                      "(distance 1 for 5-8 letters, 2 beyond; prefix on the last word) for typo_fuzzy" %
                      (self.threads, args.heap_mb),
                      "bulk_index.seconds = add + commit; merge_wait_seconds = waiting for the merges started by it",
                      "stored fields: %s" % ("every field (--stored)" if args.stored else "the id only")]

    def _doc(self, it):
        return tantivy.Document(id=it.id, title=it.title, keywords=" ".join(it.keywords), description=it.description,
                                body=it.body, domain=it.domain, month=it.month, rank_hint=float(it.rank_hint))

    def _open_writer(self):
        if self.widx is None:
            self.widx = open_index(self.schema, self.dir)
        if self.writer is None:
            self.writer = self.widx.writer(heap_size=self.heap, num_threads=self.threads)
        return self.writer

    def bulk_index(self, items):
        w = self._open_writer()
        for it in items:
            w.add_document(self._doc(it))
        w.commit()
        t0 = common.now()
        w.wait_merging_threads()  # consumes the writer
        merge_s = (common.now() - t0) / 1e9
        self.writer = None
        self.widx.reload()
        return {"merge_wait_seconds": round(merge_s, 3), "segments": self.widx.searcher().num_segments}

    def open_reader(self):
        self.ridx = open_index(self.schema, self.dir)
        self.ridx.reload()
        self.searcher = self.ridx.searcher()

    def refresh_reader(self):
        self.ridx.reload()
        self.searcher = self.ridx.searcher()

    # --- queries ------------------------------------------------------------------------------------------------

    def _word(self, w, prefix, distance=0):
        qs = []
        for f, weight in common.FIELDS:
            if distance:
                q = Query.fuzzy_term_query(self.schema, f, w, distance=distance, transposition_cost_one=True,
                                           prefix=prefix)
            elif prefix:
                q = Query.regex_query(self.schema, f, w + ".*")
            else:
                q = Query.term_query(self.schema, f, w, index_option="freq")
            qs.append((Occur.Should, Query.boost_query(q, weight)))
        return Query.boolean_query(qs)

    def _filter(self, flt):
        if flt["op"] == "range":
            return Query.range_query(self.schema, "month", tantivy.FieldType.Integer, flt["lo"], flt["hi"])
        return Query.boolean_query([(Occur.Should, Query.term_query(self.schema, "domain", v)) for v in flt["values"]])

    def _run(self, subqueries, limit, searcher=None):
        searcher = searcher or self.searcher
        q = subqueries[0][1] if len(subqueries) == 1 and subqueries[0][0] == Occur.Must else \
            Query.boolean_query(subqueries)
        res = searcher.search(q, limit=limit, count=False)
        return [searcher.doc(addr)["id"][0] for _score, addr in res.hits]

    def _text_query(self, words, distances=None):
        last = len(words) - 1
        return [(Occur.Must, self._word(w, i == last, distances[i] if distances else 0)) for i, w in enumerate(words)]

    def search(self, words, flt=None, limit=common.LIMIT, searcher=None):
        subs = self._text_query(words)
        if flt is not None:
            subs.append((Occur.Must, Query.const_score_query(self._filter(flt), 0.0)))
        return self._run(subs, limit, searcher)

    def fuzzy_search(self, words, limit=common.LIMIT):
        return self._run(self._text_query(words, [common.max_typos(len(w)) for w in words]), limit)

    def attribute_query(self, op, clauses, limit=common.LIMIT):
        occur = Occur.Must if op == "and" else Occur.Should
        subs = []
        for field, ws, prefix in clauses:
            for i, w in enumerate(ws):
                if prefix and i == len(ws) - 1:
                    subs.append((occur, Query.regex_query(self.schema, field, w + ".*")))
                else:
                    subs.append((occur, Query.term_query(self.schema, field, w, index_option="basic")))
        return self._run(subs, limit)

    # --- writes -------------------------------------------------------------------------------------------------

    def upsert(self, item):
        w = self._open_writer()
        w.delete_documents_by_term("id", item.id)
        w.add_document(self._doc(item))
        w.commit()

    def delete(self, item_id):
        w = self._open_writer()
        w.delete_documents_by_term("id", item_id)
        w.commit()

    def upsert_batch(self, items):
        w = self._open_writer()
        for it in items:
            w.delete_documents_by_term("id", it.id)
            w.add_document(self._doc(it))
        w.commit()

    def close(self):
        if self.writer is not None:
            self.writer.wait_merging_threads()
        self.writer = self.widx = self.ridx = self.searcher = None

    def cold_search(self, words, limit=common.LIMIT):
        idx = open_index(self.schema, self.dir)
        return self.search(words, limit=limit, searcher=idx.searcher())


if __name__ == "__main__":
    common.main(TantivyPeer)
