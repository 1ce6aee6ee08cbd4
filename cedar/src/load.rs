//! Parsing policies, naming them, and validating them against the schema.

use core::fmt;
use std::collections::HashMap;
use std::str::FromStr;

use cedar_policy::{
    Effect, Policy, PolicyId, PolicySet, RequestEnv, ValidationMode, ValidationWarning, Validator,
};

use crate::enums;
use crate::rules::Rules;
use crate::schema::Schema;

/// The annotation that names a policy (`@id("refunds")`): the id the audit
/// log and errors use. Without it, Cedar's `policy0`, `policy1`, … apply.
const ID: &str = "id";

/// The annotation that makes a `forbid` an approval rule.
pub(crate) const APPROVAL: &str = "approval";

/// The permit that the approval rules are weighed against: an approval
/// rule that matches denies it, which means "ask a person".
const NO_APPROVAL_NEEDED: &str = "toolgate::no-approval-needed";

/// A policy file, parsed and validated.
pub(crate) struct Loaded {
    /// Every policy but the approval rules: gate 5.
    pub(crate) main: Rules,
    /// The approval rules and one unconditional permit: gate 6.
    pub(crate) approval: Option<Rules>,
    /// Each approval rule's reason, by id.
    pub(crate) reasons: HashMap<PolicyId, String>,
}

impl Loaded {
    /// Whether deciding a request of the tool at `action` may look up an
    /// action's entity, by the main set or the approval rules.
    pub(crate) fn names_action(&self, action: usize) -> bool {
        self.main.names_action(action)
            || self
                .approval
                .as_ref()
                .is_some_and(|rules| rules.names_action(action))
    }
}

