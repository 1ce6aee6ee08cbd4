//! JSON Web Key Sets: the public keys an issuer signs tokens with, each
//! named by its `kid`, replaced as the issuer rotates them, without a
//! restart.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use toolgate::BoxFuture;

/// Why a key set could not be read or fetched: for the host's log.
#[derive(Debug)]
pub struct KeySetError(String);

impl core::fmt::Display for KeySetError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeySetError {}

impl KeySetError {
    /// An error with this reason (a [`KeySource`] that could not fetch).
    pub fn new(reason: impl Into<String>) -> Self {
        KeySetError(reason.into())
    }
}

/// Where a [`KeySet`] fetches the issuer's current keys: typically its
/// `jwks_uri`, with the host's own HTTP client (toolgate-mcp brings none,
/// so its TLS and proxy settings stay the host's).
///
/// ```
/// use jsonwebtoken::jwk::JwkSet;
/// use toolgate::BoxFuture;
/// use toolgate_mcp::{KeySetError, KeySource};
///
/// /// The issuer's `jwks_uri`, fetched with the host's client.
/// struct Issuer {
///     jwks_uri: String,
/// }
///
/// impl KeySource for Issuer {
///     fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, KeySetError>> {
///         Box::pin(async move {
///             // let text = http_client.get(&self.jwks_uri).send().await?.text().await?;
///             # let text = r#"{"keys":[]}"#;
///             serde_json::from_str(text).map_err(|e| KeySetError::new(e.to_string()))
///         })
///     }
/// }
/// # let _ = Issuer { jwks_uri: String::new() };
/// ```
pub trait KeySource: Send + Sync + 'static {
    /// The issuer's key set as it stands now.
    fn fetch(&self) -> BoxFuture<'_, Result<JwkSet, KeySetError>>;
}

/// When a fetched [`KeySet`] asks its source again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRefresh {
    every: Duration,
    unknown_kid_after: Duration,
}

impl KeyRefresh {
    /// Fetches again once the keys are `every` old (the default: an
    /// hour), on the next token that needs them.
    pub fn every(every: Duration) -> Self {
        KeyRefresh {
            every,
            ..KeyRefresh::default()
        }
    }

    /// A token naming a `kid` the set does not have fetches again, at
    /// most once per `interval` (default: a minute) however many such
    /// tokens arrive: an issuer that rotated is picked up at once, and a
    /// flood of made-up `kid`s costs the issuer one request a minute.
    #[must_use]
    pub fn unknown_kid_after(mut self, interval: Duration) -> Self {
        self.unknown_kid_after = interval;
        self
    }
}

impl Default for KeyRefresh {
    fn default() -> Self {
        KeyRefresh {
            every: Duration::from_secs(3600),
            unknown_kid_after: Duration::from_secs(60),
        }
    }
}

/// One key of a set, with the one algorithm it verifies.
pub(crate) struct SetKey {
    pub(crate) key: DecodingKey,
    pub(crate) algorithm: Algorithm,
}

type Keys = Arc<HashMap<String, Arc<SetKey>>>;

/// A set's source and when it was last asked.
struct Fetcher {
    source: Box<dyn KeySource>,
    refresh: KeyRefresh,
    /// When the source was last asked, whatever it answered; `None`
    /// before the first time.
    asked: tokio::sync::Mutex<Option<Instant>>,
}

/// The public keys a [`JwtAuthenticator`](crate::JwtAuthenticator)
/// checks tokens with, by `kid`: a JSON Web Key Set (RFC 7517) as issuers
/// publish it at their `jwks_uri`. A clone shares the keys: replacing
/// them ([`replace`](Self::replace)) or fetching them again
/// ([`fetched`](Self::fetched)) takes effect for the next token, with no
/// restart.
///
/// Each key verifies one algorithm: its `alg`, or, without one, its
/// type's (`RS256` for RSA, `ES256` for P-256, `ES384` for P-384, `EdDSA`
/// for Ed25519). A token whose header names another algorithm is
/// refused. Keys without a `kid`, keys for encryption (`"use":"enc"`) and
/// symmetric keys (`"kty":"oct"`: a secret does not belong in a published
/// set) are left out; so are keys of types this crate does not verify.
///
/// ```
/// use toolgate_mcp::{JwtAuthenticator, KeySet};
///
/// let keys = KeySet::from_json(
///     r#"{"keys":[{"kty":"EC","crv":"P-256","alg":"ES256","kid":"2026-12",
///       "x":"qahA2AhBcQmBxoGB4XkmqpqqwJRtSV_3-JumSOAtIgM",
///       "y":"yI5mhU3musemlZC2_SYVirdOENUyg-qR220bqerFmcs"}]}"#,
/// )?;
/// assert_eq!(keys.kids(), ["2026-12"]);
/// let tokens = JwtAuthenticator::key_set(keys.clone())
///     .issuer("https://auth.example.com")
///     .audience("https://tools.example.com/mcp");
/// // The issuer rotates: the next token is checked with the new set.
/// keys.replace_json(r#"{"keys":[]}"#)?;
/// assert!(keys.kids().is_empty());
/// # let _ = tokens;
/// # Ok::<(), toolgate_mcp::KeySetError>(())
/// ```
#[derive(Clone)]
pub struct KeySet {
    keys: Arc<RwLock<Keys>>,
    fetcher: Option<Arc<Fetcher>>,
}

