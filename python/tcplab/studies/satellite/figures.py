"""The satellite study's figures: efficiency and fairness by TCP flavour and buffer, one figure
per link type (columns EPD and SD), with the paper's Tables 4 and 7 as open markers."""

from __future__ import annotations

from pathlib import Path

from tcplab.analysis.stats import summarize
from tcplab.report.figures import new_figure, save
from tcplab.report.study import Figure
from tcplab.studies.satellite.backlog import backlog_figure, findings
from tcplab.studies.satellite.paper import TABLE_NUMBERS, results_table
from tcplab.studies.satellite.results import RESPONSES, Results
from tcplab.studies.satellite.sweeps import BUFFER_NAMES, CASE_NAMES, DROP_NAMES, FLAVOUR_NAMES

COLOURS = {"Vanilla": "tab:blue", "Reno": "tab:orange", "NewReno": "tab:green", "SACK": "tab:red"}


# The backlog diagnostic's lines: the flavours at the ends of the efficiency range, smallest
# and largest buffer.
BACKLOG_LINES = [
    ("Vanilla", "EPD", "0.5 RTT"),
    ("Vanilla", "EPD", "2 RTT"),
    ("SACK", "SD", "0.5 RTT"),
    ("SACK", "SD", "2 RTT"),
]


def figures(r: Results, outdir: Path) -> list[Figure]:
    out = [_case(r, case, outdir) for case in r.cases]
    if not r.backlog.empty:
        first = r.backlog[r.backlog["replication"] == 0]
        out.append(backlog_figure(first, BACKLOG_LINES, CASE_NAMES, outdir, findings(r.runs, CASE_NAMES)))
    return out


def _case(r: Results, case: str, outdir: Path) -> Figure:
    fig, axes = new_figure(9.0, 6.5, rows=2, cols=2)
    paper = results_table(case)
    xs = list(range(len(BUFFER_NAMES)))
    for row, resp in enumerate(RESPONSES):
        # efficiency and fairness (Jain's index) both lie in [0, 1]
        s = summarize(
            r.runs[case], ["drop_policy", "tcp", "buffer"], resp, confidence=0.90, bounds=(0.0, 1.0)
        )
        for col, drop in enumerate(DROP_NAMES.values()):
            ax = axes[row][col]
            for tcp in FLAVOUR_NAMES.values():
                g = (
                    s[(s["drop_policy"] == drop) & (s["tcp"] == tcp)]
                    .set_index("buffer")
                    .loc[list(BUFFER_NAMES)]
                )
                mean = g["mean"].to_numpy(dtype=float)
                err = [mean - g["ci_low"].to_numpy(dtype=float), g["ci_high"].to_numpy(dtype=float) - mean]
                ax.errorbar(xs, mean, yerr=err, marker="o", ms=4, capsize=3, color=COLOURS[tcp], label=tcp)
                if paper is not None:
                    p = paper[(paper["drop_policy"] == drop) & (paper["tcp"] == tcp)].set_index("buffer")
                    ax.plot(
                        xs, p.loc[list(BUFFER_NAMES), resp], "o--", mfc="none", lw=0.8, color=COLOURS[tcp]
                    )
            ax.set_xticks(xs, BUFFER_NAMES)
            ax.set_title(f"{resp}, {drop}", fontsize="small", loc="left")
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel(resp)
    # EPD and SD side by side on one y-axis per response, so the panels compare by eye.
    for row in axes:
        lows, highs = zip(*(ax.get_ylim() for ax in row), strict=True)
        for ax in row:
            ax.set_ylim(min(lows), max(highs))
    if paper is not None:
        axes[0][0].plot(
            [], [], "o--", mfc="none", lw=0.8, color="grey", label=f"paper (Table {TABLE_NUMBERS[case][0]})"
        )
        axes[0][0].plot([], [], "o-", color="grey", label="ours")
    axes[0][0].legend(fontsize="small")
    axes[1][0].set_xlabel("switch buffer (RTT x bandwidth)")
    axes[1][1].set_xlabel("switch buffer (RTT x bandwidth)")
    fig.suptitle(f"{CASE_NAMES[case]}: efficiency and fairness by TCP flavour and buffer")
    name = f"{case}_efficiency_fairness.png"
    save(fig, outdir / name)
    n = TABLE_NUMBERS[case][0]
    ref = (
        f"Open markers, dashed: the paper's Table {n} (one run per configuration)."
        if paper is not None
        else f"The paper's Table {n} is missing from its available text, so no reference markers."
    )
    best = {t: r.mean(case, "efficiency", tcp=t) for t in FLAVOUR_NAMES.values()}
    measured = ", ".join(f"{t} {v:.3f}" for t, v in best.items())
    return Figure(
        name,
        f"{CASE_NAMES[case]}: efficiency and fairness by flavour and buffer",
        f"Filled markers: our mean over {r.replications} replication(s) of {r.duration_s:g} s with "
        f"90% confidence intervals (none with one replication). {ref} Paper: Goyal et al. (1998), "
        "Secs. 8-9: SACK best on long delays, buffer matters most on WAN. Measured mean efficiency by "
        f"flavour: {measured}.",
    )
