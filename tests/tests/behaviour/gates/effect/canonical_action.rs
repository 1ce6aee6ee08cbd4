//! The action a call performs is what its body receives, not the text the
//! model sent: two documents whose arguments the body cannot tell apart
//! are one action (the second call replays the first), and two it can
//! tell apart are two (each runs).
//!
//! Documents are drawn as arguments, then written in random spellings:
//! members in any order, whitespace, whole numbers as `2`, `2.0`, `2e0`
//! or `20e-1`, fractions with trailing zeros or exponents, strings with
//! escapes, defaulted and optional members left out, `null` or spelled
//! out, sets and maps in any order.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;

use proptest::prelude::*;
use toolgate::{ToolContext, ToolError, Toolbox, tool};

use crate::common::block_on;

#[derive(
    Clone,
    Debug,
    PartialEq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
    garde::Validate,
)]
#[serde(deny_unknown_fields)]
pub struct Line {
    #[garde(length(chars, max = 8))]
    sku: String,
    #[garde(range(min = 1, max = 9))]
    qty: u8,
}

#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Red,
    Blue,
}

fn two() -> u8 {
    2
}

/// What a body received, as the body sees it.
#[derive(Clone, Debug)]
pub struct Received {
    count: u32,
    ratio: f64,
    name: String,
    note: String,
    nights: u8,
    maybe: Option<u8>,
    color: Color,
    lines: Vec<Line>,
    tags: HashSet<String>,
    counts: HashMap<String, u32>,
}

impl Received {
    /// Whether the body could tell the two apart: every value equal, and
    /// a float's bits too (`-0.0` and `0.0` differ to a body that looks).
    fn same(&self, other: &Received) -> bool {
        self.count == other.count
            && self.ratio.to_bits() == other.ratio.to_bits()
            && self.name == other.name
            && self.note == other.note
            && self.nights == other.nights
            && self.maybe == other.maybe
            && self.color == other.color
            && self.lines == other.lines
            && self.tags == other.tags
            && self.counts == other.counts
    }
}

#[derive(Default)]
pub struct Desk {
    received: Mutex<Vec<Received>>,
}

/// Place an order.
#[tool(effect = write)]
#[allow(clippy::too_many_arguments)]
fn place(
    desk: &Desk,
    #[garde(range(max = 1000))] count: u32,
    #[garde(range(min = -10.0, max = 10.0))] ratio: f64,
    #[garde(length(chars, max = 8))] name: String,
    #[serde(default)]
    #[garde(length(chars, max = 8))]
    note: String,
    #[serde(default = "two")]
    #[garde(range(min = 1, max = 9))]
    nights: u8,
    #[garde(inner(range(max = 9)))] maybe: Option<u8>,
    color: Color,
    #[garde(length(max = 3), dive)] lines: Vec<Line>,
    #[garde(length(max = 3))] tags: HashSet<String>,
    #[garde(length(max = 3))] counts: HashMap<String, u32>,
) -> Result<usize, ToolError> {
    let mut received = desk.received.lock().unwrap();
    received.push(Received {
        count,
        ratio,
        name,
        note,
        nights,
        maybe,
        color,
        lines,
        tags,
        counts,
    });
    Ok(received.len())
}

/// Arguments, before they are written.
#[derive(Clone, Debug)]
struct Drawn {
    count: u32,
    ratio: f64,
    name: String,
    /// Absent, `null`, or a value.
    note: Option<Option<String>>,
    nights: Option<Option<u8>>,
    maybe: Option<Option<u8>>,
    color: Color,
    lines: Vec<(String, u8)>,
    tags: Vec<String>,
    counts: BTreeMap<String, u32>,
}

fn drawn() -> impl Strategy<Value = Drawn> {
    let optional = |values: Vec<&'static str>| {
        prop_oneof![
            Just(None),
            Just(Some(None)),
            prop::sample::select(values).prop_map(|v| Some(Some(v.to_owned()))),
        ]
    };
    let small = |values: Vec<u8>| {
        prop_oneof![
            Just(None),
            Just(Some(None)),
            prop::sample::select(values).prop_map(|v| Some(Some(v))),
        ]
    };
    (
        prop::sample::select(vec![0u32, 2, 7, 1000]),
        prop::sample::select(vec![0.0f64, -0.0, 0.25, 1.5, -3.0, 0.1, 7.0]),
        prop::sample::select(vec!["a", "é", "a\"b", "/x", ""]).prop_map(str::to_owned),
        optional(vec!["", "x"]),
        small(vec![2, 3]),
        small(vec![0, 1]),
        prop::sample::select(vec![Color::Red, Color::Blue]),
        prop::collection::vec(
            (
                prop::sample::select(vec!["s1", "s2"]).prop_map(str::to_owned),
                1u8..3,
            ),
            0..3,
        ),
        prop::sample::subsequence(vec!["x".to_owned(), "y".to_owned(), "z".to_owned()], 0..=3),
        prop::collection::btree_map(
            prop::sample::select(vec!["p".to_owned(), "q".to_owned()]),
            0u32..3,
            0..=2,
        ),
    )
        .prop_map(
            |(count, ratio, name, note, nights, maybe, color, lines, tags, counts)| Drawn {
                count,
                ratio,
                name,
                note,
                nights,
                maybe,
                color,
                lines,
                tags,
                counts,
            },
        )
}

/// A small deterministic source of spelling choices.
struct Choices(u64);

