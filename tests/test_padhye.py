"""Reno under Bernoulli loss against Padhye et al. (1998), at a small scale.

A pytest rather than a Rust test: the measurement (Karn-clean RTT samples, the timeout waits
that give T0) and the model live in bench/padhye/padhye_check.py, which the full-scale report
(bench/padhye/run.py) uses too, so the test checks the same code the report runs, and runs on
the release build in well under a second per point.
"""

from __future__ import annotations

import math

import bench_scripts
import pytest

pc = bench_scripts.load("padhye/padhye_check.py", "padhye_check")


@pytest.mark.parametrize("delayed_ack", [False, True])
@pytest.mark.parametrize("loss", [0.01, 0.04])
def test_reno_goodput_within_20_percent_of_the_model(loss: float, delayed_ack: bool) -> None:
    pt = pc.run_point(loss, delayed_ack, seed=7, duration_s=300.0)
    m = pt.measured
    # The inputs the model is fed must be sane measurements, not defaults.
    assert m.timeout_sequences > 0 and m.rtt_samples > 500
    assert 2 * pc.ONE_WAY_DELAY_S <= m.rtt_s < 2 * pc.ONE_WAY_DELAY_S + (0.2 if delayed_ack else 0.01)
    assert 1.0 <= m.t0_s < 2.0  # min_rto is 1 s; the path's RTO never exceeds it by much
    assert m.loss_indication_rate <= loss * 1.15
    assert abs(pt.ratio - 1) <= pc.BOUND, f"goodput {m.goodput_pps:.1f} pkt/s, model {pt.model_pps:.1f}"


def test_delayed_acks_slow_reno_down_as_the_model_says() -> None:
    # b = 2 halves the window growth: the model predicts about 1/sqrt(2) of b = 1's rate.
    off = pc.run_point(0.01, False, seed=3, duration_s=300.0)
    on = pc.run_point(0.01, True, seed=3, duration_s=300.0)
    assert on.model_pps < off.model_pps
    measured = on.measured.goodput_pps / off.measured.goodput_pps
    modelled = on.model_pps / off.model_pps
    assert abs(measured / modelled - 1) < 0.15


def test_full_model_limits() -> None:
    # Tiny loss: the receiver window caps the rate at W_max / RTT.
    assert pc.padhye_full(1e-7, 0.1, 1.0, 1, 44) == pytest.approx(44 / 0.1, rel=0.01)
    # Without timeouts mattering (T0 -> 0) and small p, the square-root law: 1/(RTT sqrt(2bp/3)).
    p = 1e-4
    sqrt_law = 1 / (0.1 * math.sqrt(2 * p / 3))
    assert pc.padhye_full(p, 0.1, 0.0, 1, 1e9) == pytest.approx(sqrt_law, rel=0.02)
    # The full form and the closed form agree within 10% over the checked range (6% at p = 5%).
    for p in (0.005, 0.01, 0.02, 0.05):
        for b in (1, 2):
            full = pc.padhye_full(p, 0.1, 1.0, b, 44)
            assert pc.padhye_approx(p, 0.1, 1.0, b, 44) == pytest.approx(full, rel=0.1)
    with pytest.raises(ValueError):
        pc.padhye_full(0.0, 0.1, 1.0, 1, 44)
