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
    "satellite": (
        "issue 21",
        (
            "wan_mean_efficiency",
            "wan_mean_fairness",
            "meo_mean_efficiency",
            "meo_mean_fairness",
            "geo_mean_efficiency",
            "geo_mean_fairness",
            "wan_efficiency_largest_factor",
            "meo_efficiency_largest_factor",
            "geo_efficiency_largest_factor",
            "wan_fairness_largest_factor",
            "sack_advantage_grows_with_delay",
            "meo_sack_best_efficiency",
            "geo_sack_best_efficiency",
            "wan_newreno_sack_beat_vanilla_reno",
            "wan_newreno_fairer_than_sack",
            "efficiency_rises_with_buffer",
            "buffer_matters_most_at_low_delay",
            "wan_one_rtt_enough_for_newreno_sack",
            "meo_half_rtt_enough_for_non_vanilla",
            "geo_sack_half_rtt",
            "wan_sd_beats_epd_vanilla_reno",
            "drop_policy_small_on_long_delay",
            "long_delay_fairness_above_0_9",
            "sack_newreno_similar_fairness_long_delay",
            "wan_fairness_rises_with_buffer",
        ),
    ),
}
