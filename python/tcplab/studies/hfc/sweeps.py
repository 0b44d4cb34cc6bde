"""The HFC study's sweeps (Cohen and Ramanathan, 1998): levels, TCP configurations, replications.

Every sweep uses common random numbers (``seeds = "common"``, one base seed): replication i of
every point sees the same random streams, so curves are smooth and configurations are compared
on the same loss draws, and runs that two sweeps share (the same scenario and seed) are
simulated once and stored once.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from tcplab.experiment.spec import SweepSpec
from tcplab.studies.hfc import mss as mss_tradeoffs
from tcplab.studies.hfc import put, readings
from tcplab.studies.hfc.buffer import MODES, overrun_scenario
from tcplab.studies.hfc.scenarios import (
    CM_BUFFER,
    DURATION_S,
    HTTP_HEADER,
    MODIFIED_TCP,
    MSS,
    PRIMARY_STACK,
    SOCKET_BUFFERS,
    hfc_scenario,
    kib,
    stack_timer,
    window_packets,
)
from tcplab.studies.hfc.specs import common_seed_spec
from tcplab.units import KB

SEED = 1998

# ---------------------------------------------------------------- levels

MB3 = 3_000_000  # the paper's "3-Mb" transfer: 3 megabytes (its "kb" are kilobytes)
ACK_LOSS = [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]
DATA_LOSS = [0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1]
DATA_LOSS_SIZES = [0.0, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1]
DATA_LOSS_FIG17 = [0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07]
FIG6_SIZES = [30 * KB, 100 * KB, 300 * KB, 1000 * KB, MB3]
# Fig. 6's ACK-loss counterpart ("a similar pattern", Sec. IV.D): upstream loss levels of Fig. 3's range.
FIG6_ACK_LOSS = [0.0, 0.1, 0.2, 0.3]
FIG8_SIZES = [30 * KB, 100 * KB, 300 * KB, 1000 * KB, MB3, 8_000_000, 16_000_000]
FIG10_BUFFERS = [kib(b) for b in (4, 8, 12, 16, 24, 32, 48)]
FIG12_SIZES = [30 * KB, 50 * KB, 100 * KB, 150 * KB, 300 * KB, 1000 * KB, MB3, 5_000_000]
FIG18_SIZES = [30 * KB, 50 * KB, 100 * KB, 200 * KB, 300 * KB, 400 * KB, 500 * KB, 600 * KB]
FIG18_LOSS = [0.01, 0.05, 0.1]
FIG3_BUFFERS = [kib(8), kib(24)]
FIG14_MSS = [1460, 1024, 512]
FIG16_WINDOW = 8  # segments: "a transmission window of size eight packets"
FIG16_FIRST = list(range(13, 41))  # first lost segment n (the second is n + 3), see fig16 sweeps
FIG16_EXAMPLE = 20
BUFCHECK_STEPS = [kib(b) for b in range(8, 41)]
REFLECTED_LOSS = [0.05, 0.1]
TAHOE_LOSS = [0.01, 0.03, 0.05]
SEC7_ACK_LOSS = [0.0, 0.2]

# ---------------------------------------------------------------- TCP configurations

# Each is a change to BASE_TCP (tcplab.studies.hfc.scenarios) at the server, except the receiver kinds.
CONFIGS: dict[str, dict[str, Any]] = {
    "tcp": {},
    "nodelack": {"delayed_ack": False},
    "iw2": {"initial_cwnd": 2},
    "t200": {"timer": "200ms"},
    "t200_sfr": {"timer": "200ms", "dupack_threshold": 1},
    "modified": dict(MODIFIED_TCP),
    "mss1024": {"mss": 1024},
    "mss512": {"mss": 512},
    "tahoe_rx": {"out_of_order_ack": "delayed"},
    "tahoe_rx_nodelack": {"out_of_order_ack": "delayed", "delayed_ack": False},
    "modified_mss512": {**MODIFIED_TCP, "mss": 512},
    # Every enhancement of Secs. V-VI together: the modified TCP, the smaller MSS of Sec. VI.B
    # and the largest socket buffer of the paper's grid under the Sec. V.B bound (16 KB < 19 KB).
    "enhanced": {**MODIFIED_TCP, "mss": 512, "rcv_buf": kib(16), "snd_buf": kib(16)},
}
NAMES = {
    "tcp": "TCP (BSD Reno)",
    "nodelack": "no delayed ACK at the PC",
    "iw2": "initial window 2 at the server",
    "t200": "200 ms timer",
    "t200_sfr": "200 ms timer + super fast retransmit",
    "modified": "modified TCP (iw 2, 200 ms timer, super fast retransmit)",
    "mss1024": "MSS 1024",
    "mss512": "MSS 512",
    "tahoe_rx": "Tahoe-era PC (delays out-of-order ACKs)",
    "tahoe_rx_nodelack": "Tahoe-era PC, no delayed ACK",
    "modified_mss512": "modified TCP + MSS 512",
    "enhanced": "all enhancements (modified TCP, MSS 512, 16 KB buffer)",
}


def tcp_table(
    name: str, sock_buf: int = kib(8), pattern: str = "ftp", stack: str = PRIMARY_STACK
) -> dict[str, Any]:
    """The whole ``[tcp]`` table of a configuration (a sweep level replaces the table), as
    ``hfc_scenario`` builds it for ``pattern`` on ``stack``."""
    doc = hfc_scenario(size=1, sock_buf=sock_buf, pattern=pattern, tcp=CONFIGS[name], stack=stack)
    return doc["tcp"]


def config_factor(
    names: Sequence[str], pattern: str = "ftp", stack: str = PRIMARY_STACK
) -> dict[str, list[dict[str, Any]]]:
    """The ``tcp`` factor over configurations ``names``: each level a whole ``[tcp]`` table."""
    return {"tcp": [tcp_table(n, pattern=pattern, stack=stack) for n in names]}


def config_labels(names: Sequence[str]) -> dict[str, list[str]]:
    """The ``tcp`` factor's levels named by their configurations (the ``config`` column)."""
    return {"tcp": list(names)}


