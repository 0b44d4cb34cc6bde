//! Static shortest-path routes (fewest hops; ties go to the link listed first), and whether
//! any route exists.
//!
//! Routes are computed once per flow and carried as a position in a flat arena of channel
//! indices, so forwarding a packet is an array read, not a table lookup (htsim's source routes).

use std::collections::{HashMap, VecDeque};

/// Marks the end of a route in the arena: the packet has reached its destination host.
pub const END: u32 = u32::MAX;

/// Adjacency: for each node, its outgoing channels as (channel index, neighbour node).
pub struct Graph {
    pub out: Vec<Vec<(u32, u32)>>,
}

impl Graph {
    /// Channels from `src` to `dst` by BFS, or None if `dst` is unreachable.
    pub fn path(&self, src: u32, dst: u32) -> Option<Vec<u32>> {
        if src == dst {
            return Some(Vec::new());
        }
        let n = self.out.len();
        let mut via: Vec<Option<(u32, u32)>> = vec![None; n]; // (previous node, channel)
        let mut seen = vec![false; n];
        let mut q = VecDeque::from([src]);
        seen[src as usize] = true;
        while let Some(u) = q.pop_front() {
            for &(ch, v) in &self.out[u as usize] {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    via[v as usize] = Some((u, ch));
                    if v == dst {
                        let mut path = Vec::new();
                        let mut cur = dst;
                        while let Some((prev, ch)) = via[cur as usize] {
                            path.push(ch);
                            cur = prev;
                        }
                        path.reverse();
                        return Some(path);
                    }
                    q.push_back(v);
                }
            }
        }
        None
    }
}

/// All routes of a run, back to back, each terminated by `END`.
#[derive(Debug, Default)]
pub struct RouteArena {
    pub hops: Vec<u32>,
}

impl RouteArena {
    /// Store a route; returns its starting position.
    pub fn add(&mut self, path: &[u32]) -> u32 {
        let start = self.hops.len() as u32;
        self.hops.extend_from_slice(path);
        self.hops.push(END);
        start
    }
}
/// Where a packet goes when it leaves the channel it is in: the next channel of its route, or
/// its flow's end (the route's last hop reaches the destination host). Known when the packet
/// enters the channel and carried beside its id through the queue, the transmitter and the
/// pipe (4 bytes), so that an arrival learns from its channel's own line which record it will
/// read next, the next channel's or the flow's TCP state, and starts loading it while the
/// packet's own record is still on its way from memory (issue 26). The top bit marks a
/// delivery, the next one its direction: a run has fewer than 2^30 flows and 2^31 channels,
/// because the memory budget refuses a model far smaller (a flow's state alone is 0.8 kB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Onward(u32);

/// An `Onward`, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Offer the packet to this channel.
    Hop(u32),
    /// Hand the packet to this flow's receiver (`reverse` false) or sender (`reverse` true).
    Deliver { flow: u32, reverse: bool },
}

impl Onward {
    const DELIVER: u32 = 1 << 31;
    const REVERSE: u32 = 1 << 30;
    /// Nowhere: the slot of an idle transmitter or an empty pipe.
    pub const NONE: Onward = Onward(0);

    /// Where a packet goes after the channel at route position `pos - 1`: `hops[pos]`, or
    /// flow `flow`'s end in direction `reverse` when the route ends there.
    #[inline]
    pub fn after(hops: &[u32], pos: u32, flow: u32, reverse: bool) -> Onward {
        Self::of_hop(hops[pos as usize], flow, reverse)
    }

    /// `after`, without a bounds check: read at every offer (issue 26).
    ///
    /// # Safety
    /// `hops[pos - 1]` is a channel, not `END`, and `hops` is a `RouteArena`'s: every route
    /// there is followed by its `END` (`RouteArena::add`), so a channel's position is not the
    /// last and `pos < hops.len()`.
    #[inline]
    pub unsafe fn after_unchecked(hops: &[u32], pos: u32, flow: u32, reverse: bool) -> Onward {
        debug_assert!(pos >= 1 && hops[pos as usize - 1] != END && hops.last() == Some(&END));
        // SAFETY: `pos < hops.len()`, as above.
        Self::of_hop(unsafe { *hops.get_unchecked(pos as usize) }, flow, reverse)
    }

