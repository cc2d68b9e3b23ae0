"""The compiled forward pass of the evaluator and its driver over a batch of sequences.

:func:`_forward` reads one sequence left to right holding hypotheses (state, output so
far), merged when equal, and emits each output string z with its weight ⟦T⟧(x, z) once its
last output-producing arc is read (times the backward sum β). :func:`_evaluate` runs the
backward and forward passes for each sequence of a batch and gathers the (row, code,
value) triplets and a status per sequence.
"""

from __future__ import annotations

import numpy as np

from ratkit._jit import njit
from ratkit.automata.kernels._evaluator_backward import _backward, _grow, _reachable


@njit
def _slot(state, code, mask):  # pragma: no cover - compiled
    """The home slot of the key (state, code) in a table of mask + 1 slots (Fibonacci hashing)."""
    h = (np.uint64(code) ^ (np.uint64(state) << np.uint64(40))) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(40)) & mask


@njit
def _forward(
    x,
    row_id,
    start,
    base,
    max_len,
    pows,
    beta,
    where,
    rstates,
    roff,
    arc_off,
    arc_ilabel,
    arc_olabel,
    arc_weight,
    arc_dst,
    n_in,
    lab_lo,
    lab_hi,
    clo_off,
    clo_dst,
    clo_code,
    clo_len,
    clo_all,
    clo_fresh,
    clo_trivial,
    can_output,
    bad,
    cs,
    cc,
    cl,
    cw,
    ns,
    nc,
    nl,
    nw,
    nslot,
    table,
    out_rows,
    out_codes,
    out_vals,
    out_slot,
    etable,
    n_out,
    max_paths,
    max_hyp,
):  # pragma: no cover - compiled
    """Emit the triplets of one sequence from ``n_out`` on; returns (status, new n_out).

    Status 0: done; 1–3: see STATUS_REASONS; −1: the hypothesis buffers, −2: the output
    buffers, −3 / −4: the hash tables are too small (the caller grows them and starts
    again). No array is reassigned here: numba then keeps every access a plain load.
    """
    mask = table.shape[0] - 1
    emask = etable.shape[0] - 1
    hcap = ns.shape[0]
    ocap = out_rows.shape[0]
    seq_out = n_out
    # the sequence's next output index, its distinct codes, whether its triplets are merged
    cnt = np.empty(3, dtype=np.int64)
    cnt[0] = n_out
    cnt[1] = 0
    cnt[2] = 0
    n_next = 0
    for idx in range(roff[0], roff[1]):  # β(0, ·) by state
        where[rstates[idx]] = idx
    # position 0: the closure of the start state; the empty prefix counts as fresh
    for e in range(clo_off[start], clo_off[start + 1]):
        s = clo_dst[e]
        wf = clo_fresh[e] + (1.0 if clo_trivial[e] else 0.0)
        v = wf * beta[where[s]]
        if v > 0.0:
            status = _emit(clo_code[e], v, row_id, seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable)
            if status != 0:
                _clear_outputs(seq_out, cnt[0], out_slot, etable)
                return status, seq_out
        if can_output[s] and clo_all[e] > 0.0:
            if n_next == hcap:
                _clear_outputs(seq_out, cnt[0], out_slot, etable)
                return -1, seq_out
            ns[n_next] = s
            nc[n_next] = clo_code[e]
            nl[n_next] = clo_len[e]
            nw[n_next] = clo_all[e]
            n_next += 1  # the start closure's (state, code) keys are distinct already
    status = 0
    for i in range(x.shape[0]):
        if n_next == 0:
            break
        n_cur = n_next
        for t in range(n_cur):
            cs[t] = ns[t]
            cc[t] = nc[t]
            cl[t] = nl[t]
            cw[t] = nw[t]
        n_next = 0
        a = x[i]
        for idx in range(roff[i + 1], roff[i + 2]):  # β(i + 1, ·) by state
            where[rstates[idx]] = idx
        for h in range(n_cur):
            p = cs[h]
            if n_in >= 0:  # the arcs of (p, a) from the dense table
                j, hi = (lab_lo[p * (n_in + 1) + a], lab_hi[p * (n_in + 1) + a]) if a <= n_in else (0, 0)
            else:  # binary search for the first arc of p reading a
                j, hi = arc_off[p], arc_off[p + 1]
                top = hi
                while j < top:
                    mid = (j + top) >> 1
                    if arc_ilabel[mid] < a:
                        j = mid + 1
                    else:
                        top = mid
            while j < hi and arc_ilabel[j] == a:
                r = arc_dst[j]
                if bad[r]:
                    status = 1
                    break
                o = arc_olabel[j]
                code1 = cc[h]
                len1 = cl[h]
                if o != 0:
                    code1 = code1 * base + o
                    len1 += 1
                w1 = cw[h] * arc_weight[j]
                for e in range(clo_off[r], clo_off[r + 1]):
                    s = clo_dst[e]
                    len2 = len1 + clo_len[e]
                    if len2 > max_len:
                        status = 3
                        break
                    code2 = code1 * pows[clo_len[e]] + clo_code[e]
                    wf = clo_fresh[e]
                    if o != 0 and clo_trivial[e]:
                        wf += 1.0
                    if wf > 0.0:
                        v = w1 * wf * beta[where[s]]
                        if v > 0.0:  # _emit, written out: a call per triplet costs a third of the run
                            n_out = cnt[0]
                            if n_out == ocap:
                                status = -2
                                break
                            eslot = _slot(0, code2, emask)
                            idx = etable[eslot]
                            while idx >= 0 and out_codes[idx] != code2:
                                eslot = (eslot + 1) & emask
                                idx = etable[eslot]
                            if idx >= 0 and cnt[2]:  # merged already: add into the code's triplet
                                out_vals[idx] += v
                            else:
                                if idx < 0:
                                    if 2 * (cnt[1] + 1) > emask + 1:
                                        status = -4
                                        break
                                    etable[eslot] = n_out
                                    out_slot[n_out] = eslot
                                    cnt[1] += 1
                                else:
                                    out_slot[n_out] = -1
                                out_rows[n_out] = row_id
                                out_codes[n_out] = code2
                                out_vals[n_out] = v
                                cnt[0] = n_out + 1
                                if cnt[0] - seq_out >= _COMPACT_AT and cnt[0] - seq_out >= 4 * cnt[1]:
                                    _compact(seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable)
                                if cnt[0] - seq_out > max_paths:
                                    status = 2
                                    break
                    wa = w1 * clo_all[e]
                    if can_output[s] and wa > 0.0:
                        slot = _slot(s, code2, mask)
                        idx = table[slot]
                        while idx >= 0 and not (ns[idx] == s and nc[idx] == code2):
                            slot = (slot + 1) & mask
                            idx = table[slot]
                        if idx >= 0:
                            nw[idx] += wa
                        else:
                            if n_next == hcap:
                                status = -1
                                break
                            if 2 * (n_next + 1) > mask + 1:
                                status = -3
                                break
                            table[slot] = n_next
                            ns[n_next] = s
                            nc[n_next] = code2
                            nl[n_next] = len2
                            nw[n_next] = wa
                            nslot[n_next] = slot
                            n_next += 1
                            if n_next > max_hyp:
                                status = 2
                                break
                if status != 0:
                    break
                j += 1
            if status != 0:
                break
        for t in range(n_next):
            table[nslot[t]] = -1
        if status != 0:
            _clear_outputs(seq_out, cnt[0], out_slot, etable)
            return status, seq_out
    _clear_outputs(seq_out, cnt[0], out_slot, etable)
    return 0, cnt[0]