impl core::fmt::Debug for KeySet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let kids: Vec<String> = self.current().keys().cloned().collect();
        f.debug_struct("KeySet")
            .field("kids", &kids)
            .field("fetched", &self.fetcher.is_some())
            .finish()
    }
}

impl KeySet {
    /// The keys of `set`, which the host replaces when the issuer rotates
    /// ([`replace`](Self::replace)).
    pub fn new(set: &JwkSet) -> Self {
        KeySet {
            keys: Arc::new(RwLock::new(Arc::new(usable(set)))),
            fetcher: None,
        }
    }

    /// The keys of a JWKS document, `{"keys":[…]}`.
    pub fn from_json(document: &str) -> Result<Self, KeySetError> {
        Ok(KeySet::new(&parse(document)?))
    }

    /// Keys fetched from `source` when the first token needs them, and
    /// again as `refresh` says: when they are old, and when a token names
    /// a `kid` they do not have. A failed fetch keeps the keys there were,
    /// and is logged.
    pub fn fetched(source: impl KeySource, refresh: KeyRefresh) -> Self {
        KeySet {
            keys: Arc::default(),
            fetcher: Some(Arc::new(Fetcher {
                source: Box::new(source),
                refresh,
                asked: tokio::sync::Mutex::new(None),
            })),
        }
    }

    /// Replaces every key with those of `set`: tokens signed with a key
    /// no longer in it are refused from now on.
    pub fn replace(&self, set: &JwkSet) {
        let keys = Arc::new(usable(set));
        *self.keys.write().unwrap_or_else(PoisonError::into_inner) = keys;
    }

    /// [`replace`](Self::replace) with a JWKS document.
    pub fn replace_json(&self, document: &str) -> Result<(), KeySetError> {
        self.replace(&parse(document)?);
        Ok(())
    }

    /// The `kid`s of the keys in use, sorted.
    pub fn kids(&self) -> Vec<String> {
        let mut kids: Vec<String> = self.current().keys().cloned().collect();
        kids.sort();
        kids
    }

    fn current(&self) -> Keys {
        Arc::clone(&self.keys.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The key named `kid`, fetching the set again first if it is due,
    /// or if it has no such key and may ask again.
    pub(crate) async fn key(&self, kid: &str) -> Option<Arc<SetKey>> {
        let Some(fetcher) = &self.fetcher else {
            return self.current().get(kid).cloned();
        };
        self.fetch_if(fetcher, fetcher.refresh.every).await;
        if let Some(key) = self.current().get(kid) {
            return Some(Arc::clone(key));
        }
        self.fetch_if(fetcher, fetcher.refresh.unknown_kid_after)
            .await;
        self.current().get(kid).cloned()
    }

    /// Asks the source, unless it was asked within `interval`. One request
    /// asks at a time; those waiting find it asked and do not ask again.
    async fn fetch_if(&self, fetcher: &Fetcher, interval: Duration) {
        let mut asked = fetcher.asked.lock().await;
        if asked.is_some_and(|at| at.elapsed() < interval) {
            return;
        }
        *asked = Some(Instant::now());
        match fetcher.source.fetch().await {
            Ok(set) => self.replace(&set),
            Err(error) => {
                let reason = error.to_string();
                let reason: String = reason.chars().take(200).collect();
                tracing::warn!(
                    target: "toolgate::audit",
                    event = "key_set_fetch_failed",
                    reason = %reason.escape_debug(),
                    "key set not refreshed; the keys there were stay"
                );
            }
        }
    }
}

fn parse(document: &str) -> Result<JwkSet, KeySetError> {
    serde_json::from_str(document).map_err(|e| KeySetError(format!("not a JWKS document: {e}")))
}

/// The keys of `set` this crate verifies with, by `kid`.
fn usable(set: &JwkSet) -> HashMap<String, Arc<SetKey>> {
    set.keys
        .iter()
        .filter_map(|jwk| {
            let kid = jwk.common.key_id.clone()?;
            if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
                return None;
            }
            let algorithm = algorithm(jwk)?;
            let key = DecodingKey::from_jwk(jwk).ok()?;
            Some((kid, Arc::new(SetKey { key, algorithm })))
        })
        .collect()
}

/// The one algorithm `jwk` verifies: its `alg`, if that suits its type,
/// or its type's. `None` for symmetric keys and what does not match.
fn algorithm(jwk: &Jwk) -> Option<Algorithm> {
    use Algorithm::{ES256, ES384, EdDSA, PS256, PS384, PS512, RS256, RS384, RS512};
    let named = match jwk.common.key_algorithm {
        Some(alg) => Some(alg.to_string().parse::<Algorithm>().ok()?),
        None => None,
    };
    let fits: &[Algorithm] = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => &[RS256, RS384, RS512, PS256, PS384, PS512],
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => &[ES256],
            EllipticCurve::P384 => &[ES384],
            _ => &[],
        },
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => &[EdDSA],
        // A shared secret in a published set, or a type not verified here.
        _ => &[],
    };
    match named {
        Some(alg) => fits.contains(&alg).then_some(alg),
        None => fits.first().copied(),
    }
}
