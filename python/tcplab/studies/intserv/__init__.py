"""TCP with controlled-load reservations: Feng, Kandlur, Saha and Shin, 1997, Secs. 3-6.

**The networks.** Fig. 1: six greedy TCP connections to one sink through one router and a
10 Mb/s bottleneck; C1, C2 and C4 reserve 1, 2 and 4 Mb/s, three are best effort. The router's
output is an 80-packet ERED queue; sources police and mark with a token bucket at the reserved
rate, 50 ms deep. Fig. 11: the same six connections over three routers (C1 S1->D1, C2 S2->D2,
C4 S3->D3, best effort S4->D3), the first hop shared by all. Link rates and delays are not in the
text; ``scenarios.py`` states the choices and why, and a sensitivity sweep scales every delay.

**TCP.** The agents of the ns the paper ran ("modified NS", citing the LBNL ns of 1996): the
``ns1`` stack preset (an RTT sample on every ACK of new data, rounded to 100 ms ticks; 1000-byte
segments plus 40 bytes of header, an ACK per packet), the advertised window equal to the
unloaded delay-bandwidth product (100 packets in Fig. 1). ns-2.1b (``ns2``) runs the paper's
sweeps again as a labelled sensitivity stack. Fig. 1 runs New-Reno (the figures' captions),
Reno and SACK; Fig. 11 runs New-Reno, New-Reno with MaxBurst 2, and SACK.

**ERED.** ns's RED of the same era (the stack's rule and defaults: ns-1's thresh 5, maxthresh
15, max_p 1/50); marked packets are dropped only when the buffer is full. The parameters the paper
does not give are swept (thresholds 5/15 and 20/60, max_p 0.02 and 0.1).

**Schemes** (the reserved connections' senders): normal TCP; the rate-adaptive window
(Sec. 4.2); windowing + delayed send (0-50 ms, Sec. 5); windowing + timed send (20 ms);
timed send alone. Beside the windowing schemes, labelled as an alternative and not the paper's
reading: RWND from the minimum RTT instead of the smoothed RTT (a table, two figures and two
diagnostic claims).

**Metrics.** Throughput and compliant throughput (marked segments received) per 20 s window;
tokens lost; 5-second traces of C4 (cumulative ACK, cwnd, available window, lost tokens).

The paper's Table 1 (timer costs measured in an AIX 4.2 kernel) is outside a simulator and is not
reproduced. Each claim's measured values are in its row; why each miss misses, measured, is in
the repository's docs/intserv.md ("What does not, and why").
"""

from __future__ import annotations

from tcplab.report.study import Paper, Study
from tcplab.studies.intserv.can_fail import can_fail
from tcplab.studies.intserv.claims import claims
from tcplab.studies.intserv.figures import figures
from tcplab.studies.intserv.results import derive
from tcplab.studies.intserv.scenarios import SENSITIVITY_STACK, STACK
from tcplab.studies.intserv.sweeps import sweeps, tiny
from tcplab.studies.intserv.tables import tables

STUDY = Study(
    name="intserv",
    title="TCP enhancements for an integrated services Internet",
    papers=(
        Paper(
            "W. Feng, D. Kandlur, D. Saha and K. G. Shin",
            "TCP Enhancements for an Integrated Services Internet",
            1997,
            "preprint",
        ),
    ),
    summary=__doc__ or "",
    sweeps=sweeps,
    stacks=(STACK, SENSITIVITY_STACK),
    stack_sweeps=sweeps,
    tiny=tiny,
    derive=derive,
    figures=figures,
    claims=claims,
    can_fail=can_fail,
    tables=tables,
    assumptions=(
        "Fig. 1's links: sources to the router 100 Mb/s, 5 ms; router to sink 10 Mb/s, 34.5 ms: an "
        "unloaded round trip of 80 ms, so the paper's 100-packet window is the unloaded delay-bandwidth "
        "product. Fig. 11: access links 100 Mb/s, 2 ms (S4: 20 ms); R1-R2 10 Mb/s, 50 ms (the shared "
        "bottleneck, long enough that C1's round trip is above one 100 ms timer tick); R2-R3 45 Mb/s, "
        "20 ms; R3-D3 30 ms: round trips 109, 149, 205 and 241 ms for C1, C2, C4 and best effort, and a "
        "window of 302 packets (the same rule).",
        "ERED: ns-1's RED (the ns1 stack's rule: wait_, the guard, the spared first arrival) with ns-1's "
        "defaults, min_th 5, max_th 15 packets, max_p 0.02 (linterm 50), w_q 0.002; marked packets are "
        "dropped only when the 80-packet buffer is full (the paper's 'close to zero'). Swept: 5/15 and "
        "20/60, max_p 0.02 and 0.1.",
        "TCP: the ns1 stack (the 1996 LBNL ns the paper cites); ns-2.1b (ns2, with its own RED defaults, "
        "max_p 0.1) as a sensitivity stack.",
        "RWND = reserved rate x the sender's smoothed RTT (ns's, in 100 ms ticks); Fig. 4's CWND is the "
        "usable window min(cwnd, AWND).",
        "Every connection starts at 0 s; a run's throughput is the mean of its 20 s windows after the first.",
        "The paper's Table 1 (AIX timer costs) is a kernel measurement, outside a simulator: not reproduced.",
    ),
    quick_note="100 s runs, 5 replications, 3 per sensitivity point (full: 200 s, 10 and 5).",
)