#: Up to this many states, β is computed for every state at every position (cheaper than
#: finding the reachable ones first).
_ALL_STATES = 32
#: A sequence's triplets are merged by code once there are this many, and 4 per distinct code.
_COMPACT_AT = 4096


@njit
def _emit(code, v, row_id, seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable):  # pragma: no cover
    """Append the triplet (row_id, code, v); ``etable`` maps each code of the sequence to its
    first triplet. Duplicates stay separate (equal values keep the vocabulary's fast path)
    until they are 4 per distinct code, then the sequence's triplets are merged by code and
    later duplicates added in place.
    Returns 0, −2 (output buffers full) or −4 (``etable`` too small)."""
    n_out = cnt[0]
    if n_out == out_rows.shape[0]:
        return -2
    emask = etable.shape[0] - 1
    slot = _slot(0, code, emask)
    idx = etable[slot]
    while idx >= 0 and out_codes[idx] != code:
        slot = (slot + 1) & emask
        idx = etable[slot]
    if idx >= 0 and cnt[2]:
        out_vals[idx] += v
        return 0
    if idx < 0:
        if 2 * (cnt[1] + 1) > emask + 1:
            return -4
        etable[slot] = n_out
        out_slot[n_out] = slot
        cnt[1] += 1
    else:
        out_slot[n_out] = -1
    out_rows[n_out] = row_id
    out_codes[n_out] = code
    out_vals[n_out] = v
    cnt[0] = n_out + 1
    if cnt[0] - seq_out >= _COMPACT_AT and cnt[0] - seq_out >= 4 * cnt[1]:
        _compact(seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable)
    return 0


