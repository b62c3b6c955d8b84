"""The advice as objects and how it is shown: :class:`Advice` (ranked :class:`Candidate`
layers, the picked ones, the option line, the expected gain and cost) with ``to_dict()`` (the
``--json`` document: strict JSON, numbers or null) and ``to_text()``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..base.text import escape, report_repr
from .model import COMPUTE_FACTOR, MEMORY_FACTOR, NOISE_16_PER_8

__all__ = ["OPTION", "Advice", "Candidate", "Skipped", "option_value"]

SCHEMA_VERSION = 1
OPTION = "advanced_options:output_feature_16bit_names_list"
MODEL_TEXT = (
    "model: a layer's relative noise n = 10^(-SNR/10) (compare's SNR against the golden run); it adds "
    "max(0, n - n_in) over its nearest compared producers; its own 8-bit step (1/tensorScale) adds uniform "
    "rounding noise step^2/12, a share (step / (4 mean|error|))^2 of its error; 16 bits divides every quantization "
    "noise of the layer by 65536, so it removes g = min(n, max(added, share * n)). Cost: the simulated time x "
    f"(max({COMPUTE_FACTOR:g} kernel, {MEMORY_FACTOR:g} core loop) + setup + {MEMORY_FACTOR:g} DMA) / cycles "
    f"(the MMA does 1/{COMPUTE_FACTOR:g} of the MACs per cycle at 16 bits, bytes double), or --factor. Ranked by g "
    "per extra microsecond. Advice, not a measurement: recompile with the line and run compare again.")


def _num(x: float | None) -> float | None:
    """A number for JSON: None when missing or not finite."""
    return x if x is not None and math.isfinite(x) else None



def option_value(names: list[str]) -> str:
    """TIDL's list: the names joined by commas (TIDL splits the string at commas)."""
    return ",".join(names)


def _yaml_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class Candidate:
    """One 8-bit layer that was compared: what it measures, what 16 bits would remove
    (``gain``: relative noise power), what it would cost (``extra_us``, None without a
    simulated time), its ``share`` of all removable noise, and notes."""

    index: int
    data_id: int | None
    name: str
    type: str | None
    snr_db: float | None
    inherited_snr_db: float | None
    worst_channel: int | None
    worst_channel_snr_db: float | None
    saturated: float | None
    added: float
    rounding_share: float | None
    gain: float
    snr_after_db: float | None
    time_us: float | None
    factor: float
    factor_from: str
    extra_us: float | None
    share: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def gain_per_us(self) -> float | None:
        if self.extra_us is None or self.extra_us <= 0:
            return None
        return self.gain / self.extra_us

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "data_id": self.data_id, "name": self.name, "type": self.type,
                "snr_db": _num(self.snr_db), "inherited_snr_db": _num(self.inherited_snr_db),
                "worst_channel": self.worst_channel, "worst_channel_snr_db": _num(self.worst_channel_snr_db),
                "saturated": _num(self.saturated), "added_noise": _num(self.added),
                "rounding_share": _num(self.rounding_share), "removable_noise": _num(self.gain),
                "snr_after_db": _num(self.snr_after_db), "noise_share": _num(self.share),
                "time_us": _num(self.time_us), "factor": _num(self.factor), "factor_from": self.factor_from,
                "extra_us": _num(self.extra_us), "removable_noise_per_us": _num(self.gain_per_us),
                "notes": list(self.notes)}


@dataclass(frozen=True)
class Skipped:
    """A layer of the report that is not a candidate, and why."""

    index: int
    name: str | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "reason": self.reason}


