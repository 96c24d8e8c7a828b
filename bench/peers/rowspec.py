"""Parsing of tk's benchmark rows (`tk bench --json`): op, shape, variant.

The variant strings are written by the describe() functions under bench/
(per_token_cast_check.cpp, per_block_cast_check.cpp, lossless_check.cpp,
per_channel_cast_check.cpp, swiglu_check.cpp, swiglu_backward_check.cpp,
cast_back_check.cpp, transpose_check.cpp). Pure Python: no torch here, so
the dry run works on a machine without it.
"""
import re


class Unsupported(Exception):
    """A row (or part of it) a peer cannot express; the message says why."""


class Row:
    """One tk row: its op, shape and the words of its variant."""

    def __init__(self, row):
        self.raw = row
        self.op = row["op"]
        self.shape = row["shape"]
        self.variant = row.get("variant", "")
        self.words = self.variant.split()

    def __str__(self):
        return f"{self.op} {self.shape} {self.variant}"

    # --- variant words -------------------------------------------------
    def has(self, word):
        return word in self.words

    def value(self, key, cast=int):
        """The value of a 'key=value' word, or None."""
        for w in self.words:
            if w.startswith(key + "="):
                return cast(w[len(key) + 1:])
        return None

    def only(self, allowed, what=None):
        """Rejects variant words outside `allowed` (plain words, 'key=' prefixes,
        or compiled regexes), so that an unknown flag never silently times a
        different operation."""
        for w in self.words:
            ok = False
            for a in allowed:
                if isinstance(a, re.Pattern):
                    ok = bool(a.fullmatch(w))
                elif a.endswith("="):
                    ok = w.startswith(a)
                else:
                    ok = w == a
                if ok:
                    break
            if not ok:
                raise Unsupported(f"variant word '{w}' not understood for {what or self.op}")

    def in_dtype(self, choices=("bf16", "f32")):
        found = [w for w in self.words if w in choices]
        if len(found) != 1:
            raise Unsupported(f"expected one input dtype of {choices} in '{self.variant}'")
        return found[0]

    # --- shapes --------------------------------------------------------
    def dims(self, n):
        parts = self.shape.split("x")
        if len(parts) != n or not all(p.isdigit() for p in parts):
            raise Unsupported(f"shape '{self.shape}' is not {n} integers joined by 'x'")
        return tuple(int(p) for p in parts)

    def routing(self):
        """Swiglu shapes: '65536rowsxH2048' (plain rows) or 'T4001k8e9/72xH2048'
        (tokens, top-k, local/total experts). Returns dict(rows|tokens, topk,
        local, total, h)."""
        m = re.fullmatch(r"(\d+)rowsxH(\d+)", self.shape)
        if m:
            return dict(rows=int(m.group(1)), tokens=None, h=int(m.group(2)))
        m = re.fullmatch(r"T(\d+)k(\d+)e(\d+)/(\d+)xH(\d+)", self.shape)
        if m:
            t, k, e, n, h = map(int, m.groups())
            return dict(rows=None, tokens=t, topk=k, local=e, total=n, h=h)
        raise Unsupported(f"routing shape '{self.shape}' not understood")


def e4m3_input_block(row):
    """'e4m3(128x128)' -> (128, 128): a re-quantization input's SF block; None if absent."""
    for w in row.words:
        m = re.fullmatch(r"e4m3\((\d+)x(\d+)\)", w)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def block(row, key="block"):
    """'block=128x128' -> (128, 128)."""
    v = row.value(key, str)
    if v is None:
        raise Unsupported(f"no {key}= in '{row.variant}'")
    m = re.fullmatch(r"(\d+)x(\d+)", v)
    if not m:
        raise Unsupported(f"{key}={v} not understood")
    return int(m.group(1)), int(m.group(2))


def lossless_blocks(row):
    """'1x32 ue8m0 -> 128x128 ue8m0' -> ((1, 32), True, (128, 128), True, out_of_range)."""
    m = re.fullmatch(r"(\d+)x(\d+)( ue8m0)? -> (\d+)x(\d+)( ue8m0)?( out-of-range)?", row.variant)
    if not m:
        raise Unsupported(f"lossless variant '{row.variant}' not understood")
    b_in = (int(m.group(1)), int(m.group(2)))
    b_out = (int(m.group(4)), int(m.group(5)))
    return b_in, bool(m.group(3)), b_out, bool(m.group(6)), bool(m.group(7))


