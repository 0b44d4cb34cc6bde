"""The paper's metrics from a run's report (TCP Boston, Bestavros and Kim, 1997): the star's
effective throughput, loss, retransmission and response-time measures (Sec. 3; definitions in
docs/boston.md), per-second series for Figs. 15-17, and the chain's wasted cell-hops (Sec. 4.3).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from tcplab.studies.boston.analytic import waste_boston, waste_epd, waste_reno
from tcplab.studies.boston.scenarios import (
    CELL_BYTES,
    LINK_BPS,
    PROTOCOLS,
    ChainConfig,
    cells_per_packet,
    chain,
    mss_of,
)

__all__ = ["ChainWaste", "StarMetrics", "chain_waste", "run_chain", "series", "source_links", "star_metrics"]


@dataclass(frozen=True)
class StarMetrics:
    """The paper's metrics of one star run (definitions in docs/boston.md)."""

    effective_throughput: float  # useful cells over the bottleneck's cell capacity
    goodput_fraction: float  # application bytes over 1.5 Mb/s
    utilization: float  # of the bottleneck link
    cell_loss_rate: float  # cells dropped at the switch or a source's queue / cells offered
    packet_loss_rate: float  # data packets not delivered intact / data packets sent
    loss_rate: float  # the paper's: packet loss (Reno, EPD), cell loss (Boston)
    retransmission_rate: float  # cells of retransmissions / cells the sources sent
    response_time_ms_per_byte: float  # connection time over bytes delivered (byte-weighted mean)
    offered_fraction: float  # bytes into the switch over the bottleneck's capacity
    jain_fairness: float
    min_share: float  # smallest connection's share of the application bytes
    timeouts: int
    fast_retransmits: int
    partial_segments: int
    frames_lost_reassembly: int  # frames the receiving AAL threw away (they count as packet losses)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def source_links(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The sources' channels into the switch (not the sink's ACK channel, which also ends there)."""
    return [ln for ln in report["links"] if ln["to"] == "sw" and ln["from"] != "sink"]


def star_metrics(report: Mapping[str, Any], packet: int, protocol_name: str) -> StarMetrics:
    flows = report["flows"]
    links = report["links"]
    t = float(report["sim_time_s"])
    capacity_bytes = LINK_BPS * t / 8
    delivered = sum(int(f["bytes_delivered"]) for f in flows)
    segments = sum(int(f["data_segments"]) for f in flows)
    bott = links[0]
    useful_cells = delivered / mss_of(packet) * cells_per_packet(packet, protocol_name)
    cell_loss = _cell_loss(bott, source_links(report), cells_per_packet(packet, protocol_name))
    packet_loss = report["conservation"]["dropped"] / segments if segments else 0.0
    boston = PROTOCOLS[protocol_name].codec != "plain"
    active = sum(t - float(f["start_s"]) for f in flows)
    access = source_links(report)
    retx = _retransmission_rate(flows, boston)
    shares = [int(f["bytes_delivered"]) for f in flows]
    square = sum(x * x for x in shares)
    return StarMetrics(
        effective_throughput=useful_cells * CELL_BYTES / capacity_bytes,
        goodput_fraction=delivered / capacity_bytes,
        utilization=float(bott["utilization"]),
        cell_loss_rate=cell_loss,
        packet_loss_rate=packet_loss,
        loss_rate=cell_loss if boston else packet_loss,
        retransmission_rate=retx,
        response_time_ms_per_byte=active / delivered * 1e3 if delivered else math.inf,
        offered_fraction=sum(int(ln["tx_bytes"]) for ln in access) / capacity_bytes,
        jain_fairness=(sum(shares) ** 2 / (len(shares) * square)) if square else 0.0,
        min_share=min(shares) / delivered if delivered else 0.0,
        timeouts=sum(int(f["timeouts"]) for f in flows),
        fast_retransmits=sum(int(f["fast_retransmits"]) for f in flows),
        partial_segments=sum(int(f.get("partial_segments", 0)) for f in flows),
        frames_lost_reassembly=sum(int(f.get("frames_lost_reassembly", 0)) for f in flows),
    )


def _retransmission_rate(flows: Sequence[Mapping[str, Any]], boston: bool) -> float:
    """Cells of retransmissions over cells sent, whatever the access link. Boston's senders
    count the cells of their packets (a header cell and one per shard, so a retransmission of
    m - r shards counts m - r + 1 cells); every Reno packet is a full one of the same cells, so
    its rate in cells is its rate in packets."""
    if boston:
        sent = sum(int(f["boston_cells_sent"]) for f in flows)
        retx = sum(int(f["boston_cells_retransmitted"]) for f in flows)
    else:
        sent = sum(int(f["data_segments"]) for f in flows)
        retx = sum(int(f["retransmits"]) for f in flows)
    return retx / sent if sent else 0.0


