//! The shape of the core, checked from its source text: no import cycle between its folders
//! (each top-level file counts as a folder of its own), no file above 700 lines and no
//! function above 120 lines (the style guide's limits).
//!
//! The module graph comes from the `crate::` and `super::` paths of every file under `src/`,
//! with test code left out (a `#[cfg(test)]` module may use what its module must not), each
//! path collapsed to its top-level module. Comments and literals are blanked first, so a path
//! in a doc comment or a brace in a format string counts for nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 700;
const MAX_FN_LINES: usize = 120;

/// Files allowed above `MAX_FILE_LINES` for now: (file under `src/`, who splits it). Empty it
/// once the branches named here are merged; a test fails when an entry is no longer needed.
const LONG_FILES: &[(&str, &str)] = &[];

/// Functions allowed above `MAX_FN_LINES` for now: (file under `src/`, function, who splits it).
const LONG_FUNCTIONS: &[(&str, &str, &str)] = &[];

/// Import edges between folders that close a cycle and are removed on another branch: (from,
/// to, who removes it). Empty it once those branches are merged; a test fails when an entry
/// no longer exists.
const PENDING_EDGES: &[(&str, &str, &str)] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/` as (path relative to `src/`, text), in path order.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&src(), &mut files);
    files.sort();
    let rel = |p: &Path| p.strip_prefix(src()).unwrap().to_string_lossy().replace('\\', "/");
    files.iter().map(|p| (rel(p), std::fs::read_to_string(p).unwrap())).collect()
}

// ---------------------------------------------------------------- reading code

/// `text` with comments and the insides of string and char literals blanked to spaces (line
/// breaks kept, so line numbers stay), leaving code whose braces and paths read naively.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut blank = |from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let find = |from: usize, pat: &[u8]| {
        b[from.min(b.len())..].windows(pat.len()).position(|w| w == pat).map_or(b.len(), |n| from + n)
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = find(i, b"\n");
            blank(i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(i, j);
            i = j;
        } else if rest[0] == b'r' && (i == 0 || !ident(b[i - 1])) && matches!(rest.get(1), Some(b'"' | b'#')) {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                i += 1; // a raw identifier (r#type)
                continue;
            }
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let start = i + 2 + hashes;
            let end = find(start, &close);
            blank(start, end);
            i = end + close.len();
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(i + 1, j);
            i = j + 1;
        } else if rest[0] == b'\'' {
            // A char literal ('{', '\'', '\u{7b}', 'é') or a lifetime ('a), left alone.
            let end = if rest.get(1) == Some(&b'\\') {
                Some(find(i + 3, b"'"))
            } else {
                let len = match rest.get(1) {
                    Some(&c) if c >= 0xF0 => 4,
                    Some(&c) if c >= 0xE0 => 3,
                    Some(&c) if c >= 0xC0 => 2,
                    _ => 1,
                };
                (rest.get(1 + len) == Some(&b'\'')).then_some(i + 1 + len)
            };
            match end {
                Some(e) => {
                    blank(i + 1, e);
                    i = e + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("only ASCII bytes were blanked")
}

/// The end (exclusive) of the item starting at `from`: its first `;` before any `{`, or the
/// `}` that closes its first `{`.
fn item_end(code: &[u8], from: usize) -> usize {
    let mut depth = 0usize;
    for (j, &c) in code.iter().enumerate().skip(from) {
        match c {
            b';' if depth == 0 => return j + 1,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The code of `file` (its text blanked by `code_only`) without the items marked
/// `#[cfg(test)]`, and the files those items pull in with `mod name;` (paths under `src/`).
fn without_tests(file: &str, text: &str) -> (String, Vec<String>) {
    let code = code_only(text);
    let mut out = code.clone().into_bytes();
    let mut test_files = Vec::new();
    // Where `mod name;` looks, and what `#[path]` is relative to (non-mod-rs files).
    let folder = file.rsplit_once('/').map_or(String::new(), |(d, _)| format!("{d}/"));
    let children = match file.strip_suffix("mod.rs").or(file.strip_suffix("lib.rs")) {
        Some(d) => d.to_string(),
        None => format!("{}/", file.trim_end_matches(".rs")),
    };
    let mut from = 0;
    while let Some(n) = code[from..].find("#[cfg(test)]") {
        let start = from + n;
        let end = item_end(code.as_bytes(), start);
        let item = code[start..end].trim_end();
        if let Some(decl) = item.strip_suffix(';').filter(|d| d.split_whitespace().any(|w| w == "mod")) {
            let name = decl.split_whitespace().last().unwrap_or_default();
            // The attribute's value is a literal, blanked in `code`: read it from `text`.
            let attr = text[start..end].split_once("#[path = \"").and_then(|(_, r)| r.split_once('"'));
            test_files.push(attr.map_or(format!("{children}{name}.rs"), |(p, _)| format!("{folder}{p}")));
        }
        for c in &mut out[start..end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = end;
    }
    (String::from_utf8(out).unwrap(), test_files)
}

/// A file's module path: `net/queue.rs` is [net, queue], `net/mod.rs` [net], `lib.rs` [].
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(String::from).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The first module named by each `crate::` and `super::` path in `code` (`crate::{a, b}`
/// names both), resolved from the module `module`.
fn referenced_modules(module: &[String], code: &str) -> BTreeSet<String> {
    let b = code.as_bytes();
    let ident_at = |from: usize| {
        let end =
            b[from..].iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_')).map_or(b.len(), |n| from + n);
        code[from..end].to_string()
    };
    let mut out = BTreeSet::new();
    for (at, root) in code
        .match_indices("crate::")
        .map(|(i, _)| (i, true))
        .chain(code.match_indices("super::").map(|(i, _)| (i, false)))
    {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_' || (!root && b"::".contains(&b[at - 1]))) {
            continue; // part of a longer name, or a `super::super::` already counted
        }
        let mut base: Vec<String> = if root { Vec::new() } else { module.to_vec() };
        let mut pos = at + if root { 7 } else { 0 };
        if !root {
            while code[pos..].starts_with("super::") {
                base.pop();
                pos += 7;
            }
        }
        let names: Vec<String> = if b.get(pos) == Some(&b'{') {
            let group = &code[pos + 1..item_end(b, pos) - 1];
            let mut depth = 0;
            let mut entries = vec![String::new()];
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => entries.push(String::new()),
                    _ => entries.last_mut().unwrap().push(c),
                }
            }
            entries.iter().map(|e| e.trim().split("::").next().unwrap_or_default().to_string()).collect()
        } else {
            vec![ident_at(pos)]
        };
        for name in names.into_iter().filter(|n| !n.is_empty() && n != "self") {
            let mut path = base.clone();
            path.push(name);
            out.insert(path[0].clone());
        }
    }
    out
}

