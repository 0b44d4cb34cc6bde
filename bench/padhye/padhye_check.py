"""Reno under random loss against the throughput model of Padhye, Firoiu, Towsley and Kurose,
"Modeling TCP Throughput: A Simple Model and its Empirical Validation" (1998).

Shared by the full-scale report (``bench/padhye/run.py``) and the small-scale test
(``tests/test_padhye.py``), so both measure and model in exactly the same way.

What the simulator is compared with:

* **p**: the model's p is the probability that a packet is lost *given that the packets before
  it in its round got through*; the paper's own validation divides loss indications (fast
  retransmits plus timeout sequences) by packets sent. We drop data packets independently with
  probability ``loss`` (Bernoulli), which is exactly the model's p for the first loss of a round;
  the model's "the rest of the round is lost too" does not hold here, but those later losses
  are absorbed by the same loss indication, so the model is evaluated at p = ``loss``, the
  configured packet loss rate. The measured loss indication rate is reported beside it.
* **RTT**: the mean of the round-trip samples of the run's trace: every segment sent once whose
  cumulative ACK arrived with no retransmission of any segment in between (Karn's rule; a
  sample that spans a recovery measures the recovery, not the path).
* **T0**: the mean wait of the first timeout of each timeout sequence: from the moment the
  timer was last armed (the last ACK that advanced snd_una, or the last retransmission, which
  re-arms the timer after a fast retransmit) to the timeout. Later timeouts of a sequence are
  the backoff the model itself accounts for with f(p).
* **Throughput**: the model gives packets sent per second; we compare goodput (segments
  delivered in order per second), as asked, and also report the send rate.
"""

from __future__ import annotations

import bisect
import csv
import math
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tcplab

MSS = 1460
RCV_BUF = 65535  # the default receive window: W_max = 44 segments
ONE_WAY_DELAY_S = 0.05  # RTT about 100 ms on an otherwise empty path
LINK_RATE = "100Mbps"  # fast enough that the window, not the link, sets the rate
BOUND = 0.20  # measured goodput must lie within this fraction of the model


def padhye_full(p: float, rtt: float, t0: float, b: int, w_max: float) -> float:
    """Packets sent per second: the full model, eq. (31) of Padhye et al. (1998)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie in (0, 1), got {p}")
    q = 1.0 - p
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    k = (2 + b) / (3 * b)
    e_wu = k + math.sqrt(8 * q / (3 * b * p) + k * k)
    if e_wu < w_max:
        qq = _q_hat(p, e_wu)
        num = q / p + e_wu + qq / q
        den = rtt * (b / 2 * e_wu + 1) + qq * t0 * f / q
    else:
        qq = _q_hat(p, w_max)
        num = q / p + w_max + qq / q
        den = rtt * (b / 8 * w_max + q / (p * w_max) + 2) + qq * t0 * f / q
    return num / den


def padhye_approx(p: float, rtt: float, t0: float, b: int, w_max: float) -> float:
    """The closed form, eq. (33), packets per second:

    min(W_max/RTT, 1/(RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1+32p^2))).
    """
    td = rtt * math.sqrt(2 * b * p / 3)
    to = t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p)
    return min(w_max / rtt, 1.0 / (td + to))


def timeout_share(p: float, b: int, w_max: float) -> float:
    """The model's probability that a loss indication is a timeout: Q-hat at min(E[W_u], W_max)."""
    k = (2 + b) / (3 * b)
    e_wu = k + math.sqrt(8 * (1 - p) / (3 * b * p) + k * k)
    return _q_hat(p, min(e_wu, w_max))


def _q_hat(p: float, w: float) -> float:
    """Probability that a loss in a window of w packets is a timeout, eq. (24)."""
    q = 1.0 - p
    top = (1 - q**3) * (1 + q**3 * (1 - q ** (w - 3)))
    return min(1.0, top / (1 - q**w))


def scenario(loss: float, delayed_ack: bool, duration_s: float, stack: str | None = None) -> dict[str, Any]:
    """Two hosts, one bulk Reno flow, Bernoulli loss of data packets only (ACKs all arrive).

    ``stack`` goes into the [tcp] table as ``stack`` when given, for the stack presets.
    """
    tcp: dict[str, Any] = {"variant": "reno", "mss": MSS, "rcv_buf": RCV_BUF, "delayed_ack": delayed_ack}
    if stack is not None:
        tcp["stack"] = stack
    return {
        "name": f"padhye-loss{loss:g}-delack{int(delayed_ack)}",
        "duration": duration_s,
        "nodes": ["a", "b"],
        "tcp": tcp,
        "link": [{
            "a": "a", "b": "b", "rate": LINK_RATE, "delay": ONE_WAY_DELAY_S,
            "ab": {"loss": {"model": "bernoulli", "p": loss}},
        }],
        "flow": [{"src": "a", "dst": "b", "trace": True}],
    }


@dataclass(frozen=True)
class Measured:
    """What one run gives the model, and what it is compared with."""

    goodput_pps: float  # segments delivered in order per second
    send_pps: float  # data segments sent (with retransmissions) per second
    rtt_s: float
    t0_s: float  # mean first-timeout wait; nan if the run had no timeout
    rtt_samples: int
    timeout_sequences: int
    timeouts: int
    fast_retransmits: int
    loss_indication_rate: float  # (fast retransmits + timeout sequences) / segments sent


