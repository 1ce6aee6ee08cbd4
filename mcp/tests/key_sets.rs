//! ES256 and key sets: a token signed with ECDSA P-256 is accepted with
//! the issuer's PEM key; with a key set (JWKS), the key is the one the
//! token's `kid` names, and when the issuer rotates its keys the server
//! follows without a restart. A token whose header names another
//! algorithm than its key's is refused.

mod common;

use std::sync::{Arc, Mutex};

use common::{AUDIENCE, ISSUER, SECRET, exp, hotels, outcome, post_discover, serve};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use toolgate::BoxFuture;
use toolgate_mcp::{HttpConfig, JwtAuthenticator, KeyRefresh, KeySet, KeySetError, KeySource};

const STAY: &str = r#"{"hotel_id":"h_seaview1","nights":2}"#;
const A_PRIVATE: &[u8] = include_bytes!("keys/es256-a-private.pem");
const A_PUBLIC: &[u8] = include_bytes!("keys/es256-a-public.pem");
const B_PRIVATE: &[u8] = include_bytes!("keys/es256-b-private.pem");

fn claims(actor: &str) -> serde_json::Value {
    json!({"sub":actor,"tenant":"tenant_a","scope":"bookings:write","aud":AUDIENCE,"exp":exp()})
}

/// `claims` for `actor`, signed ES256 with `private`, naming `kid`.
fn es256(private: &[u8], kid: Option<&str>, actor: &str) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(
        &header,
        &claims(actor),
        &EncodingKey::from_ec_pem(private).unwrap(),
    )
    .unwrap()
}

/// The public JWK of `private`, named `kid`.
fn jwk(private: &[u8], kid: &str) -> Jwk {
    let mut jwk = Jwk::from_encoding_key(
        &EncodingKey::from_ec_pem(private).unwrap(),
        Algorithm::ES256,
    )
    .unwrap();
    jwk.common.key_id = Some(kid.to_owned());
    jwk
}

fn set(keys: &[Jwk]) -> JwkSet {
    JwkSet {
        keys: keys.to_vec(),
    }
}

async fn start(tokens: JwtAuthenticator) -> String {
    serve(|resource| {
        toolgate_mcp::router(
            hotels(),
            tokens,
            HttpConfig::new(resource).authorization_servers([ISSUER]),
        )
    })
    .await
}

async fn status(url: &str, token: &str) -> u16 {
    post_discover(url, token, common::discover_call(1, STAY))
        .await
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_es256_token_is_accepted_with_the_issuer_s_pem_key() {
    let url = start(
        JwtAuthenticator::es256_pem(A_PUBLIC)
            .unwrap()
            .audience(AUDIENCE),
    )
    .await;
    let accepted = post_discover(
        &url,
        &es256(A_PRIVATE, None, "analyst_1"),
        common::discover_call(1, STAY),
    )
    .await;
    assert_eq!(accepted.status(), 200);
    assert_eq!(outcome(accepted).await["guest"], "analyst_1");
    // Another key's signature; HS256 with the public key as the secret
    // (the old confusion of algorithms); HS256 with the tests' secret.
    let other_key = es256(B_PRIVATE, None, "analyst_1");
    let confused = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims("analyst_1"),
        &EncodingKey::from_secret(A_PUBLIC).unwrap(),
    )
    .unwrap();
    let hs256 = common::signed(Algorithm::HS256, SECRET, &claims("analyst_1"));
    for refused in [other_key, confused, hs256] {
        assert_eq!(status(&url, &refused).await, 401, "{refused}");
    }
}

/// The issuer's `jwks_uri`, served by the test, fetched with reqwest.
struct Issuer {
    jwks_uri: String,
    fetches: Arc<Mutex<u32>>,
}

impl KeySource for Issuer {
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, KeySetError>> {
        Box::pin(async move {
            *self.fetches.lock().unwrap() += 1;
            let response = reqwest::get(&self.jwks_uri)
                .await
                .map_err(|e| KeySetError::new(e.to_string()))?;
            response
                .json()
                .await
                .map_err(|e| KeySetError::new(e.to_string()))
        })
    }
}

