"""Paper claims that have no can-fail fixture yet, by study: the one place that lists them.

tests/test_claims_can_fail.py reports each as a skipped test naming its issue (run pytest with
``-rs`` to list them), and fails on a paper claim that is neither covered by the study's
``can_fail()`` nor listed here, or on an entry here that the study no longer makes. The three
studies are being reworked under their own issues; each entry leaves this file when its study
declares a fixture for it (the claim function, with the paper's own numbers and/or a refuting
input; see docs/experiments.md).
"""

from __future__ import annotations

PENDING: dict[str, tuple[str, tuple[str, ...]]] = {
    "boston": (
        "issue 22",
        (
            "chain_waste_order",
            "chain_matches_eqs",
            "fig7_loss_falls_with_buffer",
            "fig7_reno_grows_faster",
            "fig7_ratio_toward_small_buffers",
            "fig7_reno_near_total_loss",
            "loss_ratio_1.7_2.4",
            "retransmission_tracks_loss",
            "fig8_response_ratio_grows",
            "response_margin_0.007",
            "fig10_boston_optimal_large_buffers",
            "fig10_reno_below_boston",
            "boston_small_buffer_idle",
            "reno_small_buffer_waste",
            "window_convergence",
            "boston_cell_loss_at_most_2pct_higher",
            "boston_cell_loss_at_most_2pp_higher",
            "fig15_boston_cell_drop",
            "fig15_reno_packet_drop",
            "fig15_reno_effective",
            "fig15_boston_effective",
            "fig15_boston_sends_more",
            "fig15_boston_gain",
            "fig15_average_window",
            "fig16_source_bytes",
            "fig16_source_effective",
            "fig17_reno_effective",
            "fig17_boston_effective",
            "more_sources_bigger_gap",
            "total_120mb",
            "fig7_reno_exponential_below_50kB",
        ),
    ),
}
