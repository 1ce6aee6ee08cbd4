//! The seeded model test: random sequences of every store operation, with
//! a clock that moves, run against a store and against
//! [`toolgate::store::rules`] applied to plain maps. Every answer must be the
//! same: whatever a store does in SQL is an optimisation of the rules, and
//! this is the proof.
//!
//! A run is a seed: the same seed makes the same operations, and a
//! failure names its seed and the operations that led to it. Set
//! `TOOLGATE_MODEL_SEEDS` (comma-separated) to replay one, and
//! `TOOLGATE_MODEL_STEPS` for longer runs.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use toolgate::ToolContext;
use toolgate::store::rules::{self, Bucket, ClaimRule, Stage};
use toolgate::store::{Approval, ApprovalState, Claim, Decision, EffectStore, Recorded, Withdrawn};

/// Seeds run when `TOOLGATE_MODEL_SEEDS` does not name others.
pub const SEEDS: [u64; 4] = [1, 2, 3, 0x5eed_7001];

/// Operations per seed when `TOOLGATE_MODEL_STEPS` does not say.
pub const STEPS: usize = 300;

/// A small random source (SplitMix64): the same seed, the same sequence,
/// on every machine.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// One of `0..n`.
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(n).unwrap_or(1)).unwrap_or(0)
    }

    fn pick<T: Copy>(&mut self, of: &[T]) -> T {
        of[self.below(of.len())]
    }
}

const MS: u64 = 1;
const SECOND: u64 = 1_000 * MS;

/// Spans the operations are given, in milliseconds: around the leases,
/// windows and expiries below, so that every boundary is met.
const SPANS: [u64; 8] = [
    0,
    MS,
    250 * MS,
    SECOND,
    10 * SECOND,
    60 * SECOND,
    61 * SECOND,
    300 * SECOND,
];

/// How the clock moves between operations, in milliseconds; a negative
/// step is a toolbox whose clock is behind another's.
const STEPS_OF_TIME: [i64; 9] = [0, 0, 1, 999, 1_000, 30_000, 60_000, 61_000, -5_000];

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[derive(Clone, Debug)]
enum Op {
    CreateApproval {
        id: usize,
        ttl: u64,
        tenant: usize,
        actor: usize,
        scope: usize,
        distinct: bool,
        named: bool,
    },
    Pending {
        tenant: usize,
        actor: usize,
        scopes: usize,
        limit: usize,
    },
    Withdraw {
        id: usize,
        by: usize,
    },
    Approval {
        id: usize,
    },
    Decide {
        id: usize,
        approve: bool,
        by: usize,
    },
    Consume {
        id: usize,
    },
    Claim {
        key: usize,
        digest: usize,
        lease: u64,
        retain: u64,
    },
    Complete {
        key: usize,
        outcome: u64,
    },
    Release {
        key: usize,
    },
    Count {
        counter: usize,
        window: u64,
    },
    Take {
        bucket: usize,
        capacity: u32,
        period: u64,
    },
    Tick {
        ms: i64,
    },
}

fn op(random: &mut Random) -> Op {
    // Claims and completions twice as often: most of gate 6's decisions
    // are about keys.
    // Approvals asked for twice as often, one of the two living long, and
    // listed twice as often: a listing then finds several live ones.
    match random.below(16) {
        0 | 14 => Op::CreateApproval {
            id: random.below(6),
            ttl: if random.below(2) == 0 {
                random.pick(&SPANS[1..])
            } else {
                3_600 * SECOND
            },
            tenant: random.below(2),
            actor: random.below(2),
            scope: random.below(3),
            distinct: random.below(2) == 0,
            named: random.below(4) == 0,
        },
        12 | 15 => Op::Pending {
            tenant: random.below(2),
            actor: random.below(ACTORS.len()),
            scopes: random.below(4),
            limit: random.pick(&[1, 2, 10]),
        },
        13 => Op::Withdraw {
            id: random.below(4),
            by: random.below(2),
        },
        1 => Op::Approval {
            id: random.below(4),
        },
        2 => Op::Decide {
            id: random.below(4),
            approve: random.below(3) != 0,
            by: random.below(2),
        },
        3 => Op::Consume {
            id: random.below(4),
        },
        4 | 10 => Op::Claim {
            key: random.below(4),
            digest: random.below(3),
            lease: random.pick(&SPANS),
            retain: random.pick(&SPANS),
        },
        5 | 11 => Op::Complete {
            key: random.below(4),
            outcome: random.next() % 1_000,
        },
        6 => Op::Release {
            key: random.below(4),
        },
        7 => Op::Count {
            counter: random.below(3),
            window: random.pick(&SPANS[1..]),
        },
        8 => Op::Take {
            bucket: random.below(3),
            capacity: random.pick(&[1, 2, 5]),
            period: random.pick(&SPANS[1..]),
        },
        _ => Op::Tick {
            ms: random.pick(&STEPS_OF_TIME),
        },
    }
}

