"""Unit tests of the cache's parts on their own, against plain-Python references and exact identities:
the step planner (`cache.plan`), the kept-set bookkeeping (`cache.kept`), the row counters
(`cache.rows`) and the store's operations (`cache.store`, `cache.quantized`). The end-to-end oracles
catch a wrong answer too, but only as a logit mismatch somewhere in a family; these name the part."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlimit.cache import KeptSet, KVStore, QuantizedStore, RowCounters, StoreLayout
from kvlimit.cache.plan import decode_slots, evict, lowest_slots, place_chunk, shown_to_chunk
from kvlimit.cache.quant import KV_DTYPES, block_size, scheme
from kvlimit.cache.store import Placement
from kvlimit.integrations.hf import KVShape
from kvlimit.policies import Sinks, Window
from kvlimit.positions import RopeSpec

CPU = torch.device("cpu")


# --- lowest_slots: the one eviction rule ------------------------------------------------------
@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.integers(1, 3).flatmap(
        lambda rows: st.integers(2, 9).flatmap(
            lambda slots: st.tuples(
                st.just(slots),
                st.lists(
                    st.lists(st.integers(0, 3), min_size=slots, max_size=slots), min_size=rows, max_size=rows
                ),
                st.lists(st.permutations(list(range(slots))), min_size=rows, max_size=rows),
                st.integers(1, slots),
            )
        )
    )
)
def test_lowest_slots_takes_the_lowest_scores_ties_by_order(case):
    """The k lowest-scoring slots of each row, lowest first, equal scores in `order` (then slot) order."""
    slots, scores, orders, k = case
    got = lowest_slots(torch.tensor(scores, dtype=torch.float32), torch.tensor(orders), k)
    for row, (score, order) in enumerate(zip(scores, orders, strict=True)):
        want = sorted(range(slots), key=lambda j: (score[j], order[j], j))[:k]
        assert got[row].tolist() == want


# --- the kept set ------------------------------------------------------------------------------
def filled(tokens: list[list[int]], slots: int) -> KeptSet:
    """A kept set whose row b holds token indices `tokens[b]` in slots 0.. (ids = 100 + index)."""
    kept = KeptSet.empty(len(tokens), slots, CPU)
    for row, indices in enumerate(tokens):
        n = len(indices)
        rows = torch.full((n,), row)
        kept.store(rows, torch.arange(n), torch.tensor(indices), torch.tensor(indices) + 100)
        kept.set_positions(rows, torch.arange(n), torch.tensor(indices))
    return kept


def test_kept_set_moves_every_tensor_together():
    kept = filled([[0, 1, 2], [5, 6]], 4)
    kept.gather_(torch.tensor([[2, 1, 0, 3], [1, 0, 3, 2]]))
    assert kept.token_index.tolist() == [[2, 1, 0, -1], [6, 5, -1, -1]]
    assert kept.token_ids.tolist() == [[102, 101, 100, -1], [106, 105, -1, -1]]
    assert kept.positions.tolist() == [[2, 1, 0, 0], [6, 5, 0, 0]]
    kept.select_(torch.tensor([1, 1, 0]))
    assert kept.valid.tolist() == [[True, True, False, False]] * 2 + [[True, True, True, False]]
    assert kept.time_order(empty_first=True)[2].tolist() == [3, 2, 1, 0]
    assert kept.time_order(empty_first=False)[0].tolist() == [1, 0, 2, 3]


def test_kept_set_position_operations():
    kept = filled([[0, 1, 2, 3], [4, 5, 6, 7]], 4)
    kept.shift_positions(torch.tensor([10, -1]), start=2)
    assert kept.positions.tolist() == [[0, 1, 12, 13], [4, 5, 5, 6]]
    kept.place_first(torch.tensor([[7], [8]]))
    assert kept.positions[:, 0].tolist() == [7, 8]
    delta = kept.replace_positions(torch.zeros((2, 4), dtype=torch.long))
    assert delta.tolist() == [[-7, -1, -12, -13], [-8, -5, -5, -6]]
    kept.vacate(torch.tensor([1, 3]), torch.tensor([True, False]))
    assert kept.valid.tolist() == [[True, False, True, True], [True] * 4]  # only `valid` changes
    kept.clear(torch.tensor([1]), torch.tensor([0]))
    assert kept.valid[1].tolist() == [False, True, True, True] and kept.token_index[1, 0] == -1


# --- the planner -------------------------------------------------------------------------------
def test_evict_takes_the_policys_lowest_and_keeps_the_sinks():
    kept = filled([[0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5]], 6)
    permutes, evicted = evict([kept], Sinks(n_sink=2), [2, 3], ordered=False)
    assert permutes is None
    held = [sorted(kept.token_index[r][kept.valid[r]].tolist()) for r in range(2)]
    assert held == [[0, 1, 4, 5], [0, 1, 5]]
    # what left, rows in order and each row's in time order, read before the slots were emptied
    assert evicted.rows.tolist() == [0, 0, 1, 1, 1] and evicted.token_index.tolist() == [2, 3, 2, 3, 4]
    with pytest.raises(RuntimeError, match="reached a protected or empty slot"):
        evict([kept], Sinks(n_sink=2), [0, 2], ordered=False)  # row 1 has one evictable token left


def test_evict_in_ordered_storage_compacts_in_time_order():
    kept = filled([[0, 1, 2, 3, 4]], 6)
    (permute,), evicted = evict([kept], Window(), [2], ordered=True)
    assert evicted.token_index.tolist() == [0, 1] and evicted.slots.tolist() == [0, 1]
    assert (
        kept.token_index[0].tolist()[:3] == [2, 3, 4] and kept.valid[0].tolist() == [True] * 3 + [False] * 3
    )
    assert permute.shape == (1, 6)


def test_decode_slots_compact_ring_and_ordered():
    kept = filled([[0, 1], [0, 1, 2]], 3)
    count, full = torch.tensor([2, 3]), torch.tensor([False, True])
    (slot,), permutes = decode_slots([kept], Window(), full, count, compact=True, ordered=False)
    assert slot.tolist() == [2, 3] and permutes is None  # compact: a row's next slot is its count
    (slot,), _ = decode_slots([kept], Window(), full, count, compact=False, ordered=False)
    assert slot.tolist() == [2, 0]  # row 0 takes its empty slot, full row 1 evicts its oldest
    assert kept.valid.tolist() == [[True, True, False], [False, True, True]]
    ring = filled([[0, 1, 2]], 3)
    (slot,), (permute,) = decode_slots([ring], Window(), torch.tensor([True]), torch.tensor([3]), compact=False,
                                       ordered=True)  # fmt: skip
    assert slot.tolist() == [2] and ring.token_index[0].tolist()[:2] == [1, 2] and not ring.valid[0, 2]
    assert permute.tolist() == [[1, 2, 2]]


def test_a_chunk_is_shown_the_newest_stored_tokens_and_takes_free_slots():
    kept = filled([[3, 1, 2], [7]], 5)
    (shown,) = shown_to_chunk([kept], 3)
    assert kept.token_index.gather(1, shown).tolist() == [[1, 2, 3], [-1, -1, 7]]  # in time, right-aligned
    real = torch.tensor([[True, True], [False, True]])
    rows, cols, rank, (slots,) = place_chunk(
        [kept], real, torch.tensor([[50, 51], [60, 61]]), torch.tensor([4, 1])
    )
    assert (
        rows.tolist() == [0, 0, 1] and cols.tolist() == [0, 1, 1] and rank[rows, cols].tolist() == [0, 1, 0]
    )
    assert slots.tolist() == [3, 4, 1]  # each row's free slots in slot order (the caller made room)
    assert kept.token_ids[1].tolist()[:2] == [107, 61] and kept.token_index[1, 1] == 1


# --- the row counters ---------------------------------------------------------------------------
def test_row_counters_keep_host_and_device_in_step():
    rows = RowCounters.zeros(3, CPU)
    rows.set(kept=[2, 5, 5], seen=[2, 9, 30], shift=[0, 0, 10])
    rows.add_decode_token(5)
    assert rows.kept == [3, 5, 5] and rows.seen == [3, 10, 31]
    rows.evict_one([False, True, False], torch.tensor([False, True, False]))
    for name in ("kept", "seen", "shift"):
        assert getattr(rows, f"{name}_t").tolist() == getattr(rows, name)
    assert rows.next_positions() == [3, 10, 21]
    assert rows.reaching([1, 1, 1], 21) == [False, False, True]
    shift, delta = rows.renumbering([1, 1, 1], 21)
    assert shift == [0, 0, 31 - 5] and delta == [0, 0, 10 - 26]  # the row due takes positions 0..kept-1
    assert rows.renumbering([1, 1, 1], None) is None and rows.renumbering([1, 1, 1], 100) is None
    rows.select(torch.tensor([2, 0]), [2, 0])
    assert rows.kept == [5, 3] and rows.kept_t.tolist() == [5, 3] and rows.shift_t.tolist() == [10, 0]


# --- the store ----------------------------------------------------------------------------------
ROPE = RopeSpec(1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8)), 8)


def store_of(kind: str, slots: int = 6, pristine: int = 2) -> KVStore:
    shape = KVShape(2, 8, 2, 8, 4)
    layout = StoreLayout(slots, [0, 1], {0: shape, 1: shape}, {0: ROPE, 1: ROPE}, pristine_slots=pristine)
    if kind == "float":
        return KVStore(layout)
    return QuantizedStore(layout, kv_dtype=kind, kv_group=4, float_slots=pristine)


def rounded(kind: str, x: torch.Tensor, role: int = 0) -> torch.Tensor:
    """`x` through the storage of `kind`'s keys (role 0) or values (role 1)."""
    if kind == "float":
        return x
    stored = scheme(KV_DTYPES[kind][role])
    return stored.dequantize(stored.quantize(x, block_size(x.shape[-1], 4)), x.dtype)


