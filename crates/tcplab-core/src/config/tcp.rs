//! A flow's TCP settings: the `[tcp]` table (every flow), a flow's `tcp`, `[www.tcp]`. The
//! fields are the knob list's (`tcp::knobs`), each read by the reader it names
//! (`config::tcp_read`); what a table leaves unset takes its stack's default.

use serde::Deserialize;

// The knob list names these readers, and its types are in `names`.
use super::tcp_read::*;
use super::value::err;
use crate::error::ScenarioError;
use crate::tcp::config::{KnobValues, TcpConfig, TcpKnobs};
use crate::tcp::knobs::names::*;
use crate::tcp::knobs::tcp_knobs;
use crate::tcp::stack::Stack;

/// Builds, from the knob list: `TcpSpec` (a field per knob, in the list's order), its merging
/// and reading, and the rows of the docs' knob table.
macro_rules! spec_from_knobs {
    (
        derived $derived:tt
        knobs { $($knob:ident => $field:tt: $ty:ty, $read:ty, $unit:literal, $defaults:tt, $doc:literal;)* }
    ) => {
        /// TCP knobs; every field is optional and falls back to the scenario's `[tcp]`, then to
        /// the stack's default.
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields, expecting = "a table of TCP settings (variant, mss, ...)")]
        pub struct TcpSpec {
            /// "tcplab" (default), "bsd44", "ns2" or "ns1": the preset the other knobs override.
            pub stack: Option<String>,
            $(#[doc = $doc] pub $knob: Option<<$read as Reader>::Raw>,)*
        }

        impl TcpSpec {
            /// Fields set in `over` win over those set in `self`.
            pub fn merged(&self, over: &TcpSpec) -> TcpSpec {
                TcpSpec {
                    stack: over.stack.clone().or_else(|| self.stack.clone()),
                    $($knob: over.$knob.clone().or_else(|| self.$knob.clone()),)*
                }
            }

            /// The knobs set here, each read and checked; `f` names this table.
            fn knobs(&self, f: &str) -> Result<TcpKnobs, ScenarioError> {
                Ok(TcpKnobs { $($knob: read::<$read>(f, stringify!($knob), &self.$knob)?,)* })
            }
        }

        /// A row per knob: name, type, default under each stack (in `Stack::ALL`'s order),
        /// meaning.
        fn knob_rows() -> Vec<KnobRow> {
            let v = Stack::ALL.map(|s| s.knob_values(&TcpKnobs::default()));
            vec![$(KnobRow {
                name: stringify!($knob),
                kind: type_cell(<$read as Reader>::doc(), $unit),
                defaults: v.iter().map(|v| <$read as Reader>::show(&v.$knob)).collect(),
                meaning: $doc,
            },)*]
        }
    };
}

tcp_knobs!(spec_from_knobs);

impl TcpSpec {
    /// The stack this table names (tcplab when unset); `f` names this table in errors.
    pub fn stack(&self, f: &str) -> Result<Stack, ScenarioError> {
        Ok(read::<Names<Stack>>(f, "stack", &self.stack)?.unwrap_or(Stack::Tcplab))
    }

    /// The configuration these settings make; `f` names this table in errors.
    pub fn validate(&self, f: &str) -> Result<TcpConfig, ScenarioError> {
        let stack = self.stack(f)?;
        let values = stack.knob_values(&self.knobs(f)?);
        check_together(f, &values)?;
        if self.window_rule.is_some() && values.cc != Congestion::Reno {
            // Only the classic controller has a per-stack window arithmetic to choose.
            return err(
                format!("{f}.window_rule"),
                "applies only to cc = \"reno\" (the other controllers have their own)",
            );
        }
        Ok(values.config(stack))
    }
}

/// `raw`, if set, read by `R`; an error names `f.name`.
fn read<R: Reader>(f: &str, name: &str, raw: &Option<R::Raw>) -> Result<Option<R::Value>, ScenarioError> {
    raw.as_ref().map(|v| R::read(v).map_err(|m| ScenarioError::new(format!("{f}.{name}"), m))).transpose()
}

