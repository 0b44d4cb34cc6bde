"""Secs. VI.C-D and VII's claims (Cohen and Ramanathan, 1998): the 200 ms timer, super fast
retransmit, the modified TCP, and the implications for operators."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tcplab.report.claims import (
    MUCH,
    Claim,
    above,
    at_least,
    at_most,
    below,
    cell,
    paper_ordering,
    paper_value,
    printed,
    printed_multiple,
)
from tcplab.report.measure import cost, difference, exact, measure, ratio
from tcplab.studies.hfc import sweeps as sw
from tcplab.studies.hfc.judging import B8, GRID, Points, arr, at, buf, loss, pct, r2, size
from tcplab.studies.hfc.results import Results

# per (loss, size) under one configuration
ByLossSize = Mapping[tuple[float, int], object]


def claims(r: Results) -> list[Claim]:
    a, b = r.runs["fig15a"], r.runs["fig15b"]
    lossy = [p for p in sw.DATA_LOSS if p >= 0.01]
    acky = [p for p in sw.ACK_LOSS if p >= 0.1]
    f17, f18 = r.runs["fig17"], r.runs["fig18"]
    l17 = [p for p in sw.DATA_LOSS_FIG17 if p > 0]
    t16 = r.fig16.pivot_table(index="first", columns="dupack_threshold", values="timeouts")
    ex = r.fig16_example

    def f18at(config: str) -> dict[tuple[float, int], np.ndarray]:
        return {
            (p, s): at(f18, config=config, data_loss=p, size=s) for p in sw.FIG18_LOSS for s in sw.FIG18_SIZES
        }

    s7 = r.runs["sec7_ack"]
    f4, f3, refl = r.runs["fig4"], r.runs["fig3"], r.runs["sec7_reflected"]
    return [
        fig15a_timer_helps_data_loss(
            t500={p: at(a, timer="500ms", data_loss=p) for p in lossy},
            t200={p: at(a, timer="200ms", data_loss=p) for p in lossy},
        ),
        fig15a_twofold_3pct(
            t500=at(a, timer="500ms", data_loss=0.03), t200=at(a, timer="200ms", data_loss=0.03)
        ),
        fig15b_timer_helps_ack_loss(
            t500={p: at(b, timer="500ms", ack_loss=p) for p in acky},
            t200={p: at(b, timer="200ms", ack_loss=p) for p in acky},
        ),
        fig16_sfr_recovers(
            example_fr_timeouts=ex[3]["timeouts"],
            example_sfr_timeouts=ex[1]["timeouts"],
            fr_timeouts=t16[3].to_numpy(),
            sfr_timeouts=t16[1].to_numpy(),
        ),
        fig17_complementary(
            **{c: {p: at(f17, config=c, data_loss=p) for p in l17} for c in sw.FIG17_CONFIGS}
        ),
        fig17_sfr_fewer_timeouts(
            t200={p: at(f17, "timeouts", config="t200", data_loss=p) for p in l17},
            t200_sfr={p: at(f17, "timeouts", config="t200_sfr", data_loss=p) for p in l17},
        ),
        fig18_gain_25pct_min(iw2=f18at("iw2"), modified=f18at("modified")),
        fig18_gain_300pct_max(iw2=f18at("iw2"), modified=f18at("modified")),
        fig18_small_less_dramatic(iw2=f18at("iw2"), modified=f18at("modified")),
        fig18_30k_10pct_doubles(
            iw2=at(f18, config="iw2", data_loss=0.1, size=30_000),
            modified=at(f18, config="modified", data_loss=0.1, size=30_000),
        ),
        sec7_ack20_under_10pct(
            lossless={c: at(s7, config=c, ack_loss=0.0) for c in sw.SEC7_CONFIGS},
            lossy={c: at(s7, config=c, ack_loss=0.2) for c in sw.SEC7_CONFIGS},
        ),
        sec7_1pct_up_to_50pct(
            lossless={bb: at(f4, sock_buf=bb, data_loss=0.0) for bb in GRID},
            lossy={bb: at(f4, sock_buf=bb, data_loss=0.01) for bb in GRID},
        ),
        sec7_separate_channels(
            separate={p: at(f3, sock_buf=B8, ack_loss=p) for p in sw.REFLECTED_LOSS},
            reflected={p: at(refl, data_loss=p, ack_loss=p) for p in sw.REFLECTED_LOSS},
        ),
    ]


# ---------------------------------------------------------------- Sec. VI.C: the 200 ms timer


def _improves(cid: str, text: str, t500: Points, t200: Points) -> Claim:
    checks = [above(f"{loss(p)}: 200 ms / 500 ms", ratio(t200[p], t500[p]), 1) for p in sorted(t500)]
    return paper_ordering(
        cid,
        text,
        "improves",
        checks,
        {loss(p): r2(c.measured.value) for p, c in zip(sorted(t500), checks, strict=True)},
    )


def fig15a_timer_helps_data_loss(t500: Points, t200: Points) -> Claim:
    return _improves(
        "fig15a_timer_helps_data_loss",
        "Fig. 15(a): the 200 ms timer improves throughput at every downstream loss rate (1-10%)",
        t500,
        t200,
    )


def fig15a_twofold_3pct(t500, t200) -> Claim:
    return paper_value(
        "fig15a_twofold_3pct",
        "Sec. VI.C: at 3% downstream loss the 200 ms timer almost doubles throughput (ratio of means)",
        [cell("200 ms / 500 ms at 3%", printed_multiple("almost twofold", 2), ratio(t200, t500))],
    )


def fig15b_timer_helps_ack_loss(t500: Points, t200: Points) -> Claim:
    return _improves(
        "fig15b_timer_helps_ack_loss",
        "Fig. 15(b): the 200 ms timer improves throughput at every ACK loss rate of 10% and more",
        t500,
        t200,
    )


# ---------------------------------------------------------------- Sec. VI.D: super fast retransmit


def fig16_sfr_recovers(
    example_fr_timeouts: int, example_sfr_timeouts: int, fr_timeouts, sfr_timeouts
) -> Claim:
    fr, sfr = arr(fr_timeouts), arr(sfr_timeouts)
    failing = fr > 0
    saved = failing & (sfr == 0)
    share = exact(saved.sum() / failing.sum()) if failing.any() else exact(float("nan"))
    return paper_ordering(
        "fig16_sfr_recovers",
        "Fig. 16: with two packets three apart lost in a window of eight, fast retransmit times out and "
        "super fast retransmit recovers without a timeout (the example, and at least 80% of the pairs for "
        "which fast retransmit times out: the study's extension of the example; deterministic drop lists)",
        "fast retransmit: timeout; super fast retransmit: no timeout",
        [
            at_least("example: fast retransmit's timeouts", exact(example_fr_timeouts), 1),
            at_most("example: super fast retransmit's timeouts", exact(example_sfr_timeouts), 0),
            at_least("share of FR-timeout pairs SFR saves", share, 0.8),
        ],
        {
            "example timeouts (FR, SFR)": [int(example_fr_timeouts), int(example_sfr_timeouts)],
            "pairs where FR times out": int(failing.sum()),
            "of which SFR avoids it": int(saved.sum()),
            "pairs": int(fr.size),
        },
    )


def fig17_complementary(tcp: Points, t200: Points, t200_sfr: Points) -> Claim:
    checks = []
    for p in sorted(tcp):
        checks.append(above(f"{loss(p)}: timer + SFR / timer", ratio(t200_sfr[p], t200[p]), 1))
        checks.append(above(f"{loss(p)}: timer / normal TCP", ratio(t200[p], tcp[p]), 1))
    return paper_ordering(
        "fig17_complementary",
        "Fig. 17: the 200 ms timer and super fast retransmit are complementary: at every loss rate 1-7% "
        "timer + super fast retransmit > timer alone > normal TCP",
        "complementary improvements",
        checks,
        {loss(p): [r2(np.mean(arr(x[p]))) for x in (tcp, t200, t200_sfr)] for p in sorted(tcp)},
    )


def fig17_sfr_fewer_timeouts(t200: Points, t200_sfr: Points) -> Claim:
    checks = [
        below(f"{loss(p)}: SFR - no SFR timeouts", difference(t200_sfr[p], t200[p]), 0) for p in sorted(t200)
    ]
    return paper_ordering(
        "fig17_sfr_fewer_timeouts",
        "Sec. VI.D: super fast retransmit reduces the number of timeouts (with the 200 ms timer, fewer "
        "timeouts on average at every loss rate 1-7%)",
        "reduces the number of timeouts",
        checks,
        {loss(p): [r2(np.mean(arr(t200[p]))), r2(np.mean(arr(t200_sfr[p])))] for p in sorted(t200)},
    )


def _big(keys) -> list:
    return [k for k in sorted(keys) if k[1] >= 50_000]


def _gains(iw2: ByLossSize, modified: ByLossSize, keys, reduce):
    """The smallest (``np.min``) or largest gain of modified TCP over TCP across ``keys``."""
    arrays = [x for k in keys for x in (iw2[k], modified[k])]

    def stat(*xs):
        gains = np.stack([xs[2 * i + 1].mean(-1) / xs[2 * i].mean(-1) - 1 for i in range(len(keys))])
        return reduce(gains, axis=0)

    return measure(stat, *arrays)


def fig18_gain_25pct_min(iw2: ByLossSize, modified: ByLossSize) -> Claim:
    keys = _big(iw2)
    return paper_value(
        "fig18_gain_25pct_min",
        "Fig. 18: modified TCP performs uniformly well for transfers of 50 KB and more, gaining from about "
        "25% (the smallest gain over 1, 5 and 10% loss and 50-600 KB; gains of means; the paper does not "
        "state its loss rates, 1, 5 and 10% are this study's choice)",
        [cell("smallest gain", printed("25%"), _gains(iw2, modified, keys, np.min))],
    )


def fig18_gain_300pct_max(iw2: ByLossSize, modified: ByLossSize) -> Claim:
    keys = _big(iw2)
    return paper_value(
        "fig18_gain_300pct_max",
        "Fig. 18: the gains for 50 KB and more range up to about 300% (the largest gain; '300%' prints as "
        "250-350%)",
        [cell("largest gain", printed("300%"), _gains(iw2, modified, keys, np.max))],
    )


def _small_minus_large(a, b, *xs):
    """The gain at one size (a: TCP, b: modified) minus the mean gain over the pairs in ``xs``."""
    big = np.mean([xs[2 * i + 1].mean(-1) / xs[2 * i].mean(-1) - 1 for i in range(len(xs) // 2)], axis=0)
    return (b.mean(-1) / a.mean(-1) - 1) - big


def fig18_small_less_dramatic(iw2: ByLossSize, modified: ByLossSize) -> Claim:
    checks, shown = [], {}
    for p in (0.01, 0.05):
        larger = [k for k in sorted(iw2) if k[0] == p and k[1] >= 100_000]
        for s in (30_000, 50_000):
            arrays = [iw2[(p, s)], modified[(p, s)], *[x for k in larger for x in (iw2[k], modified[k])]]
            m = measure(_small_minus_large, *arrays)
            checks.append(below(f"{loss(p)}: {size(s)} gain - mean gain 100-600 KB", m, 0))
        g = {s: np.mean(arr(modified[(p, s)])) / np.mean(arr(iw2[(p, s)])) - 1 for s in (30_000, 50_000)}
        lg = np.mean([np.mean(arr(modified[k])) / np.mean(arr(iw2[k])) - 1 for k in larger])
        shown[loss(p)] = {"30/50 KB": [pct(x) for x in g.values()], "100-600 KB mean": pct(lg)}
    return paper_ordering(
        "fig18_small_less_dramatic",
        "Sec. VI.D: for transfers of 50 KB and less the gain is less dramatic at 5% loss and less (the "
        "gains at 30 and 50 KB below the mean gain of 100-600 KB transfers, at 1% and 5%)",
        "less dramatic for small transfers",
        checks,
        shown,
    )


def fig18_30k_10pct_doubles(iw2, modified) -> Claim:
    return paper_value(
        "fig18_30k_10pct_doubles",
        "Sec. VI.D: for a 30 KB transfer at 10% loss modified TCP doubles the throughput (ratio of means)",
        [cell("modified / TCP, 30 KB at 10%", printed_multiple("doubles", 2), ratio(modified, iw2))],
    )


# ---------------------------------------------------------------- Sec. VII


def sec7_ack20_under_10pct(lossless: Points, lossy: Points) -> Claim:
    return paper_ordering(
        "sec7_ack20_under_10pct",
        "Sec. VII: with the enhancements, even 20% ACK loss costs less than 10% of the throughput (3 MB; "
        "'all enhancements' = initial window 2, 200 ms timer, super fast retransmit, MSS 512, 16 KB socket "
        "buffer)",
        "less than 10%",
        [below("enhanced: share lost at 20% ACK loss", cost(lossy["enhanced"], lossless["enhanced"]), 0.10)],
        {sw.NAMES[c]: pct(1 - np.mean(arr(lossy[c])) / np.mean(arr(lossless[c]))) for c in lossless},
    )


def sec7_1pct_up_to_50pct(lossless: Points, lossy: Points) -> Claim:
    grid = sorted(lossless)

    def largest(*xs):
        costs = np.stack([1 - xs[2 * i + 1].mean(-1) / xs[2 * i].mean(-1) for i in range(len(grid))])
        return costs.max(0)

    m = measure(largest, *[x for bb in grid for x in (lossless[bb], lossy[bb])])
    return paper_ordering(
        "sec7_1pct_up_to_50pct",
        "Sec. VII: a low (1%) downstream loss can degrade performance by up to 50%: the largest share lost "
        "over the socket buffers of Fig. 4 reaches at least the low end of '50%' (45%; the paper's own "
        "Fig. 4 has over 50% at 8 KB and more for larger buffers, so 'up to' is not an upper bound)",
        "up to 50%",
        [at_least("largest share lost at 1%", m, 0.45)],
        {buf(bb): pct(1 - np.mean(arr(lossy[bb])) / np.mean(arr(lossless[bb]))) for bb in grid},
    )


def sec7_separate_channels(separate: Points, reflected: Points) -> Claim:
    checks = [
        above(f"{loss(p)}: separate / reflected", ratio(separate[p], reflected[p]), MUCH)
        for p in sorted(separate)
    ]
    return paper_ordering(
        "sec7_separate_channels",
        "Sec. VII: architectures that keep upstream noise off the downstream channel perform much better: "
        "ACK loss alone gives at least twice the throughput of the same loss reflected onto the data (5% "
        "and 10%; no size given for 'much': the project's reading)",
        "much higher performance",
        checks,
        {
            loss(p): {"separate": r2(np.mean(arr(separate[p]))), "reflected": r2(np.mean(arr(reflected[p])))}
            for p in sorted(separate)
        },
    )