@pytest.mark.parametrize("kind", ["float", *KV_DTYPES])
def test_store_writes_reads_and_moves_like_a_plain_tensor(kind):
    """Every operation equals the same one on a plain (batch, heads, slots, dim) tensor (quantized: of the
    rounded values beyond the float slots), and the layers of one shape share one stack."""
    torch.manual_seed(1)
    store = store_of(kind)
    keys, values = torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 8)
    store.allocate(0, keys, values)
    assert len(store.stacks) == 1 and store.has(1)  # one stack for both layers, allocated at once
    rows, slots = torch.tensor([0, 0, 1, 1, 1]), torch.tensor([0, 3, 1, 2, 5])
    store.write(0, rows, slots, keys[rows, :, slots], values[rows, :, slots])
    reference_k, reference_v = torch.zeros_like(keys), torch.zeros_like(values)
    reference_k[rows, :, slots] = keys[rows, :, slots]
    reference_v[rows, :, slots] = values[rows, :, slots]
    first = slots < 2
    expect_k, expect_v = rounded(kind, reference_k), rounded(kind, reference_v, role=1)
    expect_k[rows[first], :, slots[first]] = keys[rows[first], :, slots[first]]  # sinks stay exact
    expect_v[rows[first], :, slots[first]] = values[rows[first], :, slots[first]]
    got_k, got_v = store.read(0)
    torch.testing.assert_close(got_k, expect_k) and torch.testing.assert_close(got_v, expect_v)
    new_k, new_v = torch.randn(2, 2, 1, 8), torch.randn(2, 2, 1, 8)
    store.write_token(0, torch.tensor([4, 0]), new_k, new_v, first_index=0)
    expect_k[0, :, 4:5], expect_k[1, :, 0:1] = rounded(kind, new_k[0:1])[0], new_k[1]
    torch.testing.assert_close(store.read(0)[0], expect_k)
    permute = torch.tensor([[1, 0, 2, 3, 4, 5], [0, 1, 2, 3, 5, 4]])
    store.permute_slots(0, permute)
    expect_k = expect_k.gather(2, permute[:, None, :, None].expand_as(expect_k))
    torch.testing.assert_close(store.read(0)[0], expect_k, atol=0, rtol=0)  # stored values move, unchanged
    store.select_rows(torch.tensor([1, 1]), in_place=True)
    assert torch.equal(store.read(0)[0][0], store.read(0)[0][1])
    assert store.nbytes() == sum(
        t.numel() * t.element_size() for t in store.layer_tensors(0) + store.layer_tensors(1)
    )


