//! Error messages in the user's terms: TOML values rather than Rust types, the bound actually
//! broken, no test-only fields, and a pointer to `tcplab sweep` for a sweep spec (a probe of
//! the messages, round 57).

use tcplab_core::{run_scenario, Error, RunOptions};

/// "field: message" for a scenario that must be refused.
fn refused(text: &str) -> String {
    match run_scenario(text, &RunOptions::default()) {
        Err(Error::Scenario(e)) => format!("{}: {}", e.field, e.message),
        Err(e) => panic!("expected a scenario error, got {e}"),
        Ok(_) => panic!("expected a scenario error, the run succeeded"),
    }
}

const BASE: &str = r#"
duration = "1s"
nodes = ["a", "b"]
[[flow]]
src = "a"
dst = "b"
[[link]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "1ms"
"#;

#[test]
fn a_wrong_type_names_the_toml_value_wanted() {
    let m = refused(&format!("{BASE}[tcp]\nmss = \"1460\"\n"));
    assert_eq!(m, "tcp.mss: expected an integer, got the string \"1460\" (write numbers without quotes) (line 13)");
    let m = refused(&format!("seed = -1\n{BASE}"));
    assert_eq!(m, "seed: expected a non-negative integer, got the integer -1 (line 1)");
    let m = refused(&BASE.replace("nodes = [\"a\", \"b\"]", "nodes = 3"));
    assert!(m.starts_with("nodes: expected a list ([...]), got the integer 3"), "{m}");
    for rust in ["i64", "u64", "invalid type", "invalid value"] {
        assert!(!refused(&format!("seed = 1.5\n{BASE}")).contains(rust), "{rust}");
    }
}

#[test]
fn counts_past_2_to_the_32_name_the_upper_bound() {
    let m = refused(&format!("{BASE}queue = 4294967296\n"));
    assert_eq!(m, "link[0].queue: must be at most 4294967295 (got 4294967296)");
    let m = refused(&format!("{BASE}[tcp]\nmss = 99999999999\n"));
    assert_eq!(m, "tcp.mss: must fit an IPv4 packet: at most 65495 bytes (got 99999999999)");
}

#[test]
fn unknown_fields_do_not_list_the_test_hook() {
    let m = refused(&format!("colour = 1\n{BASE}"));
    assert!(m.starts_with("colour: unknown field `colour`, expected one of `name`"), "{m}");
    assert!(!m.contains("_test_corrupt"), "{m}");
}

#[test]
fn a_sweep_spec_given_to_run_says_so() {
    let spec = "name = \"s\"\nbase = \"x.toml\"\nreplications = 2\n[factors]\n\"tcp.mss\" = [500]\n";
    let m = refused(spec);
    assert_eq!(
        m,
        "base: unknown field `base`: this file looks like a sweep spec, not a scenario (run it with `tcplab \
         sweep`) (line 2)"
    );
    // The same key inside a table is only unknown there.
    let m = refused(&format!("{BASE}[tcp]\nbase = 1\n"));
    assert!(m.starts_with("tcp.base: unknown field `base`, expected one of") && !m.contains("sweep"), "{m}");
}

#[test]
fn a_huge_rate_is_shown_with_a_few_digits() {
    let m = refused(&BASE.replace("\"10Mbps\"", "\"1e30Gbps\""));
    assert_eq!(m, "link[0].rate: rate must be at most 1e15 b/s (1 Pb/s), got 1e39 b/s");
}
