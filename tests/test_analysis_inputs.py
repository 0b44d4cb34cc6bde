"""A user's mistake given to an analysis helper (anova, summarize, fairness, read_pcap, plots) gets
an error naming the argument or the file, never a raw error from deep inside; and what the
helpers write (anova's JSON) is valid for strict readers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from conftest import cli
from tcplab.analysis.anova import factorial_anova
from tcplab.analysis.fairness import jain_index, max_min_shares
from tcplab.analysis.pcap import read_pcap
from tcplab.analysis.stats import mean_ci, summarize
from tcplab.errors import UserError

matplotlib.use("Agg")


def _strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _runs() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "variant": ["reno", "reno", "sack", "sack"] * 2,
            "queue": [20, 50] * 4,
            "y": [1.0, 2.0, 3.0, 4.0, 1.5, 2.5, 3.5, 4.5],
        }
    )


# ---------------------------------------------------------------- anova


def test_anova_json_of_a_constant_response_is_strict_json(tmp_path: Path) -> None:
    csv = tmp_path / "constant.csv"
    csv.write_text("a,b,y\n" + "1,x,5\n1,y,5\n2,x,5\n2,y,5\n" * 2)
    out = cli("anova", csv, "--response", "y", "--factors", "a,b", "--json")
    assert out.returncode == 0, out.stderr
    doc = _strict_json(out.stdout)
    assert isinstance(doc, dict)
    assert doc["percent_error"] is None  # no variation to allocate: undefined, not NaN
    assert [c["percent"] for c in doc["components"]] == [None, None, None]


def test_anova_to_dict_never_holds_nan_or_infinity() -> None:
    df = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["x", "y", "x", "y"], "y": [1e200, 1e200, -1e200, 1e200]})
    with np.errstate(all="ignore"):  # sums of squares past the range of floats: inf and NaN
        huge = factorial_anova(df, "y", ["a", "b"], interactions=False)
    json.dumps(huge.to_dict(), allow_nan=False)
    constant = df.assign(y=5.0)
    json.dumps(factorial_anova(constant, "y", ["a", "b"]).to_dict(), allow_nan=False)


def test_anova_takes_one_factor_as_a_string() -> None:
    df = _runs()
    one = factorial_anova(df, "y", "variant")
    assert one.factors == ("variant",)
    assert one.to_dict() == factorial_anova(df, "y", ["variant"]).to_dict()


# ---------------------------------------------------------------- summarize, mean_ci


def test_summarize_takes_one_group_column_as_a_string() -> None:
    df = _runs()
    pd.testing.assert_frame_equal(summarize(df, "variant", "y"), summarize(df, ["variant"], "y"))


@pytest.mark.parametrize(
    "bounds", [(1, 0), (math.inf, 0), (math.nan, 1), (0,), (0, 1, 2), ("a", "b"), "zero"]
)
def test_summarize_refuses_bad_bounds_naming_the_argument(bounds: object) -> None:
    with pytest.raises(ValueError, match="bounds"):
        summarize(_runs(), ["variant"], "y", bounds=bounds)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bounds"):
        mean_ci([0.1, 0.2], bounds=bounds)  # type: ignore[arg-type]


def test_summarize_keeps_good_bounds_and_unbounded_ones() -> None:
    df = _runs()
    table = summarize(df, ["variant"], "y", bounds=(0, math.inf))
    assert (table["ci_low"] >= 0).all() and (table["ci_high"] >= table["mean"]).all()
    assert (summarize(df, ["variant"], "y", bounds=None)["ci_high"] >= table["mean"]).all()
    assert (summarize(df, ["variant"], "y", bounds=[-math.inf, math.inf])["ci_low"] < table["mean"]).all()


def test_the_interval_holds_the_mean_even_when_values_pass_the_bounds() -> None:
    # A Jain index rounded a hair past 1: the interval is clipped to 1, but never below the mean.
    ci = mean_ci([1.0, 1.0 + 2**-52, 1.0 + 2**-51], bounds=(0.0, 1.0))
    assert ci.mean > 1.0
    assert ci.low <= ci.mean <= ci.high
    table = summarize(_runs(), "variant", "y", bounds=(0, 1))  # y runs to 4.5: bounds too tight
    assert (table["ci_low"] <= table["mean"]).all() and (table["mean"] <= table["ci_high"]).all()


@pytest.mark.parametrize("confidence", [0, 1, 90, -0.1])
def test_summarize_refuses_a_confidence_outside_0_1(confidence: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        summarize(_runs().iloc[0:0], ["variant"], "y", confidence=confidence)


def test_summarize_refuses_percentiles_outside_0_100() -> None:
    with pytest.raises(ValueError, match="percentiles"):
        summarize(_runs(), ["variant"], "y", percentiles=(5, 150))


# ---------------------------------------------------------------- fairness


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1.0])
def test_fairness_refuses_nan_infinite_and_negative_values(bad: float) -> None:
    with pytest.raises(ValueError, match="offered"):
        max_min_shares([bad, 2.0], 5)
    with pytest.raises(ValueError, match="throughputs"):
        jain_index([bad, 1.0])
    with pytest.raises(ValueError, match="expected"):
        jain_index([1.0, 1.0], expected=[bad, 1.0])
    if not bad < 0:
        with pytest.raises(ValueError, match="capacity"):
            max_min_shares([1.0, 2.0], bad)


def test_fairness_of_nobody() -> None:
    assert max_min_shares([], 10) == []  # no connection: no shares
    with pytest.raises(ValueError, match="throughputs"):
        jain_index([])  # the index of no connection is undefined


# ---------------------------------------------------------------- read_pcap


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"hello, this is not a capture at all",
        bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001"),
    ],
    ids=["empty", "text", "truncated-header"],
)
def test_read_pcap_names_a_file_that_is_not_a_pcap(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "capture.pcap"
    path.write_bytes(content)
    with pytest.raises(UserError, match=r"capture\.pcap.*not a readable pcap"):
        read_pcap(path)


def test_read_pcap_names_a_file_cut_mid_packet(tmp_path: Path) -> None:
    header = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000")  # little-endian, Ethernet
    record = bytes.fromhex("00000000000000003c0000003c000000")  # ts 0, 60 bytes captured
    path = tmp_path / "cut.pcap"
    path.write_bytes(header + record + b"\x00" * 10)
    with pytest.raises(UserError, match=r"cut\.pcap.*not a readable pcap"):
        read_pcap(path)


def _tcp_capture(records: int) -> bytes:
    """A little-endian pcap of ``records`` Ethernet/IPv4/TCP frames, 20 bytes of options each."""
    import dpkt

    tcp = dpkt.tcp.TCP(sport=1, dport=2, seq=1, flags=dpkt.tcp.TH_ACK, opts=b"\x01" * 20)
    ip = dpkt.ip.IP(src=bytes(4), dst=bytes(4), p=dpkt.ip.IP_PROTO_TCP, data=tcp)
    frame = bytes(dpkt.ethernet.Ethernet(data=ip))
    header = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000")
    record = (0).to_bytes(8, "little") + len(frame).to_bytes(4, "little") * 2
    return header + (record + frame) * records


@pytest.mark.parametrize("cut", [1, 30, 74], ids=["one-byte", "into-tcp", "all-data"])
def test_read_pcap_names_a_file_cut_inside_its_last_records_data(tmp_path: Path, cut: int) -> None:
    """dpkt hands a cut record's data back short: the segment was dropped without a word (its
    frame no longer parsed as TCP)."""
    whole = _tcp_capture(2)
    path = tmp_path / "capture.pcap"
    path.write_bytes(whole)
    assert len(read_pcap(path)) == 2
    path.write_bytes(whole[:-cut])
    with pytest.raises(UserError, match=r"capture\.pcap.*not a readable pcap.*record is cut short"):
        read_pcap(path)


def test_read_pcap_reads_a_file_cut_between_records(tmp_path: Path) -> None:
    whole = _tcp_capture(2)
    path = tmp_path / "capture.pcap"
    path.write_bytes(whole[: 24 + (len(whole) - 24) // 2])
    assert len(read_pcap(path)) == 1


# ---------------------------------------------------------------- plots


def test_plot_response_refuses_a_frame_without_rows_or_columns() -> None:
    from tcplab import plot

    with pytest.raises(ValueError, match="df: no rows"):
        plot.response(_runs().iloc[0:0], "queue", "y")
    with pytest.raises(ValueError, match="df: no rows"):
        plot.response(pd.DataFrame(), "loss", "y")
    with pytest.raises(ValueError, match="factor: no column 'loss'"):
        plot.response(_runs(), "loss", "y")
    with pytest.raises(ValueError, match="value: no column 'goodput'"):
        plot.response(_runs(), "queue", "goodput")
    with pytest.raises(ValueError, match="by: no column 'tcp'"):
        plot.response(_runs(), "queue", "y", by="tcp")
    with pytest.raises(TypeError, match="df: expected a pandas DataFrame"):
        plot.response(None, "queue", "y")  # type: ignore[arg-type]


def test_plot_cwnd_refuses_what_is_not_a_trace() -> None:
    from tcplab import plot

    with pytest.raises(TypeError, match="traces: expected a flow trace"):
        plot.cwnd(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"traces\['a'\]: expected a flow trace"):
        plot.cwnd({"a": [1, 2]})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="traces: no column 'cwnd'"):
        plot.cwnd(pd.DataFrame({"time_s": [0.0]}))
    with pytest.raises(ValueError, match="traces: no trace"):
        plot.cwnd({})


def test_plot_cwnd_still_draws_a_trace() -> None:
    from tcplab import plot

    trace = pd.DataFrame({"time_s": [0.0, 1.0], "cwnd": [1460, 2920], "ssthresh": [math.nan, 5000]})
    ax = plot.cwnd(trace)
    assert ax.get_ylabel().startswith("window (KB)")
    ax = plot.response(_runs(), "queue", "y", by="variant")
    assert len(ax.get_legend().get_texts()) == 2


def test_plot_flow_series_and_queue_refuse_what_is_not_a_run_or_trace() -> None:
    from tcplab import plot

    with pytest.raises(TypeError, match="result: expected a RunResult"):
        plot.flow_series(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="source: expected a RunResult"):
        plot.queue(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="source: no column 'packets'"):
        plot.queue(pd.DataFrame({"time_s": [0.0]}))