/// The rules between knobs, on the values a table ends with (its own or its stack's).
fn check_together(f: &str, v: &KnobValues) -> Result<(), ScenarioError> {
    if v.max_rto < v.min_rto {
        return err(format!("{f}.max_rto"), "must not be below min_rto");
    }
    if v.mss as u64 + v.header_bytes as u64 > 65535 {
        return err(
            format!("{f}.mss"),
            format!(
                "mss + header_bytes is {} bytes, more than the largest IP packet (65535 bytes)",
                v.mss as u64 + v.header_bytes as u64
            ),
        );
    }
    if v.vegas_beta < v.vegas_alpha {
        return err(format!("{f}.vegas_beta"), "must not be below vegas_alpha");
    }
    if matches!(v.cc, Congestion::Vegas | Congestion::Bbr) && v.codec != Codec::Plain {
        // Their delivery log counts whole segments; TCP Boston delivers shards.
        return err(format!("{f}.cc"), "vegas and bbr run with codec = \"plain\" only");
    }
    if v.ssthresh_floor == 0 && v.window_rule != WindowRule::Ns2 {
        // Reno would deflate a byte-counted window to 0 and never send again.
        return err(
            format!("{f}.ssthresh_floor"),
            "0 needs window_rule = \"ns2\" (a byte-counted window would fall to 0)",
        );
    }
    Ok(())
}

fn type_cell(doc: String, unit: &str) -> String {
    if unit.is_empty() {
        doc
    } else {
        format!("{doc}, {unit}")
    }
}

/// One knob's line in the knob table.
struct KnobRow {
    name: &'static str,
    kind: String,
    /// Its default under each stack, in `Stack::ALL`'s order.
    defaults: Vec<String>,
    meaning: &'static str,
}