@njit
def _compact(seq_out, cnt, out_rows, out_codes, out_vals, out_slot, etable):  # pragma: no cover - compiled
    """Merge the triplets seq_out … cnt[0] − 1 of one sequence by code, in place; later
    duplicates of the sequence are then added into their code's triplet (cnt[2] = 1)."""
    emask = etable.shape[0] - 1
    n_out = cnt[0]
    for t in range(seq_out, n_out):  # add each duplicate into the first triplet of its code
        if out_slot[t] < 0:
            c = out_codes[t]
            slot = _slot(0, c, emask)
            while out_codes[etable[slot]] != c:
                slot = (slot + 1) & emask
            out_vals[etable[slot]] += out_vals[t]
    w = seq_out
    for t in range(seq_out, n_out):
        if out_slot[t] >= 0:
            out_rows[w] = out_rows[t]
            out_codes[w] = out_codes[t]
            out_vals[w] = out_vals[t]
            out_slot[w] = out_slot[t]
            etable[out_slot[t]] = w
            w += 1
    cnt[0] = w
    cnt[2] = 1


@njit
def _clear_outputs(lo, hi, out_slot, etable):  # pragma: no cover - compiled
    """Empty the slots of ``etable`` that triplets lo … hi − 1 hold."""
    for t in range(lo, hi):
        if out_slot[t] >= 0:
            etable[out_slot[t]] = -1