def test_rotate_keys_and_sinks_are_the_model_rotations():
    """rotate(RoPE(k, p), d) == RoPE(k, p + d) for the slots moved, and the sinks are placed from their
    pristine copy however often they move."""
    store = store_of("float")
    torch.manual_seed(2)
    raw = torch.randn(2, 2, 6, 8)
    store.allocate(0, raw, raw)
    every = torch.arange(6)
    for row in range(2):
        store.write(0, torch.full((6,), row), every, raw[row].transpose(0, 1), raw[row].transpose(0, 1))
    store.rotate_keys(0, ROPE, torch.tensor([3, -2]), start=2)
    want = raw.clone()
    want[:, :, 2:] = ROPE.rotate(raw[:, :, 2:], torch.tensor([3, -2])[:, None, None])
    torch.testing.assert_close(store.read(0)[0], want)
    for delta in ([5, 1], [9, 4], [0, 0]):  # each placement from the pristine copy, not from the last one
        store.rotate_sinks(torch.tensor(delta))
        sinks = ROPE.rotate(raw[:, :, :2], torch.tensor(delta)[:, None, None])
        torch.testing.assert_close(store.read(0)[0][:, :, :2], sinks)
    torch.testing.assert_close(store.read(0)[0][:, :, :2], raw[:, :, :2])


def test_as_stored_rounds_a_chunk_as_storage_will():
    store = store_of("int4")
    keys = torch.randn(1, 2, 3, 8)
    store.allocate(0, keys, keys)
    placed = Placement(torch.tensor([0, 0, 0]), torch.tensor([0, 1, 2]), torch.tensor([1, 2, 3]))
    got, _ = store.as_stored(0, keys, keys, placed)
    torch.testing.assert_close(got[:, :, 0], keys[:, :, 0])  # it lands in float slot 1: exact
    torch.testing.assert_close(got[:, :, 1:], rounded("int4", keys[:, :, 1:]))


def test_a_quantized_store_takes_its_schemes_from_a_kv_dtype():
    shape = KVShape(2, 8, 2, 8, 4)
    layout = StoreLayout(6, [0], {0: shape}, {0: ROPE})
    store = QuantizedStore(layout, kv_dtype="k8v4", kv_group=4)
    assert (store.kv_dtype, store.key_scheme, store.value_scheme) == ("k8v4", scheme("int8"), scheme("int4"))
    with pytest.raises(ValueError, match="kv_dtype='k4v8' is not one of 'int8', 'int4', 'fp8', 'k8v4'"):
        QuantizedStore(layout, kv_dtype="k4v8", kv_group=4)
