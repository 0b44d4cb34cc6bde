"""TCP Boston (Bestavros and Kim, 1997): wasted byte-hops (eqs. 1-7), the `tcplab boston waste` command, the
star and chain models, and a tiny run of the reproduce study."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from conftest import cli
from tcplab.errors import UserError
from tcplab.experiment.api import run
from tcplab.studies.boston import analytic as bw
from tcplab.studies.boston.metrics import chain_waste, series, source_links, star_metrics
from tcplab.studies.boston.scenarios import (
    CELL_BYTES,
    ChainConfig,
    ShardGeometry,
    StarConfig,
    cells_per_packet,
    chain,
    mss_of,
    shard_geometry,
    star,
)

# ---------------------------------------------------------------- replications


def test_replications_differ_on_ns1_through_the_start_times() -> None:
    # No random loss and ns-1's timers (no tick phase): only the sources' start draws make two
    # replications differ; without them every replication would be the same run.
    def delivered(seed: int) -> list[int]:
        doc = star(StarConfig(sources=3, protocol="reno", buffer=512, duration=10, seed=seed))
        return [f["bytes_delivered"] for f in run(doc).flows]

    assert delivered(1) == delivered(1)
    assert delivered(1) != delivered(2)


# ---------------------------------------------------------------- eqs. 1-7


def test_eq7_is_exactly_1_to_6_51_to_12_38() -> None:
    r = bw.ratio(0.9, 10)
    assert r.rounded(2) == (1.0, 6.51, 12.38)
    assert bw.packet_loss(0.9, 10) == pytest.approx(0.6513, abs=1e-4)
    assert str(r) == "1.00 : 6.51 : 12.38"


def test_eq4_follows_from_eqs_1_to_3_with_delta_half_h() -> None:
    for p, m, h in ((0.9, 10, 6), (0.99, 40, 4), (0.5, 3, 10)):
        t, delta = 1000, h / 2
        boston = bw.waste_boston(p, m, t, delta)
        r = bw.ratio(p, m)
        assert bw.waste_epd(p, m, t, delta) / boston == pytest.approx(r.epd)
        assert bw.waste_reno(p, m, t, delta, h) / boston == pytest.approx(r.reno)


def test_eq5_and_eq6_are_the_limits_of_eq4() -> None:
    for m in (1, 10, 192):
        near_one = bw.ratio(1 - 1e-9, m)
        assert near_one.epd == pytest.approx(m, rel=1e-5)
        assert near_one.reno == pytest.approx(2 * m, rel=1e-5)
        assert bw.ratio_small_loss(m).rounded() == (1.0, m, 2 * m)
        assert bw.ratio(1.0, m) == bw.ratio_small_loss(m)
    for p in (0.1, 0.5, 0.8):
        assert bw.ratio(p, 200).rounded(6) == bw.ratio_large_loss(p).rounded(6)
    assert bw.ratio_large_loss(0.9).rounded(2) == (1.0, 10.0, 19.0)


@pytest.mark.parametrize("p", [0.0, -0.1, 1.01, math.nan, math.inf])
def test_bad_p_is_a_user_error(p: float) -> None:
    with pytest.raises(UserError, match="--p"):
        bw.ratio(p, 10)


# ---------------------------------------------------------------- the command


def test_waste_prints_eq7() -> None:
    proc = cli("boston", "waste", "--p", "0.9", "--m", "10")
    assert proc.returncode == 0, proc.stderr
    assert "1.00 : 6.51 : 12.38" in proc.stdout
    assert "1 : 10 : 20" in proc.stdout  # eq. 5
    assert "1.00 : 10.00 : 19.00" in proc.stdout  # eq. 6


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--p", "1.5", "--m", "10"], "--p"),
        (["--p", "0", "--m", "10"], "--p"),
        (["--p", "0.9", "--m", "0"], "--m"),
        (["--p", "0.9", "--m", "10", "--hops", "0"], "--hops"),
        (["--p", "abc", "--m", "10"], "--p"),
    ],
)
def test_waste_bad_arguments_exit_2_naming_the_option(args: list[str], option: str) -> None:
    proc = cli("boston", "waste", *args)
    assert proc.returncode == 2
    assert option in proc.stderr


def test_simulated_chain_wastes_least_with_boston_and_most_with_reno() -> None:
    proc = cli(
        "boston",
        "waste",
        "--p",
        "0.9",
        "--m",
        "100",
        "--hops",
        "3",
        "--simulate",
        "--duration",
        "100",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["eq4"][0] == 1.0
    runs = out["simulation"]["runs"]
    waste = {name: runs[name]["wasted_per_packet"] for name in ("boston", "reno_epd", "reno")}
    assert 0 < waste["boston"] < waste["reno_epd"] < waste["reno"], waste
    assert out["simulation"]["exact"]
    for r in runs.values():
        assert 0.5 < r["p"] < 1.0  # the congested switch dropped some of the tagged cells
        assert len(r["cells_per_hop"]) == 4


# ---------------------------------------------------------------- the models


def test_cells_per_packet() -> None:
    assert cells_per_packet(9180, "reno") == 192  # 191.25 -> 192, no AAL5 trailer
    assert cells_per_packet(9180, "boston") == 200  # N = 8m > 256: header + ceil(9140 / 46) shards
    assert cells_per_packet(9180, "boston_bitmap") == 196  # N = m: header + ceil(9140 / 47) blocks
    assert cells_per_packet(4352, "boston") == 1 + 94  # N = 8m > 256: 2-byte ids, 46-byte shards
    assert cells_per_packet(1518, "boston") == 1 + 32  # N = 256: 1-byte ids, 47-byte shards
    assert cells_per_packet(512, "reno_epd") == 11
    assert shard_geometry(9140, "boston") == ShardGeometry(m=199, n=1592, shard_bytes=46)


@pytest.mark.parametrize(
    ("packet", "protocol"), [(9180, "boston"), (9180, "boston_bitmap"), (1518, "boston")]
)
def test_cells_per_packet_matches_the_cores_codec(packet: int, protocol: str) -> None:
    # A lone source with a huge buffer loses nothing, so the cells delivered over the bottleneck
    # are the delivered segments' cells plus at most one segment still arriving.
    cfg = StarConfig(
        sources=1,
        protocol=protocol,
        packet=packet,
        buffer=100_000,
        window=64000,
        duration=10.0,
        source_queue=None,
    )
    report = run(star(cfg)).report
    flow = report["flows"][0]
    assert flow["retransmits"] == 0
    segments = int(flow["bytes_delivered"]) // mss_of(packet)
    assert segments > 100 and segments * mss_of(packet) == flow["bytes_delivered"]
    cpp = cells_per_packet(packet, protocol)
    extra = int(report["links"][0]["delivered"]) - segments * cpp
    assert 0 <= extra < cpp, (extra, cpp)


def test_star_metrics_and_series_of_a_short_run() -> None:
    cfg = StarConfig(sources=4, protocol="boston", packet=1518, buffer=64, duration=20.0, series_bin=1.0)
    report = run(star(cfg)).report
    m = star_metrics(report, cfg.packet, cfg.protocol)
    assert 0 < m.effective_throughput <= 1.0
    assert m.effective_throughput <= m.utilization + 1e-9  # Boston: useful cells are cells that crossed
    assert 0 < m.cell_loss_rate < 1 and m.loss_rate == m.cell_loss_rate
    assert m.partial_segments > 0
    assert m.response_time_ms_per_byte > 0
    s = series(report)
    assert len(s["bottleneck"]) == 20
    # The bottleneck's bytes per second are whole cells and never exceed 1.5 Mb/s.
    assert all(b % CELL_BYTES == 0 and b <= 1.5e6 / 8 + CELL_BYTES for b in s["bottleneck"])
    assert sum(s["receiver"]) == sum(f["bytes_delivered"] for f in report["flows"])
    one = series(report, flow=0)
    assert len(one["switch_input"]) == 20 and len(one["bottleneck"]) == 20
    # The connections' own bottleneck series add up to the link's.
    per_flow = [series(report, flow=i)["bottleneck"] for i in range(cfg.sources)]
    assert [sum(col) for col in zip(*per_flow, strict=True)] == s["bottleneck"]


def test_chain_counts_every_hop_of_the_tagged_connection() -> None:
    cfg = ChainConfig(switches=2, protocol="reno", m=20, cross=3, duration=20.0)
    doc = chain(cfg)
    assert doc["switches"] == ["sw1", "sw2"] and cfg.hops == 3 and cfg.where == 1
    w = chain_waste(run(doc).report, cfg)
    assert w.exact and len(w.cells_per_hop) == 3
    assert w.cells_per_hop[0] >= w.cells_per_hop[1] >= w.cells_per_hop[2] > 0
    assert w.wasted_cell_hops >= 0 and w.packets > 0


def test_model_arguments_are_checked() -> None:
    with pytest.raises(UserError, match="--hops"):
        ChainConfig(switches=0)
    with pytest.raises(UserError, match="protocol"):
        StarConfig(protocol="vegas")


# ---------------------------------------------------------------- the study


def test_study_sweeps_quick_and_full() -> None:
    from tcplab.studies.boston import STUDY

    quick, full = STUDY.sweeps(True), STUDY.sweeps(False)

    assert [s.name for s in quick] == [s.name for s in full]
    # The model sweep: 18 settings x (lone, 16 sources) x (Reno, Boston), shorter runs in quick mode.
    sig = [s for s in quick if s.name.startswith("sig_")]
    assert len(sig) == 18 * 4 and all(s.base["duration"] == 100.0 for s in sig)
    assert len({s.name for s in quick}) == len(quick)
    star_q = next(s for s in quick if s.name == "star9180_reno")
    star_f = next(s for s in full if s.name == "star9180_reno")
    assert star_q.base["duration"] < star_f.base["duration"] == 700.0
    assert star_q.replications == star_f.replications == 3  # the fewest whose spread an interval uses
    # A window below one packet is one packet (the core would never send otherwise).
    assert star_f.factors["tcp.rcv_buf"] == [9140, 16000, 32000, 64000]


@pytest.fixture(scope="module")
def tiny_run(tiny_reproduction) -> tuple[Any, Any]:
    """The study's tiny grid reproduced once: (what reproduce wrote, the derived results)."""
    from tcplab.experiment.runner import run_sweep
    from tcplab.report.study import StudyData
    from tcplab.studies.boston import STUDY
    from tcplab.studies.boston.results import derive

    specs = STUDY.tiny()
    out = tiny_reproduction("boston")
    store = out.folder / "runs.sqlite"  # every run is in it now: run_sweep only reads
    runs = {s.name: run_sweep(s, store=store, workers=1).df for s in specs}
    data = StudyData(runs=runs, store=store, quick=True, specs={s.name: s for s in specs})
    return out, derive(data)


