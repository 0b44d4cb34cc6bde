"""The text tables of ``tcplab anova``: allocation of variation, then main effects with intervals.

Column names and levels come from the user's CSV: printed with control characters escaped."""

from __future__ import annotations

from tcplab.analysis.anova import AnovaResult
from tcplab.errors import printable

__all__ = ["format_anova"]


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.6g}"


def _allocation(r: AnovaResult) -> list[str]:
    rows: list[tuple[str, str, str, str]] = [
        ("individual values (SSY)", _num(r.ss_y), "", ""),
        ("overall mean (SS0)", _num(r.ss_0), "", ""),
        ("total variation (SST)", _num(r.ss_t), "100.00", str(r.n - 1)),
    ]
    for c in r.components:
        label = printable(c.name) if len(c.factors) == 1 else f"{printable(c.name)} (interaction)"
        rows.append((label, _num(c.ss), f"{c.percent:.2f}", str(c.dof)))
    rows.append(("error", _num(r.ss_e), f"{r.percent_error:.2f}", str(r.dof_e)))
    width = max(len(row[0]) for row in rows)
    head = f"  {'component':<{width}}  {'sum of squares':>14}  {'% variation':>11}  {'dof':>4}"
    return [head] + [f"  {a:<{width}}  {b:>14}  {c:>11}  {d:>4}".rstrip() for a, b, c, d in rows]


def _effects(r: AnovaResult) -> list[str]:
    conf = f"{r.confidence:.0%}"
    rows = []
    for e in r.effects:
        interval = "-" if e.ci_low is None else f"({_num(e.ci_low)}, {_num(e.ci_high)})"
        sig = {True: "yes", False: "no", None: "-"}[e.significant]
        rows.append((printable(e.factor), printable(e.level), _num(e.effect), interval, sig))
    wf = max(len("factor"), *(len(x[0]) for x in rows))
    wl = max(len("level"), *(len(x[1]) for x in rows))
    wi = max(len(conf) + 9, *(len(x[3]) for x in rows))
    head = f"  {'factor':<{wf}}  {'level':<{wl}}  {'effect':>12}  {conf + ' interval':<{wi}}  significant"
    return [head] + [f"  {a:<{wf}}  {b:<{wl}}  {c:>12}  {d:<{wi}}  {s}" for a, b, c, d, s in rows]


def format_anova(r: AnovaResult) -> str:
    shape = " x ".join(f"{len(r.levels[f])}" for f in r.factors)
    reps = f"{r.replications} replication{'s' if r.replications != 1 else ''} per combination"
    lines = [
        f"Factorial analysis of '{printable(r.response)}': {r.n} observations, {shape} levels "
        f"({', '.join(map(printable, r.factors))}), {reps}",
        f"overall mean {_num(r.mean)}",
        "",
        "Allocation of variation",
        *_allocation(r),
    ]
    if r.se is None or r.t_quantile is None:
        lines.append(
            "standard error: undefined (no degrees of freedom left for the error; use "
            "--no-interactions, or replications)"
        )
    else:
        lines.append(
            f"standard error se = {_num(r.se)} with {r.dof_e} degrees of freedom; "
            f"t[{1 - (1 - r.confidence) / 2:.3g}; {r.dof_e}] = {r.t_quantile:.4g}"
        )
    lines += ["", f"Main effects with {r.confidence:.0%} confidence intervals", *_effects(r)]
    return "\n".join(lines)