// ---------------------------------------------------------------- the folder graph

/// Folder-level import edges of the core, each with the files that make it.
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn folder_graph() -> Graph {
    let files = sources();
    let tests: BTreeSet<String> = files.iter().flat_map(|(f, t)| without_tests(f, t).1).collect();
    let tops: BTreeSet<String> = files.iter().filter_map(|(f, _)| module_path(f).first().cloned()).collect();
    // `pub use x as y;` in lib.rs makes `crate::y` a name of `x`.
    let lib = &files.iter().find(|(f, _)| f == "lib.rs").expect("src/lib.rs").1;
    let alias: BTreeMap<String, String> = code_only(lib)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub use ")?.strip_suffix(';')?.split_once(" as "))
        .map(|(a, b)| (b.trim().to_string(), a.trim().trim_start_matches("crate::").to_string()))
        .collect();
    let mut graph = Graph::new();
    for (file, text) in files.iter().filter(|(f, _)| f != "lib.rs" && !tests.contains(f)) {
        let module = module_path(file);
        let (code, _) = without_tests(file, text);
        for m in referenced_modules(&module, &code) {
            let m = alias.get(&m).cloned().unwrap_or(m);
            if tops.contains(&m) && m != module[0] {
                graph.entry(module[0].clone()).or_default().entry(m).or_default().insert(file.clone());
            }
        }
    }
    graph
}

