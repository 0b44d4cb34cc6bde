//! Applications: components that write bytes into TCP flows' send buffers and learn when
//! bytes reach the far end, with timers and a random stream of their own.
//!
//! An application owns one or more flows, each known to it by a port number (its index in
//! the application's flow list). The simulation calls it when its timer is due and when bytes
//! are delivered in order at a flow's receiving end; the application answers by listing
//! writes in an [`AppIo`], which the simulation hands to the flows' senders.
//!
//! The applications form a closed enum ([`App`]), so calls are static. Flows given by a
//! scenario's `[[flow]]` table (bulk, or a fixed number of bytes) keep their own path in the
//! sender and do not go through here: moving them would add a call per delivered packet to
//! the benchmark scenarios for no change in behaviour.

pub mod www;

use crate::atm::drop::CellDropper;
use crate::time::Time;
use www::{WwwPairModel, WwwStreams};

/// What an application asks for during one call.
#[derive(Debug, Default)]
pub struct AppIo {
    /// (port, bytes) written, in order.
    pub writes: Vec<(u8, u64)>,
}

/// A running application.
#[derive(Debug)]
pub enum App {
    Www(Box<www::WwwPair>),
}

impl App {
    /// The flows this application drives, by port.
    pub fn flows(&self) -> &[u32] {
        match self {
            App::Www(w) => &w.flows,
        }
    }

    pub fn start(&mut self, now: Time, io: &mut AppIo) {
        match self {
            App::Www(w) => w.start(now, io),
        }
    }

    /// `delivered` bytes in all have reached the receiving end of port `port`'s flow.
    pub fn on_delivered(&mut self, now: Time, port: u8, delivered: u64, io: &mut AppIo) {
        match self {
            App::Www(w) => w.on_delivered(now, port, delivered, io),
        }
    }

    /// Called at or after `next_timer()`.
    pub fn on_timer(&mut self, now: Time, io: &mut AppIo) {
        match self {
            App::Www(w) => w.on_timer(now, io),
        }
    }

    pub fn next_timer(&self) -> Option<Time> {
        match self {
            App::Www(w) => w.next_timer(),
        }
    }
}

/// The applications of a run, as the simulation sees them.
#[derive(Debug, Default)]
pub struct Apps {
    apps: Vec<App>,
    /// Per application: the time of its earliest timer event in the queue.
    pending: Vec<Option<Time>>,
    idle_restart: Vec<bool>,
    /// Writes of the call in progress.
    pub io: AppIo,
}

impl Apps {
    /// The WWW pairs of a run seeded with `seed`, each with random streams of its own.
    pub fn new(pairs: &[WwwPairModel], seed: u64) -> Self {
        let apps: Vec<App> = pairs
            .iter()
            .enumerate()
            .map(|(i, p)| App::Www(Box::new(www::WwwPair::new(p.cfg, p.flows, WwwStreams::new(seed, i as u64)))))
            .collect();
        Self {
            pending: vec![None; apps.len()],
            idle_restart: pairs.iter().map(|p| p.cfg.idle_restart).collect(),
            apps,
            io: AppIo::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.apps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.apps.is_empty()
    }

    pub fn start(&mut self, a: u32, now: Time) {
        self.apps[a as usize].start(now, &mut self.io);
    }

    pub fn delivered(&mut self, a: u32, port: u8, now: Time, delivered: u64) {
        self.apps[a as usize].on_delivered(now, port, delivered, &mut self.io);
    }

    /// A timer event of application `a` fired at `now`.
    pub fn timer_fired(&mut self, a: u32, now: Time) -> bool {
        let i = a as usize;
        if self.pending[i] == Some(now) {
            self.pending[i] = None;
        }
        if self.apps[i].next_timer().is_some_and(|t| t <= now) {
            self.apps[i].on_timer(now, &mut self.io);
        }
        true
    }

    /// The time to queue a timer event for, unless an earlier one is queued already.
    pub fn timer_to_queue(&mut self, a: u32) -> Option<Time> {
        let i = a as usize;
        let d = self.apps[i].next_timer()?;
        if self.pending[i].is_none_or(|p| d < p) {
            self.pending[i] = Some(d);
            return Some(d);
        }
        None
    }

    /// Each application's flows with the time they open: the application's first activity
    /// (a WWW client's first batch, when the client opens its connection). Asked before the
    /// run starts.
    pub fn flow_opens(&self) -> Vec<(u32, Time)> {
        let first = |app: &App| match app {
            App::Www(w) => w.first_batch(),
        };
        self.apps.iter().flat_map(|a| a.flows().iter().map(move |&f| (f, first(a)))).collect()
    }

    pub fn flow(&self, a: u32, port: u8) -> u32 {
        self.apps[a as usize].flows()[port as usize]
    }

    pub fn idle_restart(&self, a: u32) -> bool {
        self.idle_restart[a as usize]
    }

    /// The pairs' reports after a run of `secs` seconds; `ends(flow)` names a flow's source
    /// and destination nodes.
    pub fn www_reports(&self, secs: f64, ends: impl Fn(u32) -> (String, String)) -> Vec<www::WwwReport> {
        self.apps
            .iter()
            .enumerate()
            .map(|(i, App::Www(w))| {
                let (client, server) = ends(w.flows[0]);
                www::WwwReport::new(i as u32, client, server, w, secs)
            })
            .collect()
    }
}

/// Per flow of `flows`: the application driving it and its port there (`u32::MAX`: none).
pub fn flow_owners(pairs: &[WwwPairModel], flows: usize) -> Vec<(u32, u8)> {
    let mut owners = vec![(u32::MAX, 0u8); flows];
    for (a, p) in pairs.iter().enumerate() {
        for (port, &f) in p.flows.iter().enumerate() {
            owners[f as usize] = (a as u32, port as u8);
        }
    }
    owners
}

/// Make the two one-way flows of each WWW pair share the pair's two VCs, one per direction
/// of travel: the request flow's data and the response flow's ACKs go client to server, the
/// response flow's data and the request flow's ACKs server to client.
pub fn share_vcs(dropper: CellDropper, pairs: &[WwwPairModel], flows: usize) -> CellDropper {
    match shared_vc_map(pairs, flows) {
        Some(map) => dropper.with_shared_vcs(map),
        None => dropper,
    }
}

/// Per flow direction (`vc_of`): the VC it is accounted on; None when no flows share.
fn shared_vc_map(pairs: &[WwwPairModel], flows: usize) -> Option<Vec<u32>> {
    if pairs.is_empty() {
        return None;
    }
    let mut map: Vec<u32> = (0..2 * flows as u32).collect();
    for p in pairs {
        let [rq, rs] = p.flows;
        map[2 * rs as usize + 1] = 2 * rq; // response ACKs: client to server
        map[2 * rq as usize + 1] = 2 * rs; // request ACKs: server to client
    }
    Some(map)
}

#[cfg(test)]
mod tests {
    use crate::packet::{flags, Dir};
    use crate::tcp::{TcpConfig, TcpSender};
    use crate::time::{Time, MS, SEC};

