"""The intserv study (Feng, Kandlur, Saha and Shin, 1997): its interface, the computed ideal
shares and windows, the token-bucket replay of the traces, and a tiny run of the whole study."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tcplab.experiment.store import Store
from tcplab.report.study import discover
from tcplab.studies.intserv import STUDY
from tcplab.studies.intserv.can_fail import runs
from tcplab.studies.intserv.claims_paper import sec6_rtt_bias
from tcplab.studies.intserv.results import _per_run, _window_rows, replay_bucket, stall_token_loss
from tcplab.studies.intserv.scenarios import (
    C4,
    IDEAL_BPS,
    ideal_shares_bps,
    timed_zero_loss_interval_s,
    unloaded_bdp_packets,
    unloaded_rtt_s,
)
from tcplab.studies.intserv.sweeps import TRACE_LEN_S, TRACE_START_S


def test_study_is_discovered_and_tiny_has_every_sweep():
    assert discover()["intserv"] is STUDY
    assert STUDY.tiny is not None
    tiny = STUDY.tiny()
    full = STUDY.sweeps(False)
    assert [s.name for s in tiny] == [s.name for s in full] == [s.name for s in STUDY.sweeps(True)]
    assert len({s.name for s in full}) == len(full)
    # tiny really is smaller: shorter runs, no more replications
    for t, f in zip(tiny, full, strict=True):
        assert t.base["duration"] <= f.base["duration"] and t.replications <= f.replications


def test_the_primary_is_the_papers_ns_and_ns2_runs_the_papers_sweeps_beside_it():
    assert STUDY.stacks == ("ns1", "ns2")
    for quick in (True, False):
        primary = STUDY.sweeps(quick)
        assert {s.base["tcp"]["stack"] for s in primary} == {"ns1"}
        beside = STUDY.sweeps(quick, "ns2")
        assert {s.base["tcp"]["stack"] for s in beside} == {"ns2"}
        assert [s.name for s in beside] == ["fig1", "fig11", "fig1_traces", "fig11_traces"]
    # the ERED sensitivity sweep: three levels beside the primary 5/15, max_p 0.02
    ered = next(s for s in STUDY.sweeps(True) if s.name == "fig1_ered")
    levels = next(iter(ered.factors.values()))
    assert sorted((q["min_th"], q["max_th"], q["max_p"]) for q in levels) == [
        (5, 15, 0.1),
        (20, 60, 0.02),
        (20, 60, 0.1),
    ]


def test_tokens_lost_are_counted_over_the_throughput_windows():
    # Two 20 s windows: the run's rate is its second window's, the same as its throughput's.
    report = {
        "flows": [
            {
                "name": "C4",
                "delivered_series": [1_000_000, 2_000_000],
                "marking": {
                    "marked_delivered_series": [0, 0],
                    "tokens_lost_series": [5 * 1040.0, 20 * 1040.0],
                },
            }
        ]
    }
    windows = pd.DataFrame(_window_rows({"sweep": "fig1", "replication": 0}, report, 20.0, 40.0))
    run = _per_run(windows).iloc[0]
    assert run["tokens_lost_pkts_per_s"] == pytest.approx(1.0) and run["throughput_bps"] == pytest.approx(8e5)


def test_ideal_shares_are_computed_from_the_reservations():
    assert ideal_shares_bps([1e6, 2e6, 4e6, 0, 0, 0]) == pytest.approx(
        [1.5e6, 2.5e6, 4.5e6, 0.5e6, 0.5e6, 0.5e6]
    )
    assert IDEAL_BPS["C4"] == pytest.approx(4.5e6) and IDEAL_BPS["BE2"] == pytest.approx(0.5e6)
    # another split: 5 Mb/s, one 3 Mb/s reservation and one best effort
    assert ideal_shares_bps([3e6, 0], capacity_bps=5e6) == pytest.approx([4e6, 1e6])
    with pytest.raises(ValueError):
        ideal_shares_bps([6e6, 6e6])


def test_windows_follow_the_unloaded_delay_bandwidth_product():
    assert unloaded_bdp_packets("fig1") == 100  # the paper's advertised window
    rtts = [unloaded_rtt_s("fig11", c) for c in ("C1", "C2", "C4", "BE1")]
    assert rtts == sorted(rtts) and rtts[0] < rtts[-1]  # C1 shortest, best effort longest
    assert rtts[0] > 0.1  # C1's round trip above one 100 ms tick of ns's timer
    assert (
        unloaded_bdp_packets("fig1", 2.0) > unloaded_bdp_packets("fig1") > unloaded_bdp_packets("fig1", 0.5)
    )


def test_zero_token_loss_interval_of_sec5():
    # 4 Mb/s, 50 ms: 25000 bytes deep; (25000 - 1039) bytes at 500000 bytes/s = 47.922 ms
    assert timed_zero_loss_interval_s(4e6) == pytest.approx(0.047922)


def test_token_bucket_replay_hand_worked():
    # 8000 b/s = 1000 bytes/s, 0.5 s deep = 500 bytes, full at 0.
    times = np.array([0.0, 0.1, 0.2, 1.5])
    sizes = np.array([400.0, 400.0, 100.0, 400.0])
    marked, lost_at, lost_end = replay_bucket(times, sizes, 8000, 0.5, 2.0)
    # 500 -> take 400 -> 100; +100 = 200 < 400 unmarked; +100 = 300 -> take 100 -> 200;
    # +1300 at 1.5 s: 1000 lost at the 500 cap -> take 400 -> 100; +500 by 2.0 s: 100 more lost.
    assert marked.tolist() == [True, False, True, True]
    assert lost_at.tolist() == pytest.approx([0, 0, 0, 1000])
    assert lost_end == pytest.approx(1100)


def test_stall_token_loss_hand_worked():
    # 4 Mb/s: 500,000 bytes of tokens a second, 25,000 deep (50 ms). Stop-and-wait: one
    # 1040-byte packet every 0.2 s from 0 to 2 s, the run ending at 2.1 s, stalls looked for from
    # 0.5 s. Long gaps (>= 0.1 s) starting at or after 0.5 s end at 0.8, 1.0, ..., 2.0 and at the
    # run's end, 2.1: seven cycles, each idle but for its one send. Over a 0.2 s cycle the full
    # bucket loses 100,000 - 1040 bytes, over the last 0.1 s 50,000 - 1040.
    times = np.arange(11) * 0.2
    stall = stall_token_loss(times, np.full(11, 1040.0), 4e6, 0.5, 2.1)
    assert stall.cycles == 7 and stall.sends == 7
    assert stall.stall_s == pytest.approx(1.3)
    assert stall.lost_pkts * 1040 == pytest.approx(6 * 98_960 + 48_960)
    # the paper's formula at this "round trip": rate less one packet per cycle
    assert stall.lost_pkts / stall.stall_s == pytest.approx(4e6 / 8 / 1040 - 7 / 1.3)
    # an ACK-clocked sender (a packet every 2 ms) never stalls
    busy = np.arange(1000) * 0.002
    assert stall_token_loss(busy, np.full(1000, 1040.0), 4e6, 0.5, 2.0).cycles == 0
    # bursts of 0.3 s (a packet every 10 ms) between 0.12 s gaps: idle under half of each cycle
    bursts = np.concatenate([k * 0.42 + np.arange(31) * 0.01 for k in range(5)])
    assert stall_token_loss(bursts, np.full(len(bursts), 1040.0), 4e6, 0.0, 2.1).cycles == 0


def test_rtt_bias_asks_c4_to_approach_its_ideal():
    # Fig. 14 as the paper says for C1 and best effort, and C4's share of its ideal (0.58) above
    # best effort's (0.42): only "these schemes approach the ideal performance" is refuted.
    c1, c4, be = (runs(x) for x in (1.6, 2.5, 0.2))
    claim = sec6_rtt_bias(c1=c1, c4=c4, best_effort=be)
    assert claim.verdict == "misses"
    assert [k.verdict for k in claim.checks] == ["holds", "holds", "holds", "misses", "holds"]
    assert sec6_rtt_bias(c1=c1, c4=runs(4.2), best_effort=be).verdict == "holds"


def test_tiny_reproduce(tiny_reproduction):
    out = tiny_reproduction("intserv")
    claims = json.loads(out.claims.read_text())["claims"]
    ids = {c["id"] for c in claims}
    assert len(ids) == len(claims) >= 20
    assert {
        "sec3_reserved_below_ideal",
        "sec4_token_loss_falls",
        "sec6_maxburst_restores",
        "sec6_stall_token_loss_rate",
    } <= ids
    assert all(c["verdict"] and c["kind"] for c in claims)
    by_id = {c["id"]: c for c in claims}
    assert by_id["ideal_shares"]["holds"] and by_id["unloaded_window_100"]["holds"]
    assert by_id["token_replay_matches_core"]["holds"]
    report = out.report.read_text()
    for f in out.figures:
        assert f.is_file() and f"]({f.name})" in report
    assert len(out.figures) == 14
    # The minimum-RTT alternative is labelled as such wherever it appears.
    assert {"alt_min_rtt_window_raises_c4", "alt_min_rtt_multihop_collapse"} <= ids
    assert all("Alternative" in by_id[i]["claim"] for i in ids if i.startswith("alt_"))
    assert "Alternative, not the paper's reading" in report
    # Issue 20's output defects: the runs table shows zipped factors as zipped, the shaded bands
    # are captioned, claims.json is strict JSON (tests/test_claims_can_fail.py), and every
    # packet trace the figures draw (the primary stack's) covers its 5-second window.
    assert "scheme + scheme_c2 + scheme_c4 (zipped, 5)" in report
    assert report.count("shaded: the lowest to the highest replication") >= 5
    with Store(out.folder / "runs.sqlite") as store:
        runs = store.runs_df()
        traced = runs[runs["sweep"].isin(["fig1_traces", "fig11_traces"]) & (runs["replication"] == 0)]
        assert len(traced) == 8
        for key in traced["key"]:
            t = store.trace(key, C4, "trace")["time_s"]
            seen = t[(t >= TRACE_START_S) & (t < TRACE_START_S + TRACE_LEN_S)]
            assert seen.max() - seen.min() > 0.9 * TRACE_LEN_S, key


def test_docs_quote_claims_the_study_makes(tiny_reproduction):
    """docs/intserv.md names claims by id and gives counts of paper claims: the ids must be the
    study's and every count out of the study's number of paper claims, but the earlier
    version's 12 of 18 (the numbers it quotes are from quick and full runs, not the tiny grid)."""
    out = tiny_reproduction("intserv")
    claims = json.loads(out.claims.read_text())["claims"]
    ids = {c["id"] for c in claims}
    docs = (Path(__file__).parents[1] / "docs" / "intserv.md").read_text()
    named = {q for q in re.findall(r"`([a-z0-9_]+)`", docs) if re.match(r"(sec\d|alt)_", q)}
    assert named and named <= ids, named - ids
    paper = sum(c["kind"] == "paper" for c in claims)
    counts = re.findall(r"(\d+) of (\d+) (?:paper claims )?hold", docs)
    assert len(counts) >= 2
    assert all(int(total) == paper for k, total in counts if (k, total) != ("12", "18")), counts