/// Parses `text` (from `name`), names each policy by its `@id`, and
/// validates every policy strictly against `schema` (through `validator`,
/// made from it): a policy that does not type, that can never apply, or
/// that compares an enumeration with a string it never holds is refused.
pub(crate) fn load(
    schema: &Schema,
    validator: &Validator,
    name: &str,
    text: &str,
) -> Result<Loaded, LoadError> {
    let failed = |problems| LoadError {
        source: name.to_owned(),
        problems,
    };
    let parsed = PolicySet::from_str(text).map_err(|errors| {
        let problems = errors
            .iter()
            .map(|error| Problem::at(text, None, error))
            .collect();
        failed(problems)
    })?;
    if parsed.templates().next().is_some() {
        return Err(failed(vec![Problem::whole(
            "templates are not supported; write each policy in full",
        )]));
    }

    let mut problems = Vec::new();
    let mut named: Vec<Policy> = Vec::new();
    let mut written: Vec<Written> = Vec::new();
    for (policy, at) in in_file_order(&parsed, text) {
        let policy = match policy.annotation(ID) {
            Some(id) => policy.new_id(PolicyId::new(id)),
            None => policy.clone(),
        };
        let earlier = named.iter().filter(|p| p.id() == policy.id()).count();
        if earlier > 0 {
            problems.push(Problem::of(
                text,
                &policy,
                earlier,
                format!("a second policy has the id `{}`", policy.id()),
            ));
        }
        if policy.annotation(APPROVAL).is_some() && policy.effect() != Effect::Forbid {
            problems.push(Problem::of(
                text,
                &policy,
                earlier,
                "an `@approval` policy must be a `forbid`: it names the calls that need a person's approval"
                    .to_owned(),
            ));
        }
        named.push(policy);
        written.push(at);
    }
    if !problems.is_empty() {
        return Err(failed(problems));
    }
    let all = PolicySet::from_policies(named.iter().cloned())
        .map_err(|e| failed(vec![Problem::whole(&e.to_string())]))?;
    let validated = validator.validate(&all, ValidationMode::Strict);
    if !validated.validation_passed() {
        let problems = validated
            .validation_errors()
            .map(|error| Problem::at(text, Some(error.policy_id().to_string()), error))
            .collect();
        return Err(failed(problems));
    }
    // A policy whose scope admits no request is also one whose condition
    // holds for none: one problem says it, the scope's being the cause.
    let mut never: Vec<(&PolicyId, bool, Problem)> = Vec::new();
    for warning in validated.validation_warnings() {
        let Some((why, by_scope)) = never_applies(warning) else {
            tracing::warn!(target: "toolgate::cedar", source = name, policy = %warning.policy_id(), "{warning}");
            continue;
        };
        let mut problem = Problem::at(text, Some(warning.policy_id().to_string()), warning);
        problem.message = why;
        match never.iter_mut().find(|(id, ..)| *id == warning.policy_id()) {
            Some(seen) if by_scope && !seen.1 => *seen = (warning.policy_id(), by_scope, problem),
            Some(_) => {}
            None => never.push((warning.policy_id(), by_scope, problem)),
        }
    }
    problems.extend(never.into_iter().map(|(.., problem)| problem));
    for (policy, at) in named.iter().zip(&written) {
        let envs: Vec<RequestEnv> = policy.get_valid_request_envs(&schema.cedar).collect();
        match enums::check(policy, &envs, schema) {
            Ok(mismatches) => problems.extend(mismatches.into_iter().map(|mismatch| {
                let offset = at.find(&mismatch.literal);
                Problem::located(text, policy, offset, mismatch.message)
            })),
            Err(why) => problems.push(Problem::located(
                text,
                policy,
                at.start,
                format!("its string values could not be checked against the schema: {why}"),
            )),
        }
    }
    if !problems.is_empty() {
        return Err(failed(problems));
    }

    let (rules, main): (Vec<Policy>, Vec<Policy>) = named
        .into_iter()
        .partition(|p| p.annotation(APPROVAL).is_some());
    let reasons = rules
        .iter()
        .map(|p| {
            (
                p.id().clone(),
                p.annotation(APPROVAL).unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let actions = schema.actions();
    let approval = if rules.is_empty() {
        None
    } else {
        let baseline = Policy::parse(
            Some(PolicyId::new(NO_APPROVAL_NEEDED)),
            "permit (principal, action, resource);",
        )
        .map_err(|e| failed(vec![Problem::whole(&e.to_string())]))?;
        let set = PolicySet::from_policies(rules.into_iter().chain([baseline]))
            .map_err(|e| failed(vec![Problem::whole(&e.to_string())]))?;
        Some(Rules::new(set.as_ref(), &actions))
    };
    let main =
        PolicySet::from_policies(main).map_err(|e| failed(vec![Problem::whole(&e.to_string())]))?;
    Ok(Loaded {
        main: Rules::new(main.as_ref(), &actions),
        approval,
        reasons,
    })
}

/// Why a validator's warning means that the policy can never apply, and
/// whether its scope is the cause; `None` for the other warnings.
///
/// The others (a string or an identifier mixing scripts, bidirectional
/// control characters, characters outside the identifier profile) are
/// about how a policy reads, not about what it decides: they stay
/// warnings in the log, and the policy loads.
fn never_applies(warning: &ValidationWarning) -> Option<(String, bool)> {
    let (why, by_scope) = match warning {
        ValidationWarning::ImpossiblePolicy(_) => (
            "this policy can never apply: its condition is false for every request the schema allows",
            false,
        ),
        ValidationWarning::InvalidActionApplication(_) => (
            "this policy can never apply: its scope admits no tool that takes a resource of the type it names (or no tool at all: an effect class no tool of this schema has)",
            true,
        ),
        _ => return None,
    };
    let help = miette::Diagnostic::help(warning)
        .map(|help| format!(" ({help})"))
        .unwrap_or_default();
    Some((format!("{why}{help}"), by_scope))
}

/// Where one policy is in the file: its first byte and its text.
struct Written {
    start: Option<usize>,
    text: Option<String>,
}

impl Written {
    /// The offset in the file of `needle` in this policy, or of the policy
    /// itself when the needle is not found.
    fn find(&self, needle: &str) -> Option<usize> {
        let start = self.start?;
        let within = self.text.as_deref().and_then(|text| text.find(needle));
        Some(start + within.unwrap_or(0))
    }
}

/// The parsed policies in the order of the file, each with where it is.
fn in_file_order<'p>(parsed: &'p PolicySet, text: &str) -> Vec<(&'p Policy, Written)> {
    // Cedar names the policies of a file `policy0`, `policy1`, … in order.
    let index = |policy: &Policy| {
        policy
            .id()
            .to_string()
            .strip_prefix("policy")
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(usize::MAX)
    };
    let mut policies: Vec<&Policy> = parsed.policies().collect();
    policies.sort_by_key(|policy| index(policy));
    // Each policy's text is a slice of the file, and the slices come in
    // order: searching from the end of the previous one finds each.
    let mut from = 0;
    policies
        .into_iter()
        .map(|policy| {
            let own = policy.to_cedar();
            let start = own.as_deref().and_then(|own| {
                let at = from + text.get(from..)?.find(own)?;
                from = at + own.len();
                Some(at)
            });
            (policy, Written { start, text: own })
        })
        .collect()
}

/// Why policies were refused: each problem, with where it is.
///
/// ```text
/// shop.cedar:4:12: policy `refunds`: attribute `amount` on entity type `Action::"issue_refund"` context not found
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    source: String,
    problems: Vec<Problem>,
}

impl LoadError {
    pub(crate) fn io(source: &str, error: &std::io::Error) -> Self {
        LoadError {
            source: source.to_owned(),
            problems: vec![Problem::whole(&format!("cannot read it: {error}"))],
        }
    }

    /// The file (or the name given to the text) the policies came from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Every problem found.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the Cedar policies in {} were refused:", self.source)?;
        for problem in &self.problems {
            write!(f, "\n  {}:", self.source)?;
            if problem.line > 0 {
                write!(f, "{}:{}:", problem.line, problem.column)?;
            }
            if let Some(policy) = &problem.policy {
                write!(f, " policy `{policy}`:")?;
            }
            write!(f, " {}", problem.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// One problem in a policy file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    policy: Option<String>,
    line: usize,
    column: usize,
    message: String,
}

impl Problem {
    /// A problem Cedar reported, located by its first label.
    fn at(text: &str, policy: Option<String>, error: &dyn miette::Diagnostic) -> Self {
        let offset = error
            .labels()
            .and_then(|mut labels| labels.next())
            .map(|label| label.offset());
        let (line, column) = offset.map_or((0, 0), |offset| position(text, offset));
        let mut message = error.to_string();
        if let Some(help) = error.help() {
            message.push_str(" (");
            message.push_str(&help.to_string());
            message.push(')');
        }
        Problem {
            policy,
            line,
            column,
            message,
        }
    }

    /// A problem of one policy: at its `@id` annotation (the `nth` one
    /// with its id, from 0), which is where a reader finds it; without
    /// one, at no one place.
    fn of(text: &str, policy: &Policy, nth: usize, message: String) -> Self {
        let (line, column) = policy
            .annotation(ID)
            .and_then(|id| {
                let needle = format!("@{ID}(\"{id}\")");
                let (offset, _) = text.match_indices(&needle).nth(nth)?;
                Some(position(text, offset))
            })
            .unwrap_or((0, 0));
        Problem {
            policy: Some(policy.id().to_string()),
            line,
            column,
            message,
        }
    }

    /// A problem of one policy at byte `offset` of the file, if known.
    fn located(text: &str, policy: &Policy, offset: Option<usize>, message: String) -> Self {
        let (line, column) = offset.map_or((0, 0), |offset| position(text, offset));
        Problem {
            policy: Some(policy.id().to_string()),
            line,
            column,
            message,
        }
    }

    fn whole(message: &str) -> Self {
        Problem {
            policy: None,
            line: 0,
            column: 0,
            message: message.to_owned(),
        }
    }

    /// The policy's id (its `@id`, or Cedar's `policy0`, …), when the
    /// problem is in one policy.
    pub fn policy(&self) -> Option<&str> {
        self.policy.as_deref()
    }

    /// The line, from 1; 0 when the problem has no one place.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column, from 1, in characters; 0 with line 0.
    pub fn column(&self) -> usize {
        self.column
    }

    /// What is wrong, as Cedar says it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The line and column (from 1) of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::position;

    #[test]
    fn positions_count_lines_and_characters() {
        assert_eq!(position("ab\ncd", 0), (1, 1));
        assert_eq!(position("ab\ncd", 4), (2, 2));
        assert_eq!(position("é\nx", 3), (2, 1));
        assert_eq!(position("éx", 2), (1, 2));
    }
}
