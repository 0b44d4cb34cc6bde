//! Issue 27's silent acceptances: each is refused in one line naming the field.

use tcplab_core::{check_scenario, Error};

fn refusal(text: &str) -> (String, String) {
    match check_scenario(text, None) {
        Err(Error::Scenario(e)) => {
            assert!(!e.message.contains('\n'), "{e}");
            (e.field, e.message)
        }
        Err(e) => panic!("expected a scenario error, got {e}"),
        Ok(_) => panic!("expected a scenario error, it validated:\n{text}"),
    }
}

fn accepted(text: &str) {
    if let Err(e) = check_scenario(text, None) {
        panic!("refused: {e}\n{text}");
    }
}

/// Two hosts and one link (`link` adds lines to it), one flow (`flow` adds lines to it).
fn pair(link: &str, flow: &str, extra: &str) -> String {
    format!(
        "duration = \"1s\"\nnodes = [\"a\", \"b\"]\n{extra}\n[[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\n\
         delay = \"1ms\"\n{link}\n[[flow]]\nsrc = \"a\"\ndst = \"b\"\n{flow}\n"
    )
}

#[test]
fn a_drop_list_flow_past_2_to_the_32_is_refused_not_wrapped_to_flow_0() {
    let loss = |flow: &str| {
        pair(&format!("loss = {{ model = \"drop_list\", flow = {flow}, by = \"tx_index\", values = [3] }}"), "", "")
    };
    let (f, m) = refusal(&loss("4294967296"));
    assert_eq!(f, "link[0].loss.flow");
    assert!(m.contains("4294967296"), "{m}");
    let (f, m) = refusal(&loss("4294967295"));
    assert_eq!(f, "link[0].loss.flow");
    assert!(m.contains("does not exist"), "{m}");
    accepted(&loss("0"));
}

#[test]
fn the_none_loss_model_and_the_tail_and_ppd_policies_take_no_other_field() {
    let (f, m) = refusal(&pair("loss = { model = \"none\", p = 0.5 }", "", ""));
    assert_eq!(f, "link[0].loss.p");
    assert!(m.contains("unknown field"), "{m}");
    accepted(&pair("loss = { model = \"none\" }", "", ""));
    for policy in ["tail", "ppd"] {
        let (f, m) =
            refusal(&pair(&format!("atm = true\ndrop = {{ policy = \"{policy}\", threshold = 0.5 }}"), "", ""));
        assert_eq!(f, "link[0].drop.threshold", "{policy}");
        assert!(m.contains("unknown field"), "{m}");
        accepted(&pair(&format!("atm = true\ndrop = {{ policy = \"{policy}\" }}"), "", ""));
    }
}

#[test]
fn boston_without_cells_to_the_destination_is_refused() {
    let (f, m) = refusal(&pair("", "", "[tcp]\ncodec = \"boston\""));
    assert_eq!(f, "flow[0].tcp.codec");
    assert!(m.contains("no link on the way from 'a' to 'b' is a cell link"), "{m}");
    // a -> r over a packet link (a host's access link), r -> b over a cell link: the packet is
    // cut into cells at r and reaches b as cells (the Boston study's "packet" access).
    let mixed = "duration = \"1s\"\nnodes = [\"a\", \"r\", \"b\"]\n\
        [[link]]\na = \"a\"\nb = \"r\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
        [[link]]\na = \"r\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\natm = true\n\
        [[flow]]\nsrc = \"a\"\ndst = \"b\"\ntcp = { codec = \"boston_bitmap\" }\n";
    accepted(mixed);
    // Cells first, then a packet link: the shards would be reassembled on the way.
    let (f, m) = refusal(&mixed.replace("src = \"a\"\ndst = \"b\"", "src = \"b\"\ndst = \"a\""));
    assert_eq!(f, "flow[0].tcp.codec");
    assert!(m.contains("link[0] on the way from 'b' to 'a' is a packet link after a cell link"), "{m}");
    accepted(&pair("atm = true", "", "[tcp]\ncodec = \"boston\""));
}

#[test]
fn a_segment_larger_than_an_ip_packet_is_refused() {
    let (f, m) = refusal(&pair("", "", "[tcp]\nmss = 65495\nheader_bytes = 41"));
    assert_eq!(f, "tcp.mss");
    assert!(m.contains("65536 bytes"), "{m}");
    let (f, _) = refusal(&pair("", "tcp = { header_bytes = 100 }", "[tcp]\nmss = 65495"));
    assert_eq!(f, "flow[0].tcp.mss");
    accepted(&pair("", "", "[tcp]\nmss = 65495"));
}

#[test]
fn a_segment_or_ack_that_no_reassembly_buffer_can_hold_is_refused() {
    // 1460 + 40 bytes with trailer and LLC/SNAP: 32 cells; a 1000-byte frame holds 21.
    let (f, m) = refusal(&pair("atm = true", "", "[atm]\nmax_frame = 1000"));
    assert_eq!(f, "flow[0].tcp.mss");
    assert!(m.contains("32 cells") && m.contains("(21 cells)"), "{m}");
    accepted(&pair("atm = true", "", "[atm]\nmax_frame = 1000\n[tcp]\nmss = 900"));
    // A Boston segment is a header cell and one cell per shard: 1 + 32 for 1460 bytes.
    let (_, m) = refusal(&pair("atm = true", "", "[atm]\nmax_frame = 1500\n[tcp]\ncodec = \"boston\""));
    assert!(m.contains("33 cells"), "{m}");
    // The case: 48 bytes hold no segment of any size (and not even a bare ACK here).
    let (f, _) = refusal(&pair("atm = true", "", "[atm]\nmax_frame = \"48B\"\n[tcp]\ncodec = \"boston\""));
    assert_eq!(f, "flow[0].tcp.mss");
    let (f, m) = refusal(&pair("atm = true", "", "[atm]\nmax_frame = 1000\n[tcp]\nmss = 500\nheader_bytes = 1000"));
    assert_eq!(f, "flow[0].tcp.mss", "{m}");
    // Only the direction that crosses cells counts: a packet path is not checked.
    accepted(&pair("", "", "[atm]\nmax_frame = 100"));
}

#[test]
fn a_zero_rto_bound_is_refused() {
    // min_rto = max_rto = 0 used to loop at one instant for ever (every timeout backs off to 0).
    let (f, m) = refusal(&pair("", "", "[tcp]\nmin_rto = \"0s\"\nmax_rto = \"0s\""));
    assert_eq!(f, "tcp.min_rto");
    assert_eq!(m, "must be positive");
    let (f, _) = refusal(&pair("", "tcp = { max_rto = 0 }", ""));
    assert_eq!(f, "flow[0].tcp.max_rto");
    accepted(&pair("", "", "[tcp]\nmin_rto = \"1ns\"\nmax_rto = \"1ns\""));
}

#[test]
fn names_in_messages_have_their_control_characters_escaped() {
    let text = pair("", "", "").replace("dst = \"b\"", "dst = \"b\\u001b[2J\\nerror: forged\"");
    let (f, m) = refusal(&text);
    assert_eq!(f, "flow[0].dst");
    assert_eq!(m, "no node named 'b\\x1b[2J\\nerror: forged' (nodes are listed in `nodes`)");
}
