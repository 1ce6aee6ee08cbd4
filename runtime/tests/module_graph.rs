//! The runtime's modules import one another without circles: a gate, a
//! registration check or a shared layer can be read, and changed, from
//! its own module and the ones below it. Each module's paths (outside its
//! tests) are its edges, a type named through the crate root's re-exports
//! not among them; a circle is a set of modules that
//! reach one another; `super::`, `self::`, a child's name and a glob
//! (`use super::*`) count too, so a parent that re-exports a child which
//! reaches back into it is one. Any circle fails this test, naming its
//! modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let circles = circles(&graph);
    assert!(
        circles.is_empty(),
        "circles of imports among {circles:?}: move what each circle's modules share into a module below them"
    );
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
    let parsed = paths_after(
        "use crate::{a::b, c::{self, D}};\nlet x = crate::e::f(1);",
        "crate::",
    );
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

#[test]
fn a_child_that_reaches_into_its_parent_is_a_circle() {
    let src = std::env::temp_dir().join(format!("module-graph-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(src.join("a")).expect("a folder");
    let write = |path: &str, text: &str| std::fs::write(src.join(path), text).expect("a file");
    write("lib.rs", "mod a;\nmod c;\n");
    write(
        "a/mod.rs",
        "mod b;\npub use b::Named;\npub struct Shared;\n",
    );
    write("a/b.rs", "use super::Shared;\npub struct Named;\n");
    write("c.rs", "use crate::a::Shared;\nmod d;\n");
    std::fs::create_dir_all(src.join("c")).expect("a folder");
    write("c/d.rs", "use super::*;\n");
    let graph = graph(&src);
    let _ = std::fs::remove_dir_all(&src);
    assert_eq!(graph["a"], BTreeSet::from(["a::b".to_owned()]));
    assert_eq!(graph["a::b"], BTreeSet::from(["a".to_owned()]));
    assert_eq!(graph["c"], BTreeSet::from(["a".to_owned()]));
    assert_eq!(graph["c::d"], BTreeSet::from(["c".to_owned()]));
    assert_eq!(
        circles(&graph),
        [BTreeSet::from(["a".to_owned(), "a::b".to_owned()])]
    );
}

/// Each module (`gate::structural::reader`, `lib` for the root) and the
/// modules its code names: through `crate::`, through `super::` (a child
/// that reaches into its parent), through `self::`, and through the name
/// of a child module (a parent that uses, or re-exports, its child).
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    collect(src, src, &mut files);
    let modules: BTreeSet<String> = files.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (module, text) in &files {
        let code = code_of(text);
        let here: Vec<String> = match module.as_str() {
            "lib" => Vec::new(),
            _ => module.split("::").map(str::to_owned).collect(),
        };
        let mut paths = paths_after(&code, "crate::");
        for path in paths_after(&code, "super::") {
            let ups = 1 + path.iter().take_while(|s| *s == "super").count();
            let Some(kept) = here.len().checked_sub(ups) else {
                continue;
            };
            let mut resolved = here[..kept].to_vec();
            resolved.extend(path.into_iter().skip(ups - 1));
            paths.push(resolved);
        }
        // The modules one level below this one (the root's: every
        // top-level module).
        let children = modules.iter().filter_map(|m| {
            let child = match module.as_str() {
                "lib" => m.as_str(),
                _ => m.strip_prefix(module.as_str())?.strip_prefix("::")?,
            };
            (!child.contains("::") && child != "lib").then_some(child)
        });
        for prefix in ["self"].into_iter().chain(children) {
            for path in paths_after(&code, &format!("{prefix}::")) {
                let mut resolved = here.clone();
                if prefix != "self" {
                    resolved.push(prefix.to_owned());
                }
                resolved.extend(path);
                paths.push(resolved);
            }
        }
        let edges: BTreeSet<String> = paths
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

/// Every path that starts with `prefix` (`crate::`, `super::`, a child
/// module's name), groups expanded, without the prefix; a prefix that
/// ends a longer path (`serde::de::` for `de::`) is not one.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find(prefix) {
        let start = from + at;
        from = start + prefix.len();
        let before = start.checked_sub(1).and_then(|i| bytes.get(i));
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b':')) {
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
            // A glob names the module it ends: an edge to it, as any path.
            if bytes.get(pos) == Some(&b'*') {
                paths.push(path);
            }
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
