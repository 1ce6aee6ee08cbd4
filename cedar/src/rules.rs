//! A policy set as requests are decided by it: each policy's condition
//! made once, when the set loads, and evaluated by Cedar's evaluator.
//!
//! Cedar's authorizer (`cedar_policy_core::authorizer::Authorizer`) is
//! made for requests with unknowns too: it evaluates each policy
//! partially, builds the policy's condition (its scope, its `when` and
//! its `unless` as one expression) again for every request, and, to name
//! the policies that decided, builds a policy for each of them. The
//! requests here are wholly known, so each condition is built once, at
//! load, and evaluated with Cedar's own evaluator, and the decision is
//! Cedar's rule, which is all the authorizer adds to it: allowed when a
//! `permit` is satisfied and no `forbid` is; the forbids that are
//! satisfied decide a denial, or else the permits that are decide an
//! allowance. A policy that fails to evaluate is reported, as Cedar
//! reports it (Cedar would then skip it; [`Policies`](crate::Policies)
//! denies).
//!
//! The differential test `rules_decide_as_cedar_s_authorizer` holds the two
//! to one decision, one set of determining policies and one failure.

use cedar_policy_core::ast::{
    ActionConstraint, Effect, Entity, Expr, ExprKind, Literal, Policy, PolicyID, PolicySet,
    PrincipalOrResourceConstraint, SlotEnv, UnaryOp, ValueKind, Var,
};
use cedar_policy_core::est;
use cedar_policy_core::evaluator::Evaluator;

/// The policies of one set, each with its condition built, for each
/// action a request can have.
pub(crate) struct Rules {
    /// By the action's index in the actions the set was made for: the
    /// policies whose scope admits that action, in the order of Cedar's
    /// own set, so that a failure is the one Cedar's authorizer would
    /// report first.
    by_action: Vec<Vec<Rule>>,
    /// By the same index: whether a condition left to the evaluator names
    /// an action (the `action` variable or an action's uid), so that
    /// deciding it may look up the action's entity.
    names_action: Vec<bool>,
}

struct Rule {
    id: PolicyID,
    effect: Effect,
    /// The policy's condition for one action: its scope's action
    /// constraint decided, and the constraints that admit everything left
    /// out.
    condition: Expr,
    /// A template's slots as linked: empty, since templates are refused
    /// at load, but Cedar's evaluator takes them.
    slots: SlotEnv,
}

/// What a set decided about one request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Verdict<'r> {
    /// A `permit` is satisfied and no `forbid` is.
    pub(crate) allowed: bool,
    /// The policies that decided: the satisfied forbids, or when there
    /// are none, the satisfied permits. In the set's order.
    pub(crate) determining: Vec<&'r PolicyID>,
    /// The first policy that failed to evaluate, and why.
    pub(crate) failed: Option<(&'r PolicyID, String)>,
}

impl Rules {
    /// The rules of `set` for requests of each of `actions` (an action
    /// entity with its ancestors, as the schema holds them closed).
    ///
    /// Cedar's condition for a policy is `principal && (action &&
    /// (resource && body))`, each scope constraint `true` when the scope
    /// leaves it open. The action of a request is known here, and which
    /// groups it is in: a policy whose action constraint it fails is
    /// false for every request of that action (nothing before the
    /// constraint can fail to evaluate: a principal constraint is an
    /// equality, an `in` or an `is`), and one it meets needs no check. A
    /// constraint that is `true` changes nothing it is joined to by `&&`.
    pub(crate) fn new(set: &PolicySet, actions: &[&Entity]) -> Rules {
        // Each policy as its JSON form reads back: the same policy,
        // without the places in the text each part came from, which
        // Cedar's evaluator would otherwise copy onto every value it makes.
        let policies: Vec<Policy> = set
            .policies()
            .map(|policy| {
                est::Policy::from(policy.clone())
                    .try_into_ast_policy(Some(policy.id().clone()))
                    .unwrap_or_else(|_| policy.clone())
            })
            .collect();
        let by_action = actions
            .iter()
            .map(|action| {
                policies
                    .iter()
                    .filter_map(|policy| {
                        let condition = condition(
                            admits(policy.action_constraint(), action)?,
                            policy.principal_constraint().as_inner(),
                            policy.resource_constraint().as_inner(),
                            policy.non_scope_constraints(),
                        );
                        Some(Rule {
                            id: policy.id().clone(),
                            effect: policy.effect(),
                            condition,
                            slots: policy.env().clone(),
                        })
                    })
                    .collect()
            })
            .collect::<Vec<Vec<Rule>>>();
        let names_action = by_action
            .iter()
            .map(|rules| {
                rules.iter().any(|rule| {
                    rule.condition
                        .subexpressions()
                        .any(|e| match e.expr_kind() {
                            ExprKind::Var(Var::Action) => true,
                            ExprKind::Lit(Literal::EntityUID(uid)) => uid.entity_type().is_action(),
                            _ => false,
                        })
                })
            })
            .collect();
        Rules {
            by_action,
            names_action,
        }
    }

