"""Numbering a long file's ids as pyarrow reads them (for :mod:`kpass.io.long.long_fast`).

One growing dictionary numbers the question ids (and sample ids) of every batch in first-seen
order: after the first batch each row is looked up among the known ids (``index_in``) and
only the rows of new ids are dictionary-encoded. At the end the line reader's id rule
(:func:`kpass.io.rows.canonical_id`) is applied once per distinct id (:func:`canonical_codes`:
ids it merges, such as ``" 7"`` and ``"7"``, are one question), and the repeat check of
``--sample`` is one bitmap of questions x samples, or one sort where that grid is sparse
(:func:`repeated_pairs`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.counting.checks import InputError
from ..._core.counting.counts import BinaryCounts
from ..arrow_numpy import filled, index_array, to_numpy
from ..rows import canonical_id


def grown(counts: np.ndarray, size: int) -> np.ndarray:
    """``counts`` padded with zeros to ``size`` (a new array only when it grows)."""
    if counts.size >= size:
        return counts
    return np.concatenate([counts, np.zeros(size - counts.size, dtype=np.int64)])


#: An id the id rule keeps as it is when it matches PLAIN_ID and not INTEGER_TEXT (whole
#: string; RE2 syntax, used by pyarrow's and DuckDB's regex kernels): it begins and ends with
#: a printable ASCII character other than a space (nothing to strip) and does not spell a
#: decimal integer (integer text is the integer).
PLAIN_ID = r"(?s)[!-~](.*[!-~])?"
INTEGER_TEXT = r"-?(0|[1-9][0-9]*)"


def canonical_codes(raw: list[Any], plain: bool, source: str, what: str
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The id rule on distinct raw ids: the canonical ids, and each raw id's index among them.

    Raw ids are numbered in first-seen order, so the canonical ids come out in first-seen
    order too (a canonical id is first seen where its first raw spelling is). When every
    raw id is its own canonical id (``plain``: :meth:`Codes.canonical`, or the same test in
    DuckDB), they are taken as they are.
    """
    if plain:
        canonical = np.empty(len(raw), dtype=object)
        canonical[:] = raw
        return canonical, np.arange(len(raw), dtype=np.int64)
    slot: dict[Any, int] = {}
    index = np.fromiter((slot.setdefault(canonical_id(value, source, None, what), len(slot))
                         for value in raw), dtype=np.int64, count=len(raw))
    canonical = np.empty(len(slot), dtype=object)
    canonical[:] = list(slot)
    return canonical, index


#: The (id, sample) check uses a bitmap of questions x samples when it has at most this many
#: cells per row read (one byte each); a sparser grid is checked by sorting the keys.
GRID_CELLS_PER_ROW = 4


def repeated_pairs(keys: list[np.ndarray], id_map: np.ndarray, sample_map: np.ndarray,
              n_questions: int) -> bool:
    """Whether some (canonical id, canonical sample) pair occurs on two rows.

    ``keys`` hold ``raw id code << 32 | raw sample code`` per row; the raw codes are mapped
    to canonical ones. Where the grid of questions x samples is small next to the rows (a
    run of Q questions x S samples: exactly Q*S cells), each pair marks its cell of a
    bitmap and the pairs repeat iff fewer cells are marked than rows: linear time. Otherwise
    the keys are sorted and neighbours compared.
    """
    rows = sum(part.size for part in keys)
    if rows == 0:
        return False
    n_samples = int(sample_map.max()) + 1
    cells = n_questions * n_samples
    low = np.int64(0xFFFFFFFF)
    if cells <= GRID_CELLS_PER_ROW * rows:
        seen = np.zeros(cells, dtype=bool)
        for part in keys:
            seen[id_map[part >> 32] * n_samples + sample_map[part & low]] = True
        return int(np.count_nonzero(seen)) < rows
    merged = np.concatenate([(id_map[part >> 32] << 32) | sample_map[part & low]
                             for part in keys])
    keys.clear()
    merged.sort()
    return bool(np.any(merged[1:] == merged[:-1]))


def split_pairs(model: np.ndarray, question: np.ndarray, n: np.ndarray, c: np.ndarray,
                labels: list[str], question_ids: np.ndarray, x: np.ndarray | None = None
                ) -> tuple[dict[str, BinaryCounts], np.ndarray, dict[str, np.ndarray] | None]:
    """Counts of (model, question) pairs split into one :class:`BinaryCounts` per model.

    ``model`` and ``question`` give each raw pair's model (an index into ``labels``) and
    canonical question (an index into ``question_ids``); raw pairs the id rule merges are
    added up. Each model's questions come in the first-seen order of their pairs. ``x``
    (``--cost``: each raw pair's sum of the cost column) is merged and split the same way.

    Returns:
        The counts per label (in the order of ``labels``, models without rows left out),
        each raw pair's index among the merged pairs (for the ``--sample`` check), and the
        cost sums per label in the order of its counts (None without ``x``).
    """
    key = model.astype(np.int64) * max(len(question_ids), 1) + question
    unique, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # merged pairs in first-seen order
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    pair_map = rank[inverse.reshape(-1)]
    sizes = order.size
    n_pair = np.bincount(pair_map, weights=n[: pair_map.size], minlength=sizes).astype(np.int64)
    c_pair = np.bincount(pair_map, weights=c[: pair_map.size], minlength=sizes).astype(np.int64)
    x_pair = None if x is None else np.bincount(pair_map, weights=x[: pair_map.size],
                                                minlength=sizes)
    merged = unique[order]
    owner = merged // max(len(question_ids), 1)
    split = {}
    costs: dict[str, np.ndarray] = {}
    for index, label in enumerate(labels):
        rows = np.flatnonzero(owner == index)
        if rows.size:
            split[label] = BinaryCounts(n_pair[rows], c_pair[rows],
                                        ids=question_ids[merged[rows] % max(len(question_ids),
                                                                            1)])
            if x_pair is not None:
                costs[label] = x_pair[rows]
    return split, pair_map, None if x is None else costs


