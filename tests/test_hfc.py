"""The HFC study (Cohen and Ramanathan, 1998): the Sec. V.B bound, `tcplab hfc buffer`, the
mechanisms the study depends on, and a smoke run of the whole study at a tiny size."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
import tcplab
from tcplab.cli import app
from tcplab.studies.hfc.buffer import overrun_onsets, simulate_overruns, socket_buffer_bound
from tcplab.studies.hfc.scenarios import CH_CM, CM_BUFFER, MSS, hfc_scenario, kib
from typer.testing import CliRunner

runner = CliRunner()


# ---------------------------------------------------------------- the bound (Sec. V.B)


def test_bound_paper_example_is_about_19_kb():
    b = socket_buffer_bound(kib(10), connections=1)
    assert b.cm_segments == pytest.approx(7.0, abs=0.05)  # "10 kb (seven packets)"
    assert b.fraction == pytest.approx(15 / 25)
    assert 18_000 <= b.max_bytes <= 20_000  # "about 19 kb"
    # C >= (B - 1) 15/25 holds with equality at the bound.
    assert b.cm_segments == pytest.approx((b.max_segments - 1) * 15 / 25)
    assert b.strict_bytes < b.max_bytes


def test_bound_generalises_to_rates_and_connections():
    c, mss = 20_000, 1000
    b = socket_buffer_bound(c, connections=2, mss=mss, down_bps=40e6, lan_bps=10e6)
    f = 30 / 40
    assert b.fraction == pytest.approx(f)
    assert b.max_segments == pytest.approx((c / mss / f + 1) / 2)
    # the paper's C >= (B n - 1) P f, at equality
    assert (b.max_segments * 2 - 1) * f == pytest.approx(c / mss)
    # A faster LAN fills the CM more slowly, so the bound grows; at lan >= down there is none.
    assert socket_buffer_bound(c, lan_bps=20e6).max_bytes > socket_buffer_bound(c, lan_bps=10e6).max_bytes
    free = socket_buffer_bound(c, down_bps=10e6, lan_bps=10e6)
    assert not free.bounded and math.isinf(free.max_bytes)
    with pytest.raises(ValueError):
        socket_buffer_bound(0)


def test_cli_buffer_prints_the_bound():
    res = runner.invoke(app, ["hfc", "buffer", "--cm-buffer", "10KiB"])
    assert res.exit_code == 0, res.output
    assert "18526 B" in res.output and "18.5 KB" in res.output
    res = runner.invoke(
        app,
        [
            "hfc",
            "buffer",
            "--cm-buffer",
            "20000",
            "--connections",
            "2",
            "--mss",
            "1000",
            "--down-rate",
            "40Mbps",
            "--lan-rate",
            "10e6",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)["bound"]
    assert out["max_segments"] == pytest.approx((20 / 0.75 + 1) / 2)
    res = runner.invoke(app, ["hfc", "buffer", "--cm-buffer", "10240", "--lan-rate", "30Mbps"])
    assert res.exit_code == 0 and "no bound" in res.output


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--cm-buffer", "0"], "--cm-buffer"),
        (["--cm-buffer", "-5"], "--cm-buffer"),
        (["--cm-buffer", "10 furlongs"], "--cm-buffer"),
        (["--cm-buffer", "10240", "--connections", "0"], "--connections"),
        (["--cm-buffer", "10240", "--mss", "0"], "--mss"),
        (["--cm-buffer", "10240", "--down-rate", "fast"], "--down-rate"),
        (["--cm-buffer", "10240", "--lan-rate", "0Mbps"], "--lan-rate"),
        ([], "--cm-buffer"),
    ],
)
def test_cli_buffer_bad_input_exits_2_naming_the_option(args, option):
    res = runner.invoke(app, ["hfc", "buffer", *args])
    assert res.exit_code == 2
    assert option in res.output
    assert "Traceback" not in res.output


def test_simulated_burst_overruns_begin_at_the_bound():
    """A whole window back to back (the bound's own case): at most one CM drop up to the bound,
    two or more within one segment above it."""
    b = socket_buffer_bound(CM_BUFFER)
    steps = list(range(kib(15), kib(21) + 1, 512))
    rows = simulate_overruns(b, steps=steps, modes=["burst"], seeds=[1])
    for row in rows:
        if row.sock_buf <= b.max_bytes:
            assert row.cm_drops <= 1
    onset = overrun_onsets(rows)["burst"]["multiple_drops"]
    assert onset is not None and b.max_bytes < onset <= b.max_bytes + MSS + 512


def test_slow_start_with_a_large_socket_buffer_overruns_the_cm():
    doc = hfc_scenario(size=1_000_000, sock_buf=kib(48), cm_buffer=CM_BUFFER)
    rep = tcplab.run(doc, seed=1).report
    assert rep["links"][CH_CM]["drops_queue"] > 0
    assert rep["flows"][0]["timeouts"] >= 1  # several drops in one slow-start window (Fig. 9)
    small = tcplab.run(hfc_scenario(size=1_000_000, sock_buf=kib(16), cm_buffer=CM_BUFFER), seed=1).report
    assert small["links"][CH_CM]["drops_queue"] == 0


# ---------------------------------------------------------------- TCP mechanisms (Sec. VI.A)


def _first_ack_wait(tmp_path, **kw) -> float:
    out = tmp_path / "run"
    tcplab.run(hfc_scenario(size=30_000, trace=True, **kw), seed=3, out_dir=out)
    seg = pd.read_csv(out / "segments-flow0.csv")
    tr = pd.read_csv(out / "trace-flow0.csv")
    return float(tr[tr["snd_una"] > 0]["time_s"].iloc[0] - seg["time_s"].iloc[0])


@pytest.mark.parametrize("pattern", ["http", "ftp"])
def test_delayed_ack_stall_and_initial_window_two(tmp_path, pattern):
    # An unaligned delayed-ACK timer waits exactly 200 ms, which makes the stall exact.
    exact = {"delayed_ack_aligned": False}
    stall = _first_ack_wait(tmp_path, pattern=pattern, tcp=exact)
    assert 0.200 <= stall <= 0.240
    fixed = _first_ack_wait(tmp_path, pattern=pattern, tcp={**exact, "initial_cwnd": 2})
    assert fixed < 0.040
    none = _first_ack_wait(tmp_path, pattern=pattern, tcp={"delayed_ack": False})
    assert abs(fixed - none) < 0.005


def test_http_header_leaves_as_its_own_segment(tmp_path):
    out = tmp_path / "http"
    doc = hfc_scenario(size=30_000, pattern="http", trace=True, stack="bsd44")
    tcplab.run(doc, seed=1, out_dir=out)
    seg = pd.read_csv(out / "segments-flow0.csv")
    assert list(seg["len"][:2]) == [200, MSS]
    # the acceptor's window of two: header + one full segment, then the wait
    assert seg["time_s"][2] - seg["time_s"][0] > 0.02


def test_http_on_ns_has_no_handshake_and_starts_with_one_packet(tmp_path):
    out = tmp_path / "http"
    tcplab.run(hfc_scenario(size=30_000, pattern="http", trace=True), seed=1, out_dir=out)
    seg = pd.read_csv(out / "segments-flow0.csv")
    assert seg["len"][0] == 200 and seg["time_s"][0] == 0.0  # no SYN before the header
    # a window of one packet's bytes (the header and the rest of the first MSS, neither a full
    # segment) waits for the PC's fixed 200 ms delayed ACK
    assert list(seg["len"][:2]) == [200, MSS - 200]
    assert 0.200 <= seg["time_s"][2] - seg["time_s"][0] <= 0.240


def test_ns_stack_counts_the_socket_buffer_in_whole_packets():
    from tcplab.studies.hfc.scenarios import stack_tcp, window_packets

    # the paper's own conversion: 10 kb is "seven packets"
    assert window_packets(CM_BUFFER) == 7
    assert [window_packets(kib(b)) for b in (8, 16, 24, 48)] == [6, 11, 17, 34]
    ns = stack_tcp("ns1", kib(8), {"timer": "200ms", "mss": 512})
    assert (ns["stack"], ns["rcv_buf"], ns["timer"]) == ("ns1", 16 * 512, "ns2:200ms")
    assert "snd_buf" not in ns and "handshake" not in ns
    bsd = stack_tcp("bsd44", kib(8), {"timer": "200ms"})
    assert (bsd["rcv_buf"], bsd["snd_buf"], bsd["timer"]) == (kib(8), kib(8), "200ms")
    with pytest.raises(ValueError, match="stack"):
        stack_tcp("linux", kib(8))


def test_an_8kb_socket_buffer_is_six_segments_on_ns_and_on_bsd(tmp_path):
    """ns counts the window in packets: the 8 KB buffer is 6 (``window_packets``). 4.4BSD's
    tcp_mss rounds both socket buffers up to whole segments: 8760 bytes, 6 segments. Lossless,
    both keep as much in flight. (Before tcplab modelled tcp_mss, BSD's 8192-byte buffer held 5
    segments and silly-window avoidance the rest, and ns ran faster.)"""

    def most_in_flight(stack: str) -> int:
        out = tmp_path / stack
        tcplab.run(hfc_scenario(size=300_000, stack=stack, trace=True), seed=1, out_dir=out)
        return int(pd.read_csv(out / "trace-flow0.csv")["flight"].max())

    assert most_in_flight("bsd44") == most_in_flight("ns1") >= 4 * MSS


def test_tahoe_era_receiver_delays_out_of_order_acks():
    def run(ooo: str) -> dict:
        doc = hfc_scenario(size=60 * MSS, sock_buf=kib(16), tcp={"out_of_order_ack": ooo})
        doc["link"][0]["ab"]["loss"] = {"model": "drop_list", "flow": 0, "by": "segment", "values": [20]}
        return tcplab.run(doc, seed=1).flows[0]

    reno, tahoe = run("immediate"), run("delayed")
    assert reno["fast_retransmits"] == 1 and reno["timeouts"] == 0
    assert tahoe["fast_retransmits"] == 0 and tahoe["timeouts"] == 1
    assert tahoe["completion_time_s"] > reno["completion_time_s"] + 0.5


def test_super_fast_retransmit_repairs_two_losses_in_a_window_of_eight():
    from tcplab.studies.hfc.sweeps import fig16_scenario

    doc = fig16_scenario(trace=False)
    fr = tcplab.run(doc, seed=1).flows[0]
    doc["tcp"]["dupack_threshold"] = 1
    sfr = tcplab.run(doc, seed=1).flows[0]
    assert fr["timeouts"] == 1 and sfr["timeouts"] == 0


# ---------------------------------------------------------------- the study, tiny


def test_study_smoke_tiny(tiny_reproduction):
    from tcplab.studies.hfc import STUDY

    assert STUDY.tiny is not None
    out = tiny_reproduction("hfc")  # with the bsd44 sensitivity run's tiny grid
    doc = json.loads(out.claims.read_text())
    claims = doc["claims"]
    assert doc["stack"] == "ns1" and STUDY.stacks == ("ns1", "bsd44")
    bsd = doc["sensitivity"]["bsd44"]["claims"]
    assert [c["id"] for c in bsd] == [c["id"] for c in claims]
    # the two stacks ran different scenarios: some measured value differs
    assert any(a["measured"] != b["measured"] for a, b in zip(claims, bsd, strict=True))
    ids = [c["id"] for c in claims]
    assert len(ids) == len(set(ids)) >= 50
    # every reason names a claim that exists (a renamed claim must not leave its reason behind)
    from tcplab.studies.hfc.claims import REASONS, REASONS_BSD

    assert set(REASONS) <= set(ids) and set(REASONS_BSD) <= set(ids)
    assert all(c["verdict"] and {"paper", "measured", "claim", "holds"} <= set(c) for c in claims)
    report = out.report.read_text()
    for n in (3, 4, 5, 6, 7, 8, 10, 12, 13, 14, 15, 16, 17, 18):
        assert (out.folder / f"fig{n}.png").is_file()
        assert f"](fig{n}.png)" in report
    assert "bound_19kb" in report
    assert "](fig6_ack.png)" in report and "fig6_ack_similar_pattern" in report
    # FTP put (Sec. VI.A) and the MSS trade-offs (Sec. VI.B), on both stacks
    for cid in ("put_not_reduced_like_get", "mss_burst_half_size_loss", "mss_header_overhead"):
        assert cid in ids and cid in [c["id"] for c in bsd]
    assert "](ftp_put.png)" in report and "](mss_tradeoffs.png)" in report
    assert "| verdict (ns1) |" in report and "| verdict (bsd44) |" in report
    assert "on the paper's own stack (`ns1`)" in report and "Sensitivity run on `bsd44`" in report
    # the 8 KB window's two readings on ns: every row measured under both
    assert "The 8 KB socket buffer on ns, read two ways" in report
    assert "w5_fig4" in report and "w5_fig4@bsd44" not in report


def test_the_truncated_reading_only_changes_the_8kb_window():
    from tcplab.studies.hfc import readings
    from tcplab.studies.hfc.sweeps import tiny

    specs = {s.name: s for s in tiny()}
    for name in readings.SWEEPS:
        main, alt = specs[name], specs[readings.PREFIX + name]
        assert alt.base["tcp"]["rcv_buf"] == 5 * MSS and main.base["tcp"]["rcv_buf"] == 6 * MSS
        assert {**alt.base, "tcp": None} == {**main.base, "tcp": None}
    assert not any(s.name.startswith(readings.PREFIX) for s in tiny("bsd44"))


def test_bsd44_pc_without_delayed_ack_acks_every_segment():
    """The sensitivity run's "no delayed ACK" configurations really switch the preset's off."""
    doc = hfc_scenario(size=1_000_000, sock_buf=kib(24), cm_buffer=CM_BUFFER, stack="bsd44")
    delayed = tcplab.run(doc, seed=1).flows[0]
    doc["tcp"]["delayed_ack"] = False
    every = tcplab.run(doc, seed=1).flows[0]
    assert every["completion_time_s"] != delayed["completion_time_s"]