    /// Where a packet of flow `flow` in direction `reverse` goes when its route's next entry
    /// is `hop`.
    #[inline(always)]
    fn of_hop(hop: u32, flow: u32, reverse: bool) -> Onward {
        match hop {
            END => {
                debug_assert!(flow < Self::REVERSE, "flow {flow} beyond 2^30");
                Onward(Self::DELIVER | (reverse as u32 * Self::REVERSE) | flow)
            }
            c => {
                debug_assert!(c < Self::DELIVER, "channel {c} beyond 2^31");
                Onward(c)
            }
        }
    }

    #[inline]
    pub fn step(self) -> Step {
        if self.0 & Self::DELIVER == 0 {
            Step::Hop(self.0)
        } else {
            Step::Deliver { flow: self.0 & (Self::REVERSE - 1), reverse: self.0 & Self::REVERSE != 0 }
        }
    }

    /// A made-up value, for a channel's unit tests.
    #[cfg(test)]
    pub(crate) fn for_test(c: u32) -> Self {
        Onward(c)
    }
}

/// Route finding with the leaf-host shortcut: a host with one link can only leave through
/// it, so routes between hosts reduce to routes between their routers, which are cached.
/// This keeps set-up linear in the number of flows on dumbbells of thousands of hosts.
pub struct Routes {
    graph: Graph,
    /// The one (channel, neighbour) of a node with a single outgoing channel.
    uplink: Vec<Option<(u32, u32)>>,
    /// Channel from a to b, for the last hop into a leaf.
    channel_between: HashMap<(u32, u32), u32>,
    /// Router-to-router paths found so far (None: unreachable).
    cache: HashMap<(u32, u32), Option<Vec<u32>>>,
}

impl Routes {
    /// The routes over `channels`, given as (from, to) nodes, among `nodes` nodes.
    pub fn new(nodes: usize, channels: impl Iterator<Item = (u32, u32)>) -> Self {
        let mut out = vec![Vec::new(); nodes];
        let mut channel_between = HashMap::new();
        for (i, (from, to)) in channels.enumerate() {
            out[from as usize].push((i as u32, to));
            channel_between.entry((from, to)).or_insert(i as u32);
        }
        let uplink = out.iter().map(|o| if o.len() == 1 { Some(o[0]) } else { None }).collect();
        Self { graph: Graph { out }, uplink, channel_between, cache: Default::default() }
    }

    /// The channels from `src` to `dst` (fewest hops), or None if `dst` is unreachable.
    pub fn path(&mut self, src: u32, dst: u32) -> Option<Vec<u32>> {
        let mut head = Vec::new();
        let mut tail = Vec::new();
        let (mut a, mut b) = (src, dst);
        if let Some((ch, next)) = self.uplink[a as usize] {
            if next == b {
                return Some(vec![ch]);
            }
            head.push(ch);
            a = next;
        }
        if let Some((_, prev)) = self.uplink[b as usize] {
            if prev != a {
                tail.push(*self.channel_between.get(&(prev, b))?);
                b = prev;
            } else {
                return Some([head, vec![*self.channel_between.get(&(a, b))?]].concat());
            }
        }
        let graph = &self.graph;
        let mid = self.cache.entry((a, b)).or_insert_with(|| graph.path(a, b)).clone()?;
        Some([head, mid, tail].concat())
    }
}

/// The hops of every route a run stores (each flow's both ways, with their `END` marks), for
/// the memory estimate, without storing any. With `Routes`' leaf-host shortcut, a route
/// between hosts is a route between their routers plus the hosts' own links, so there is one
/// breadth-first search per distinct router a route leaves from (a dumbbell of 10^5 hosts
/// needs two, not 2 x 10^5), taken in order so that one distance table is alive at a time.
/// Stops, returning what it has counted scaled to every route, once the count passes
/// `stop_above` (the estimate is refused then anyway, and a chain of 20,000 nodes and 20,000
/// flows would cost a search per flow).
pub fn total_hops(
    nodes: usize,
    channels: impl Iterator<Item = (u32, u32)>,
    ends: &[(u32, u32)],
    stop_above: u64,
) -> u64 {
    let mut out = vec![Vec::new(); nodes];
    for (from, to) in channels {
        out[from as usize].push(to);
    }
    let uplink: Vec<Option<u32>> = out.iter().map(|o| if o.len() == 1 { Some(o[0]) } else { None }).collect();
    let mut legs: Vec<Leg> =
        ends.iter().flat_map(|&(a, b)| [Leg::between(&uplink, a, b), Leg::between(&uplink, b, a)]).collect();
    legs.sort_unstable_by_key(|leg| (leg.from, leg.to));
    let mut dist = vec![u32::MAX; nodes];
    let mut queue = VecDeque::new();
    let mut source = None;
    let mut total = 0u64;
    let count = legs.len() as u64;
    for (done, leg) in legs.into_iter().enumerate() {
        let mid = match leg.from {
            Some(src) => {
                if source != Some(src) {
                    source = Some(src);
                    distances(&out, src, &mut dist, &mut queue);
                }
                // Unreachable pairs were refused by validation; count them as empty.
                dist[leg.to as usize].min(nodes as u32)
            }
            None => 0,
        };
        total += u64::from(leg.edge_hops + mid) + 1;
        if total > stop_above {
            // The rest at the mean so far: the refusal's figure stays an estimate of the whole.
            return total.saturating_mul(count) / (done as u64 + 1);
        }
    }
    total
}

