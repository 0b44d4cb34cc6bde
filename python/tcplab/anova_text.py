"""The text tables of ``tcplab anova``: allocation of variation, then main effects with intervals."""

from __future__ import annotations

from tcplab.anova import AnovaResult

__all__ = ["format_anova"]


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.6g}"


def format_anova(r: AnovaResult) -> str:
    shape = " x ".join(f"{len(r.levels[f])}" for f in r.factors)
    reps = f"{r.replications} replication{'s' if r.replications != 1 else ''} per combination"
    conf = f"{r.confidence:.0%}"
    lines = [
        f"Factorial analysis of '{r.response}': {r.n} observations, {shape} levels "
        f"({', '.join(r.factors)}), {reps}",
        f"overall mean {_num(r.mean)}",
        "",
        "Allocation of variation",
        f"  {'component':<36} {'sum of squares':>14} {'% variation':>11} {'dof':>5}",
        f"  {'individual values (SSY)':<36} {_num(r.ss_y):>14}",
        f"  {'overall mean (SS0)':<36} {_num(r.ss_0):>14}",
        f"  {'total variation (SST)':<36} {_num(r.ss_t):>14} {100:>11.2f} {r.n - 1:>5}",
    ]
    for c in r.components:
        label = c.name if len(c.factors) == 1 else f"{c.name} (interaction)"
        lines.append(f"  {label:<36} {_num(c.ss):>14} {c.percent:>11.2f} {c.dof:>5}")
    lines.append(f"  {'error':<36} {_num(r.ss_e):>14} {r.percent_error:>11.2f} {r.dof_e:>5}")
    if r.se is None:
        lines.append(
            "standard error: undefined (no degrees of freedom left for the error; try "
            "--no-interactions or replications)"
        )
    else:
        lines.append(
            f"standard error se = {_num(r.se)} with {r.dof_e} degrees of freedom; "
            f"t[{1 - (1 - r.confidence) / 2:.3g}; {r.dof_e}] = {r.t_quantile:.4g}"
        )
    lines += [
        "",
        f"Main effects with {conf} confidence intervals",
        f"  {'factor':<16} {'level':<16} {'effect':>12}   {conf + ' interval':<28} significant",
    ]
    for e in r.effects:
        interval = "-" if e.ci_low is None else f"({_num(e.ci_low)}, {_num(e.ci_high)})"
        sig = {True: "yes", False: "no", None: "-"}[e.significant]
        lines.append(f"  {e.factor:<16} {str(e.level):<16} {_num(e.effect):>12}   {interval:<28} {sig}")
    return "\n".join(lines)