impl Choices {
    fn pick(&mut self, n: u64) -> u64 {
        // xorshift64
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn space(&mut self) -> &'static str {
        ["", " ", "\n  "][self.pick(3) as usize]
    }

    fn whole(&mut self, n: u64) -> String {
        match self.pick(4) {
            0 => n.to_string(),
            1 => format!("{n}.0"),
            2 => format!("{n}e0"),
            _ => format!("{}e-1", n * 10),
        }
    }

    /// `x`, a whole number of hundredths, as written three ways.
    fn fraction(&mut self, x: f64) -> String {
        let plain = format!("{x:?}");
        let hundredths = (x * 100.0).round() as i64;
        let sign = if x.is_sign_negative() && hundredths == 0 {
            "-"
        } else {
            ""
        };
        match self.pick(3) {
            0 => plain,
            1 => format!("{plain}00"),
            _ => format!("{sign}{hundredths}e-2"),
        }
    }

    fn string(&mut self, s: &str) -> String {
        let mut out = String::from('"');
        for c in s.chars() {
            let escape = self.pick(3) == 0;
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '/' if escape => out.push_str("\\/"),
                c if escape => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    fn object(&mut self, mut members: Vec<(String, String)>) -> String {
        // Any order.
        for i in (1..members.len()).rev() {
            let j = self.pick(i as u64 + 1) as usize;
            members.swap(i, j);
        }
        let mut out = String::from("{");
        for (i, (key, value)) in members.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let (a, b, c) = (self.space(), self.space(), self.space());
            out.push_str(&format!("{a}{key}{b}:{c}{value}"));
        }
        out.push_str(self.space());
        out.push('}');
        out
    }
}

fn written(d: &Drawn, seed: u64) -> String {
    let mut c = Choices(seed | 1);
    let mut members = Vec::new();
    let mut member = |c: &mut Choices, name: &str, value: String| {
        let key = c.string(name);
        members.push((key, value));
    };
    let count = c.whole(u64::from(d.count));
    member(&mut c, "count", count);
    let ratio = c.fraction(d.ratio);
    member(&mut c, "ratio", ratio);
    let name = c.string(&d.name);
    member(&mut c, "name", name);
    match &d.note {
        None => {}
        Some(None) => member(&mut c, "note", "null".to_owned()),
        Some(Some(note)) => {
            let note = c.string(note);
            member(&mut c, "note", note);
        }
    }
    for (field, value) in [("nights", d.nights), ("maybe", d.maybe)] {
        match value {
            None => {}
            Some(None) => member(&mut c, field, "null".to_owned()),
            Some(Some(n)) => {
                let n = c.whole(u64::from(n));
                member(&mut c, field, n);
            }
        }
    }
    let color = c.string(match d.color {
        Color::Red => "red",
        Color::Blue => "blue",
    });
    member(&mut c, "color", color);
    let lines = d
        .lines
        .iter()
        .map(|(sku, qty)| {
            let members = vec![
                (c.string("sku"), c.string(sku)),
                (c.string("qty"), c.whole(u64::from(*qty))),
            ];
            c.object(members)
        })
        .collect();
    let lines = items(&mut c, lines);
    member(&mut c, "lines", lines);
    let mut tags: Vec<String> = d.tags.iter().map(|t| c.string(t)).collect();
    for i in (1..tags.len()).rev() {
        let j = c.pick(i as u64 + 1) as usize;
        tags.swap(i, j);
    }
    let tags = items(&mut c, tags);
    member(&mut c, "tags", tags);
    let counts = d
        .counts
        .iter()
        .map(|(k, v)| (c.string(k), c.whole(u64::from(*v))))
        .collect();
    let counts = c.object(counts);
    member(&mut c, "counts", counts);
    c.object(members)
}

fn items(c: &mut Choices, items: Vec<String>) -> String {
    let mut out = String::from("[");
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(c.space());
        out.push_str(&item);
    }
    out.push(']');
    out
}

fn ctx() -> ToolContext {
    ToolContext::new("alice", "tenant_a", "req_1")
        .with_session("conv")
        .allow_all_tools()
}

/// What the body receives for `text`, in a toolbox of its own.
fn receives(text: &str) -> Received {
    let mut toolbox = Toolbox::new(Desk::default());
    toolbox.register(Place).unwrap();
    let outcome = block_on(toolbox.call(&ctx(), "place", text));
    assert!(outcome.value().is_some(), "{text}: {outcome:?}");
    toolbox.state().received.lock().unwrap()[0].clone()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn one_action_is_what_the_body_receives(
        first in drawn(),
        other in drawn(),
        same in prop::bool::ANY,
        seeds in (any::<u64>(), any::<u64>()),
    ) {
        let second = if same { first.clone() } else { other };
        let (a, b) = (written(&first, seeds.0), written(&second, seeds.1));
        let (got_a, got_b) = (receives(&a), receives(&b));
        let mut toolbox = Toolbox::new(Desk::default());
        toolbox.register(Place).unwrap();
        let one = block_on(toolbox.call(&ctx(), "place", a.as_str()));
        let two = block_on(toolbox.call(&ctx(), "place", b.as_str()));
        prop_assert!(one.value().is_some(), "{}: {:?}", a, one);
        if got_a.same(&got_b) {
            prop_assert!(two.is_replay(), "one action ran twice:\n{}\n{}", a, b);
        } else {
            prop_assert!(!two.is_replay(), "two actions ran once:\n{}\n{}\n{:?}\n{:?}", a, b, got_a, got_b);
        }
    }
}