def cast_back_variant(row):
    """'block=1x32 -> bf16 col pow2 ue8m0 from e2m1' -> dict(block, out, col, pow2, packed, fmt)."""
    m = re.fullmatch(r"block=(\d+)x(\d+) -> (bf16|f32)((?: col| pow2| ue8m0)*)(?: from (e2m1|e5m6))?", row.variant)
    if not m:
        raise Unsupported(f"cast_back variant '{row.variant}' not understood")
    flags = m.group(4).split()
    return dict(block=(int(m.group(1)), int(m.group(2))), out=m.group(3), col="col" in flags,
                pow2="pow2" in flags, packed="ue8m0" in flags, fmt=m.group(5) or "e4m3")


def gather(row):
    """'gather top6 e9/72' -> (topk, local, total), or None."""
    if "gather" not in row.words:
        return None
    m = re.search(r"gather top(\d+) e(\d+)/(\d+)", row.variant)
    if not m:
        raise Unsupported(f"gather variant '{row.variant}' not understood")
    return tuple(map(int, m.groups()))


def swiglu_backward_case(row):
    """'T4001k8e9/72xH7168' 'g=128 round clamp=0.5' -> (routing, h, g, round_sf, clamp): the SwiGLU
    backward's routing shape and flags, as both peers read them."""
    row.only(["g=", "round", "clamp="])
    rt = row.routing()
    if rt["rows"] is not None:
        raise Unsupported("swiglu backward needs a routing shape (T..k..e../..xH..)")
    return rt, rt["h"], row.value("g"), row.has("round"), row.value("clamp", float)


def transpose_case(row):
    """'8x4096x7168 bf16' (batched) or '8064x7168 bf16 stride=14336' -> (batch, rows, cols, dtype, stride)."""
    parts = row.shape.split("x")
    if row.op == "batched_transpose":
        if len(parts) != 3:
            raise Unsupported(f"batched shape '{row.shape}' is not BxRxC")
        b, r, c = map(int, parts)
    else:
        if len(parts) != 2:
            raise Unsupported(f"transpose shape '{row.shape}' is not RxC")
        b, (r, c) = None, map(int, parts)
    row.only(["bf16", "e4m3", "f32", "stride="])
    dt = row.in_dtype(("bf16", "e4m3", "f32"))
    return b, r, c, dt, row.value("stride")


def mask_indices_case(row):
    """'NxK n=E ep=P tp=R/T i64' (mask_indices_by_tp rows) -> (n_tok, k, e, ep, rank, tp)."""
    row.only(["n=", "ep=", re.compile(r"tp=\d+/\d+"), "i64"])
    n_tok, k = row.dims(2)
    rank, tp = (int(v) for v in row.value("tp", str).split("/"))
    return n_tok, k, row.value("n"), row.value("ep"), rank, tp


def unique_groups_case(row):
    """'NxK groups=G/E' (inplace_unique_group_indices rows) -> (n, k, g, e)."""
    row.only(["groups="])
    n, k = row.dims(2)
    g, e = (int(v) for v in row.value("groups", str).split("/"))
    return n, k, g, e


def ceil_div(a, b):
    return (a + b - 1) // b


def align(a, b):
    return ceil_div(a, b) * b


class Peer:
    """One peer's rows: `handlers` maps tk's op names to functions of a Row
    returning (description, make), make(context) building the inputs once and
    returning what `case(description, made)` turns into the runnable case.
    `missing` (with {op}) is the reason for an op with no handler; a handler
    refuses a variant by raising Unsupported. `context(device)` is made once
    per device, on first use."""

    def __init__(self, handlers, missing, context, case):
        self.handlers, self.missing, self.context, self.case = handlers, missing, context, case
        self.contexts = {}

    def _handled(self, row):
        r = Row(row)
        h = self.handlers.get(r.op)
        if h is None:
            return None, self.missing.format(op=r.op)
        try:
            return h(r), None
        except Unsupported as e:
            return None, str(e)

    def plan(self, row):
        """(description, None) or (None, reason); no torch needed."""
        handled, why = self._handled(row)
        return (handled[0], None) if handled else (None, why)

    def build(self, row, device="cuda"):
        """(case, description) with the inputs built on `device`, or (None,
        reason). Exceptions while building inputs propagate."""
        handled, why = self._handled(row)
        if handled is None:
            return None, why
        desc, make = handled
        if device not in self.contexts:
            self.contexts[device] = self.context(device)
        return self.case(desc, make(self.contexts[device])), desc
