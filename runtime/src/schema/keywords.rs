//! Every JSON Schema keyword toolgate reads, writes, drops or refuses, in
//! one table: what its value holds, what it means to the gates, to
//! registration and to a schema's fingerprint, and which provider dialects
//! keep it. The walks (the fingerprint, the unread-keyword check, the
//! bounds registration tries, the dialects' export) ask the table, so a
//! keyword is added or changed in one row.
//!
//! | column | says | read by |
//! |---|---|---|
//! | [`Holds`] | what the value is: a schema, a map or a list of them, a count, or data | the fingerprint's walk, the unread-keyword check |
//! | `annotation` | no check depends on it | lookups that skip annotations |
//! | `unnoted` | a fingerprint leaves it out (a description changed is the same contract) | [`crate::schema::fingerprint`] |
//! | `unread` | it validates and the gates do not read it (where it says something) | [`crate::schema::unread_keyword`] |
//! | `bound` | registration puts a value past it, to see the tool refuse it | `crate::register::unenforced` |
//! | `typing` | it says something of a value's type | the dialects' check for a value of any type |
//! | `validation` | it validates a value, and the dialects that keep it | the dialects' export |
//! | [`Garde`] | the garde rule that states a bound in a type | gate 3's "does the schema state this rule", registration's advice |

/// What a keyword's value holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Holds {
    /// One schema (`items`, `not`, …).
    Schema,
    /// A map from names to schemas (`properties`, `$defs`, …).
    SchemaMap,
    /// A list of schemas (`anyOf`, `prefixItems`, …).
    SchemaList,
    /// A count, which the gates read as a whole number (`maxLength`, …).
    Count,
    /// Anything else: a number, a pattern, values (`enum`, `default`).
    Data,
}

/// The garde rule that states a bound in a Rust type: what registration
/// advises where a schema states a bound nothing enforces, and what gate 3
/// looks for when it names the rule a value broke.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Garde {
    /// `range(…)`: a number's bounds.
    Range,
    /// `length(chars, …)`: a string's length in characters.
    Chars,
    /// `length(…)`: a list's or a map's count.
    Length,
    /// `pattern(…)`.
    Pattern,
    /// `custom(…)`: no rule of garde's says it.
    Custom,
}

impl Garde {
    /// The rule as a garde attribute writes it.
    pub(crate) const fn rule(self) -> &'static str {
        match self {
            Garde::Range => "range(…)",
            Garde::Chars => "length(chars, …)",
            Garde::Length => "length(…)",
            Garde::Pattern => "pattern(…)",
            Garde::Custom => "custom(…)",
        }
    }
}

/// A set of provider dialects (see `crate::providers::dialect`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Dialects(u8);

impl Dialects {
    pub(crate) const NONE: Dialects = Dialects(0);
    pub(crate) const OPENAI_STRICT: Dialects = Dialects(1);
    pub(crate) const OPENAI: Dialects = Dialects(1 << 1);
    pub(crate) const ANTHROPIC_STRICT: Dialects = Dialects(1 << 2);
    pub(crate) const ANTHROPIC: Dialects = Dialects(1 << 3);
    /// Gemini's JSON Schema and its legacy OpenAPI parameters alike.
    pub(crate) const GEMINI: Dialects = Dialects(1 << 4);
    /// Every dialect.
    const ALL: Dialects = Dialects(0b1_1111);

    const fn and(self, other: Dialects) -> Dialects {
        Dialects(self.0 | other.0)
    }

    /// Whether `dialect`'s every member is in the set.
    pub(crate) const fn has(self, dialect: Dialects) -> bool {
        self.0 & dialect.0 == dialect.0
    }
}

/// One row of [`TABLE`].
#[derive(Debug)]
pub(crate) struct Keyword {
    pub(crate) name: &'static str,
    pub(crate) holds: Holds,
    /// No check depends on it: `description`, `default`, ….
    pub(crate) annotation: bool,
    /// An annotation a schema's fingerprint leaves out.
    pub(crate) unnoted: bool,
    /// It validates, and the gates do not read it (see
    /// [`crate::schema::unread_keyword`], which says where it still says
    /// nothing, or is read after all).
    pub(crate) unread: bool,
    /// Registration puts a value past it (see `crate::register::unenforced`),
    /// and the garde rule that states it in a type.
    pub(crate) bound: Option<Garde>,
    /// It says something of a value's type: a node without any of these
    /// takes any JSON value.
    pub(crate) typing: bool,
    /// It validates a value, and these dialects keep it; the others drop
    /// it and state it in the description. `None` for a keyword that does
    /// not validate on its own.
    pub(crate) validation: Option<Dialects>,
}

impl Keyword {
    const fn annotation(mut self) -> Keyword {
        self.annotation = true;
        self
    }

    const fn unnoted(mut self) -> Keyword {
        self.unnoted = true;
        self.annotation()
    }

    const fn unread(mut self) -> Keyword {
        self.unread = true;
        self
    }

    const fn bound(mut self, rule: Garde) -> Keyword {
        self.bound = Some(rule);
        self
    }

    const fn typing(mut self) -> Keyword {
        self.typing = true;
        self
    }

    const fn kept_by(mut self, dialects: Dialects) -> Keyword {
        self.validation = Some(dialects);
        self
    }
}

use Holds::{Count, Data, Schema, SchemaList, SchemaMap};

/// A row that says no more than what its value holds; the methods above
/// add the rest.
const fn k(name: &'static str, holds: Holds) -> Keyword {
    Keyword {
        name,
        holds,
        annotation: false,
        unnoted: false,
        unread: false,
        bound: None,
        typing: false,
        validation: None,
    }
}