class Codes:
    """The distinct values of one column, numbered in first-seen order, batch by batch.

    The first batch is dictionary-encoded by pyarrow (its distinct values in first-seen
    order and a code per row); in later ones each row is looked up among the known values
    (``index_in``, a hash table over the known values) and only the rows of new values are
    encoded, the new values appended. A dictionary column keeps its own numbering (the
    entries used), and only its dictionary is looked up.
    Cost per batch: the rows, plus the known values; batches are gathered to many rows per
    known value (:data:`ROWS_PER_DISTINCT`), so the total is linear in the rows.
    """

    def __init__(self, pa: Any, pc: Any) -> None:
        self.pa, self.pc = pa, pc
        self.known: Any = None
        self.size = 0

    def encode(self, values: Any) -> np.ndarray:
        """The codes (int64) of the rows' values, numbering the new values."""
        pa, pc = self.pa, self.pc
        if self.known is not None and not pa.types.is_dictionary(values.type):
            return self._looked_up(values)
        if pa.types.is_dictionary(values.type):  # numbered already: keep the entries used
            indices = to_numpy(values.indices).astype(np.int64)
            used = to_numpy(pc.unique(values.indices)).astype(np.int64)
            dictionary = values.dictionary.take(index_array(used))  # in first-seen order
            renumber = np.empty(len(values.dictionary), dtype=np.int64)
            renumber[used] = np.arange(used.size)
            indices = renumber[indices]
        else:
            encoded = pc.dictionary_encode(values)
            dictionary = encoded.dictionary
            indices = to_numpy(encoded.indices).astype(np.int64)
        if self.known is None:
            self.known = dictionary
            self.size = len(dictionary)
            return indices
        if self.known.type != dictionary.type:
            raise InputError("a column changed type between blocks")
        found = pc.index_in(dictionary, value_set=self.known)
        mapping = filled(found, -1)
        self._append(mapping, dictionary)
        return mapping[indices]

    def _looked_up(self, values: Any) -> np.ndarray:
        """Plain values after the first batch: each row looked up among the known values.

        One hash lookup a row (``index_in``); only the rows of values not seen before are
        dictionary-encoded. (Encoding every row and then looking up the batch's distinct
        values hashed each row once and each distinct value twice more: 1.5x the time at
        312,500 ids in 2M-row batches.)
        """
        pc = self.pc
        if self.known.type != values.type:
            raise InputError("a column changed type between blocks")
        found = pc.index_in(values, value_set=self.known)
        if not found.null_count:
            return to_numpy(found).astype(np.int64)
        codes = filled(found, -1)
        unseen = codes < 0
        encoded = pc.dictionary_encode(values.take(index_array(np.flatnonzero(unseen))))
        fresh = to_numpy(encoded.indices).astype(np.int64)
        codes[unseen] = self.size + fresh  # the new values, numbered in first-seen order
        mapping = np.full(len(encoded.dictionary), -1, dtype=np.int64)
        self._append(mapping, encoded.dictionary)
        return codes

    def _append(self, mapping: np.ndarray, dictionary: Any) -> None:
        """Number the entries of ``dictionary`` whose ``mapping`` is -1 (new values)."""
        fresh = mapping < 0
        count = int(np.count_nonzero(fresh))
        if count:
            mapping[fresh] = np.arange(self.size, self.size + count)
            added = dictionary.take(index_array(np.flatnonzero(fresh)))
            self.known = self.pa.concat_arrays([self.known, added])
            self.size += count
        if self.size >= 1 << 31:
            raise InputError("more than 2**31 distinct ids")

    def canonical(self) -> bool:
        """Whether every known value is its own id under :func:`kpass.io.rows.canonical_id`.

        True for integers, and for strings that match :data:`PLAIN_ID` and not
        :data:`INTEGER_TEXT`; then the distinct raw ids are distinct canonical ids. Others
        (a padded, blank, integer-text or non-ASCII-edged id) go through the id rule one by
        one.
        """
        pa, pc = self.pa, self.pc
        if self.known is None or pa.types.is_integer(self.known.type):
            return True
        plain = pc.match_substring_regex(self.known, rf"\A(?:{PLAIN_ID})\z")
        number = pc.match_substring_regex(self.known, rf"\A(?:{INTEGER_TEXT})\z")
        return bool(pc.all(pc.and_not(plain, number)).as_py())

    def values(self) -> list[Any]:
        """The distinct values as Python objects, in first-seen order."""
        return [] if self.known is None else self.known.to_pylist()


__all__ = ["GRID_CELLS_PER_ROW", "INTEGER_TEXT", "PLAIN_ID", "Codes", "canonical_codes", "grown",
           "repeated_pairs", "split_pairs"]