    /// A sender the application writes into, with ISNs 0 on both sides.
    fn sender() -> TcpSender {
        let cfg = TcpConfig { mss: 1000, rcv_buf: 1 << 20, ..TcpConfig::default() };
        let mut s = TcpSender::new(cfg, 0, 0, Some(0), 0, false);
        s.open(0);
        s
    }

    /// Send what the window allows at `t` and acknowledge each segment 10 ms later; returns
    /// the number of segments.
    fn round(s: &mut TcpSender, t: Time) -> usize {
        let ends: Vec<u64> =
            std::iter::from_fn(|| s.poll_transmit(t)).map(|p| p.seq as u64 - 1 + p.payload as u64).collect();
        for &end in &ends {
            let mut ack = crate::packet::test_packet();
            ack.dir = Dir::Reverse;
            ack.payload = 0;
            ack.flags = flags::ACK;
            ack.wnd = 1 << 20;
            ack.ack = (end as u32).wrapping_add(1);
            s.on_packet(t + 10 * MS, &ack);
        }
        ends.len()
    }

    /// Two responses on one connection, 5 s apart (far more than an RTO of idle).
    fn second_response_window(idle_restart: bool) -> (u64, u64, usize) {
        let mut s = sender();
        s.app_write(0, 20_000, idle_restart);
        let mut t = 0;
        while s.snd_una() < 20_000 {
            round(&mut s, t);
            t += 20 * MS;
        }
        let grown = s.window().cwnd;
        s.app_write(5 * SEC, 100_000, idle_restart);
        let first_flight = round(&mut s, 5 * SEC);
        (grown, s.window().cwnd, first_flight)
    }

    #[test]
    fn a_persistent_connection_keeps_its_window_across_responses() {
        let (grown, _, first_flight) = second_response_window(false);
        assert!(grown >= 8_000, "slow start grew the window to {grown}");
        // The second response starts with the window the first one ended with.
        assert_eq!(first_flight as u64, grown / 1000);
    }

    #[test]
    fn rfc2581_restart_starts_an_idle_connection_from_the_initial_window() {
        let (grown, _, first_flight) = second_response_window(true);
        assert!(grown >= 8_000);
        assert_eq!(first_flight, 1, "one segment: the initial window");
    }

    #[test]
    fn a_pairs_flows_share_one_vc_per_direction_of_travel() {
        let text = "duration = 1\nnodes = [\"a\", \"b\", \"c\", \"s\"]\n\
                    [[link]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\n\
                    [[link]]\na = \"c\"\nb = \"s\"\nrate = \"1Mbps\"\n\
                    [[flow]]\nsrc = \"a\"\ndst = \"b\"\n\
                    [[www.pair]]\nclient = \"c\"\nserver = \"s\"\n";
        let model = crate::config::parse(text).unwrap().validate(None).unwrap();
        assert_eq!(model.www[0].flows, [1, 2]);
        let map = super::shared_vc_map(&model.www, model.flows.len()).unwrap();
        // Flow 0 (not a pair's) keeps its own VCs 0 and 1. Request flow 1: data c->s is VC 2,
        // its ACKs s->c ride the response's data VC 4; response flow 2: data s->c is VC 4,
        // its ACKs c->s ride the request's data VC 2.
        assert_eq!(map, vec![0, 1, 2, 4, 4, 2]);
    }

    #[test]
    fn a_write_without_idle_time_keeps_the_window_even_with_restart() {
        let mut s = sender();
        s.app_write(0, 20_000, true);
        let mut t = 0;
        while s.snd_una() < 20_000 {
            round(&mut s, t);
            t += 20 * MS;
        }
        let grown = s.window().cwnd;
        s.app_write(t, 20_000, true);
        assert_eq!(s.window().cwnd, grown);
    }
}