/// One route as `Routes::path` finds it: the hosts' own links (`edge_hops`) and, unless the
/// hosts' links meet, a search between routers (`from` to `to`).
struct Leg {
    from: Option<u32>,
    to: u32,
    edge_hops: u32,
}

impl Leg {
    fn between(uplink: &[Option<u32>], src: u32, dst: u32) -> Self {
        let (mut a, mut b, mut edge_hops) = (src, dst, 0);
        if let Some(next) = uplink[a as usize] {
            if next == b {
                return Self { from: None, to: b, edge_hops: 1 };
            }
            edge_hops += 1;
            a = next;
        }
        if let Some(prev) = uplink[b as usize] {
            if prev == a {
                return Self { from: None, to: b, edge_hops: edge_hops + 1 };
            }
            edge_hops += 1;
            b = prev;
        }
        Self { from: Some(a), to: b, edge_hops }
    }
}

fn distances(out: &[Vec<u32>], src: u32, dist: &mut [u32], queue: &mut VecDeque<u32>) {
    dist.fill(u32::MAX);
    dist[src as usize] = 0;
    queue.clear();
    queue.push_back(src);
    while let Some(u) = queue.pop_front() {
        for &v in &out[u as usize] {
            if dist[v as usize] == u32::MAX {
                dist[v as usize] = dist[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
}

/// Which nodes links join, directly or not: every link runs both ways, so a route exists
/// between two nodes exactly when they are in one part (union-find, for checking a scenario's
/// routes without finding them).
pub struct Reach {
    parent: Vec<u32>,
}

impl Reach {
    /// The parts of `nodes` nodes joined by `links` (pairs of nodes).
    pub fn new(nodes: usize, links: impl Iterator<Item = (u32, u32)>) -> Self {
        let mut r = Self { parent: (0..nodes as u32).collect() };
        for (a, b) in links {
            let (ra, rb) = (r.root(a), r.root(b));
            r.parent[ra as usize] = rb;
        }
        r
    }

    fn root(&mut self, mut n: u32) -> u32 {
        while self.parent[n as usize] != n {
            let up = self.parent[self.parent[n as usize] as usize];
            self.parent[n as usize] = up;
            n = up;
        }
        n
    }

    pub fn joined(&mut self, a: u32, b: u32) -> bool {
        self.root(a) == self.root(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onward_reads_back_the_next_hop_or_the_flow_and_direction_to_deliver_to() {
        let mut arena = RouteArena::default();
        let r = arena.add(&[5, 9]);
        assert_eq!(Onward::after(&arena.hops, r + 1, 7, false).step(), Step::Hop(9));
        assert_eq!(Onward::after(&arena.hops, r + 2, 7, false).step(), Step::Deliver { flow: 7, reverse: false });
        let last = (1 << 30) - 1;
        assert_eq!(Onward::after(&arena.hops, r + 2, last, true).step(), Step::Deliver { flow: last, reverse: true });
        assert_eq!(Onward::after(&[(1 << 31) - 1], 0, 0, true).step(), Step::Hop((1 << 31) - 1));
    }

    #[test]
    fn after_unchecked_is_after_at_every_channel_of_every_route() {
        let mut arena = RouteArena::default();
        for route in [&[3][..], &[], &[5, 9, 2], &[0, 1]] {
            arena.add(route);
        }
        for (pos, &hop) in arena.hops.iter().enumerate() {
            if hop == END {
                continue;
            }
            let next = pos as u32 + 1;
            for (flow, reverse) in [(0, false), (7, true), ((1 << 30) - 1, false)] {
                // SAFETY: `hops[next - 1]` is a channel of an arena's route.
                let fast = unsafe { Onward::after_unchecked(&arena.hops, next, flow, reverse) };
                assert_eq!(fast, Onward::after(&arena.hops, next, flow, reverse));
            }
        }
    }

    #[test]
    fn bfs_finds_fewest_hops_and_ties_go_to_first_listed() {
        // 0 -> 1 -> 3 and 0 -> 2 -> 3, plus a long way 0 -> 4 -> 5 -> 3.
        let g = Graph {
            out: vec![vec![(0, 1), (1, 2), (6, 4)], vec![(2, 3)], vec![(3, 3)], vec![], vec![(7, 5)], vec![(8, 3)]],
        };
        assert_eq!(g.path(0, 3), Some(vec![0, 2]));
        assert_eq!(g.path(3, 0), None);
        assert_eq!(g.path(2, 2), Some(vec![]));
    }

    #[test]
    fn reach_and_routes_agree_on_a_two_way_network() {
        // Two parts: 0-1-2 (a line) and 3-4; each link gives two channels.
        let links = [(0, 1), (1, 2), (3, 4)];
        let channels = links.iter().flat_map(|&(a, b)| [(a, b), (b, a)]);
        let mut routes = Routes::new(5, channels);
        let mut reach = Reach::new(5, links.into_iter());
        for a in 0..5 {
            for b in 0..5 {
                assert_eq!(routes.path(a, b).is_some(), reach.joined(a, b), "{a} {b}");
            }
        }
        assert_eq!(routes.path(0, 2), Some(vec![0, 2]));
        // 0-2 and back: 2 hops each way, each with its END.
        let channels = || links.iter().flat_map(|&(a, b)| [(a, b), (b, a)]);
        assert_eq!(total_hops(5, channels(), &[(0, 2), (3, 4)], u64::MAX), 3 + 3 + 2 + 2);
        // Stopped after the first route (3 hops): the 4 routes at that mean.
        assert_eq!(total_hops(5, channels(), &[(0, 2), (3, 4)], 2), 12);
    }

    /// A two-way network of `links`, as channels.
    fn two_way(links: &[(u32, u32)]) -> Vec<(u32, u32)> {
        links.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect()
    }

    #[test]
    fn total_hops_counts_the_routes_routes_finds() {
        // A dumbbell (routers 0-1, hosts 2..5 on 0 and 6..9 on 1), a chain 1-10-11-12 with a
        // host 13 on 12, a triangle 11-14-15-11 and a host 16 hanging off host-free router 14.
        let mut links = vec![(0, 1), (1, 10), (10, 11), (11, 12), (12, 13), (11, 14), (14, 15), (15, 11), (14, 16)];
        links.extend((2..6).map(|h| (h, 0)));
        links.extend((6..10).map(|h| (1, h)));
        let channels = two_way(&links);
        let mut routes = Routes::new(17, channels.iter().copied());
        let mut ends = Vec::new();
        let mut expected = 0u64;
        for a in 0..17u32 {
            for b in (0..17u32).filter(|&b| b != a) {
                ends.push((a, b));
                expected += (routes.path(a, b).unwrap().len() + 1 + routes.path(b, a).unwrap().len() + 1) as u64;
            }
        }
        assert_eq!(total_hops(17, channels.iter().copied(), &ends, u64::MAX), expected);
    }

    #[test]
    fn total_hops_of_a_hundred_thousand_host_dumbbell_searches_between_routers_only() {
        // 2 x 10^5 leaves: a search per source would be 4 x 10^10 steps (minutes); this is two.
        let hosts = 100_000u32;
        let mut links = vec![(0, 1)];
        links.extend((0..hosts).map(|i| (2 + i, 0)));
        links.extend((0..hosts).map(|i| (1, 2 + hosts + i)));
        let ends: Vec<(u32, u32)> = (0..hosts).map(|i| (2 + i, 2 + hosts + i)).collect();
        let started = std::time::Instant::now();
        let total = total_hops(2 + 2 * hosts as usize, two_way(&links).into_iter(), &ends, u64::MAX);
        assert_eq!(total, u64::from(hosts) * 2 * (3 + 1));
        assert!(started.elapsed().as_secs_f64() < 5.0, "{:?}", started.elapsed());
    }
}