    /// Whether deciding a request of the action at `action` may look up
    /// an action's entity; when not, the request's entities can leave it
    /// out.
    pub(crate) fn names_action(&self, action: usize) -> bool {
        self.names_action.get(action).copied().unwrap_or(true)
    }

    /// What the set decides about the request `evaluator` holds, whose
    /// action is the one at `action` in those the set was made for.
    pub(crate) fn decide<'r>(&'r self, action: usize, evaluator: &Evaluator<'_>) -> Verdict<'r> {
        let mut permits = Vec::new();
        let mut forbids = Vec::new();
        let mut failed = None;
        for rule in self.by_action.get(action).map_or(&[][..], Vec::as_slice) {
            let satisfied = match evaluator.interpret(&rule.condition, &rule.slots) {
                Ok(value) => match value.value_kind() {
                    ValueKind::Lit(Literal::Bool(b)) => *b,
                    _ => {
                        failed.get_or_insert_with(|| {
                            (&rule.id, format!("its condition is not a boolean: {value}"))
                        });
                        false
                    }
                },
                Err(error) => {
                    failed.get_or_insert_with(|| (&rule.id, error.to_string()));
                    false
                }
            };
            if satisfied {
                match rule.effect {
                    Effect::Permit => permits.push(&rule.id),
                    Effect::Forbid => forbids.push(&rule.id),
                }
            }
        }
        let allowed = !permits.is_empty() && forbids.is_empty();
        Verdict {
            allowed,
            determining: if forbids.is_empty() { permits } else { forbids },
            failed,
        }
    }
}

/// Whether a request of `action` can meet `constraint`: `None` when it
/// cannot; `Some(None)` when it always does; `Some(Some(check))` when
/// the constraint is left to the evaluator.
fn admits(constraint: &ActionConstraint, action: &Entity) -> Option<Option<Expr>> {
    let met = match constraint {
        ActionConstraint::Any => true,
        // Equality, not membership: `action == Action::"write"` holds for
        // no tool in the group `write`.
        ActionConstraint::Eq(uid) => action.uid() == &**uid,
        ActionConstraint::In(uids) => uids
            .iter()
            .any(|uid| action.uid() == &**uid || action.is_descendant_of(uid)),
        #[allow(unreachable_patterns)]
        _ => return Some(Some(constraint.as_expr())),
    };
    met.then_some(None)
}