# ---------------------------------------------------------------- sweeps

BUF = {"tcp.rcv_buf": "sock_buf", "tcp.snd_buf": "sock_buf_snd"}
LABELS = {
    "link.0.ab.loss.p": "data_loss",
    "link.0.ba.loss.p": "ack_loss",
    "flow.*.bytes": "bytes",
    "tcp": "config",
    "tcp.mss": "mss",
    "tcp.timer": "timer",
    "link.0.ab.loss.values": "drops",
    "tcp.dupack_threshold": "dupack_threshold",
    **BUF,
}


def _spec(
    name: str,
    base: Mapping[str, Any],
    reps: int,
    factors: Mapping[str, Sequence[Any]] | None = None,
    zips: Sequence[Mapping[str, Sequence[Any]]] = (),
    level_labels: Mapping[str, Sequence[str]] | None = None,
) -> SweepSpec:
    return common_seed_spec(name, base, reps, SEED, LABELS, factors, zips, level_labels)


def _buffers(levels: Sequence[int], stack: str = "bsd44") -> dict[str, list[int]]:
    """Socket buffers as sweep levels: bytes at both ends under BSD; under ns the window in
    whole packets (``window_packets``), as bytes of MSS-sized packets."""
    if stack != "bsd44":
        levels = [window_packets(b) * MSS for b in levels]
    return {"tcp.rcv_buf": list(levels), "tcp.snd_buf": list(levels)}


def nominal_buffer(window: int) -> int:
    """The paper's socket buffer (bytes) an ns window of ``window`` bytes stands for; a BSD
    buffer is its own nominal value."""
    for b in (*FIG10_BUFFERS, *SOCKET_BUFFERS):
        if window_packets(b) * MSS == window and window != b:
            return b
    return window


FIG12_CONFIGS = ["tcp", "nodelack", "iw2"]
FIG11_CONFIGS = ["tcp", "nodelack", "iw2"]
FIG13_CONFIGS = ["tcp", "nodelack"]
FIG17_CONFIGS = ["tcp", "t200", "t200_sfr"]
FIG18_CONFIGS = ["iw2", "modified"]
TAHOE_CONFIGS = ["tcp", "nodelack", "tahoe_rx", "tahoe_rx_nodelack"]
SEC7_CONFIGS = ["tcp", "modified", "modified_mss512", "enhanced"]


def reps(quick: bool) -> dict[str, int]:
    """Replications per point: ``dist`` for percentile figures and short transfers, ``mean`` for
    means of 3 MB transfers, ``det`` for lossless runs (where only the coarse clocks' phases
    vary), ``trace`` for traced runs."""
    if quick:
        return {"dist": 40, "mean": 20, "det": 3, "trace": 5, "share": 400, "mss": 10}
    return {"dist": 100, "mean": 100, "det": 10, "trace": 21, "share": 1000, "mss": 40}


TINY_REPS = {"dist": 2, "mean": 2, "det": 1, "trace": 1, "share": 2, "mss": 1}


def sweeps(quick: bool, stack: str = PRIMARY_STACK) -> list[SweepSpec]:
    return _sweeps(reps(quick), stack)


def tiny(stack: str = PRIMARY_STACK) -> list[SweepSpec]:
    """The quick grid with the fewest replications that still draw every figure (a test hook)."""
    return _sweeps(TINY_REPS, stack)