/// Serves the JWKS document `published` holds at the time of each request.
async fn publish(published: Arc<Mutex<JwkSet>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    let app = axum::Router::new().route(
        "/jwks.json",
        axum::routing::get(move || {
            let document = serde_json::to_string(&*published.lock().unwrap()).unwrap();
            async move { document }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fetched_key_set_follows_the_issuer_s_rotation_without_a_restart() {
    let published = Arc::new(Mutex::new(set(&[jwk(A_PRIVATE, "a")])));
    let fetches = Arc::new(Mutex::new(0));
    let issuer = Issuer {
        jwks_uri: publish(Arc::clone(&published)).await,
        fetches: Arc::clone(&fetches),
    };
    // Fetched again only for a `kid` it does not know, at most every 200 ms.
    let keys = KeySet::fetched(
        issuer,
        KeyRefresh::every(std::time::Duration::from_secs(3600))
            .unknown_kid_after(std::time::Duration::from_millis(200)),
    );
    let url = start(JwtAuthenticator::key_set(keys.clone()).audience(AUDIENCE)).await;

    let signed_a = es256(A_PRIVATE, Some("a"), "analyst_1");
    assert_eq!(status(&url, &signed_a).await, 200);
    assert_eq!(*fetches.lock().unwrap(), 1);

    // The issuer rotates to B: the first token naming B fetches the new set.
    *published.lock().unwrap() = set(&[jwk(B_PRIVATE, "b")]);
    tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    let signed_b = es256(B_PRIVATE, Some("b"), "analyst_1");
    assert_eq!(status(&url, &signed_b).await, 200);
    assert_eq!(keys.kids(), ["b"]);

    // A is gone: its tokens are refused, now and after another fetch.
    assert_eq!(status(&url, &signed_a).await, 401);
    tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    assert_eq!(status(&url, &signed_a).await, 401);

    // A made-up `kid` in a burst asks the issuer at most once.
    let before = *fetches.lock().unwrap();
    for n in 0..5 {
        let made_up = es256(B_PRIVATE, Some(&format!("made-up-{n}")), "analyst_1");
        assert_eq!(status(&url, &made_up).await, 401);
    }
    assert!(
        *fetches.lock().unwrap() - before <= 1,
        "{} fetches",
        *fetches.lock().unwrap() - before
    );
    // B still works.
    assert_eq!(status(&url, &signed_b).await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_set_the_host_replaces_takes_effect_for_the_next_token() {
    let keys = KeySet::new(&set(&[jwk(A_PRIVATE, "a")]));
    let url = start(JwtAuthenticator::key_set(keys.clone()).audience(AUDIENCE)).await;
    let signed_a = es256(A_PRIVATE, Some("a"), "analyst_1");
    let signed_b = es256(B_PRIVATE, Some("b"), "analyst_1");
    assert_eq!(status(&url, &signed_a).await, 200);
    assert_eq!(status(&url, &signed_b).await, 401);
    keys.replace(&set(&[jwk(B_PRIVATE, "b")]));
    assert_eq!(status(&url, &signed_b).await, 200);
    assert_eq!(status(&url, &signed_a).await, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_naming_another_algorithm_than_its_key_s_is_refused() {
    let keys = KeySet::new(&set(&[jwk(A_PRIVATE, "a")]));
    let url = start(JwtAuthenticator::key_set(keys).audience(AUDIENCE)).await;
    let hs256_named_a = {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("a".to_owned());
        jsonwebtoken::encode(
            &header,
            &claims("analyst_1"),
            &EncodingKey::from_secret(A_PUBLIC).unwrap(),
        )
        .unwrap()
    };
    let no_kid = es256(A_PRIVATE, None, "analyst_1");
    for refused in [hs256_named_a, no_kid] {
        assert_eq!(status(&url, &refused).await, 401, "{refused}");
    }
    // A shared secret in a published set is never a key.
    let secret =
        Jwk::from_encoding_key(&EncodingKey::from_secret(SECRET).unwrap(), Algorithm::HS256)
            .unwrap();
    let mut secret = secret;
    secret.common.key_id = Some("s".to_owned());
    assert!(KeySet::new(&set(&[secret])).kids().is_empty());
}
