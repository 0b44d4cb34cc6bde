//! docs/scenario.md's TCP knob table is the knob list's (`tcp::knobs`), rendered by
//! `config::tcp::knob_table`. After changing a knob, regenerate the docs with
//! `UPDATE_DOCS=1 cargo test -p tcplab-core --test docs_tables`.

use std::path::PathBuf;

const BEGIN: &str = "<!-- The TCP knob table: generated from crates/tcplab-core/src/tcp/knobs.rs. -->\n";
const END: &str = "<!-- End of the generated TCP knob table. -->\n";

#[test]
fn the_tcp_knob_table_in_the_docs_is_the_knob_lists() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find(BEGIN).expect("docs/scenario.md marks where the knob table begins") + BEGIN.len();
    let end = start + text[start..].find(END).expect("docs/scenario.md marks where the knob table ends");
    let table = tcplab_core::config::tcp::knob_table();
    if text[start..end] == table {
        return;
    }
    if std::env::var("UPDATE_DOCS").as_deref() == Ok("1") {
        std::fs::write(&path, format!("{}{table}{}", &text[..start], &text[end..])).unwrap();
        return;
    }
    let differ = text[start..end].lines().zip(table.lines()).find(|(a, b)| a != b);
    panic!(
        "docs/scenario.md's TCP knob table is not the knob list's (first difference: {differ:?}); regenerate it \
         with UPDATE_DOCS=1 cargo test -p tcplab-core --test docs_tables"
    );
}