def _sweeps(r: dict[str, int], stack: str) -> list[SweepSpec]:
    def hfc(**kw: Any) -> dict[str, Any]:
        return hfc_scenario(stack=stack, **kw)

    def buffers(levels: Sequence[int]) -> dict[str, list[int]]:
        return _buffers(levels, stack)

    def with_configs(
        name: str,
        base: Mapping[str, Any],
        reps: int,
        factors: Mapping[str, Sequence[Any]],
        names: Sequence[str],
        pattern: str = "ftp",
    ) -> SweepSpec:
        """``factors`` crossed with the configurations ``names`` (the last factor, ``tcp``)."""
        levels = {**factors, **config_factor(names, pattern, stack)}
        return _spec(name, base, reps, levels, level_labels=config_labels(names))

    timers = [stack_timer(t, stack) for t in ("500ms", "200ms")]
    base = hfc(size=MB3)
    out = [
        _spec("fig3", base, r["mean"], {"link.0.ba.loss.p": ACK_LOSS}, [buffers(FIG3_BUFFERS)]),
        _spec("fig4", base, r["mean"], {"link.0.ab.loss.p": DATA_LOSS}, [buffers(SOCKET_BUFFERS)]),
        _spec("fig5", hfc(size=MB3, trace=True), r["trace"], {"link.0.ab.loss.p": [0.01, 0.03]}),
        _spec(
            "fig6",
            hfc(size=MB3, tcp=CONFIGS["iw2"]),
            r["dist"],
            {"link.0.ab.loss.p": DATA_LOSS_SIZES, "flow.*.bytes": FIG6_SIZES},
        ),
        _spec(
            "fig6_ack",
            hfc(size=MB3, tcp=CONFIGS["iw2"]),
            r["mean"],
            {"link.0.ba.loss.p": FIG6_ACK_LOSS, "flow.*.bytes": FIG6_SIZES},
        ),
        # Sec. IV.D's "one in five" 30 KB transfers losing a packet at 1%, as a proportion: enough
        # runs of the short transfer for a binomial test to tell 0.2 from its neighbours.
        _spec("fig7_share", hfc(size=30 * KB, data_loss=0.01, tcp=CONFIGS["iw2"]), r["share"]),
        _spec(
            "fig8",
            hfc(size=MB3, cm_buffer=CM_BUFFER),
            r["det"],
            {"flow.*.bytes": FIG8_SIZES},
            [buffers(SOCKET_BUFFERS)],
        ),
        _spec(
            "fig9",
            hfc(size=1_000_000, cm_buffer=CM_BUFFER, trace=True),
            1,
            zips=[buffers([kib(24), kib(48)])],
        ),
        _spec(
            "fig10",
            hfc(size=300 * KB, cm_buffer=CM_BUFFER, connections=3),
            r["mean"],
            zips=[buffers(FIG10_BUFFERS)],
        ),
        with_configs("fig11_ftp", hfc(size=30 * KB, pattern="ftp", trace=True), r["mean"], {}, FIG11_CONFIGS),
        with_configs(
            "fig11_http", hfc(size=30 * KB, pattern="http", trace=True), r["mean"], {}, FIG11_CONFIGS, "http"
        ),
        with_configs(
            "fig12_ftp", hfc(size=MB3, pattern="ftp"), r["mean"], {"flow.*.bytes": FIG12_SIZES}, FIG12_CONFIGS
        ),
        with_configs(
            "fig12_http",
            hfc(size=MB3, pattern="http"),
            r["mean"],
            {"flow.*.bytes": [s + HTTP_HEADER for s in FIG12_SIZES]},
            FIG12_CONFIGS,
            "http",
        ),
        with_configs("fig13", base, r["mean"], {"link.0.ba.loss.p": ACK_LOSS}, FIG13_CONFIGS),
        # On ns the 8 KB window stays 8760 bytes (6 packets of 1460): 8 packets of 1024 and 17 of
        # 512. Recounting it per MSS (16 packets of 512 = 8 of 1024 = 8192 bytes) cannot be a
        # sweep level, since two MSS values would share one window level.
        _spec("fig14", base, r["mean"], {"link.0.ba.loss.p": ACK_LOSS, "tcp.mss": FIG14_MSS}),
        _spec("fig15a", base, r["mean"], {"link.0.ab.loss.p": DATA_LOSS, "tcp.timer": timers}),
        _spec("fig15b", base, r["mean"], {"link.0.ba.loss.p": ACK_LOSS, "tcp.timer": timers}),
        _spec(
            "fig16",
            fig16_scenario(trace=False, stack=stack),
            1,
            {
                "link.0.ab.loss.values": [[n, n + 3] for n in FIG16_FIRST],
                "tcp.dupack_threshold": [3, 1],
            },
        ),
        _spec(
            "fig16_example",
            fig16_scenario(trace=True, stack=stack),
            1,
            {"tcp.dupack_threshold": [3, 1]},
        ),
        with_configs("fig17", base, r["mean"], {"link.0.ab.loss.p": DATA_LOSS_FIG17}, FIG17_CONFIGS),
        with_configs(
            "fig18",
            base,
            r["dist"],
            {"link.0.ab.loss.p": FIG18_LOSS, "flow.*.bytes": FIG18_SIZES},
            FIG18_CONFIGS,
        ),
        with_configs("tahoe_rx", base, r["mean"], {"link.0.ab.loss.p": TAHOE_LOSS}, TAHOE_CONFIGS),
        with_configs("sec7_ack", base, r["mean"], {"link.0.ba.loss.p": SEC7_ACK_LOSS}, SEC7_CONFIGS),
        _spec(
            "sec7_reflected",
            base,
            r["mean"],
            zips=[{"link.0.ab.loss.p": REFLECTED_LOSS, "link.0.ba.loss.p": REFLECTED_LOSS}],
        ),
    ]
    # FTP put (Sec. VI.A) and the trade-offs of a smaller MSS (Sec. VI.B): their own modules
    out += put.sweeps(FIG12_SIZES, r["mean"], r["det"], SEED, stack)
    out += mss_tradeoffs.sweeps(r, SEED, stack, MB3)
    out += _every_ack(out)
    if stack != "bsd44":
        out += _truncated_reading(out)
    for mode in MODES:
        for n in (1, 3):
            out.append(
                _spec(
                    f"bufcheck_{mode}_n{n}",
                    overrun_scenario(kib(8), mode, CM_BUFFER, n, stack=stack),
                    1 if mode == "burst" else r["det"],
                    zips=[bufcheck_zip(mode, n)],
                )
            )
    return out