/// The TCP knob table of docs/scenario.md, rendered from the knob list: every knob with its
/// type, its default under each stack (a column per stack of `Stack::ALL`) and its meaning.
pub fn knob_table() -> String {
    let code = |s: &str| format!("`{s}`");
    let stack_names: Vec<String> = Stack::NAMES.iter().map(|n| format!("\"{n}\"")).collect();
    let mut out = format!("| field | type | {} | meaning |\n", Stack::NAMES.join(" | "));
    let rules: Vec<String> = Stack::NAMES.iter().map(|n| "-".repeat(n.len() + 2)).collect();
    out += &format!("|-------|------|{}|---------|\n", rules.join("|"));
    let stack = format!(
        "| `stack` | {} | {} | the preset every other field starts from: tcplab's own behaviour, 4.4BSD-Lite, \
         ns-2.1b3, ns-1 or ns-2.35's defaults; see [TCP stacks](stacks.md) for what each preset sets and why |\n",
        <Names<Stack> as Reader>::doc(),
        stack_names.iter().map(|n| code(n)).collect::<Vec<_>>().join(" | "),
    );
    out += &stack;
    for KnobRow { name, kind, defaults, meaning } in knob_rows() {
        let cells = [vec![code(name), kind], defaults.iter().map(|d| code(d)).collect(), vec![meaning.to_string()]];
        out += &format!("| {} |\n", cells.concat().join(" | "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> TcpSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_table_sets_only_its_knobs_and_the_stack_the_rest() {
        let c = spec("stack = \"ns2\"\nmss = 512\ntimer = \"500ms\"").validate("tcp").unwrap();
        let preset = Stack::Ns2.preset();
        assert_eq!((c.mss, c.rcv_buf, c.initial_ssthresh), (512, 20 * 512, 20 * 512));
        assert_eq!(c.min_rto, 1_000_000_000, "two ticks of the timer set");
        assert_eq!((c.window_rule, c.bug_fix, c.initial_rto), (preset.window_rule, preset.bug_fix, preset.initial_rto));
        let bsd = spec("stack = \"bsd44\"\ndelayed_ack_timeout = \"100ms\"").validate("tcp").unwrap();
        assert_eq!(bsd.delayed_ack.unwrap().timeout, 100_000_000, "the preset's delayed ACKs take the set timeout");
    }

    #[test]
    fn errors_name_the_knob() {
        let e = |t: &str| spec(t).validate("flow[0].tcp").unwrap_err().to_string();
        assert_eq!(e("mss = 0"), "flow[0].tcp.mss: must be a positive integer (got 0)");
        assert_eq!(
            e("variant = \"cubic\""),
            "flow[0].tcp.variant: unknown variant 'cubic' (use vanilla, tahoe, reno, newreno, newreno_ns2, sack or \
             sack_rfc6675)"
        );
        assert_eq!(e("min_rto = \"100s\""), "flow[0].tcp.max_rto: must not be below min_rto");
        assert!(e("timer = \"coarse\"").ends_with("(use \"fine\" or a tick such as \"500ms\")"));
        assert_eq!(e("timer = \"ns1:0ms\""), "flow[0].tcp.timer: an ns1 timer tick must be positive");
        assert_eq!(
            e("max_cwnd = -1"),
            "flow[0].tcp.max_cwnd: must be 0 (no cap) or a positive integer up to 4294967295 (got -1)"
        );
        // Past 2^32 the message names the bound broken, not "positive".
        assert_eq!(
            e("mss = 4294967296"),
            "flow[0].tcp.mss: must fit an IPv4 packet: at most 65495 bytes (got 4294967296)"
        );
        assert_eq!(e("mss = -2"), "flow[0].tcp.mss: must be a positive integer (got -2)");
        assert_eq!(
            e("initial_cwnd = 99999999999"),
            "flow[0].tcp.initial_cwnd: must be at most 4294967295 (got 99999999999)"
        );
        assert!(e("rcv_buf = \"2GiB\"").starts_with("flow[0].tcp.rcv_buf: "));
        assert_eq!(e("boston_dispersal = 0"), "flow[0].tcp.boston_dispersal: must be between 1 and 256 (got 0)");
        assert_eq!(
            e("cc = \"westwood\""),
            "flow[0].tcp.cc: unknown congestion controller 'westwood' (use reno, cubic, vegas or bbr)"
        );
        assert_eq!(
            e("cc = \"cubic\"\nwindow_rule = \"ns2\""),
            "flow[0].tcp.window_rule: applies only to cc = \"reno\" (the other controllers have their own)"
        );
        assert_eq!(e("vegas_alpha = 4"), "flow[0].tcp.vegas_beta: must not be below vegas_alpha");
        assert_eq!(
            e("cc = \"bbr\"\ncodec = \"boston\""),
            "flow[0].tcp.cc: vegas and bbr run with codec = \"plain\" only"
        );
    }

    #[test]
    fn the_table_shows_each_stacks_defaults() {
        let t = knob_table();
        let row = |name: &str| t.lines().find(|l| l.starts_with(&format!("| `{name}` "))).unwrap().to_string();
        assert!(row("mss").contains("| `1460` | `1460` | `1000` | `1000` |"), "{}", row("mss"));
        assert!(row("timer").contains("| `\"fine\"` | `\"500ms\"` | `\"ns2:100ms\"` | `\"ns1:100ms\"` |"));
        assert!(row("min_rto").contains("| `\"1s\"` | `\"1s\"` | `\"200ms\"` | `\"200ms\"` |"));
        assert!(row("variant").contains("`\"reno\"`"));
        assert!(row("tick_phase").contains("| `\"random\"` | `\"random\"` | `\"random\"` | `\"random\"` |"));
        assert!(row("cc").contains("| `\"reno\"` | `\"reno\"` | `\"reno\"` | `\"reno\"` |"), "{}", row("cc"));
        assert_eq!(t.lines().count(), 2 + 1 + 53, "header, stack, and the 53 other knobs");
        assert!(row("timer").contains("| `\"ns1:100ms\"` | `\"ns2:10ms\"` |"), "ns235 is the last column");
    }
}
