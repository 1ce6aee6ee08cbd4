//! The runtime's modules import one another without circles: a gate, a
//! registration check or a shared layer can be read, and changed, from
//! its own module and the ones below it. Each module's `crate::…` paths
//! (outside its tests) are its edges, a type named through the crate
//! root's re-exports not among them; a circle is a set of modules that
//! reach one another. The few that remain are listed in [`KNOWN`], each
//! with why; any other fails this test, naming its modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Circles that remain, each a parent and its child or two halves of one
/// concept: the audit log and the span it notes decisions in; the schema
/// and its map keys; and the generated code's support, the call path it
/// drives and gate 3, which `Invocation` (in `tool`) runs.
const KNOWN: [&[&str]; 3] = [
    &["audit", "telemetry"],
    &["schema", "schema::map_keys"],
    &["__private", "gate::semantic", "tool"],
];

#[test]
fn no_module_imports_one_that_imports_it_back_beyond_the_known_circles() {
    let graph = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let known: BTreeSet<BTreeSet<String>> = KNOWN
        .iter()
        .map(|c| c.iter().map(|m| (*m).to_owned()).collect())
        .collect();
    for circle in circles(&graph) {
        assert!(
            known.iter().any(|k| circle.is_subset(k)),
            "a circle of imports among {circle:?}: move what they share into a module below them"
        );
    }
}

#[test]
fn a_planted_circle_is_found() {
    let mut graph = BTreeMap::new();
    graph.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    graph.insert("b".to_owned(), BTreeSet::from(["c".to_owned()]));
    graph.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    graph.insert("d".to_owned(), BTreeSet::from(["a".to_owned()]));
    let found = circles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0], BTreeSet::from(["a", "b", "c"].map(str::to_owned)));
    let parsed = crate_paths("use crate::{a::b, c::{self, D}};\nlet x = crate::e::f(1);");
    assert_eq!(
        parsed,
        [
            vec!["a", "b"],
            vec!["c", "self"],
            vec!["c", "D"],
            vec!["e", "f"]
        ]
    );
}

/// Each module (`gate::structural::reader`, `lib` for the root) and the
/// modules its code names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    collect(src, src, &mut files);
    let modules: BTreeSet<String> = files.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (module, text) in &files {
        let edges: BTreeSet<String> = crate_paths(&code_of(text))
            .into_iter()
            .filter_map(|path| {
                (1..=path.len())
                    .rev()
                    .map(|n| path[..n].join("::"))
                    .find(|prefix| modules.contains(prefix))
            })
            .filter(|target| target != module)
            .collect();
        graph.insert(module.clone(), edges);
    }
    graph
}

fn collect(src: &Path, dir: &Path, files: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("the source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            collect(src, &path, files);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path
            .strip_prefix(src)
            .expect("under src")
            .with_extension("");
        let mut segments: Vec<String> = relative
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        if segments.last().is_some_and(|s| s == "mod") {
            segments.pop();
        }
        // A module's tests are not among its edges.
        if segments.last().is_some_and(|s| s == "tests") {
            continue;
        }
        let name = match segments.join("::").as_str() {
            "private" => "__private".to_owned(),
            other => other.to_owned(),
        };
        files.insert(name, std::fs::read_to_string(&path).expect("a source file"));
    }
}

/// The text of a source file without its comments (doc links name
/// modules without depending on them) and without its tests module.
fn code_of(text: &str) -> String {
    let text = text
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or_default();
    text.lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path that starts with `crate::`, groups expanded.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::") {
        let start = from + at;
        from = start + "crate::".len();
        let before = start.checked_sub(1).and_then(|i| bytes.get(i));
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$') {
            continue;
        }
        from = tree(code, from, &[], &mut paths);
    }
    paths
}

/// Reads the use tree at `pos` (a path, or a group in braces) under
/// `prefix`; returns where it ends.
fn tree(code: &str, mut pos: usize, prefix: &[String], paths: &mut Vec<Vec<String>>) -> usize {
    let bytes = code.as_bytes();
    let mut path = prefix.to_vec();
    loop {
        if bytes.get(pos) == Some(&b'{') {
            pos += 1;
            loop {
                while bytes.get(pos).is_some_and(u8::is_ascii_whitespace) {
                    pos += 1;
                }
                match bytes.get(pos) {
                    Some(b'}') => return pos + 1,
                    Some(b',') => pos += 1,
                    Some(_) => pos = tree(code, pos, &path, paths),
                    None => return pos,
                }
            }
        }
        let start = pos;
        while bytes
            .get(pos)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            pos += 1;
        }
        if pos == start {
            // Not a path (a glob, a stray character): step past it.
            return pos + code[pos..].chars().next().map_or(1, char::len_utf8);
        }
        path.push(code[start..pos].to_owned());
        if code[pos..].starts_with("::") {
            pos += 2;
            continue;
        }
        paths.push(path);
        // Skip what follows the path in a group (`as name`), up to the
        // next item.
        while bytes
            .get(pos)
            .is_some_and(|b| !matches!(b, b',' | b'}' | b'{' | b';' | b'\n'))
        {
            pos += 1;
        }
        return pos;
    }
}

/// The strongly connected sets of more than one module (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Search<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'g> Search<'g> {
        fn visit(&mut self, v: &'g str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut set = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    set.insert(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    self.found.push(set);
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !search.index.contains_key(v.as_str()) {
            search.visit(v);
        }
    }
    search.found
}