EVERY_ACK = ("fig8", "fig10")
EVERY_ACK_SUFFIX = "_every_ack"


def _every_ack(specs: Sequence[SweepSpec]) -> list[SweepSpec]:
    """Figs. 8 and 10 again with a PC that ACKs every segment: slow start then doubles the window
    per round trip and overruns the CM where the delayed-ACK PC's gentler growth does not."""
    out = []
    for spec in specs:
        if spec.name in EVERY_ACK:
            base = copy.deepcopy(dict(spec.base))
            base["tcp"]["delayed_ack"] = False
            out.append(
                _spec(
                    spec.name + EVERY_ACK_SUFFIX,
                    base,
                    spec.replications,
                    spec.factors,
                    spec.zips,
                    spec.level_labels,
                )
            )
    return out


def _truncated_reading(specs: Sequence[SweepSpec]) -> list[SweepSpec]:
    """Figs. 4-7, 12 and 13 again with the 8 KB window read as 5 whole packets (readings.py)."""
    out = []
    for spec in specs:
        if spec.name not in readings.SWEEPS:
            continue
        base = copy.deepcopy(dict(spec.base))
        base["tcp"] = readings.truncated(base["tcp"], MSS)
        factors = dict(spec.factors)
        if "tcp" in factors:
            factors["tcp"] = [readings.truncated(t, MSS) for t in factors["tcp"]]
        zips = [z for z in spec.zips if "tcp.rcv_buf" not in z]  # the 8 KB buffer only
        # the same configurations, so the same names: the tables differ in the window only
        labels = spec.level_labels
        out.append(_spec(readings.PREFIX + spec.name, base, spec.replications, factors, zips, labels))
    return out


def bufcheck_steps(n: int) -> list[int]:
    """Socket buffers in 1 KiB steps: 8..40 KiB for one connection, 2..20 KiB for three."""
    return BUFCHECK_STEPS if n == 1 else [kib(b) for b in range(2, 21)]


def bufcheck_zip(mode: str, n: int) -> dict[str, list[int]]:
    steps = bufcheck_steps(n)
    z = _buffers(steps)
    if mode == "burst":
        z["flow.*.bytes"] = steps  # the transfer is exactly one window, sent at once
    return z


def fig16_scenario(trace: bool, stack: str = PRIMARY_STACK) -> dict[str, Any]:
    """Fig. 16's setting: a congestion window of eight segments when two segments three apart are
    lost. The socket buffer (48 KB) does not limit the window; slow start ends at eight segments
    (initial ssthresh) and congestion avoidance then grows the window by one segment per round
    trip, so the window is eight or nine segments when segment n is sent (n = 13..40)."""
    doc = hfc_scenario(
        size=120 * MSS,
        sock_buf=kib(48),
        tcp={"initial_ssthresh": FIG16_WINDOW * MSS},
        trace=trace,
        duration_s=DURATION_S,
        stack=stack,
    )
    doc["link"][0]["ab"]["loss"] = {
        "model": "drop_list",
        "flow": 0,
        "by": "segment",
        "values": [FIG16_EXAMPLE, FIG16_EXAMPLE + 3],
    }
    return doc