/// `principal && (action && (resource && body))` without the parts that
/// are `true`, as Cedar's evaluator decides it: `&&` takes each side as a
/// boolean, so a body alone that might not be one keeps a `true &&`.
fn condition(
    action: Option<Expr>,
    principal: &PrincipalOrResourceConstraint,
    resource: &PrincipalOrResourceConstraint,
    body: Option<&Expr>,
) -> Expr {
    use cedar_policy_core::ast::PrincipalOrResource;
    let scope = |constraint: &PrincipalOrResourceConstraint, var| match constraint {
        PrincipalOrResourceConstraint::Any => None,
        constraint => Some(constraint.as_expr(var)),
    };
    let parts: Vec<Expr> = [
        scope(principal, PrincipalOrResource::Principal),
        action,
        scope(resource, PrincipalOrResource::Resource),
    ]
    .into_iter()
    .flatten()
    .collect();
    let body = body.cloned();
    // Every scope constraint is an equality, an `in` or an `is`: a
    // boolean. So is a body made by `&&`, `||`, `!` or a literal.
    let boolean = !parts.is_empty()
        || body.as_ref().is_none_or(|body| {
            matches!(
                body.expr_kind(),
                ExprKind::And { .. }
                    | ExprKind::Or { .. }
                    | ExprKind::UnaryApp {
                        op: UnaryOp::Not,
                        ..
                    }
                    | ExprKind::Lit(Literal::Bool(_))
            )
        });
    let mut all = parts.into_iter().chain(body).rev();
    let Some(last) = all.next() else {
        return Expr::val(true);
    };
    let condition = all.fold(last, |right, left| Expr::and(left, right));
    if boolean {
        condition
    } else {
        Expr::and(Expr::val(true), condition)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::str::FromStr;

    use cedar_policy_core::ast::{Context, Entity, EntityUID, EntityUIDEntry, Request, Value};
    use cedar_policy_core::authorizer::{AuthorizationError, Authorizer, Decision};
    use cedar_policy_core::entities::{Entities, NoEntitiesSchema, TCComputation};
    use cedar_policy_core::extensions::Extensions;
    use cedar_policy_core::parser::parse_policyset;
    use proptest::prelude::*;

    use super::*;

    /// Permits and forbids over every part of a request, an action group
    /// (in a scope, equal to a scope's action, and in conditions, by the
    /// variable and by an action's uid), and policies that fail to
    /// evaluate for some requests (an overflow, an attribute that is
    /// absent, a condition that is not a boolean).
    const POLICIES: &str = r#"
        permit (principal, action == Action::"read", resource) when { resource.owner == principal.id };
        forbid (principal, action, resource) unless { resource.tenant == principal.tenant };
        permit (principal, action in Action::"write", resource is Item) when { principal.scopes.contains("admin") };
        forbid (principal, action, resource) when { context.n * resource.price > 1000 };
        permit (principal, action, resource) when { context has note && context.note like "ok*" };
        forbid (principal, action == Action::"delete", resource is Item) when { resource.locked };
        permit (principal == User::"u1", action, resource);
        forbid (principal, action in Action::"write", resource) when { resource.flag };
        permit (principal, action, resource) when { principal.scopes.contains("all") };
        permit (principal, action, resource) when { if context.n > 30 then context.n else false };
        permit (principal, action == Action::"write", resource);
        forbid (principal, action == Action::"delete", resource) when { action in Action::"write" && context.n == 7 };
        permit (principal, action in Action::"write", resource) when { Action::"update" in Action::"write" && context.n == 3 };
    "#;

    /// The actions of the requests compared.
    const ACTIONS: &[&str] = &["read", "update", "delete"];

    fn uid(text: &str) -> EntityUID {
        cedar_policy::EntityUid::from_str(text).unwrap().into()
    }

    fn entity(of: &str, attrs: Vec<(&str, Value)>, parents: &[&str]) -> Entity {
        Entity::new_with_attr_partial_value(
            uid(of),
            attrs
                .into_iter()
                .map(|(name, value)| (name.into(), value.into())),
            HashSet::new(),
            parents.iter().map(|p| uid(p)).collect(),
            [],
        )
    }

    #[derive(Clone, Debug)]
    struct Case {
        actor: &'static str,
        tenants: (&'static str, &'static str),
        owner: &'static str,
        scopes: Vec<&'static str>,
        action: &'static str,
        price: i64,
        locked: bool,
        flag: Option<bool>,
        n: i64,
        note: Option<&'static str>,
    }

    fn cases() -> impl Strategy<Value = Case> {
        let who = || prop::sample::select(vec!["u1", "u2", "u3"]);
        let tenant = || prop::sample::select(vec!["t1", "t2"]);
        let big = prop_oneof![0i64..=40, Just(i64::MAX / 2), Just(i64::MIN / 3)];
        (
            (who(), (tenant(), tenant()), who()),
            prop::sample::subsequence(vec!["admin", "all"], 0..=2),
            prop::sample::select(ACTIONS.to_vec()),
            (big.clone(), any::<bool>(), prop::option::of(any::<bool>())),
            (
                big,
                prop::option::of(prop::sample::select(vec!["ok", "okay", "no"])),
            ),
        )
            .prop_map(
                |((actor, tenants, owner), scopes, action, item, call)| Case {
                    actor,
                    tenants,
                    owner,
                    scopes,
                    action,
                    price: item.0,
                    locked: item.1,
                    flag: item.2,
                    n: call.0,
                    note: call.1,
                },
            )
    }

    /// The request, its entities, and its entities without the actions'
    /// (which a request whose conditions name no action goes without).
    fn request(case: &Case) -> (Request, Entities, Entities) {
        let principal = entity(
            &format!(r#"User::"{}""#, case.actor),
            vec![
                ("id", Value::from(case.actor)),
                ("tenant", Value::from(case.tenants.0)),
                (
                    "scopes",
                    Value::set(case.scopes.iter().map(|s| Value::from(*s)), None),
                ),
            ],
            &[],
        );
        let mut attrs = vec![
            ("owner", Value::from(case.owner)),
            ("tenant", Value::from(case.tenants.1)),
            ("price", Value::from(case.price)),
            ("locked", Value::from(case.locked)),
        ];
        if let Some(flag) = case.flag {
            attrs.push(("flag", Value::from(flag)));
        }
        let item = entity(r#"Item::"i1""#, attrs, &[]);
        let action = format!(r#"Action::"{}""#, case.action);
        let groups: &[&str] = if case.action == "read" {
            &[]
        } else {
            &[r#"Action::"write""#]
        };
        let entities = |actions: bool| {
            let mut all = vec![principal.clone(), item.clone()];
            if actions {
                all.push(entity(&action, vec![], groups));
                all.push(entity(r#"Action::"write""#, vec![], &[]));
            }
            Entities::from_entities(
                all,
                None::<&NoEntitiesSchema>,
                TCComputation::ComputeNow,
                Extensions::all_available(),
            )
            .unwrap()
        };
        let mut context = vec![("n", Value::from(case.n))];
        if let Some(note) = case.note {
            context.push(("note", Value::from(note)));
        }
        let context = Context::Value(std::sync::Arc::new(
            context
                .into_iter()
                .map(|(name, value)| (name.into(), value))
                .collect(),
        ));
        let known = |text: &str| EntityUIDEntry::known(uid(text), None);
        let request = Request::new_unchecked(
            known(&format!(r#"User::"{}""#, case.actor)),
            known(&action),
            known(r#"Item::"i1""#),
            Some(context),
        );
        (request, entities(true), entities(false))
    }

    #[test]
    fn rules_decide_as_cedar_s_authorizer() {
        let set = parse_policyset(POLICIES).unwrap();
        // Each action as the schema holds it: `update` and `delete` in the
        // group `write`.
        let actions: Vec<Entity> = ACTIONS
            .iter()
            .map(|action| {
                let groups: &[&str] = if *action == "read" {
                    &[]
                } else {
                    &[r#"Action::"write""#]
                };
                entity(&format!(r#"Action::"{action}""#), vec![], groups)
            })
            .collect();
        let rules = Rules::new(&set, &actions.iter().collect::<Vec<_>>());
        let seen = std::cell::RefCell::new([0usize; 3]);
        proptest!(ProptestConfig {
            cases: 3_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        }, |(case in cases())| {
            let (request, entities, without_actions) = request(&case);
            let cedar = Authorizer::new().is_authorized(request.clone(), &set, &entities);
            // As `Policies` asks: the action's entity only when a
            // condition left to the evaluator names an action.
            let action = ACTIONS.iter().position(|a| *a == case.action).unwrap();
            let ours = if rules.names_action(action) { &entities } else { &without_actions };
            let evaluator = Evaluator::new(request, ours, Extensions::all_available());
            let ours = rules.decide(action, &evaluator);

            prop_assert_eq!(ours.allowed, cedar.decision == Decision::Allow, "{:?}", case);
            let mut determining: Vec<&str> = ours.determining.iter().map(|id| id.as_ref()).collect();
            let mut reason: Vec<&str> = cedar.diagnostics.reason.iter().map(AsRef::as_ref).collect();
            determining.sort_unstable();
            reason.sort_unstable();
            prop_assert_eq!(determining, reason, "{:?}", case);
            let first = cedar.diagnostics.errors.first().map(|error| match error {
                AuthorizationError::PolicyEvaluationError { id, error } => (id.clone(), error.to_string()),
            });
            let failed = ours.failed.map(|(id, why)| (id.clone(), why));
            prop_assert_eq!(&failed, &first, "{:?}", case);
            let mut seen = seen.borrow_mut();
            seen[usize::from(ours.allowed)] += 1;
            seen[2] += usize::from(failed.is_some());
        });
        // Allowed, denied and failed requests were all compared.
        let seen = seen.into_inner();
        assert!(
            seen.iter().all(|n| *n >= 100),
            "denied, allowed, failed: {seen:?}"
        );
    }
}