def _cell_loss(bott: Mapping[str, Any], access: Sequence[Mapping[str, Any]], cpp: int) -> float:
    """Cells lost at the switch or in a source's own interface queue over cells the sources
    offered. A packet access link drops whole packets: each counts as a full packet's cells
    (exact for first transmissions; Boston's shorter retransmissions are over-counted)."""
    source_drops = sum(int(ln["drops_queue"]) * (1 if ln["atm"] else cpp) for ln in access)
    offered = sum(int(ln["arrivals"]) * (1 if ln["atm"] else cpp) for ln in access)
    if not access or not all(ln["atm"] for ln in access):
        offered = int(bott["arrivals"]) + source_drops  # cells are cut at the switch
    drops = int(bott["drops_queue"]) + source_drops
    return drops / offered if offered else 0.0


def _padded(values: Sequence[int] | None, n: int) -> list[int]:
    out = list(values or [])[:n]
    return out + [0] * (n - len(out))


def series(report: Mapping[str, Any], flow: int | None = None) -> dict[str, list[int]]:
    """Bytes per series bin at the switch input (bytes the sources' links serialised towards the
    switch), on the bottleneck link, and delivered to the receiving applications: for every
    source, or for one (``flow``; its bottleneck bytes come from the link's per-flow series)."""
    links = report["links"]
    n = max(len(ln.get("tx_bytes_series") or []) for ln in links)
    access = source_links(report)
    flows = report["flows"]
    if flow is not None:
        src = flows[flow]["src"]
        access = [ln for ln in access if ln["from"] == src]
        flows = [flows[flow]]
    switch_in = [
        sum(col) for col in zip(*(_padded(ln.get("tx_bytes_series"), n) for ln in access), strict=True)
    ]
    receiver = [sum(col) for col in zip(*(_padded(f.get("delivered_series"), n) for f in flows), strict=True)]
    per_flow = links[0].get("per_flow_tx_bytes_series")
    if flow is None or len(report["flows"]) == 1:
        bottleneck = _padded(links[0].get("tx_bytes_series"), n)
    else:
        bottleneck = _padded(per_flow[flow], n) if per_flow else []
    return {"switch_input": switch_in, "bottleneck": bottleneck, "receiver": receiver}


# ---------------------------------------------------------------- the chain of Sec. 4.3


@dataclass(frozen=True)
class ChainWaste:
    """Cell-hops of the tagged connection: what crossed each hop, what the application used."""

    protocol: str
    hops: int
    delta: int
    m: int  # cells of a full packet of this protocol
    p: float  # measured: tagged cells out of the congested switch / tagged cells into it
    packets: float  # t: useful packets delivered
    cells_per_hop: list[float]
    total_cell_hops: float
    useful_cell_hops: float
    wasted_cell_hops: float
    exact: bool  # False when the congested link's tagged cells had to be estimated

    @property
    def wasted_per_packet(self) -> float:
        return self.wasted_cell_hops / self.packets if self.packets else math.inf

    @property
    def wasted_bytes_hops(self) -> float:
        return self.wasted_cell_hops * CELL_BYTES

    def formula_per_packet(self) -> float:
        """Eqs. 1-3 per packet, at this run's measured p, delta and h."""
        if self.protocol == "reno":
            return waste_reno(self.p, self.m, 1, self.delta, self.hops)
        if self.protocol == "reno_epd":
            return waste_epd(self.p, self.m, 1, self.delta)
        return waste_boston(self.p, self.m, 1, self.delta)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(wasted_per_packet=self.wasted_per_packet, formula_per_packet=self.formula_per_packet())
        return d


def chain_waste(report: Mapping[str, Any], cfg: ChainConfig) -> ChainWaste:
    """Wasted cell-hops of the tagged connection from the per-link cell counters.

    Every hop before the congested link and every hop after it carries only the tagged
    connection's data cells, so its counter is exact. The congested link also carries the cross
    traffic: the tagged cells on it are those on the next hop (buffers there never drop) when
    the cross traffic leaves at the next switch; with a single switch (the congested link is the
    last hop) they are estimated from the buffer's overall drop rate."""
    links = report["links"]
    k = cfg.where
    on = [float(links[2 * j]["tx_packets"]) for j in range(cfg.hops)]  # channel 2j: link j, a->b
    into = float(links[2 * (k - 1)]["delivered"])  # tagged cells reaching switch k
    exact = k < cfg.switches
    if exact:
        on[k] = float(links[2 * (k + 1)]["arrivals"])
    else:
        bott = links[2 * k]
        rate = bott["drops_queue"] / bott["arrivals"] if bott["arrivals"] else 0.0
        on[k] = into * (1.0 - rate)
    p = on[k] / into if into else 1.0
    tagged = report["flows"][0]
    mss = mss_of(cfg.packet)
    cpp = cells_per_packet(cfg.packet, cfg.protocol)
    packets = int(tagged["bytes_delivered"]) / mss
    total = sum(on)
    useful = packets * cpp * cfg.hops
    return ChainWaste(
        protocol=cfg.protocol,
        hops=cfg.hops,
        delta=k,
        m=cpp,
        p=p,
        packets=packets,
        cells_per_hop=on,
        total_cell_hops=total,
        useful_cell_hops=useful,
        wasted_cell_hops=max(total - useful, 0.0),
        exact=exact,
    )


def run_chain(cfg: ChainConfig) -> ChainWaste:
    from tcplab.experiment.api import run

    return chain_waste(run(chain(cfg)).report, cfg)