/// The dialects that keep a number's bounds beside `minimum` and `maximum`:
/// all but strict Anthropic and Gemini.
const EXCLUSIVE: Dialects = Dialects::OPENAI_STRICT
    .and(Dialects::OPENAI)
    .and(Dialects::ANTHROPIC);

/// The dialects that keep a string's lengths.
const LENGTHS: Dialects = Dialects::OPENAI
    .and(Dialects::ANTHROPIC)
    .and(Dialects::GEMINI);

/// Every keyword toolgate knows.
pub(crate) const TABLE: &[Keyword] = &[
    // What a value is.
    k("type", Data).typing(),
    k("enum", Data).typing(),
    k("const", Data).typing(),
    k("$ref", Data).typing(),
    k("required", Data),
    k("format", Data),
    k("nullable", Data),
    // Objects.
    k("properties", SchemaMap).typing(),
    k("patternProperties", SchemaMap),
    k("additionalProperties", Schema),
    k("unevaluatedProperties", Schema)
        .unread()
        .bound(Garde::Custom),
    k("propertyNames", Schema).unread(),
    k("minProperties", Count)
        .bound(Garde::Length)
        .kept_by(Dialects::NONE),
    k("maxProperties", Count)
        .bound(Garde::Length)
        .kept_by(Dialects::NONE),
    k("dependentRequired", Data).unread(),
    k("dependentSchemas", SchemaMap).unread(),
    k("dependencies", Data).unread(),
    // Arrays.
    k("items", Schema).typing(),
    k("prefixItems", SchemaList),
    k("additionalItems", Schema),
    k("unevaluatedItems", Schema).unread(),
    k("contains", Schema).unread(),
    k("minItems", Count)
        .bound(Garde::Length)
        .kept_by(Dialects::ALL),
    k("maxItems", Count)
        .bound(Garde::Length)
        .kept_by(EXCLUSIVE.and(Dialects::GEMINI)),
    k("uniqueItems", Data).kept_by(Dialects::ANTHROPIC),
    // Strings.
    k("minLength", Count).bound(Garde::Chars).kept_by(LENGTHS),
    k("maxLength", Count).bound(Garde::Chars).kept_by(LENGTHS),
    k("pattern", Data)
        .bound(Garde::Pattern)
        .kept_by(Dialects::ALL),
    k("contentSchema", Schema),
    // Numbers.
    k("minimum", Data)
        .bound(Garde::Range)
        .kept_by(EXCLUSIVE.and(Dialects::GEMINI)),
    k("maximum", Data)
        .bound(Garde::Range)
        .kept_by(EXCLUSIVE.and(Dialects::GEMINI)),
    k("exclusiveMinimum", Data)
        .bound(Garde::Range)
        .kept_by(EXCLUSIVE),
    k("exclusiveMaximum", Data)
        .bound(Garde::Range)
        .kept_by(EXCLUSIVE),
    k("multipleOf", Data)
        .bound(Garde::Custom)
        .kept_by(EXCLUSIVE),
    // Unions and conditions.
    k("anyOf", SchemaList).typing(),
    k("oneOf", SchemaList).typing(),
    k("allOf", SchemaList).typing(),
    k("not", Schema).typing().unread().bound(Garde::Custom),
    k("if", Schema).unread(),
    k("then", Schema),
    k("else", Schema),
    // Definitions and references.
    k("$defs", SchemaMap),
    k("definitions", SchemaMap),
    k("$dynamicRef", Data).unread(),
    k("$recursiveRef", Data).unread(),
    k("$schema", Data),
    // Annotations.
    k("description", Data).unnoted(),
    k("title", Data).unnoted(),
    k("examples", Data).unnoted(),
    k("$comment", Data).unnoted(),
    k("default", Data).annotation(),
    k("deprecated", Data).annotation(),
];

/// The row of keyword `name`, if toolgate knows it.
pub(crate) fn find(name: &str) -> Option<&'static Keyword> {
    TABLE.iter().find(|keyword| keyword.name == name)
}

/// Whether `name` is a keyword that only annotates (no check depends on it).
pub(crate) fn is_annotation(name: &str) -> bool {
    find(name).is_some_and(|keyword| keyword.annotation)
}

/// The keywords whose value is a count, each as the table spells it.
pub(crate) fn counts() -> impl Iterator<Item = &'static str> {
    TABLE
        .iter()
        .filter(|keyword| keyword.holds == Count)
        .map(|keyword| keyword.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_keyword_has_one_row() {
        for (i, keyword) in TABLE.iter().enumerate() {
            assert!(
                TABLE[..i].iter().all(|other| other.name != keyword.name),
                "`{}` has two rows",
                keyword.name
            );
        }
    }

    #[test]
    fn a_bound_validates_or_is_read_where_it_names_a_value() {
        for keyword in TABLE.iter().filter(|keyword| keyword.bound.is_some()) {
            assert!(
                keyword.validation.is_some()
                    || matches!(keyword.name, "not" | "unevaluatedProperties"),
                "`{}`",
                keyword.name
            );
            assert!(!keyword.annotation, "`{}`", keyword.name);
        }
    }

    #[test]
    fn the_strict_dialects_keep_less_than_their_others() {
        for keyword in TABLE {
            let Some(kept) = keyword.validation else {
                continue;
            };
            for (strict, loose) in [
                (Dialects::OPENAI_STRICT, Dialects::OPENAI),
                (Dialects::ANTHROPIC_STRICT, Dialects::ANTHROPIC),
            ] {
                assert!(
                    !kept.has(strict) || kept.has(loose),
                    "`{}` is kept strict only",
                    keyword.name
                );
            }
        }
    }
}
