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
    }
}
