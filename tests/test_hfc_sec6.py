"""The HFC study's FTP put (Sec. VI.A) and the trade-offs of a smaller MSS (Sec. VI.B) of Cohen and
Ramanathan (1998): the scenarios do what the study says they do."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import tcplab
from tcplab.studies.hfc import mss as mt
from tcplab.studies.hfc.put import put_scenario
from tcplab.studies.hfc.scenarios import CH_DOWN, CH_UP, MSS, hfc_scenario

# ---------------------------------------------------------------- FTP put


def _put(tmp_path, stack: str, **kw) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    doc = put_scenario(30_000, stack, **kw)
    doc["flow"][0]["trace"] = True
    out = tmp_path / f"{stack}-{kw}"
    run = tcplab.run(doc, seed=2, out_dir=out)
    return pd.read_csv(out / "segments-flow0.csv"), pd.read_csv(out / "trace-flow0.csv"), run.report


def _first_ack(seg: pd.DataFrame, tr: pd.DataFrame) -> float:
    return float(tr[tr["snd_una"] > 0]["time_s"].iloc[0] - seg["time_s"].iloc[0])


@pytest.mark.parametrize("stack", ["ns1", "bsd44"])
def test_put_runs_upstream_from_a_pc_with_a_window_of_two(tmp_path, stack):
    seg, tr, rep = _put(tmp_path, stack)
    assert rep["flows"][0]["bytes_delivered"] == 30_000
    # the data crosses the 3 Mb/s upstream channel; only ACKs go down
    assert rep["links"][CH_UP]["tx_bytes"] > 30_000 > rep["links"][CH_DOWN]["tx_bytes"]
    # two full segments leave together, and the server's second-segment ACK comes back at once
    assert seg["time_s"][1] == seg["time_s"][0] and seg["time_s"][2] > seg["time_s"][1]
    assert _first_ack(seg, tr) < 0.05


@pytest.mark.parametrize("stack", ["ns1", "bsd44"])
def test_put_with_a_window_of_one_waits_for_the_delayed_ack(tmp_path, stack):
    seg, tr, _ = _put(tmp_path, stack, initial_window=1)
    assert seg["time_s"][1] > seg["time_s"][0]
    wait = _first_ack(seg, tr)
    if stack == "ns1":
        assert 0.2 <= wait <= 0.24  # ns's fixed 200 ms interval plus the round trip
    else:
        assert 0.02 < wait <= 0.24  # 4.4BSD's free-running 200 ms clock
    seg, tr, _ = _put(tmp_path, stack, initial_window=1, delayed_ack=False)
    assert _first_ack(seg, tr) < 0.05


def test_put_on_bsd_takes_its_window_from_the_handshake():
    """The server opens the data connection on BSD; on ns the window is set directly."""
    bsd = put_scenario(30_000, "bsd44")["tcp"]
    assert (bsd["handshake"], bsd["initial_cwnd"]) == ("receiver", 1)
    assert put_scenario(30_000, "bsd44", initial_window=1)["tcp"]["handshake"] == "sender"
    ns = put_scenario(30_000, "ns1")["tcp"]
    assert "handshake" not in ns and ns["initial_cwnd"] == 2
    doc = put_scenario(30_000, "ns1")
    assert (doc["flow"][0]["src"], doc["flow"][0]["dst"]) == ("pc", "server")


# ---------------------------------------------------------------- MSS trade-offs


def test_burst_levels_lose_ten_percent_of_1kb_packets_and_5_to_10_of_half_size():
    levels = mt.burst_levels()
    halves = []
    for lv in levels:
        p1 = mt.burst_loss(mt.wire_s(1024), lv["mean_good_s"], lv["mean_bad_s"])
        assert p1 == pytest.approx(0.10, abs=1e-4)
        halves.append(mt.burst_loss(mt.wire_s(512), lv["mean_good_s"], lv["mean_bad_s"]))
    # short bursts: near the independent-error end (a 552-byte packet: 1 - 0.9^(552/1064));
    # long ones: near 10%; the share rises with the burst length
    assert 0.05 < halves[0] < 0.06 and 0.09 < halves[-1] < 0.10
    assert halves == sorted(halves)
    assert 1 - 0.9 ** (552 / 1064) < halves[0]


def test_burst_noise_on_the_downstream_loses_fewer_small_packets():
    short = mt.burst_levels()[0]

    def rate(mss: int) -> tuple[float, float]:
        doc = hfc_scenario(size=1_000_000, tcp={"mss": mss})
        doc["link"][0]["ab"]["loss"] = {
            "model": "burst",
            "mean_good": f"{round(short['mean_good_s'] * 1e9)}ns",
            "mean_bad": f"{round(short['mean_bad_s'] * 1e9)}ns",
        }
        ch = tcplab.run(doc, seed=1).report["links"][CH_DOWN]
        want = mt.burst_loss(mt.wire_s(mss), short["mean_good_s"], short["mean_bad_s"])
        return ch["drops_loss"] / ch["tx_packets"], want

    (big, want_big), (small, want_small) = rate(MSS), rate(512)
    assert small < big
    assert math.isclose(big, want_big, rel_tol=0.2) and math.isclose(small, want_small, rel_tol=0.2)


def test_goodput_sizes_are_even_numbers_of_whole_segments():
    for size in mt.GOODPUT_SIZES:
        for m in mt.MSS_LEVELS:
            assert size % m == 0 and (size // m) % 2 == 0
    assert mt.analytic_goodput(1460) == pytest.approx(10 * 1460 / 1500)


def test_lossless_marginal_goodput_matches_the_header_arithmetic():
    times = {
        s: tcplab.run(hfc_scenario(size=s, sock_buf=mt.WIDE_WINDOW, tcp={"mss": 512}), seed=1).flows[0][
            "completion_time_s"
        ]
        for s in mt.GOODPUT_SIZES
    }
    small, large = mt.GOODPUT_SIZES
    rate = (large - small) * 8 / (times[large] - times[small]) / 1e6
    assert rate == pytest.approx(mt.analytic_goodput(512), rel=0.005)