/// An idempotency record as the model keeps it.
struct Key {
    digest: String,
    outcome: Option<Recorded>,
    lease_until: SystemTime,
    kept_until: SystemTime,
}

/// The rules, applied to maps: what every store must answer.
#[derive(Default)]
struct Model {
    approvals: HashMap<String, Approval>,
    keys: HashMap<String, Key>,
    counters: HashMap<String, rules::Counter>,
    buckets: HashMap<String, (Bucket, SystemTime)>,
}

/// Who asks and who decides in the model's approvals: the first two ask,
/// all three may be listed what they may decide.
const ACTORS: [&str; 3] = ["asker0", "asker1", "ann"];

/// The approver scopes a call may ask for (none, or one of two).
const SCOPES: [Option<&str>; 3] = [None, Some("s1"), Some("s2")];

/// The scopes a person listing approvals may hold.
const HELD: [&[&str]; 4] = [&[], &["s1"], &["s2"], &["s1", "s2"]];

/// The model's approval `id` as asked at `now`.
struct Asked<'a> {
    id: &'a str,
    tenant: &'a str,
    actor: &'a str,
    scope: Option<&'a str>,
    distinct: bool,
    named: bool,
}

fn approval(asked: &Asked<'_>, now: SystemTime, ttl: Duration) -> Approval {
    let id = asked.id;
    Approval {
        id: id.to_owned(),
        tenant: asked.tenant.to_owned(),
        actor: asked.actor.to_owned(),
        session: Some("conversation".to_owned()),
        call_id: None,
        request_id: "req".to_owned(),
        tool: "tool".to_owned(),
        version: 1,
        fingerprint: "sha256:0".to_owned(),
        arguments: json!({"n": 1}),
        digest: "d".to_owned(),
        resources: Vec::new(),
        approver_scope: asked.scope.map(str::to_owned),
        distinct_approver: asked.distinct,
        approver: asked.named.then(|| "ann".to_owned()),
        created_at: now,
        expires_at: now + ttl,
        state: ApprovalState::Pending,
    }
}

