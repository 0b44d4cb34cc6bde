"""Flows that a setting the docs allow stalled for the whole run, with no error: a send buffer
below one segment (silly-window avoidance held every segment back) and TCP Boston with
N = m shards (a retransmission resent shard 0 for ever). Found by a hostile probe."""

from __future__ import annotations

import pytest
import tcplab

TWO_HOSTS = """
name = "small-buffer"
duration = "3s"
nodes = ["a", "b"]
[[link]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "10ms"
[[flow]]
src = "a"
dst = "b"
bytes = {bytes}
[flow.tcp]
stack = "{stack}"
snd_buf = {snd_buf}
"""


@pytest.mark.parametrize("stack", ["tcplab", "bsd44", "ns2"])
@pytest.mark.parametrize(("snd_buf", "size"), [(1000, 1500), (1, 10), (1459, 20000)])
def test_a_send_buffer_below_one_segment_sends_segments_of_its_size(
    stack: str, snd_buf: int, size: int
) -> None:
    report = tcplab.run(TWO_HOSTS.format(bytes=size, stack=stack, snd_buf=snd_buf)).report
    flow = report["flows"][0]
    assert flow["bytes_delivered"] == size and flow["completion_time_s"] is not None, flow


BOSTON_N_EQUALS_M = """
name = "boston-n-equals-m"
duration = "200s"
nodes = ["s0", "sw", "sink"]
switches = ["sw"]
[atm]
trailer = false
llc_snap = false
[tcp]
codec = "boston"
mss = 9140
boston_dispersal = 1
[[link]]
a = "s0"
b = "sw"
rate = "10Mbps"
delay = "1ms"
atm = true
queue = 100000
[[link]]
a = "sw"
b = "sink"
rate = "1.5Mbps"
delay = "10ms"
atm = true
queue = 1000
loss = { model = "bernoulli", p = 0.01 }
[[flow]]
src = "s0"
dst = "sink"
bytes = "50KB"
"""


def test_boston_without_spare_shards_resends_the_whole_segment() -> None:
    flow = tcplab.run(BOSTON_N_EQUALS_M).report["flows"][0]
    assert flow["bytes_delivered"] == 50_000 and flow["completion_time_s"] is not None, flow
    assert flow["retransmits"] > 0, "the seed no longer loses a cell: the test tests nothing"
