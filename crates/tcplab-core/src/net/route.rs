//! Static shortest-path routes (fewest hops; ties go to the link listed first).
//!
//! Routes are computed once per flow and carried as a position in a flat arena of channel
//! indices, so forwarding a packet is an array read, not a table lookup (htsim's source routes).

use std::collections::VecDeque;

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
}
