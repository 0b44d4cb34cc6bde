//! serde's parse errors in the words of a scenario file. serde and the TOML reader describe
//! Rust types ("invalid type: string \"1460\", expected i64"); a user writes TOML, so the
//! messages name TOML values ("expected an integer, got the string \"1460\""). A message
//! that is not one of serde's stock phrasings passes through unchanged.

/// Top-level keys of a sweep spec that a scenario does not have (`name` and `seed` are in both):
/// an unknown one means `tcplab run` was given a sweep spec.
const SWEEP_KEYS: [&str; 9] =
    ["base", "replications", "seeds", "factors", "zips", "zip", "labels", "level_labels", "store"];

/// Fields that exist for the tests only, left out of the "expected one of" lists users see.
const HIDDEN_FIELDS: [&str; 1] = ["_test_corrupt"];

/// `msg` (serde's message for an error at `path`: "" or the field itself at the top level,
/// `tcp.mss` further down) for a user.
pub fn for_user(path: &str, msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("invalid type: ").or_else(|| msg.strip_prefix("invalid value: ")) {
        // The last ", expected": a string value the user wrote may hold one too.
        if let Some((got, expected)) = rest.rsplit_once(", expected ") {
            return wrong_type(got, expected);
        }
    }
    if let Some(field) = msg.strip_prefix("unknown field `").and_then(|r| r.split('`').next()) {
        // The path of an unknown field ends with the field, so at the top level it is the field.
        let top_level = path.is_empty() || path == field;
        if top_level && SWEEP_KEYS.contains(&field) {
            return format!(
                "unknown field `{field}`: this file looks like a sweep spec, not a scenario (run it with `tcplab sweep`)"
            );
        }
        return hide_test_fields(msg);
    }
    msg.to_string()
}

/// "expected an integer, got the string \"1460\"".
fn wrong_type(got: &str, expected: &str) -> String {
    let expected = expected_value(expected);
    let hint = match (got.strip_prefix("string \""), expected.contains("integer") || expected.contains("number")) {
        // `mss = "1460"`: the quotes make it a string.
        (Some(s), true) if looks_numeric(s.trim_end_matches('"')) => " (write numbers without quotes)",
        _ => "",
    };
    format!("expected {expected}, got {}{hint}", got_value(got))
}

/// "1460", "-2.5", "1e3", not "nan" or "inf" (which f64's parser also takes).
fn looks_numeric(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c)) && s.parse::<f64>().is_ok()
}

/// What serde expected ("i64", "a sequence", "struct TcpSpec"), as TOML.
fn expected_value(e: &str) -> String {
    let s = match e {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "an integer",
        "u64" | "u128" | "usize" => "a non-negative integer",
        "u8" => "an integer from 0 to 255",
        "u16" => "an integer from 0 to 65535",
        "u32" => "an integer from 0 to 4294967295",
        "f32" | "f64" => "a number",
        "a boolean" => "a boolean (true or false)",
        "a sequence" => "a list ([...])",
        "a map" => "a table",
        "a character" => "a single-character string",
        _ if e.starts_with("struct ") => "a table",
        _ => e,
    };
    s.to_string()
}

/// What the file held (serde's `Unexpected`: "integer `3`", "string \"x\"", "map"), as TOML.
fn got_value(g: &str) -> String {
    let ticked = |prefix: &str| g.strip_prefix(prefix).map(|r| r.trim_matches('`').to_string());
    if let Some(s) = g.strip_prefix("string ") {
        return format!("the string {s}");
    }
    if let Some(v) = ticked("integer ") {
        return format!("the integer {v}");
    }
    if let Some(v) = ticked("floating point ") {
        return format!("the number {v}");
    }
    if let Some(v) = ticked("boolean ") {
        return v;
    }
    match g {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        _ => g.to_string(),
    }
}

/// An "unknown field" message without the test-only fields in its list of known ones.
fn hide_test_fields(msg: &str) -> String {
    HIDDEN_FIELDS
        .iter()
        .fold(msg.to_string(), |m, f| m.replace(&format!(", `{f}`"), "").replace(&format!("`{f}`, "), ""))
}

#[cfg(test)]
mod tests {
    use super::for_user;

    #[test]
    fn type_errors_name_toml_values() {
        let cases = [
            (
                "invalid type: string \"1460\", expected i64",
                "expected an integer, got the string \"1460\" (write numbers without quotes)",
            ),
            ("invalid value: integer `-1`, expected u64", "expected a non-negative integer, got the integer -1"),
            ("invalid type: floating point `1.5`, expected u64", "expected a non-negative integer, got the number 1.5"),
            ("invalid type: integer `3`, expected a sequence", "expected a list ([...]), got the integer 3"),
            ("invalid type: integer `1`, expected a boolean", "expected a boolean (true or false), got the integer 1"),
            ("invalid type: boolean `true`, expected a string", "expected a string, got true"),
            ("invalid type: sequence, expected struct LinkSpec", "expected a table, got a list"),
            ("invalid type: string \"on\", expected f64", "expected a number, got the string \"on\""),
            (
                "invalid value: integer `70000`, expected u16",
                "expected an integer from 0 to 65535, got the integer 70000",
            ),
            (
                "invalid type: string \"a, expected b\", expected i64",
                "expected an integer, got the string \"a, expected b\"",
            ),
            ("invalid type: string \"inf\", expected f64", "expected a number, got the string \"inf\""),
        ];
        for (serde, ours) in cases {
            assert_eq!(for_user("tcp.mss", serde), ours);
        }
    }

    #[test]
    fn other_messages_pass_through() {
        assert_eq!(for_user("", "missing field `duration`"), "missing field `duration`");
        let custom = "invalid type: integer `3`, expected a table of TCP settings (variant, mss, ...)";
        assert_eq!(for_user("tcp", custom), "expected a table of TCP settings (variant, mss, ...), got the integer 3");
    }

    #[test]
    fn the_test_field_is_not_listed() {
        let m = "unknown field `x`, expected one of `name`, `tcp`, `_test_corrupt`, `www`";
        assert_eq!(for_user("", m), "unknown field `x`, expected one of `name`, `tcp`, `www`");
        let last = "unknown field `x`, expected one of `name`, `_test_corrupt`";
        assert_eq!(for_user("", last), "unknown field `x`, expected one of `name`");
    }

    #[test]
    fn a_sweep_key_says_the_file_is_a_sweep_spec() {
        let m = for_user("", "unknown field `factors`, expected one of `name`, `duration`");
        assert_eq!(
            m,
            "unknown field `factors`: this file looks like a sweep spec, not a scenario (run it with `tcplab sweep`)"
        );
        // Inside a table the key is only unknown.
        assert!(for_user("factors", "unknown field `factors`, expected `name`").contains("sweep"));
        assert!(!for_user("tcp.base", "unknown field `base`, expected one of `mss`").contains("sweep"));
    }
}
