//! tcplab-core: a deterministic packet-level network simulator for TCP studies.
//!
//! The crate knows nothing about studies or Python. A [`config::Scenario`] (parsed from TOML)
//! is validated into a [`config::Model`], from which a [`sim::Simulation`] is built; it runs to
//! completion and yields a [`metrics::RunReport`]. Time is an integer count of nanoseconds;
//! equal-time events fire in insertion order, so one scenario and seed always give the same
//! bytes out.

pub mod app;
pub mod atm;
pub mod budget;
pub mod cache;
pub mod config;
pub mod csv;
pub mod engine;
pub mod error;
pub mod interrupt;
pub mod mem_limit;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod pcap;
pub mod rng;
pub mod sim;
pub mod tcp;
pub mod test_hooks;
pub mod time;
pub mod trace_budget;
pub mod trace_stream;
pub mod udp;
pub mod units;

pub use config::Scenario;
pub use error::{Error, ScenarioError};
pub use sim::{check_scenario, run_scenario, run_scenario_limited, run_scenario_until, RunOptions, Stop};
