#!/usr/bin/env python3
"""The "bench dumbbell" in ns-3, timed: prints one JSON object on stdout.

N senders -- 100 Mb/s, 1 ms -- R1 == 10 Mb/s, 20 ms, 100p drop-tail == R2 -- 100 Mb/s, 1 ms -- N receivers.
One bulk TCP NewReno flow per sender/receiver pair, MSS 1000 B, no delayed ACK,
1 MB socket buffers, min RTO 200 ms, initial window 1, no timestamps, SACK or limited
transmit, flow i starts at i * 10 ms: the same as scenarios/bench_dumbbell_{10,100}.toml
with tcplab's TCP defaults (see configure_tcp). Only Simulator::Run() is timed.
`--qdisc codel` puts ns-3's CoDelQueueDisc on R1's bottleneck device (see install_codel).

Run with bench/ns3_compare/.venv-ns3/bin/python (see setup.sh).
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import time

import cppyy

# The CoDel settings and the sojourn statistics are compare.py's own (standard library only),
# so both simulators get the same parameters and their delays are summarised the same way.
from compare import Codel, sojourn_summary

# cppyy parses the ns-3 headers here: several seconds, and it prints harmless
# "Failed to materialize symbols" warnings on stderr (cppyy issue #156).
from ns import ns

# Sanity probes in C++, so the timed loop never calls back into Python. With no
# queue disc, a full device queue is "stopped" and the traffic-control layer
# discards the packet itself (its "TcDrop" trace) -- the device queue's own drop
# counter stays 0 -- so count drops there and watch the queue's peak occupancy.
cppyy.cppdef("""
namespace bench {
uint64_t drops = 0;
uint32_t peak = 0;
void OnDrop(ns3::Ptr<const ns3::Packet>) { ++drops; }
void OnQueueLen(uint32_t, uint32_t now) { peak = now > peak ? now : peak; }
// Queueing delay: the bytes each accepted packet found waiting ahead of it at the bottleneck
// (after the Enqueue trace the queue holds them plus the packet), as tcplab's queue trace has
// it; over the bottleneck rate that is its wait, less what was left of the packet on the wire.
ns3::Ptr<ns3::Queue<ns3::Packet>> watched;
uint64_t enqueued = 0;
double found_bytes = 0;
void OnEnqueue(ns3::Ptr<const ns3::Packet> p) {
    ++enqueued;
    found_bytes += double(watched->GetNBytes()) - double(p->GetSize());
}
// Loss recovery events of the senders, from each socket's congestion-state trace (it fires
// on changes only, so a run of backed-off timeouts counts once, as one timeout sequence).
uint64_t recoveries = 0, rto_entries = 0, recovery_to_rto = 0;
void OnCongState(ns3::TcpSocketState::TcpCongState_t old, ns3::TcpSocketState::TcpCongState_t now) {
    if (now == ns3::TcpSocketState::CA_RECOVERY) ++recoveries;
    if (now == ns3::TcpSocketState::CA_LOSS) {
        ++rto_entries;
        if (old == ns3::TcpSocketState::CA_RECOVERY) ++recovery_to_rto;
    }
}
void HookSender(uint32_t node) {
    ns3::Config::ConnectWithoutContext("/NodeList/" + std::to_string(node) +
        "/$ns3::TcpL4Protocol/SocketList/0/CongState", ns3::MakeCallback(&OnCongState));
}
// The socket exists once BulkSend has started; hook it 1 ns later.
void HookSenderAt(double start_s, uint32_t node) {
    ns3::Simulator::Schedule(ns3::Seconds(start_s) + ns3::NanoSeconds(1), &HookSender, node);
}
// Under a queue disc (--qdisc codel): each packet's wait at R1, from its arrival at the queue
// disc (its Enqueue trace) to the start of its transmission (the device's PhyTxBegin), as
// tcplab's sojourn trace has it; packets are matched by uid (headers keep it). This includes
// the wait in the one-packet device queue below the queue disc, which CoDel does not see;
// CoDel's own view, its SojournTime trace (enqueue to its dequeue), is kept apart.
std::unordered_map<uint64_t, int64_t> arrived_ns;
std::vector<double> wait_ms, codel_sojourn_ms;
void OnQdiscEnqueue(ns3::Ptr<const ns3::QueueDiscItem> item) {
    arrived_ns[item->GetPacket()->GetUid()] = ns3::Simulator::Now().GetNanoSeconds();
}
void OnQdiscDrop(ns3::Ptr<const ns3::QueueDiscItem> item) {
    arrived_ns.erase(item->GetPacket()->GetUid());
}
void OnTxBegin(ns3::Ptr<const ns3::Packet> p) {
    auto it = arrived_ns.find(p->GetUid());
    if (it == arrived_ns.end()) return;
    wait_ms.push_back((ns3::Simulator::Now().GetNanoSeconds() - it->second) / 1e6);
    arrived_ns.erase(it);
}
void OnCodelSojourn(ns3::Time t) { codel_sojourn_ms.push_back(t.GetSeconds() * 1e3); }
bool WatchQdisc(ns3::Ptr<ns3::QueueDisc> qdisc, ns3::Ptr<ns3::NetDevice> device) {
    arrived_ns.clear();
    wait_ms.clear();
    codel_sojourn_ms.clear();
    return qdisc->TraceConnectWithoutContext("Enqueue", ns3::MakeCallback(&OnQdiscEnqueue)) &&
           qdisc->TraceConnectWithoutContext("Drop", ns3::MakeCallback(&OnQdiscDrop)) &&
           qdisc->TraceConnectWithoutContext("SojournTime", ns3::MakeCallback(&OnCodelSojourn)) &&
           qdisc->TraceConnectWithoutContext("PacketsInQueue", ns3::MakeCallback(&OnQueueLen)) &&
           device->TraceConnectWithoutContext("PhyTxBegin", ns3::MakeCallback(&OnTxBegin));
}
bool Watch(ns3::Ptr<ns3::Node> router, ns3::Ptr<ns3::Queue<ns3::Packet>> queue) {
    drops = 0;
    peak = 0;
    watched = queue;
    enqueued = 0;
    found_bytes = 0;
    return router->GetObject<ns3::TrafficControlLayer>()->TraceConnectWithoutContext(
               "TcDrop", ns3::MakeCallback(&OnDrop)) &&
           queue->TraceConnectWithoutContext("PacketsInQueue", ns3::MakeCallback(&OnQueueLen)) &&
           queue->TraceConnectWithoutContext("Enqueue", ns3::MakeCallback(&OnEnqueue));
}
}
""")

ACCESS_RATE, ACCESS_DELAY = "100Mbps", "1ms"
BOTTLENECK_RATE, BOTTLENECK_DELAY = "10Mbps", "20ms"
BOTTLENECK_QUEUE = "100p"
OTHER_QUEUE = "1000p"  # large enough that nothing but the bottleneck drops
MSS = 1000
SOCKET_BUFFER = 1 << 20
SINK_PORT = 5000
# Defaults of --min-rto-ms and --start-step-ms, as in tcplab's bench scenario files.
MIN_RTO_MS = 200  # ns-3's own default is 1 s
START_STEP_MS = 10  # flow i starts at i * step
INITIAL_CWND = 1  # segments; ns-3's own default is 10
RECOVERY_TYPES = {"classic": "ns3::TcpClassicRecovery", "prr": "ns3::TcpPrrRecovery"}
# --cc: ns-3's congestion control for tcplab's `cc` knob.
SOCKET_TYPES = {"newreno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic"}
QDISCS = ("drop-tail", "codel")
# --qdisc codel: the bottleneck's 100 waiting packets are the queue disc's 99 plus the one
# packet the device queue below it holds (a device queue cannot be empty-sized).
CODEL_DEVICE_QUEUE = "1p"
CODEL_QUEUE = "99p"
# CoDel's floor: no drop while fewer bytes than this are left waiting (ns-3's `MinBytes`,
# default 1500). A data packet is 1040 bytes in the queue disc (IP, before the 2-byte PPP
# header), so with 1500 as with tcplab's largest-packet floor (1042 bytes there), CoDel never
# drops when at most one data packet is left.
CODEL_MIN_BYTES = 1500



def configure_tcp(sack: bool, min_rto_ms: float, initial_cwnd: int, recovery: str,
                  cc: str = "newreno") -> None:
    """Defaults for every TCP socket: set to what tcplab's bench scenarios use.

    tcplab's side is `[tcp] variant = "newreno"` (RFC 6582), mss 1000, 1 MiB receive buffer,
    fine timer, min_rto 200 ms, and the defaults of docs/scenario.md for everything else:
    initial window 1, no delayed ACK, no timestamps, no SACK, no limited transmit, Nagle off,
    40-byte IP + TCP headers, a sender that never gives up on a segment.
    """
    cfg = ns.Config.SetDefault
    cfg("ns3::TcpL4Protocol::SocketType", ns.StringValue(SOCKET_TYPES[cc]))
    if cc == "cubic":
        # tcplab's CUBIC (RFC 9438) has no HyStart++: its first slow start ends with a loss.
        # C 0.4, beta 0.7 and fast convergence are ns-3's defaults and tcplab's.
        cfg("ns3::TcpCubic::HyStart", ns.BooleanValue(False))
    # ns-3's default recovery is PRR with SACK on; classic recovery without SACK is
    # textbook RFC 6582 NewReno, as tcplab's `newreno`. --sack restores ns-3's SACK.
    cfg("ns3::TcpL4Protocol::RecoveryType", ns.StringValue(RECOVERY_TYPES[recovery]))
    cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(sack))
    # RFC 3042 limited transmit is on in ns-3; tcplab has none.
    cfg("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))
    # No timestamp option: data packets are 1000 + 20 TCP + 20 IP (+2 PPP) bytes.
    cfg("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(MSS))
    # ns-3 starts with 10 segments (RFC 6928); tcplab's default is 1.
    cfg("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(initial_cwnd))
    cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))  # ACK every segment
    cfg("ns3::TcpSocket::TcpNoDelay", ns.BooleanValue(True))  # Nagle off, as tcplab's default
    cfg("ns3::TcpSocket::SndBufSize", ns.UintegerValue(SOCKET_BUFFER))
    cfg("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(SOCKET_BUFFER))
    # ns-3 aborts a connection after 6 timeouts of one segment; tcplab keeps backing off
    # (up to max_rto), so a flow starved by a run of timeouts would vanish from ns-3 only.
    cfg("ns3::TcpSocket::DataRetries", ns.UintegerValue(1_000_000))
    cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(min_rto_ms / 1000)))
    # RTO = max(min_rto, srtt + max(G, 4 rttvar)); tcplab's fine timer has no granularity G
    # (ns-3's default is 1 ms), and no timer ticks.
    cfg("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.NanoSeconds(1)))
    # tcplab's initial RTO is 3 s (docs/scenario.md `initial_rto`); ns-3 uses it for the SYN.
    cfg("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(3)))


def install_codel(device: ns.Ptr[ns.NetDevice], codel: Codel) -> ns.Ptr[ns.QueueDisc]:
    """ns-3's CoDelQueueDisc as the root queue disc of `device` (R1's bottleneck side).

    Every attribute is set, even at its default, so the README's table is what runs.
    TrafficControlHelper::SetQueueLimits is not called, so BQL (DynamicQueueLimits) is off.
    """
    cfg = ns.Config.SetDefault
    cfg("ns3::CoDelQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize(CODEL_QUEUE)))
    cfg("ns3::CoDelQueueDisc::Target", ns.TimeValue(ns.MilliSeconds(codel.target_ms)))
    cfg("ns3::CoDelQueueDisc::Interval", ns.TimeValue(ns.MilliSeconds(codel.interval_ms)))
    cfg("ns3::CoDelQueueDisc::MinBytes", ns.UintegerValue(CODEL_MIN_BYTES))
    cfg("ns3::CoDelQueueDisc::UseEcn", ns.BooleanValue(False))
    cfg("ns3::CoDelQueueDisc::UseL4s", ns.BooleanValue(False))
    tch = ns.TrafficControlHelper()
    tch.SetRootQueueDisc("ns3::CoDelQueueDisc")
    return tch.Install(ns.NetDeviceContainer(device)).Get(0)


def jain(xs: list[float]) -> float:
    """Jain's fairness index of the flows' goodputs: 1 when all are equal."""
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq > 0 else 0.0


def p2p_device(dev: ns.Ptr[ns.NetDevice]) -> ns.Ptr[ns.PointToPointNetDevice]:
    # GetObject<T> on an object returns the object itself when it is a T.
    return dev.GetObject[ns.PointToPointNetDevice]()


def codel_figures(qdisc: ns.Ptr[ns.QueueDisc]) -> dict:
    """The queue disc's drops by cause and the bottleneck's waits, after the run."""
    stats = qdisc.GetStats()
    bench = cppyy.gbl.bench
    return {
        "codel": {"target_ms": qdisc.GetTarget().GetSeconds() * 1e3,
                  "interval_ms": qdisc.GetInterval().GetSeconds() * 1e3,
                  "max_size": str(qdisc.GetMaxSize()), "min_bytes": CODEL_MIN_BYTES,
                  "device_queue": CODEL_DEVICE_QUEUE},
        "qdisc_drops_total": int(stats.nTotalDroppedPackets),
        # CoDel's drops at dequeue (TARGET_EXCEEDED_DROP) and the full queue's at enqueue.
        "qdisc_drops_sojourn": int(stats.nTotalDroppedPacketsAfterDequeue),
        "qdisc_drops_overflow": int(stats.nTotalDroppedPacketsBeforeEnqueue),
        "qdisc_marks": int(stats.nTotalMarkedPackets),
        # Arrival at R1's queue disc to the start of transmission: tcplab's sojourn.
        "bottleneck_wait": sojourn_summary(list(bench.wait_ms)),
        # CoDel's own sojourn (arrival to its dequeue, one packet time before transmission
        # under a backlog: the packet then waits in the one-packet device queue).
        "codel_sojourn": sojourn_summary(list(bench.codel_sojourn_ms)),
    }


def run(flows: int, sim_time: float, sack: bool = False,
        min_rto_ms: float = MIN_RTO_MS, start_step_ms: float = START_STEP_MS,
        initial_cwnd: int = INITIAL_CWND, recovery: str = "classic", cc: str = "newreno",
        codel: Codel | None = None) -> dict:
    configure_tcp(sack, min_rto_ms, initial_cwnd, recovery, cc)

    routers, senders, receivers = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    routers.Create(2)
    senders.Create(flows)
    receivers.Create(flows)
    stack = ns.InternetStackHelper()
    for nodes in (routers, senders, receivers):
        stack.Install(nodes)

    link = ns.PointToPointHelper()
    link.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize(OTHER_QUEUE)))
    link.SetDeviceAttribute("DataRate", ns.StringValue(BOTTLENECK_RATE))
    link.SetChannelAttribute("Delay", ns.StringValue(BOTTLENECK_DELAY))
    bottleneck = link.Install(routers.Get(0), routers.Get(1))
    # Only R1's side (data direction R1->R2) gets the 100-packet limit; R2->R1 carries ACKs.
    # Under CoDel the queue disc holds the backlog and the device queue one packet.
    p2p_device(bottleneck.Get(0)).GetQueue().SetMaxSize(
        ns.QueueSize(CODEL_DEVICE_QUEUE if codel else BOTTLENECK_QUEUE))

    link.SetDeviceAttribute("DataRate", ns.StringValue(ACCESS_RATE))
    link.SetChannelAttribute("Delay", ns.StringValue(ACCESS_DELAY))
    addresses = ns.Ipv4AddressHelper()
    addresses.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    all_devices = ns.NetDeviceContainer(bottleneck)
    addresses.Assign(bottleneck)
    receiver_addrs = []
    for i in range(flows):
        addresses.NewNetwork()
        devs = link.Install(senders.Get(i), routers.Get(0))
        addresses.Assign(devs)
        all_devices.Add(devs)
        addresses.NewNetwork()
        devs = link.Install(routers.Get(1), receivers.Get(i))
        receiver_addrs.append(addresses.Assign(devs).GetAddress(1))
        all_devices.Add(devs)
    # Assign() installs a default FqCoDel queue disc in front of every device.
    # Remove them all: the only queues are then the devices' DropTail queues,
    # so the bottleneck buffer is exactly 100 packets (no qdisc + device queue stacking).
    ns.TrafficControlHelper().Uninstall(all_devices)
    qdisc = install_codel(bottleneck.Get(0), codel) if codel else None
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sinks = []
    for i in range(flows):
        sink_helper = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(ns.Ipv4Address.GetAny(), SINK_PORT).ConvertTo())
        sink_app = sink_helper.Install(receivers.Get(i))
        sink_app.Start(ns.Seconds(0.0))
        sinks.append(sink_app.Get(0).GetObject[ns.PacketSink]())

        bulk = ns.BulkSendHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(receiver_addrs[i], SINK_PORT).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))  # 0 = infinite
        bulk.SetAttribute("SendSize", ns.UintegerValue(MSS))
        app = bulk.Install(senders.Get(i))
        app.Start(ns.Seconds(i * start_step_ms / 1000))
        cppyy.gbl.bench.HookSenderAt(i * start_step_ms / 1000, senders.Get(i).GetId())

    bq = p2p_device(bottleneck.Get(0)).GetQueue()
    if not cppyy.gbl.bench.Watch(routers.Get(0), bq):
        raise RuntimeError("could not connect the bottleneck trace probes")
    if qdisc is not None and not cppyy.gbl.bench.WatchQdisc(qdisc, bottleneck.Get(0)):
        raise RuntimeError("could not connect the queue disc's trace probes")
    ns.Simulator.Stop(ns.Seconds(sim_time))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    run_wall = time.perf_counter() - t0

    # Packets forwarded, read from device queue counters after the run, so the timed
    # loop carries no tracing at all (a Python trace callback via cppyy would cost
    # more than the simulation). Every packet a PointToPointNetDevice transmits is
    # enqueued then dequeued, so transmissions = accepted - still queued.
    forwarded = 0
    for k in range(all_devices.GetN()):
        q = p2p_device(all_devices.Get(k)).GetQueue()
        forwarded += q.GetTotalReceivedPackets() - q.GetNPackets()
    flow_goodput = [s.GetTotalRx() * 8 / sim_time for s in sinks]
    goodput_bps = sum(flow_goodput)
    # Share of bottleneck capacity spent transmitting (includes retransmissions).
    bottleneck_bits = (bq.GetTotalReceivedBytes() - bq.GetNBytes()) * 8
    rate_bps = ns.DataRate(BOTTLENECK_RATE).GetBitRate()
    utilization = bottleneck_bits / (rate_bps * sim_time)
    bench = cppyy.gbl.bench
    queue_delay_ms = bench.found_bytes / max(bench.enqueued, 1) * 8 / rate_bps * 1000
    aqm = codel_figures(qdisc) if qdisc is not None else {}
    if qdisc is not None:
        queue_delay_ms = aqm["bottleneck_wait"].get("mean_ms", 0.0)
    ns.Simulator.Destroy()

    return {
        "simulator": "ns-3",
        "version": importlib.metadata.version("ns3"),
        "flows": flows,
        "sack": sack,
        "min_rto_ms": min_rto_ms,
        "start_step_ms": start_step_ms,
        "sim_time_s": sim_time,
        "run_wall_s": round(run_wall, 4),
        "packets_forwarded": forwarded,
        "packets_per_wall_s": round(forwarded / run_wall),
        "initial_cwnd": initial_cwnd,
        "recovery": recovery,
        "bottleneck_goodput_bps": round(goodput_bps),
        "flow_goodput_bps": [round(g) for g in flow_goodput],
        "jain_index": round(jain(flow_goodput), 6),
        "bottleneck_utilization": round(utilization, 4),
        # Sanity: the bottleneck must fill to exactly its limit and drop beyond it.
        "bottleneck_queue_limit": BOTTLENECK_QUEUE,
        "bottleneck_queue_peak": int(cppyy.gbl.bench.peak),
        "bottleneck_drops": int(cppyy.gbl.bench.drops + bq.GetTotalDroppedPackets()
                                + aqm.get("qdisc_drops_total", 0)),
        "bottleneck_queue_delay_ms": round(queue_delay_ms, 3),
        "fast_recoveries": int(cppyy.gbl.bench.recoveries),
        "timeout_sequences": int(cppyy.gbl.bench.rto_entries),
        "recoveries_ending_in_timeout": int(cppyy.gbl.bench.recovery_to_rto),
        "qdisc": "codel" if codel else "drop-tail",
        **aqm,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, default=10)
    ap.add_argument("--sim-time", type=float, default=60.0, help="simulated seconds")
    ap.add_argument("--sack", action="store_true", help="enable SACK (ns-3's default)")
    ap.add_argument("--min-rto-ms", type=float, default=MIN_RTO_MS)
    ap.add_argument("--start-step-ms", type=float, default=START_STEP_MS,
                    help="flow i starts at i * step")
    ap.add_argument("--initial-cwnd", type=int, default=INITIAL_CWND,
                    help="segments (ns-3's own default is 10)")
    ap.add_argument("--recovery", choices=sorted(RECOVERY_TYPES), default="classic",
                    help="fast recovery: classic (RFC 6582 NewReno, as tcplab) or prr (ns-3's default)")
    ap.add_argument("--cc", choices=sorted(SOCKET_TYPES), default="newreno",
                    help="congestion control (tcplab's `cc`)")
    ap.add_argument("--qdisc", choices=QDISCS, default="drop-tail",
                    help="the bottleneck's queue: the device's drop-tail, or a CoDelQueueDisc")
    ap.add_argument("--codel-target-ms", type=float, default=Codel.target_ms)
    ap.add_argument("--codel-interval-ms", type=float, default=Codel.interval_ms)
    args = ap.parse_args()
    if not 1 <= args.flows <= 127:  # two /24 per flow from 10.0.1.0 upwards
        ap.error("--flows must be in 1..127")
    codel = Codel(args.codel_target_ms, args.codel_interval_ms) if args.qdisc == "codel" else None
    print(json.dumps(run(args.flows, args.sim_time, args.sack, args.min_rto_ms,
                         args.start_step_ms, args.initial_cwnd, args.recovery, args.cc, codel)))


if __name__ == "__main__":
    main()