def test_tiny_reproduce_writes_figures_and_claims(tiny_run: tuple[Any, Any]) -> None:
    out, _ = tiny_run
    doc = json.loads(out.claims.read_text())
    claims = doc["claims"]
    assert len(claims) == 42
    # a paper claim's form is its subkind (tcplab.report.claims); our own checks keep their kind
    kinds = {c["id"]: c.get("subkind") if c["kind"] == "paper" else c["kind"] for c in claims}
    assert kinds["bdp_300_cells"] == "value" and kinds["total_120mb"] == "value"  # bdp: the run's own RTT
    assert kinds["fig7_reno_exponential_below_50kB"] == "trend"
    assert kinds["default_is_sweep_choice"] == "diagnostic"
    assert kinds["eq7_ratio"] == "analytic" and kinds["ida_equals_bitmap"] == "diagnostic"
    assert kinds["fig17_boston_effective"] == "value" and kinds["chain_waste_order"] == "diagnostic"
    assert kinds["window_convergence"] == "trend"
    by_kind = doc["counts"]
    assert by_kind["analytic"]["total"] == 3 and by_kind["diagnostic"]["total"] == 5
    # The model sweep's signatures chose the model: fitted, never evidence (issue 22).
    assert by_kind["fitted"]["total"] == 4 and kinds["loss_ratio_1.7_2.4"] == "fitted"
    assert out.claims_total == by_kind["paper"]["total"] == 30
    # Every paper claim is judged by the rule (issue 23): none is legacy.
    assert by_kind["paper"]["legacy"] == 0 and all(c["rule"] == "derived" for c in claims)
    assert kinds["boston_above_reno_epd"] == "ordering"
    assert kinds["gap_grows_with_packet_size"] == "diagnostic"
    assert kinds["fig15_average_window"] == kinds["fig7_reno_near_total_loss"] == "fitted"
    assert kinds["fig16_source_bytes"] == kinds["fig16_source_effective"] == "value"
    # Footnote 14 judged once, under both readings.
    assert kinds["boston_cell_loss_at_most_2pct_higher"] == "ordering"
    assert "boston_cell_loss_at_most_2pp_higher" not in kinds
    eq7 = next(c for c in claims if c["id"] == "eq7_ratio")
    assert eq7["holds"] is True and eq7["measured"] == [1.0, 6.51, 12.38]
    # Values: missing outside the printed range widened by our interval, holding within the printed
    # range widened by the paper's own spread; with the derivation and the difference.
    values = [c for c in claims if c.get("subkind") == "value"]
    assert len(values) == 13 and "response_margin_0.007" in {c["id"] for c in values}
    assert all(c["tolerance"]["rule"].startswith("misses outside the printed range") for c in values)
    assert all(set(c["tolerance"]["agree"]) == set(c["tolerance"]["bands"]) for c in values)
    gain = next(c for c in values if c["id"] == "fig15_boston_gain")["cells"][0]
    assert gain["paper"]["prints_as"] == [0.07825, 0.07835] and "difference" in gain
    # Under the default cell access every packet reaches the 64-cell buffer a cell at a time, so no
    # check is degenerate (packet access's are: test_points_where_no_packet_fits_...).
    below = next(c for c in claims if c["id"] == "fig10_reno_below_boston")
    assert [k["label"] for k in below["checks"] if k["verdict"] == "degenerate"] == []
    for name in (
        "fig07_loss_64kB.png",
        "fig10_effective_64kB.png",
        "fig14_effective_8kB.png",
        "fig17_all_16.png",
        "sensitivity.png",
    ):
        assert (out.folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = out.report.read_text()
    assert "## Claims" in report and "Quick mode. Quick mode" not in report
    assert "The model sweep behind the defaults" in report and "(chosen)" in report
    assert "Boston's partial ACK" in report
    assert "seed 00" not in report.lower()


def test_results_are_derived_from_the_grid_that_ran(tiny_run: tuple[Any, Any]) -> None:
    _, r = tiny_run
    assert r.packets == (4352, 9180) and r.window_sizes == (8000, 64000)
    assert r.buffers == (64, 512, 1000, 2000, 4000) and r.access == ("payload",)
    assert r.chain_m == (10, 40, 100)
    assert set(r.runs) == {"star", "single", "access_payload1", "access_payload16", "epd50", "epd95"}
    # Boston's partial ACK read both ways, with a one-packet and a 64 kB window.
    assert sorted(set(zip(r.partial["partial"], r.partial["window"], strict=True))) == [
        ("fresh", "1 packet"),
        ("fresh", "64 kB"),
        ("wait", "1 packet"),
        ("wait", "64 kB"),
    ]
    # The model sweep: two settings x (lone + 16 sources at 64 and 512 cells) x Reno and Boston.
    assert len(r.signatures) == 2 * 3 * 2
    assert r.signatures["window_seg"].notna().sum() == 4  # the lone sources' traced windows
    # 16 sources: 4 protocols x 2 packet sizes x 2 windows x 5 buffers, one replication.
    assert len(r.runs["star"]) == 80 and r.runs["star"]["key"].is_unique
    assert {(n, "boston", f) for n in (1, 16) for f in (None, 0)} <= set(r.series)
    assert 0 < r.at("star", "boston", "effective_throughput") <= 1
    assert set(r.average_window) == {"reno", "reno_epd", "boston", "boston_bitmap"}  # from the traces
    # bdp_300_cells' round trip is the run's own: at least the four 10 ms hops
    assert set(r.first_rtt) == set(r.average_window) and all(v > 0.04 for v in r.first_rtt.values())


def test_bitmap_as_boston_is_a_new_view_not_a_changed_global(tiny_run: tuple[Any, Any]) -> None:
    from tcplab.studies.boston.claims import claims

    _, r = tiny_run
    before = [c.to_dict() for c in claims(r)]
    alt = r.judged_with("boston_bitmap")
    assert alt is not r and alt.boston_as == "boston_bitmap" and r.boston_as == "boston"
    ida, bitmap = ("boston", "effective_throughput"), ("boston_bitmap", "effective_throughput")
    assert alt.at("star", *ida) == r.at("star", *bitmap)
    assert alt.at("single", *bitmap) == r.at("single", *ida)
    back = alt.judged_with("boston")
    assert back.means["star"].equals(r.means["star"])
    judged = {c.id: c for c in claims(alt)}
    fig17 = judged["fig17_boston_effective"].measured
    assert "IDA Boston (not judged)" in fig17 and fig17["boston"] == round(r.at("star", *bitmap), 4)
    assert [c.to_dict() for c in claims(r)] == before  # claims of the original are unchanged


@pytest.mark.parametrize("protocol", ["reno", "boston"])
def test_the_study_runs_on_ns1_by_default_and_on_bsd44(protocol: str) -> None:
    from tcplab.studies.boston import STUDY
    from tcplab.studies.boston.sweeps import sweeps

    assert STUDY.stacks == ("ns1", "bsd44")
    assert {s.base["tcp"]["stack"] for s in sweeps(True) if "tcp" in s.base} == {"ns1"}
    bsd = [s for s in sweeps(True, "bsd44") if "tcp" in s.base]
    assert bsd and all(s.base["tcp"]["stack"] == "bsd44" for s in bsd)
    assert all(s.base["tcp"]["snd_buf"] >= 64000 for s in bsd if s.name.startswith("star"))  # not 8192
    for stack in ("ns1", "bsd44"):
        cfg = StarConfig(sources=2, protocol=protocol, buffer=512, duration=10.0, stack=stack)
        report = run(star(cfg)).report
        # At least five 9140-byte segments (the default one-packet source queue slows Reno down).
        assert sum(int(f["bytes_delivered"]) for f in report["flows"]) > 5 * 9140, stack
    with pytest.raises(UserError, match="stack"):
        star(StarConfig(stack="ns9"))


# ---------------------------------------------------------------- the model sweep (signatures.py)


def test_source_queue_is_counted_in_the_links_own_unit() -> None:
    cell = star(StarConfig(sources=2, protocol="boston", source_queue=3, access="payload"))
    # Boston: 200 cells a packet; the one being sent has 199 cells waiting, then 3 packets' room.
    assert [ln["queue"] for ln in cell["link"][1:]] == [4 * 200 - 1, 4 * 200 - 1]
    pkt = star(StarConfig(sources=2, protocol="reno", source_queue=3, access="packet"))
    assert [ln["queue"] for ln in pkt["link"][1:]] == [3, 3]
    assert star(StarConfig(sources=1, source_queue=None))["link"][1]["queue"] == 100_000  # unbounded
    assert "reassembly" not in star(StarConfig(reassembly="aal5"))["atm"]  # the core's default mode
    assert star(StarConfig(reassembly="per_packet"))["atm"]["reassembly"] == "per_packet"
    # The defaults are the model sweep's choice.
    from tcplab.studies.boston.signatures import DEFAULT

    cfg = StarConfig()
    assert (cfg.access, cfg.source_queue, cfg.reassembly) == (
        DEFAULT.access,
        DEFAULT.source_queue,
        DEFAULT.reassembly,
    )
    with pytest.raises(UserError, match="source_queue"):
        star(StarConfig(source_queue=0))
    with pytest.raises(UserError, match="reassembly"):
        StarConfig(reassembly="magic")


def test_cell_loss_counts_cells_a_sources_own_queue_dropped() -> None:
    # One packet of room at the source and a 7-packet window: the source's queue drops cells.
    cfg = StarConfig(sources=1, protocol="reno", buffer=512, source_queue=1, access="payload", duration=20.0)
    report = run(star(cfg)).report
    bott, access = report["links"][0], report["links"][2]  # channel 1 is the sink's ACKs
    assert (access["from"], access["to"]) == ("s0", "sw") and access["drops_queue"] > 0
    m = star_metrics(report, cfg.packet, cfg.protocol)
    drops = access["drops_queue"] + bott["drops_queue"]
    assert m.cell_loss_rate == pytest.approx(drops / access["arrivals"])
    assert m.cell_loss_rate > bott["drops_queue"] / max(bott["arrivals"], 1)


def _sig_rows(windows: dict[str, tuple[float, float]], ratio: dict[str, float], reno64: dict[str, float]):
    """Synthetic model-sweep rows: per setting name, the lone windows (Reno, Boston) in segments,
    the 16-source loss ratio (Reno packets / Boston cells) and Reno's loss at 64 cells."""
    import pandas as pd
    from tcplab.studies.boston.signatures import setting_of

    rows = []
    for name in windows:
        s = setting_of(f"sig_{name}_1")
        for proto, win in zip(("reno", "boston"), windows[name], strict=True):
            rows.append(
                {
                    "setting": s,
                    "sources": 1,
                    "protocol": proto,
                    "buffer": 512,
                    "window_seg": win,
                    "packet_loss_rate": 0.05,
                    "cell_loss_rate": 0.025,  # half the cells of a lost packet
                    "effective_throughput": 0.8,
                    "timeouts": 1,
                    "fast_retransmits": 9,
                }
            )
        for b in (64, 512):
            boston = 0.1 if b == 64 else 0.02
            reno = reno64[name] if b == 64 else ratio[name] * boston
            for proto, loss in (("reno", reno), ("boston", boston)):
                rows.append(
                    {
                        "setting": s,
                        "sources": 16,
                        "protocol": proto,
                        "buffer": b,
                        "window_seg": math.nan,
                        "packet_loss_rate": loss,
                        "cell_loss_rate": loss,
                        "effective_throughput": 0.5,
                        "timeouts": 1,
                        "fast_retransmits": 1,
                    }
                )
    return pd.DataFrame(rows)


def test_the_rule_picks_the_setting_matching_most_signatures() -> None:
    from tcplab.studies.boston import signatures as sg

    rows = _sig_rows(
        {"payload-qinf-aal5": (5.0, 6.0), "packet-q3-per_packet": (2.6, 3.0), "cell-q1-aal5": (2.6, 3.1)},
        {"payload-qinf-aal5": 2.0, "packet-q3-per_packet": 2.0, "cell-q1-aal5": 5.0},
        {"payload-qinf-aal5": 0.9, "packet-q3-per_packet": 0.2, "cell-q1-aal5": 0.95},
    )
    # Reno's 64-cell loss over Boston's 0.1 is the ratio at 64: 9 (payload), 2 (packet), 9.5 (cell).
    # Every lone Reno source loses half the cells of a lost packet (0.025 / 0.05).
    by = sg.score(rows).set_index("setting")
    assert by.loc["payload-qinf-aal5", "matched"] == 2  # near-total loss and half the cells
    # Packet access at 64 cells is degenerate (no 9180-byte packet fits): near-total loss is not
    # matched and the ratio is read at 512 cells alone.
    assert by.loc["packet-q3-per_packet", "near_total_degenerate"]
    assert not by.loc["packet-q3-per_packet", "near_total_loss"]
    assert by.loc["packet-q3-per_packet", "matched"] == 3  # windows, ratio at 512, half
    assert by.loc["cell-q1-aal5", "matched"] == 3  # windows, near-total loss, half; not the ratio
    # The tie goes to packet: its degenerate signature adds no distance, the cell's ratios miss.
    assert by.loc["packet-q3-per_packet", "outside"] < by.loc["cell-q1-aal5", "outside"]
    scored = sg.score(rows)
    assert sg.chosen(scored) == sg.setting_of("sig_packet-q3-per_packet_1")
    table = sg.table(scored)
    assert table["setting"].str.contains("(chosen)", regex=False).sum() == 1


def test_a_tie_goes_to_the_smaller_distance_outside_the_bands() -> None:
    from tcplab.studies.boston import signatures as sg

    # Both match only the lone windows; one misses the ratio band and the 80% by less.
    rows = _sig_rows(
        {"payload-qinf-aal5": (2.6, 3.0), "cell-q3-aal5": (2.6, 3.0)},
        {"payload-qinf-aal5": 6.0, "cell-q3-aal5": 2.6},
        {"payload-qinf-aal5": 0.2, "cell-q3-aal5": 0.26},
    )
    scored = sg.score(rows).set_index("setting")
    assert list(scored["matched"]) == [2, 2]  # the lone windows and half the cells
    assert scored.loc["cell-q3-aal5", "outside"] < scored.loc["payload-qinf-aal5", "outside"]
    assert scored.loc["cell-q3-aal5", "rank"] == 1


def test_frames_lost_in_reassembly_are_packet_losses() -> None:
    # Packet access, 64 cells, a lost flagged cell joining the next frame: every 9180-byte packet
    # loses its flagged last cell, so no frame ever ends; the AAL's largest frame settles them
    # (no more 0% loss beside nothing delivered in the sensitivity table).
    from tcplab.studies.boston.scenarios import max_frame

    cfg = StarConfig(sources=2, protocol="reno", buffer=64, access="packet", reassembly="aal5", duration=60.0)
    doc = star(cfg)
    assert doc["atm"]["framing"] == "flag" and doc["atm"]["max_frame"] == max_frame(9180) == 9600
    report = run(doc).report
    m = star_metrics(report, cfg.packet, cfg.protocol)
    assert m.effective_throughput == 0
    assert m.frames_lost_reassembly > 0 and m.packet_loss_rate >= 0.5
    assert report["conservation"]["cells"]["frames_discarded_length"] > 0


def test_partial_ack_readings_are_a_sweep_factor() -> None:
    from tcplab.studies.boston.partial import PARTIAL_SWEEP
    from tcplab.studies.boston.sweeps import sweeps

    spec = next(s for s in sweeps(True) if s.name == PARTIAL_SWEEP)
    assert spec.factors["tcp.boston_partial"] == ["wait", "fresh"]
    assert spec.factors["tcp.rcv_buf"] == [9140, 64000]  # one packet, and 64 kB
    assert "boston_partial" not in spec.base["tcp"]  # the study's default is the core's "wait"
    assert not [s for s in sweeps(True, "bsd44") if s.name == PARTIAL_SWEEP or s.name.startswith("sig_")]


@pytest.mark.parametrize("access", ["packet", "cell"])
def test_retransmission_rate_is_in_cells_whatever_the_access_link(access: str) -> None:
    # Issue 22: under packet access the rate fell back to packets, counting a Boston
    # retransmission of a few shards as a whole packet.
    cfg = StarConfig(sources=4, protocol="boston", packet=1518, buffer=64, duration=20.0, access=access)
    report = run(star(cfg)).report
    flows = report["flows"]
    m = star_metrics(report, cfg.packet, cfg.protocol)
    cells = sum(f["boston_cells_sent"] for f in flows)
    retx = sum(f["boston_cells_retransmitted"] for f in flows)
    assert 0 < retx < cells and m.retransmission_rate == pytest.approx(retx / cells)
    packets = sum(f["retransmits"] for f in flows) / sum(f["data_segments"] for f in flows)
    assert m.retransmission_rate < packets, "partial retransmissions are shorter than a packet"
    if access == "cell":
        # The senders' own count is what their cell links were offered.
        assert cells == sum(ln["arrivals"] for ln in source_links(report))


def test_points_where_no_packet_fits_the_buffer_are_degenerate() -> None:
    from tcplab.studies.boston.judging import cannot_fit, fits

    # Under packet access a packet's cells reach the buffer at once: 91 and 192 cells (Boston 95
    # and 200) cannot fit 64; 11 and 32 can, and 256 takes every size.
    packet = {"access": "packet"}
    assert not fits(4352, 64, **packet) and not fits(9180, 64, **packet)
    assert fits(512, 64, **packet) and fits(1518, 64, **packet) and fits(9180, 256, **packet)
    assert "200 cells" in cannot_fit(9180, 64, **packet) and "95 cells" in cannot_fit(4352, 64, **packet)
    # Cells cross a cell access link one by one: under the study's default every point is live.
    assert fits(9180, 64) and cannot_fit(9180, 64, access="cell") == ""


def test_the_timer_sensitivity_runs_both_fast_retransmit_readings() -> None:
    from tcplab.studies.boston.sweeps import sweeps, timer_labels

    assert timer_labels("ns1") == [
        "ns-1 100 ms, FR doubles backoff",
        "ns-1 100 ms, FR keeps backoff",
        "ns-2 100 ms",
        "ns-2 500 ms",
    ]
    assert timer_labels("bsd44") == ["BSD tick 100 ms", "BSD tick 500 ms"]
    quick = {s.name: s for s in sweeps(True)}
    for reading in ("clock", "keep"):
        frt = quick[f"frt_{reading}_packet1_boston"]
        # "clock" is the ns1 stack's own rule, left to the stack (test_the_clock_reading_...).
        assert frt.base["tcp"].get("fast_retransmit_timer", "clock") == reading and not frt.zips
        assert "timer" not in frt.base["tcp"]  # the ns1 stack's own timer
    assert not any(s.name.startswith("frt_") for s in sweeps(True, "bsd44"))


def test_the_fast_retransmit_rows_run_on_the_grid_points_seeds() -> None:
    """Replication i of every frt point (either reading, any access model) has the seed of
    replication i of the grid's point (16 sources: star9180's at 64 kB; one: single's at 9180 B),
    and under the default access the "clock" reading is the grid's own run."""
    from tcplab.experiment.expand import iter_runs
    from tcplab.studies.boston.scenarios import DEFAULT_ACCESS
    from tcplab.studies.boston.sweeps import FULL, REF_PACKET, grid_levels, specs

    by_name = {s.name: s for s in specs(FULL)}

    def grid(n: int, proto: str) -> dict[tuple[int, int], Any]:
        name = f"star{REF_PACKET}_{proto}" if n == 16 else f"single_{proto}"
        want = {k: v[0] for k, v in grid_levels(n).items() if k != "link.0.ab.queue"}
        return {
            (r.levels["link.0.ab.queue"], r.replication): r
            for r in iter_runs(by_name[name])
            if all(r.levels[k] == v for k, v in want.items()) and r.levels["link.0.ab.queue"] in (64, 512)
        }

    frt_names = [s for s in by_name if s.startswith("frt_")]
    assert len(frt_names) == 2 * 2 * 3 * 4  # readings x (1, 16 sources) x access models x protocols
    for proto in ("reno", "boston"):
        for n in (1, 16):
            points = grid(n, proto)
            assert sorted(points) == [(b, i) for b in (64, 512) for i in range(3)]
            for reading in ("clock", "keep"):
                for access in ("payload", "cell", "packet"):
                    runs = list(iter_runs(by_name[f"frt_{reading}_{access}{n}_{proto}"]))
                    assert len(runs) == 6
                    for r in runs:
                        same = points[(r.levels["link.0.ab.queue"], r.replication)]
                        assert r.seed == same.seed
                        assert ("fast_retransmit_timer" in r.scenario["tcp"]) == (reading == "keep")
                        if reading == "clock" and access == DEFAULT_ACCESS:
                            assert r.key == same.key  # the grid's run: the store runs it once
    # Replications still differ: the seeds are the grid's, not one seed for every run.
    assert len({r.seed for r in grid(16, "reno").values()}) == 6  # (64, 512 cells) x 3 replications


def test_the_clock_reading_is_the_ns1_stacks_own_rule() -> None:
    """The frt "clock" runs leave the knob to the ns1 preset: spelled out, the run is the same to
    the byte; "keep" on the same seed differs (16 Boston sources, 30 s at the reference point)."""
    from tcplab.experiment.expand import iter_runs
    from tcplab.studies.boston.scenarios import DEFAULT_ACCESS
    from tcplab.studies.boston.sweeps import QUICK, specs

    by_name = {s.name: s for s in specs(QUICK)}

    def flows(name: str, knob: str | None = None) -> list[dict[str, Any]]:
        r = next(r for r in iter_runs(by_name[name]) if r.levels["link.0.ab.queue"] == 512)
        doc = json.loads(json.dumps(r.scenario))
        doc["duration"] = 30.0
        if knob:
            doc["tcp"]["fast_retransmit_timer"] = knob
        return [dict(f) for f in run(doc, seed=r.seed).flows]

    clock = flows(f"frt_clock_{DEFAULT_ACCESS}16_boston")
    assert flows(f"frt_clock_{DEFAULT_ACCESS}16_boston", knob="clock") == clock
    assert sum(f["fast_retransmits"] for f in clock) > 0
    assert flows(f"frt_keep_{DEFAULT_ACCESS}16_boston") != clock


# Code names docs/boston.md's results section may quote that are not claim ids.
DOC_NAMES = {"fast_retransmit_timer", "boston_repeated_shards", "per_packet", "reset_rtx_timer"}


def test_the_docs_quote_claims_by_ids_the_study_makes(tiny_run: tuple[Any, Any]) -> None:
    """docs/boston.md quotes claims by id, never by a number that could go stale: every
    identifier its results section quotes is a claim the study makes (or a named code item)."""
    import re
    from pathlib import Path

    out, _ = tiny_run
    ids = {c["id"] for c in json.loads(out.claims.read_text())["claims"]}
    text = (Path(__file__).parents[1] / "docs" / "boston.md").read_text()
    section = text.split("## Results and why claims miss", 1)[1].split("\n## ", 1)[0]
    quoted = set(re.findall(r"`([a-z][a-z0-9_.]*_[a-z0-9_.]*)`", section))
    assert quoted, "the results section quotes no claim"
    assert quoted - DOC_NAMES <= ids, sorted(quoted - DOC_NAMES - ids)