@dataclass(frozen=True)
class Advice:
    """The result of :func:`tidl_io.advise`: ``candidates`` best first, ``picked`` their
    positions in that order that fit ``budget_ms`` (and ``top``), the option line, the
    expected gain (``noise_share``: the picked layers' share of all removable noise) and cost
    (``extra_us``), what was left out (``skipped``) and ``notes``."""

    artifacts: str
    subgraph: str
    compare: str
    perf: str | None
    candidates: tuple[Candidate, ...]
    picked: tuple[int, ...]
    skipped: tuple[Skipped, ...] = ()
    budget_ms: float | None = None
    top: int | None = None
    factor: float | None = None
    total_time_ms: float | None = None
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        return report_repr(self, self.artifacts, subgraph=self.subgraph, candidates=len(self.candidates),
                           picked=len(self.picked), skipped=len(self.skipped), budget_ms=self.budget_ms)

    @property
    def names(self) -> list[str]:
        """The picked layers' names, in rank order: the 16-bit list."""
        return [self.candidates[i].name for i in self.picked]

    @property
    def option_line(self) -> str:
        """The line for param.yaml's ``session.runtime_options`` (a YAML single-quoted string)."""
        return f"{OPTION}: {_yaml_quoted(option_value(self.names))}"

    @property
    def extra_us(self) -> float | None:
        """The picked layers' extra time in µs (None when one of them has no time)."""
        costs = [self.candidates[i].extra_us for i in self.picked]
        return None if any(c is None for c in costs) else float(sum(c for c in costs if c is not None))

    @property
    def noise_share(self) -> float | None:
        shares = [self.candidates[i].share for i in self.picked]
        return None if not shares or any(s is None for s in shares) else float(sum(s for s in shares if s is not None))

    def to_dict(self) -> dict[str, Any]:
        extra = self.extra_us
        total = self.total_time_ms
        picked = set(self.picked)
        return {
            "schema_version": SCHEMA_VERSION, "artifacts": self.artifacts, "subgraph": self.subgraph,
            "compare": self.compare, "perf": self.perf, "budget_ms": _num(self.budget_ms), "top": self.top,
            "factor": _num(self.factor),
            "model": {"compute_factor": COMPUTE_FACTOR, "memory_factor": MEMORY_FACTOR,
                      "noise_16_per_8": NOISE_16_PER_8, "text": MODEL_TEXT},
            "layers": [{"rank": k + 1, "picked": k in picked, **c.to_dict()} for k, c in enumerate(self.candidates)],
            "picked": self.names,
            "option": {"key": OPTION, "value": option_value(self.names)},
            "option_line": self.option_line if self.picked else None,
            "expected": {"noise_share": _num(self.noise_share), "extra_us": _num(extra),
                         "extra_ms": _num(None if extra is None else extra / 1000.0), "total_time_ms": _num(total),
                         "time_share": _num(None if extra is None or not total else extra / (total * 1000.0))},
            "skipped": [s.to_dict() for s in self.skipped],
            "notes": list(self.notes),
        }

    def to_html(self) -> str:
        """One self-contained page (``tidl-io advise --html``; :func:`tidl_io.advisor.page.render_html`)."""
        from .page import render_html  # start-up: the page's module loads for --html only

        return render_html(self)

    def to_text(self, top: int | None = 20) -> str:
        lines = [f"{escape(self.artifacts)} (subgraph {escape(self.subgraph)}): which layers to put in 16 bits",
                 f"  measured: {escape(self.compare)}",
                 f"  time:     {escape(self.perf) if self.perf else 'no performance simulation (ranked by gain only)'}"]
        if self.budget_ms is not None:
            lines.append(f"  budget:   {self.budget_ms:g} ms of extra time")
        head = ["", "#", "layer", "name", "type", "SNR dB", "worst ch dB", "input dB", "own step", "-> dB", "share",
                "time us", "x", "+us"]
        rows = [head]
        picked = set(self.picked)
        shown = self.candidates if top is None else self.candidates[:top]
        for k, c in enumerate(shown):
            rows.append(["*" if k in picked else "", str(k + 1), str(c.index), escape(c.name)[:44],
                         (c.type or "-").replace("TIDL_", "").replace("Layer", ""), _f(c.snr_db, ".1f"),
                         "-" if c.worst_channel is None else f"{c.worst_channel}: {_f(c.worst_channel_snr_db, '.1f')}",
                         _f(c.inherited_snr_db, ".1f"), _pct(c.rounding_share), _f(c.snr_after_db, ".1f"),
                         _pct(c.share), _f(c.time_us, ".1f"), _f(c.factor, ".2f"), _f(c.extra_us, ".1f")])
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines.append("")
        if self.candidates:
            lines += ["  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
        else:
            lines.append("  no candidate layer: every compared layer is skipped (below)" if self.skipped
                         else "  no candidate layer")
        if top is not None and len(self.candidates) > top:
            lines.append(f"  … {len(self.candidates) - top} more (--json gives every row)")
        lines += _skipped_text(self.skipped, top)
        lines.append("")
        if not self.picked:
            lines.append("nothing to put in 16 bits" + (" within the budget" if self.budget_ms is not None else "")
                         + f" (see the table{', the skipped layers' if self.skipped else ''} and notes)")
        else:
            lines.append(f"put these {len(self.picked)} layer(s) in 16 bits (session.runtime_options in param.yaml):")
            lines.append(f"  {escape(self.option_line)}")
            share, extra = self.noise_share, self.extra_us
            gain = "expected gain: " + (f"{100 * share:.1f}% of the removable noise of the compared layers"
                                        if share is not None else "unknown")
            for i in self.picked[:3]:
                c = self.candidates[i]
                gain += f"; {escape(c.name)[:40]} {_f(c.snr_db, '.1f')} -> {_f(c.snr_after_db, '.1f')} dB"
            lines.append(gain + ("; …" if len(self.picked) > 3 else "") + " (SNR at each layer's output)")
            if extra is None:
                lines.append("expected cost: unknown (no simulated time for a picked layer)")
            else:
                total = self.total_time_ms
                of = f" ({100 * extra / (total * 1000):.1f}% of the {total:g} ms simulated)" if total else ""
                lines.append(f"expected cost: +{extra / 1000:.3f} ms{of}")
        lines += [f"note: {escape(n)}" for n in self.notes]
        for c in (self.candidates[i] for i in self.picked):
            lines += [f"note: {escape(c.name)[:60]}: {escape(n)}" for n in c.notes]
        lines.append(MODEL_TEXT)
        return "\n".join(lines)


def _skipped_text(skipped: tuple[Skipped, ...], top: int | None) -> list[str]:
    """The skipped layers under their reasons (each reason once, in first-seen order); at most
    ``top`` layers listed."""
    if not skipped:
        return []
    groups: dict[str, list[Skipped]] = {}
    for s in skipped:
        groups.setdefault(s.reason, []).append(s)
    lines = ["", f"skipped {len(skipped)} compared layer(s), not candidates:"]
    shown = 0
    for reason, members in groups.items():
        if top is not None and shown >= top:
            break
        lines.append(f"  {escape(reason)}")
        for s in members:
            if top is not None and shown >= top:
                break
            lines.append(f"    layer {s.index}  {escape(s.name or '-')[:60]}")
            shown += 1
    if shown < len(skipped):
        lines.append(f"  … {len(skipped) - shown} more (--json gives every one)")
    return lines


def _f(x: float | None, fmt: str) -> str:
    if x is None:
        return "-"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return format(x, fmt)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"
