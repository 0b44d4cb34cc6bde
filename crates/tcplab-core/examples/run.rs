//! Run a scenario file and print the report's headline numbers (for profiling the core
//! without Python: `cargo run --profile profiling --example run -- FILE.toml`).

fn main() {
    let path = std::env::args().nth(1).expect("usage: run FILE.toml");
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    match tcplab_core::run_scenario(&text, &tcplab_core::RunOptions::default()) {
        Ok((r, _)) => println!(
            "{} events ({} through the queue) in {:.3} s: {:.1} M events/s, {} packets, {} injected, loop {:.1} us",
            r.events,
            r.queued_events,
            r.wall_s,
            r.events as f64 / r.wall_s / 1e6,
            r.packets_forwarded,
            r.conservation.injected,
            r.wall_s * 1e6
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
