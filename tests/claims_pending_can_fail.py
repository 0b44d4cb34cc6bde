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
    "intserv": (
        "issue 20",
        (
            "sec3_reserved_below_ideal",
            "sec3_best_effort_above_ideal",
            "sec3_compliant_below_reservation",
            "sec3_order_by_reservation",
            "sec4_window_raises_c4",
            "sec4_window_compliant_below_reservation",
            "sec4_token_loss_falls",
            "sec3_tokens_lost_830",
            "sec4_tokens_lost_560",
            "sec5_timers_closer_to_ideal",
            "sec5_timers_more_compliant",
            "sec5_timed_loses_fewer_tokens",
            "sec5_window_timed_best",
            "sec5_timed_only_short",
            "sec6_windowing_collapses_multihop",
            "sec6_sack_restores",
            "sec6_maxburst_restores",
            "sec6_rtt_bias",
        ),
    ),
}