/// Runs `steps` random operations from `seed` on `store` and on the
/// model, and panics at the first answer that differs, naming the seed
/// and the operations before it.
///
/// Every key and id is fresh, and the clock starts an hour ahead of the
/// system's: a database with other rows works, and the store's own
/// sweeps (which never pass the system clock) remove none of this run's
/// rows, which the rules treat as gone or not on their own.
pub async fn assert_store_follows_the_rules(store: &dyn EffectStore, seed: u64, steps: usize) {
    let run = crate::fresh("model");
    let name = |what: &str, i: usize| format!("{run}:{what}{i}");
    let start = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        + 3_600;
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(start);
    let mut now = start;
    let mut model = Model::default();
    let mut random = Random(seed);
    let mut trail: Vec<String> = Vec::new();
    for step in 0..steps {
        let op = op(&mut random);
        let at = now.duration_since(start).map_or(0, |d| d.as_millis());
        trail.push(format!("{step:>4} @+{at}ms {op:?}"));
        let (expected, got) = match op.clone() {
            Op::Tick { ms: step } => {
                now = match u64::try_from(step) {
                    Ok(forward) => now + ms(forward),
                    Err(_) => (now - ms(step.unsigned_abs())).max(start),
                };
                continue;
            }
            Op::CreateApproval {
                id,
                ttl,
                tenant,
                actor,
                scope,
                distinct,
                named,
            } => {
                let id = name("apr", id);
                let tenant = name("tenant", tenant);
                let asked = Asked {
                    id: &id,
                    tenant: &tenant,
                    actor: ACTORS[actor],
                    scope: SCOPES[scope],
                    distinct,
                    named,
                };
                let record = approval(&asked, now, ms(ttl));
                let expected = rules::create(&id, model.approvals.contains_key(&id)).is_ok();
                if expected {
                    model.approvals.insert(id.clone(), record.clone());
                }
                let got = store.create_approval(record).await;
                (format!("{expected}"), format!("{}", got.is_ok()))
            }
            Op::Approval { id } => {
                let id = name("apr", id);
                let expected = model.approvals.get(&id).cloned();
                let got = store.approval(&id).await;
                (
                    format!("{:?}", Ok::<_, ()>(expected)),
                    format!("{:?}", got.map_err(|_| ())),
                )
            }
            Op::Decide { id, approve, by } => {
                let id = name("apr", id);
                let by = ["ann", "bob"][by].to_owned();
                let record = model.approvals.get_mut(&id);
                let found = record.as_ref().map(|r| (Stage::of(&r.state), r.expires_at));
                let expected = rules::decide(found, now);
                if let (toolgate::Decided::Done, Some(record)) = (&expected, record) {
                    record.state = if approve {
                        ApprovalState::Approved { by: by.clone() }
                    } else {
                        ApprovalState::Denied { by: by.clone() }
                    };
                }
                let decision = if approve {
                    Decision::Approve(by)
                } else {
                    Decision::Deny(by)
                };
                let got = store.decide(&id, decision, now).await;
                (
                    format!("{:?}", Ok::<_, ()>(expected)),
                    format!("{:?}", got.map_err(|_| ())),
                )
            }
            Op::Pending {
                tenant,
                actor,
                scopes,
                limit,
            } => {
                let tenant = name("tenant", tenant);
                let approver = ToolContext::new(ACTORS[actor], tenant.as_str(), "req")
                    .with_scopes(HELD[scopes].iter().copied());
                let mut expected: Vec<&Approval> = model
                    .approvals
                    .values()
                    .filter(|a| rules::listed(a, &approver, now))
                    .collect();
                expected.sort_by(|a, b| rules::listing_order(a).cmp(&rules::listing_order(b)));
                expected.truncate(limit);
                let got = store.pending_approvals(&approver, now, limit).await;
                (
                    format!("{:?}", Ok::<_, ()>(expected)),
                    format!(
                        "{:?}",
                        got.as_ref()
                            .map(|v| v.iter().collect::<Vec<_>>())
                            .map_err(|_| ())
                    ),
                )
            }
            Op::Withdraw { id, by } => {
                let id = name("apr", id);
                let by = ["ann", "bob"][by].to_owned();
                let record = model.approvals.get_mut(&id);
                let found = record.as_ref().map(|r| (Stage::of(&r.state), r.expires_at));
                let expected = rules::withdraw(found, now);
                if let (Withdrawn::Done, Some(record)) = (&expected, record) {
                    record.state = ApprovalState::Withdrawn { by: by.clone() };
                }
                let got = store.withdraw(&id, by, now).await;
                (
                    format!("{:?}", Ok::<_, ()>(expected)),
                    format!("{:?}", got.map_err(|_| ())),
                )
            }
            Op::Consume { id } => {
                let id = name("apr", id);
                let record = model.approvals.get_mut(&id);
                let found = record.as_ref().map(|r| (Stage::of(&r.state), r.expires_at));
                let expected = rules::consume(found, now);
                if let (toolgate::Consumed::Done, Some(record)) = (&expected, record)
                    && let ApprovalState::Approved { by } = &record.state
                {
                    record.state = ApprovalState::Used { by: by.clone() };
                }
                let got = store.consume(&id, now).await;
                (
                    format!("{:?}", Ok::<_, ()>(expected)),
                    format!("{:?}", got.map_err(|_| ())),
                )
            }
            Op::Claim {
                key,
                digest,
                lease,
                retain,
            } => {
                let key = name("key", key);
                let digest = format!("d{digest}");
                let (lease, retain) = (ms(lease), ms(retain));
                let held = model.keys.get(&key);
                let rule = rules::claim(
                    held.map(|k| rules::Held {
                        digest: &k.digest,
                        finished: k.outcome.is_some(),
                        lease_until: k.lease_until,
                        kept_until: k.kept_until,
                    }),
                    &digest,
                    now,
                    lease,
                    retain,
                );
                let expected = match rule {
                    ClaimRule::Take(hold) => {
                        model.keys.insert(
                            key.clone(),
                            Key {
                                digest: digest.clone(),
                                outcome: None,
                                lease_until: hold.lease_until,
                                kept_until: hold.kept_until,
                            },
                        );
                        Claim::Claimed
                    }
                    ClaimRule::InFlight => Claim::InFlight,
                    ClaimRule::Conflict => Claim::Conflict,
                    ClaimRule::Finished => {
                        let outcome = held.and_then(|k| k.outcome.clone());
                        Claim::Finished(
                            outcome.unwrap_or_else(|| Recorded::from_value(&Value::Null)),
                        )
                    }
                };
                let got = store.claim(&key, &digest, now, lease, retain).await;
                (
                    format!("{:?}", Ok::<_, ()>(expected)),
                    format!("{:?}", got.map_err(|_| ())),
                )
            }
            Op::Complete { key, outcome } => {
                let key = name("key", key);
                let outcome = Recorded::from_value(&json!({ "outcome": outcome }));
                let held = model.keys.get_mut(&key);
                if rules::complete(held.as_ref().map(|k| k.outcome.is_some()))
                    && let Some(held) = held
                {
                    held.outcome = Some(outcome.clone());
                }
                let got = store.complete(&key, outcome).await;
                ("true".to_owned(), format!("{}", got.is_ok()))
            }
            Op::Release { key } => {
                let key = name("key", key);
                if rules::release(model.keys.get(&key).map(|k| k.outcome.is_some())) {
                    model.keys.remove(&key);
                }
                let got = store.release(&key).await;
                ("true".to_owned(), format!("{}", got.is_ok()))
            }
            Op::Count { counter, window } => {
                let key = name("counter", counter);
                let counter = rules::count(model.counters.get(&key).copied(), now, ms(window));
                model.counters.insert(key.clone(), counter);
                let got = store.count(&key, now, ms(window)).await;
                (
                    format!("{:?}", Ok::<_, ()>(counter.value)),
                    format!("{:?}", got.map_err(|_| ())),
                )
            }
            Op::Take {
                bucket,
                capacity,
                period,
            } => {
                let key = name("bucket", bucket);
                let held = model.buckets.get(&key).copied();
                let (after, wait) = rules::take(held, capacity, ms(period), now);
                model.buckets.insert(key.clone(), after);
                let got = store.take(&key, capacity, ms(period), now).await;
                (
                    format!("{:?}", Ok::<_, ()>(wait)),
                    format!("{:?}", got.map_err(|_| ())),
                )
            }
        };
        if expected != got {
            let mut report = String::new();
            let from = trail.len().saturating_sub(40);
            for line in &trail[from..] {
                let _ = writeln!(report, "  {line}");
            }
            panic!(
                "the store departs from toolgate::store::rules at step {step} of seed {seed} \
                 (TOOLGATE_MODEL_SEEDS={seed} replays it):\n  the rules: {expected}\n  the store: {got}\n\
                 the operations before it:\n{report}"
            );
        }
    }
}

/// [`assert_store_follows_the_rules`] for every seed of this run:
/// `TOOLGATE_MODEL_SEEDS` if set, else [`SEEDS`].
pub async fn assert_follows_the_rules(store: &dyn EffectStore) {
    let seeds: Vec<u64> = match std::env::var("TOOLGATE_MODEL_SEEDS") {
        Ok(seeds) if !seeds.trim().is_empty() => seeds
            .split(',')
            .map(|s| {
                s.trim()
                    .parse()
                    .expect("TOOLGATE_MODEL_SEEDS holds numbers")
            })
            .collect(),
        _ => SEEDS.to_vec(),
    };
    let steps = std::env::var("TOOLGATE_MODEL_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(STEPS);
    for seed in seeds {
        assert_store_follows_the_rules(store, seed, steps).await;
    }
}