@dataclass(frozen=True)
class Point:
    loss: float
    delayed_ack: bool
    seed: int
    measured: Measured
    model_pps: float  # full model at p = loss
    model_approx_pps: float
    model_lir_pps: float  # full model at p = the measured loss indication rate

    @property
    def ratio_lir(self) -> float:
        return self.measured.goodput_pps / self.model_lir_pps

    @property
    def ratio(self) -> float:
        return self.measured.goodput_pps / self.model_pps

    @property
    def within_bound(self) -> bool:
        return abs(self.ratio - 1.0) <= BOUND


def _read_csv(path: Path) -> list[list[float]]:
    """Rows of floats; an empty field (a flow trace row without an RTT sample) is NaN."""
    with path.open(newline="") as f:
        rows = csv.reader(f)
        next(rows)
        return [[float(x) if x else math.nan for x in r] for r in rows]


def rtt_samples(sends: list[list[float]], rows: list[list[float]]) -> list[float]:
    """Karn-clean samples: first transmissions ACKed with no retransmission in between.

    ``sends`` rows are (time, offset, len, retransmit); ``rows`` are the trace's
    (time, cwnd, ssthresh, snd_una, snd_nxt), both in time order.
    """
    retransmitted = {int(s[1]) for s in sends if s[3]}
    rexmit_times = [s[0] for s in sends if s[3]]
    samples: list[float] = []
    ai = 0
    for t, off, ln, rex in sends:
        if rex or int(off) in retransmitted:
            continue
        end = off + ln
        while ai < len(rows) and (rows[ai][0] < t or rows[ai][3] < end):
            ai += 1
        if ai == len(rows):
            break
        # A segment sent after a loss is ACKed only once the hole is filled: that sample
        # measures the recovery, and TCP's own estimator drops it too.
        i = bisect.bisect_right(rexmit_times, t)
        if i < len(rexmit_times) and rexmit_times[i] <= rows[ai][0]:
            continue
        samples.append(rows[ai][0] - t)
    return samples


def timeout_waits(sends: list[list[float]], rows: list[list[float]]) -> tuple[list[float], int]:
    """(waits of the first timeout of each sequence, number of timeouts in the trace).

    A timeout row is where the sender went back N: cwnd is one segment and snd_nxt = snd_una
    (an ACK row never has both: the window is at least two segments after any new ACK). The
    count is checked against the report's by the caller.
    """
    rexmit_times = [s[0] for s in sends if s[3]]
    first_send = sends[0][0] if sends else 0.0
    waits: list[float] = []
    n = 0
    last_advance = first_send
    prev_una = 0.0
    last_timeout_una: float | None = None
    for t, cwnd, _ssthresh, una, nxt, *_ in rows:  # then the RTT, RTO and flight columns
        if cwnd == MSS and nxt == una:
            n += 1
            if last_timeout_una != una:
                i = bisect.bisect_left(rexmit_times, t)
                armed = max(last_advance, rexmit_times[i - 1] if i > 0 else first_send)
                waits.append(t - armed)
            last_timeout_una = una
        elif una > prev_una:
            last_advance = t
        prev_una = una
    return waits, n


def measure(report: Mapping[str, Any], out_dir: Path) -> Measured:
    flow = report["flows"][0]
    sends = _read_csv(out_dir / "segments-flow0.csv")
    rows = _read_csv(out_dir / "trace-flow0.csv")
    rtts = rtt_samples(sends, rows)
    waits, n_timeouts = timeout_waits(sends, rows)
    if n_timeouts != flow["timeouts"]:
        raise RuntimeError(f"trace shows {n_timeouts} timeouts, the report {flow['timeouts']}")
    run_s = report["sim_time_s"] - flow["start_s"]
    sent = flow["data_segments"]
    return Measured(
        goodput_pps=flow["bytes_delivered"] / MSS / run_s,
        send_pps=sent / run_s,
        rtt_s=sum(rtts) / len(rtts),
        t0_s=sum(waits) / len(waits) if waits else math.nan,
        rtt_samples=len(rtts),
        timeout_sequences=len(waits),
        timeouts=n_timeouts,
        fast_retransmits=flow["fast_retransmits"],
        loss_indication_rate=(flow["fast_retransmits"] + len(waits)) / sent,
    )


def run_point(loss: float, delayed_ack: bool, seed: int, duration_s: float,
              stack: str | None = None) -> Point:
    """Run one configuration and evaluate the model with its measured RTT and T0."""
    with tempfile.TemporaryDirectory(prefix="padhye-") as tmp:
        res = tcplab.run(scenario(loss, delayed_ack, duration_s, stack), seed=seed, out_dir=tmp)
        m = measure(res.report, Path(tmp))
    b = 2 if delayed_ack else 1
    w_max = RCV_BUF // MSS
    # No timeout in the run: T0 cannot be measured; the timeout term is then weighed by the
    # smallest RTO the sender could have used, and the report marks T0 as not measured.
    t0 = m.t0_s if not math.isnan(m.t0_s) else res.report["flows"][0]["final_rto_s"]
    return Point(loss, delayed_ack, seed, m,
                 padhye_full(loss, m.rtt_s, t0, b, w_max),
                 padhye_approx(loss, m.rtt_s, t0, b, w_max),
                 padhye_full(m.loss_indication_rate, m.rtt_s, t0, b, w_max))
