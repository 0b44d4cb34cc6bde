"""Per-flow plots: a huge trace is thinned in bounded memory and keeps its extremes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from tcplab.report.plot import plot_flow_trace, read_trace, read_trace_for_plot


def _sawtooth_trace(path: Path, rows: int) -> pd.DataFrame:
    i = np.arange(rows)
    cwnd = 1000 + (i % 997) * 10
    if rows > 200_001:
        cwnd[123_457] = 10**7  # one spike that thinning must not lose
        cwnd[200_001] = 1  # and one dip
    df = pd.DataFrame(
        {
            "time_s": i * 1e-4,
            "cwnd": cwnd,
            "ssthresh": np.full(rows, 4294967295),
            "snd_una": i * 1000,
            "snd_nxt": i * 1000 + cwnd,
        }
    )
    df.to_csv(path, index=False)
    return df


def test_small_traces_are_read_whole(tmp_path: Path) -> None:
    csv = tmp_path / "trace-flow0.csv"
    full = _sawtooth_trace(csv, 1000)
    read = read_trace_for_plot(csv)
    assert read["ssthresh"].dtype == float and read["ssthresh"].isna().any()  # unset is NaN
    pd.testing.assert_frame_equal(read.drop(columns="ssthresh"), full.drop(columns="ssthresh"))


def test_large_traces_are_thinned_keeping_ends_and_extremes(tmp_path: Path) -> None:
    csv = tmp_path / "trace-flow0.csv"
    _sawtooth_trace(csv, 300_000)
    full = read_trace(csv)
    thin = read_trace_for_plot(csv, max_rows=2000)
    assert 500 < len(thin) <= 2200
    assert thin["time_s"].is_monotonic_increasing
    assert thin.iloc[0].equals(full.iloc[0]) and thin.iloc[-1].equals(full.iloc[-1])
    assert thin["cwnd"].max() == 10**7 and thin["cwnd"].min() == 1
    # Every kept row is a real row of the trace, unchanged.
    merged = thin.merge(full, how="left", indicator=True)
    assert (merged["_merge"] == "both").all()
    png = plot_flow_trace(thin, tmp_path / "flow0.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
