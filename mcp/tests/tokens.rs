//! Every check of `JwtAuthenticator`, each by a token that only that
//! check refuses: signed with the right key, right in every other claim.
//! A refused token is a `401` and nothing runs.

mod common;

use std::sync::Arc;

use common::{
    ISSUER, SECRET, discover_call, exp, hotels, now, outcome, post_discover, serve, signed, token,
};
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};
use toolgate_mcp::{HttpConfig, JwtAuthenticator};

const STAY: &str = r#"{"hotel_id":"h_seaview1","nights":2}"#;

/// A server whose tokens must come from `ISSUER`, for this resource,
/// with the tenant in `org`.
async fn strict(toolbox: Arc<toolgate::Toolbox<toolgate_examples::hotel::Hotels>>) -> String {
    serve(|resource| {
        let tokens = JwtAuthenticator::hs256(SECRET)
            .unwrap()
            .issuer(ISSUER)
            .audience(resource)
            .tenant_claim("org");
        toolgate_mcp::router(
            toolbox,
            tokens,
            HttpConfig::new(resource).authorization_servers([ISSUER]),
        )
    })
    .await
}

/// Claims every check accepts, for the server at `url`.
fn good(url: &str) -> serde_json::Map<String, Value> {
    let claims = json!({
        "sub": "analyst_1",
        "org": "tenant_a",
        "scope": "bookings:write",
        "iss": ISSUER,
        "aud": url,
        "exp": exp(),
        "nbf": now() - 10,
    });
    claims.as_object().unwrap().clone()
}

fn with(url: &str, change: impl FnOnce(&mut serde_json::Map<String, Value>)) -> String {
    let mut claims = good(url);
    change(&mut claims);
    token(Value::Object(claims))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_claim_check_refuses_its_own_bad_token() {
    let toolbox = hotels();
    let url = strict(Arc::clone(&toolbox)).await;

    // Beyond the 60 seconds of clock skew allowed either way.
    let refused = [
        (
            "another resource's audience",
            with(&url, |c| {
                c.insert("aud".into(), json!("https://other.example.com/mcp"));
            }),
        ),
        (
            "no audience",
            with(&url, |c| {
                c.remove("aud");
            }),
        ),
        (
            "another issuer",
            with(&url, |c| {
                c.insert("iss".into(), json!("https://evil.example.com"));
            }),
        ),
        (
            "no issuer",
            with(&url, |c| {
                c.remove("iss");
            }),
        ),
        (
            "expired",
            with(&url, |c| {
                c.insert("exp".into(), json!(now() - 120));
            }),
        ),
        (
            "no expiry",
            with(&url, |c| {
                c.remove("exp");
            }),
        ),
        (
            "not valid yet",
            with(&url, |c| {
                c.insert("nbf".into(), json!(now() + 600));
            }),
        ),
        (
            "no subject",
            with(&url, |c| {
                c.remove("sub");
            }),
        ),
        (
            "the tenant under the default claim, not the configured one",
            with(&url, |c| {
                let tenant = c.remove("org").unwrap();
                c.insert("tenant".into(), tenant);
            }),
        ),
        ("signed with HS384, not the HS256 configured", {
            signed(Algorithm::HS384, SECRET, &Value::Object(good(&url)))
        }),
    ];
    for (what, bad) in refused {
        let response = post_discover(&url, &bad, discover_call(1, STAY)).await;
        assert_eq!(response.status(), 401, "{what}");
    }
    assert!(toolbox.state().bookings().is_empty());

    // The token every check accepts books, as its subject, in its tenant.
    let accepted = post_discover(
        &url,
        &token(Value::Object(good(&url))),
        discover_call(1, STAY),
    )
    .await;
    assert_eq!(accepted.status(), 200);
    assert_eq!(outcome(accepted).await["guest"], "analyst_1");
    assert_eq!(toolbox.state().bookings().len(), 1);
}

/// Only the `Bearer` scheme carries a token: the same token under
/// another scheme is no token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_under_another_scheme_is_refused() {
    let toolbox = hotels();
    let url = strict(Arc::clone(&toolbox)).await;
    let valid = token(Value::Object(good(&url)));
    let response = common::request(reqwest::Method::POST, &url, None)
        .header("authorization", format!("Basic {valid}"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "book_hotel")
        .body(discover_call(1, STAY))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert!(toolbox.state().bookings().is_empty());
}
