//! The behaviour every effect store must show, as one suite.

/// Proves that an [`EffectStore`](crate::EffectStore) behaves as gate 6
/// needs, and panics with every failure listed otherwise: the one suite
/// every store runs (the memory store's tests, and those of the SQLite
/// and PostgreSQL stores).
///
/// Every key and approval id it uses is fresh, so it can run against a
/// database that holds other data. Time is passed in, never read: the
/// suite moves it past leases, windows and expiries itself. `racers` calls
/// of each atomic operation are made at once on one key (polled together
/// in this task; a database store has them all in flight), and exactly one
/// must win.
///
/// ```
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// toolgate::testing::assert_store_conforms(&toolgate::MemoryStore::new(), 100).await;
/// # });
/// ```
pub async fn assert_store_conforms(store: &dyn crate::EffectStore, racers: usize) {
    use crate::store::Recorded;
    use crate::{Claim, Consumed, Decided, Decision};
    use std::time::Duration;

    let mut failures: Vec<String> = Vec::new();
    let mut check = |ok: bool, what: &str| {
        if !ok {
            failures.push(what.to_owned());
        }
    };
    let run = crate::gate::effect::new_id().unwrap_or_else(|_| "apr_conformance".to_owned());
    let key = |name: &str| format!("{run}:{name}");
    let t0 = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000_000);
    let s = Duration::from_secs;
    let (lease, retain) = (s(60), s(3600));
    let outcome = Recorded::from_value(&serde_json::json!({"status": "done", "result": 1}));

    // Idempotency keys.
    let k = key("claim");
    let claim = |k: String, digest: &'static str, at| async move {
        store.claim(&k, digest, at, lease, retain).await
    };
    check(
        matches!(claim(k.clone(), "d1", t0).await, Ok(Claim::Claimed)),
        "a new key is claimed",
    );
    check(
        matches!(claim(k.clone(), "d1", t0 + s(1)).await, Ok(Claim::InFlight)),
        "a held key is in flight",
    );
    check(
        matches!(claim(k.clone(), "d2", t0 + s(1)).await, Ok(Claim::Conflict)),
        "a key claimed with another digest conflicts",
    );
    check(
        matches!(claim(k.clone(), "d1", t0 + s(61)).await, Ok(Claim::Claimed)),
        "a lease that ran out can be claimed again",
    );
    check(
        store.complete(&k, outcome.clone()).await.is_ok(),
        "complete succeeds",
    );
    check(
        matches!(claim(k.clone(), "d1", t0 + s(200)).await, Ok(Claim::Finished(ref o)) if *o == outcome),
        "a finished key returns its outcome, past its lease",
    );
    check(store.release(&k).await.is_ok(), "release succeeds");
    check(
        matches!(
            claim(k.clone(), "d1", t0 + s(201)).await,
            Ok(Claim::Finished(_))
        ),
        "release leaves a finished key alone",
    );
    check(
        matches!(
            claim(k.clone(), "d1", t0 + s(3700)).await,
            Ok(Claim::Claimed)
        ),
        "a record past its retention is gone",
    );
    let never = key("never");
    check(
        store
            .complete(&never, Recorded::from_value(&"an outcome".into()))
            .await
            .is_ok()
            && matches!(claim(never.clone(), "d1", t0).await, Ok(Claim::Claimed)),
        "an outcome for a key nobody holds is not recorded",
    );
    let first = key("first");
    let _ = claim(first.clone(), "d1", t0).await;
    let _ = store.complete(&first, outcome.clone()).await;
    let _ = store
        .complete(&first, Recorded::from_value(&"a later outcome".into()))
        .await;
    check(
        matches!(claim(first.clone(), "d1", t0 + s(1)).await, Ok(Claim::Finished(ref o)) if *o == outcome),
        "the first outcome recorded stands",
    );
    let short = key("short");
    check(
        matches!(
            store.claim(&short, "d1", t0, s(60), s(10)).await,
            Ok(Claim::Claimed)
        ),
        "a key is claimed with a retention shorter than its lease",
    );
    check(
        matches!(
            store.claim(&short, "d1", t0 + s(30), s(60), s(10)).await,
            Ok(Claim::InFlight)
        ) && matches!(
            store.claim(&short, "d2", t0 + s(30), s(60), s(10)).await,
            Ok(Claim::Conflict)
        ),
        "a record is kept as long as its lease, whatever its retention",
    );
    let k2 = key("release");
    let _ = claim(k2.clone(), "d1", t0).await;
    let _ = store.release(&k2).await;
    check(
        matches!(claim(k2.clone(), "d1", t0 + s(1)).await, Ok(Claim::Claimed)),
        "a released key can be claimed at once",
    );

    // Approvals.
    let approval = |id: &str, expires| crate::Approval {
        id: id.to_owned(),
        tenant: "tenant_conformance".to_owned(),
        actor: "actor".to_owned(),
        session: Some("conversation".to_owned()),
        call_id: Some("call_7".to_owned()),
        request_id: "req_1".to_owned(),
        tool: "tool".to_owned(),
        version: 1,
        fingerprint: "sha256:0".to_owned(),
        arguments: serde_json::json!({"n": 1}),
        digest: "d".to_owned(),
        resources: Vec::new(),
        approver_scope: None,
        distinct_approver: false,
        approver: None,
        created_at: t0,
        expires_at: expires,
        state: crate::ApprovalState::Pending,
    };
    let a = key("approval");
    check(
        store
            .create_approval(approval(&a, t0 + s(900)))
            .await
            .is_ok(),
        "an approval is created",
    );
    check(
        store.approval(&a).await.ok().flatten() == Some(approval(&a, t0 + s(900))),
        "an approval reads back as written",
    );
    check(
        matches!(store.approval(&key("none")).await, Ok(None)),
        "an unknown approval is none",
    );
    check(
        matches!(store.consume(&a, t0 + s(1)).await, Ok(Consumed::Pending)),
        "a pending approval is not consumed",
    );
    check(
        matches!(
            store
                .decide(&a, Decision::Approve("boss".into()), t0 + s(2))
                .await,
            Ok(Decided::Done)
        ),
        "a pending approval is approved",
    );
    check(
        matches!(
            store
                .decide(&a, Decision::Deny("boss".into()), t0 + s(3))
                .await,
            Ok(Decided::AlreadyDecided)
        ),
        "an approval is decided once",
    );
    check(
        matches!(store.approval(&a).await, Ok(Some(ref r)) if r.state == crate::ApprovalState::Approved { by: "boss".into() }),
        "the decision and its approver are recorded",
    );
    check(
        matches!(store.consume(&a, t0 + s(4)).await, Ok(Consumed::Done)),
        "an approved approval is consumed",
    );
    check(
        matches!(store.consume(&a, t0 + s(5)).await, Ok(Consumed::Used)),
        "an approval is consumed once",
    );
    check(
        matches!(
            store
                .decide(&key("none"), Decision::Approve("boss".into()), t0)
                .await,
            Ok(Decided::Unknown)
        ),
        "an unknown approval cannot be decided",
    );
    check(
        matches!(store.consume(&key("none"), t0).await, Ok(Consumed::Unknown)),
        "an unknown approval cannot be consumed",
    );
    check(
        store
            .create_approval(approval(&a, t0 + s(900)))
            .await
            .is_err(),
        "an approval id is created once",
    );
    check(
        matches!(store.approval(&a).await, Ok(Some(ref r)) if matches!(r.state, crate::ApprovalState::Used { .. })),
        "a second approval with a taken id replaces nothing",
    );
    let late = key("late");
    let _ = store.create_approval(approval(&late, t0 + s(900))).await;
    check(
        matches!(
            store
                .decide(&late, Decision::Approve("boss".into()), t0 + s(900))
                .await,
            Ok(Decided::Expired)
        ),
        "an expired approval cannot be decided",
    );
    let stale = key("stale");
    let _ = store.create_approval(approval(&stale, t0 + s(900))).await;
    let _ = store
        .decide(&stale, Decision::Approve("boss".into()), t0)
        .await;
    check(
        matches!(
            store.consume(&stale, t0 + s(900)).await,
            Ok(Consumed::Expired)
        ),
        "an approval expired after its approval is not consumed",
    );
    let no = key("denied");
    let _ = store.create_approval(approval(&no, t0 + s(900))).await;
    let _ = store.decide(&no, Decision::Deny("boss".into()), t0).await;
    check(
        matches!(store.consume(&no, t0 + s(1)).await, Ok(Consumed::Denied)),
        "a denied approval is not consumed",
    );

    // Counters and buckets.
    let c = key("count");
    let mut counts = Vec::new();
    for at in [t0, t0 + s(1), t0 + s(2), t0 + s(61)] {
        counts.push(store.count(&c, at, s(60)).await.unwrap_or(0));
    }
    check(
        counts == [1, 2, 3, 1],
        "a counter counts within its window and starts over after it",
    );
    let b = key("bucket");
    let mut takes = Vec::new();
    for at in [t0, t0, t0, t0 + s(30)] {
        takes.push(store.take(&b, 2, s(60), at).await.ok().flatten());
    }
    check(
        matches!(
            takes.as_slice(),
            [None, None, Some(wait), None] if *wait > s(29) && *wait <= s(30)
        ),
        "a bucket gives its capacity, says how long until the next token, and refills",
    );

    // Races: exactly one winner.
    let raced = key("race");
    let claims = join_all((0..racers).map(|_| claim(raced.clone(), "d1", t0))).await;
    let won = claims
        .iter()
        .filter(|c| matches!(c, Ok(Claim::Claimed)))
        .count();
    check(
        won == 1,
        "exactly one of many concurrent claims of a key wins",
    );
    let r = key("race-approval");
    let _ = store.create_approval(approval(&r, t0 + s(900))).await;
    let decided =
        join_all((0..racers).map(|i| store.decide(&r, Decision::Approve(format!("boss_{i}")), t0)))
            .await;
    check(
        decided
            .iter()
            .filter(|d| matches!(d, Ok(Decided::Done)))
            .count()
            == 1,
        "exactly one of many concurrent decisions wins",
    );
    let consumed = join_all((0..racers).map(|_| store.consume(&r, t0 + s(1)))).await;
    check(
        consumed
            .iter()
            .filter(|c| matches!(c, Ok(Consumed::Done)))
            .count()
            == 1,
        "exactly one of many concurrent consumes wins",
    );
    let race_count = key("race-count");
    let counted = join_all((0..racers).map(|_| store.count(&race_count, t0, s(60)))).await;
    let mut seen: Vec<u32> = counted.into_iter().filter_map(Result::ok).collect();
    seen.sort_unstable();
    check(
        seen == (1..=u32::try_from(racers).unwrap_or(u32::MAX)).collect::<Vec<_>>(),
        "concurrent counts each see their own number",
    );

    if !failures.is_empty() {
        panic!(
            "the store does not conform, {} failures:\n  {}",
            failures.len(),
            failures.join("\n  ")
        );
    }
}

/// Polls every future together until all are done, in order.
async fn join_all<F: core::future::Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut pending: Vec<_> = futures.into_iter().map(|f| Some(Box::pin(f))).collect();
    let mut outputs: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    core::future::poll_fn(|cx| {
        let mut done = true;
        for (slot, output) in pending.iter_mut().zip(outputs.iter_mut()) {
            if let Some(future) = slot {
                match future.as_mut().poll(cx) {
                    core::task::Poll::Ready(value) => {
                        *output = Some(value);
                        *slot = None;
                    }
                    core::task::Poll::Pending => done = false,
                }
            }
        }
        if done {
            core::task::Poll::Ready(())
        } else {
            core::task::Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}