@njit
def _evaluate(
    labels,
    offsets,
    start,
    base,
    max_len,
    pows,
    final,
    arc_off,
    arc_ilabel,
    arc_olabel,
    arc_weight,
    arc_dst,
    n_in,
    lab_lo,
    lab_hi,
    clo_off,
    clo_dst,
    clo_code,
    clo_len,
    clo_all,
    clo_fresh,
    clo_trivial,
    can_output,
    bad,
    max_paths,
    max_hyp,
    max_cells,
):  # pragma: no cover - compiled
    n_seq = offsets.shape[0] - 1
    nq = final.shape[0]
    status = np.zeros(n_seq, dtype=np.int64)
    out_rows = np.empty(1024, dtype=np.int64)
    out_codes = np.empty(1024, dtype=np.int64)
    out_vals = np.empty(1024, dtype=np.float64)
    out_slot = np.empty(1024, dtype=np.int64)
    etable = np.full(1024, -1, dtype=np.int64)  # code → its first triplet in the current sequence
    n_out = 0
    hcap = 256
    cs = np.empty(hcap, dtype=np.int64)
    cc = np.empty(hcap, dtype=np.int64)
    cl = np.empty(hcap, dtype=np.int64)
    cw = np.empty(hcap, dtype=np.float64)
    ns = np.empty(hcap, dtype=np.int64)
    nc = np.empty(hcap, dtype=np.int64)
    nl = np.empty(hcap, dtype=np.int64)
    nw = np.empty(hcap, dtype=np.float64)
    nslot = np.empty(hcap, dtype=np.int64)
    table = np.full(1024, -1, dtype=np.int64)  # open addressing: (state, code) → index into ns/nc
    gamma = np.zeros(nq, dtype=np.float64)
    beta = np.zeros(0, dtype=np.float64)
    stamp = np.full(nq, -1, dtype=np.int64)
    where = np.zeros(nq, dtype=np.int64)
    rstates = np.empty(1024, dtype=np.int64)
    roff = np.empty(0, dtype=np.int64)
    for k in range(n_seq):
        x = labels[offsets[k] : offsets[k + 1]]
        m = x.shape[0]
        if start < 0:
            continue
        if bad[start]:
            status[k] = 1
            continue
        if roff.shape[0] < m + 2:
            roff = np.empty(m + 2, dtype=np.int64)
        if nq <= _ALL_STATES:  # a small T: every state at every position, without the search
            n_reach = (m + 1) * nq
            if n_reach <= max_cells:
                if rstates.shape[0] < n_reach:
                    rstates = _grow(rstates, n_reach)
                for i in range(m + 2):
                    roff[i] = i * nq
                for t in range(n_reach):
                    rstates[t] = t % nq
        else:
            while True:
                n_reach = _reachable(
                    x, start, arc_off, arc_ilabel, arc_dst, n_in, lab_lo, lab_hi, clo_off, clo_dst, stamp, rstates, roff
                )
                if n_reach >= 0 or rstates.shape[0] > max_cells:
                    break
                rstates = _grow(rstates, 0)
        if n_reach < 0 or n_reach > max_cells:
            status[k] = 4
            continue
        if beta.shape[0] < n_reach:
            beta = np.zeros(rstates.shape[0], dtype=np.float64)
        _backward(
            x,
            where,
            final,
            arc_off,
            arc_ilabel,
            arc_olabel,
            arc_weight,
            arc_dst,
            n_in,
            lab_lo,
            lab_hi,
            clo_off,
            clo_dst,
            clo_len,
            clo_all,
            rstates,
            roff,
            beta,
            gamma,
        )
        while True:
            st, new_out = _forward(
                x,
                k,
                start,
                base,
                max_len,
                pows,
                beta,
                where,
                rstates,
                roff,
                arc_off,
                arc_ilabel,
                arc_olabel,
                arc_weight,
                arc_dst,
                n_in,
                lab_lo,
                lab_hi,
                clo_off,
                clo_dst,
                clo_code,
                clo_len,
                clo_all,
                clo_fresh,
                clo_trivial,
                can_output,
                bad,
                cs,
                cc,
                cl,
                cw,
                ns,
                nc,
                nl,
                nw,
                nslot,
                table,
                out_rows,
                out_codes,
                out_vals,
                out_slot,
                etable,
                n_out,
                max_paths,
                max_hyp,
            )
            if st == -1:
                size = 2 * ns.shape[0]
                cs, cc, cl, cw = _grow(cs, size), _grow(cc, size), _grow(cl, size), _grow(cw, size)
                ns, nc, nl, nw, nslot = (
                    _grow(ns, size),
                    _grow(nc, size),
                    _grow(nl, size),
                    _grow(nw, size),
                    _grow(nslot, size),
                )
            elif st == -2:
                out_rows, out_codes, out_vals = _grow(out_rows, 0), _grow(out_codes, 0), _grow(out_vals, 0)
                out_slot = _grow(out_slot, 0)
            elif st == -3:
                table = np.full(2 * table.shape[0], -1, dtype=np.int64)
            elif st == -4:
                etable = np.full(2 * etable.shape[0], -1, dtype=np.int64)
            else:
                break
        if st == 0:
            n_out = new_out
        else:
            status[k] = st
    return out_rows[:n_out].copy(), out_codes[:n_out].copy(), out_vals[:n_out].copy(), status