/// A cycle through `start` in `graph`, as its nodes in order, if there is one.
fn cycle_through(graph: &Graph, start: &str) -> Option<Vec<String>> {
    fn dfs(graph: &Graph, node: &str, start: &str, path: &mut Vec<String>, seen: &mut BTreeSet<String>) -> bool {
        for next in graph.get(node).into_iter().flat_map(|m| m.keys()) {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if dfs(graph, next, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    dfs(graph, start, start, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn no_import_cycle_spans_folders() {
    let mut graph = folder_graph();
    for (from, to, owner) in PENDING_EDGES {
        let edge = graph.get_mut(*from).and_then(|m| m.remove(*to));
        assert!(edge.is_some(), "PENDING_EDGES lists {from} -> {to} ({owner}), which no longer exists: remove it");
    }
    let nodes: Vec<String> = graph.keys().cloned().collect();
    for n in nodes {
        if let Some(cycle) = cycle_through(&graph, &n) {
            let mut text = String::new();
            for (i, a) in cycle.iter().enumerate() {
                let b = &cycle[(i + 1) % cycle.len()];
                let files: Vec<&str> = graph[a][b].iter().map(String::as_str).collect();
                text += &format!("\n  {a} -> {b}  (in {})", files.join(", "));
            }
            panic!("an import cycle spans folders of the core:{text}");
        }
    }
}

// ---------------------------------------------------------------- sizes

/// Every function with a body, as (name, first line, lines).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let b = code.as_bytes();
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let rest = code[at + 3..].trim_start();
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            continue;
        }
        let end = item_end(b, at);
        if b[..end].last() == Some(&b'}') {
            out.push((name, line_of(at), line_of(end - 1) - line_of(at) + 1));
        }
    }
    out
}

#[test]
fn no_file_or_function_is_too_long() {
    let mut problems = Vec::new();
    let mut excused = BTreeSet::new();
    for (file, text) in sources() {
        let lines = text.lines().count();
        if lines > MAX_FILE_LINES {
            match LONG_FILES.iter().find(|(f, _)| *f == file) {
                Some(_) => _ = excused.insert(file.clone()),
                None => problems.push(format!("{file}: {lines} lines (at most {MAX_FILE_LINES})")),
            }
        }
        for (name, line, len) in functions(&code_only(&text)) {
            if len > MAX_FN_LINES {
                match LONG_FUNCTIONS.iter().find(|(f, n, _)| *f == file && *n == name) {
                    Some(_) => _ = excused.insert(format!("{file}:{name}")),
                    None => problems.push(format!("{file}:{line}: fn {name} has {len} lines (at most {MAX_FN_LINES})")),
                }
            }
        }
    }
    let stale: Vec<String> = LONG_FILES
        .iter()
        .map(|(f, _)| f.to_string())
        .chain(LONG_FUNCTIONS.iter().map(|(f, n, _)| format!("{f}:{n}")))
        .filter(|k| !excused.contains(k))
        .collect();
    assert!(stale.is_empty(), "no longer too long, remove from LONG_FILES/LONG_FUNCTIONS: {stale:?}");
    assert!(problems.is_empty(), "too long:\n  {}", problems.join("\n  "));
}

// ---------------------------------------------------------------- the checks themselves

#[test]
fn the_reader_blanks_literals_and_finds_cycles_and_long_functions() {
    let code = code_only("let s = \"crate::a {\"; // crate::b\nlet c = '{'; fn f<'a>(x: &'a str) { r#\"}\"#; }\n");
    assert!(!code.contains("crate::") && code.matches('{').count() == 1, "{code}");
    assert_eq!(functions(&code), vec![("f".to_string(), 2, 1)]);
    let refs = referenced_modules(&["net".into(), "queue".into()], "use crate::{tcp::X, atm};\nuse super::red;");
    assert_eq!(refs, ["atm", "net", "tcp"].iter().map(|s| s.to_string()).collect());
    let (stripped, files) = without_tests(
        "tcp/sender.rs",
        "use crate::a;\n#[cfg(test)]\n#[path = \"t.rs\"]\nmod tests;\n#[cfg(test)]\nmod more { use crate::b; }\n",
    );
    assert!(stripped.contains("crate::a") && !stripped.contains("crate::b"));
    assert_eq!(files, vec!["tcp/t.rs".to_string()]);
    let mut g = Graph::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        g.entry(a.into()).or_default().entry(b.into()).or_default().insert(format!("{a}.rs"));
    }
    assert_eq!(cycle_through(&g, "a"), Some(vec!["a".into(), "b".into(), "c".into()]));
    assert_eq!(cycle_through(&g, "d"), None);
}
