//! Bearer tokens as JSON Web Tokens, signed with HS256, RS256 or ES256,
//! or with a key of the issuer's published key set.

use std::marker::PhantomData;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use toolgate::BoxFuture;

use crate::Identity;
use crate::http::{Authenticator, Unauthorized};
use crate::keys::KeySet;

/// The claims of the token a request was authenticated with, as verified:
/// every tool of that request reads them with
/// `ctx.extension::<Claims>()`, for what the token says beyond actor,
/// tenant and scopes (roles, a locale, an email).
///
/// ```
/// use toolgate::{ToolContext, ToolError};
/// use toolgate_mcp::Claims;
///
/// fn locale(ctx: &ToolContext) -> &str {
///     ctx.extension::<Claims>()
///         .and_then(|claims| claims.get("locale"))
///         .and_then(|locale| locale.as_str())
///         .unwrap_or("en")
/// }
/// # let ctx = ToolContext::new("u", "t", "r");
/// # assert_eq!(locale(&ctx), "en");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Claims(pub Map<String, Value>);

impl core::ops::Deref for Claims {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// Checks a JSON Web Token's signature and algorithm (HS256 with a shared
/// secret; RS256 or ES256 with a PEM public key; or any of RS256–512,
/// PS256–512, ES256, ES384 and EdDSA with the key its header's `kid`
/// names in the issuer's [`KeySet`], which follows the issuer's
/// rotations), its audience, its
/// expiry and (when it has one) its start, `nbf`, with a minute's leeway
/// for clock skew, and (when set) its issuer; and reads the caller from its
/// claims:
///
/// | claim | becomes |
/// |---|---|
/// | `sub` | the actor |
/// | `tenant` (or the name given to [`tenant_claim`](Self::tenant_claim)) | the tenant |
/// | `scope` (space-separated) or `scp` (a list) | the scopes |
/// | `tools` (a list, optional) | the only tools the caller may list and call |
///
/// A token without `sub`, a tenant, `exp` or the audience is refused.
///
/// The audience is not optional: MCP's authorization specification
/// requires a server to accept only tokens issued for it, so that a token
/// a client obtained for another service (which that service may pass
/// on) does not open this one. Name this endpoint's URL with
/// [`audience`](Self::audience); until then the authenticator is no
/// [`Authenticator`] (the state `A` records whether it was named).
///
/// ```no_run
/// use toolgate::Toolbox;
/// use toolgate_mcp::{HttpConfig, JwtAuthenticator};
///
/// let tokens = JwtAuthenticator::hs256(b"a secret of at least 32 bytes....")?
///     .issuer("https://auth.example.com")
///     .audience("https://tools.example.com/mcp");
/// let config = HttpConfig::new("https://tools.example.com/mcp")
///     .authorization_servers(["https://auth.example.com"]);
/// let app = toolgate_mcp::router(Toolbox::new(()), tokens, config);
/// # let _ = app;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Without the audience it is no authenticator a router takes ("this
/// `JwtAuthenticator` checks no audience"):
///
/// ```compile_fail
/// # use toolgate::Toolbox;
/// # use toolgate_mcp::{HttpConfig, JwtAuthenticator};
/// let tokens = JwtAuthenticator::hs256(b"a secret of at least 32 bytes....")?
///     .issuer("https://auth.example.com");
/// let config = HttpConfig::new("https://tools.example.com/mcp")
///     .authorization_servers(["https://auth.example.com"]);
/// let app = toolgate_mcp::router(Toolbox::new(()), tokens, config);
/// # let _ = app;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct JwtAuthenticator<A = AudienceNamed> {
    keys: Keys,
    validation: Validation,
    tenant_claim: String,
    audience: PhantomData<A>,
}

/// What a token's signature is checked with.
enum Keys {
    /// One key, for the one algorithm of the validation.
    One(DecodingKey),
    /// The key the token's `kid` names, for that key's algorithm.
    Set(KeySet),
}

/// The state of a [`JwtAuthenticator`] that names no audience yet.
#[derive(Clone, Copy, Debug)]
pub enum NoAudience {}

/// The state of a [`JwtAuthenticator`] that names the audience its tokens
/// must be issued for.
#[derive(Clone, Copy, Debug)]
pub enum AudienceNamed {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::AudienceNamed {}
}

/// The states of a [`JwtAuthenticator`] that authenticate: those that
/// name the audience.
#[diagnostic::on_unimplemented(
    message = "this `JwtAuthenticator` checks no audience",
    label = "it would accept a token issued for any other service",
    note = "name this endpoint's URL as the audience its tokens must be issued for: `.audience(\"https://tools.example.com/mcp\")`"
)]
pub trait ChecksAudience: sealed::Sealed {}

impl ChecksAudience for AudienceNamed {}

impl<A> std::fmt::Debug for JwtAuthenticator<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtAuthenticator")
            .field("algorithms", &self.validation.algorithms)
            .field("tenant_claim", &self.tenant_claim)
            .finish_non_exhaustive()
    }
}

impl JwtAuthenticator<NoAudience> {
    fn with(keys: Keys, algorithm: Algorithm) -> Self {
        let mut validation = Validation::new(algorithm);
        validation.set_required_spec_claims(&["exp", "sub", "aud"]);
        // A token is not valid before its `nbf` (RFC 7519 §4.1.5); the
        // crate checks it only when asked.
        validation.validate_nbf = true;
        // Checked against the audience `audience` names; a state without
        // one authenticates no one.
        validation.validate_aud = true;
        JwtAuthenticator {
            keys,
            validation,
            tenant_claim: "tenant".to_owned(),
            audience: PhantomData,
        }
    }

    /// Tokens signed with HMAC-SHA256 and this shared secret; an empty
    /// secret is an error. Name the [`audience`](Self::audience) next.
    pub fn hs256(secret: &[u8]) -> Result<Self, jsonwebtoken::errors::Error> {
        Ok(Self::with(
            Keys::One(DecodingKey::from_secret(secret)?),
            Algorithm::HS256,
        ))
    }

    /// Tokens signed with RSA (RS256), checked with this PEM public key.
    /// Name the [`audience`](Self::audience) next.
    pub fn rs256_pem(public_key: &[u8]) -> Result<Self, jsonwebtoken::errors::Error> {
        Ok(Self::with(
            Keys::One(DecodingKey::from_rsa_pem(public_key)?),
            Algorithm::RS256,
        ))
    }

    /// Tokens signed with ECDSA on P-256 (ES256), checked with this PEM
    /// public key. Name the [`audience`](Self::audience) next.
    ///
    /// ```
    /// use toolgate_mcp::JwtAuthenticator;
    ///
    /// let pem = b"-----BEGIN PUBLIC KEY-----
    /// MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqahA2AhBcQmBxoGB4XkmqpqqwJRt
    /// SV/3+JumSOAtIgPIjmaFTea6x6aVkLb9JhWKt04Q1TKD6pHbbRup6sWZyw==
    /// -----END PUBLIC KEY-----";
    /// let tokens = JwtAuthenticator::es256_pem(pem)?.audience("https://tools.example.com/mcp");
    /// # let _ = tokens;
    /// # Ok::<(), jsonwebtoken::errors::Error>(())
    /// ```
    pub fn es256_pem(public_key: &[u8]) -> Result<Self, jsonwebtoken::errors::Error> {
        Ok(Self::with(
            Keys::One(DecodingKey::from_ec_pem(public_key)?),
            Algorithm::ES256,
        ))
    }

    /// Tokens signed with a key of the issuer's key set, the one the
    /// token's `kid` names, with that key's algorithm; a token without a
    /// `kid`, or naming a key the set does not have (after fetching it
    /// again, for a fetched set), is refused. The set follows the
    /// issuer's rotations ([`KeySet::replace`], [`KeySet::fetched`])
    /// while the server runs. Name the [`audience`](Self::audience) next.
    pub fn key_set(keys: KeySet) -> Self {
        // The algorithm is each key's own; this one is replaced per token.
        Self::with(Keys::Set(keys), Algorithm::RS256)
    }
}

impl<A> JwtAuthenticator<A> {
    /// Only tokens issued for this audience (`aud`): the MCP endpoint's
    /// URL, as [`HttpConfig::new`](crate::HttpConfig::new) names it.
    /// Required: until it is named, the authenticator is no
    /// [`Authenticator`].
    #[must_use]
    pub fn audience(self, audience: &str) -> JwtAuthenticator<AudienceNamed> {
        let mut validation = self.validation;
        validation.set_audience(&[audience]);
        JwtAuthenticator {
            keys: self.keys,
            validation,
            tenant_claim: self.tenant_claim,
            audience: PhantomData,
        }
    }

    /// Only tokens this issuer (`iss`) signed.
    #[must_use]
    pub fn issuer(mut self, issuer: &str) -> Self {
        self.validation.set_issuer(&[issuer]);
        self.validation
            .required_spec_claims
            .insert("iss".to_owned());
        self
    }

    /// The claim that names the tenant (default `tenant`).
    #[must_use]
    pub fn tenant_claim(mut self, claim: impl Into<String>) -> Self {
        self.tenant_claim = claim.into();
        self
    }

    /// The token's claims, once its signature, algorithm and claims are
    /// checked.
    async fn verified(&self, token: &str) -> Result<Map<String, Value>, Unauthorized> {
        let refused = |e: jsonwebtoken::errors::Error| Unauthorized(format!("jwt: {e}"));
        let data = match &self.keys {
            Keys::One(key) => {
                jsonwebtoken::decode::<Map<String, Value>>(token, key, &self.validation)
            }
            Keys::Set(keys) => {
                let header = jsonwebtoken::decode_header(token).map_err(refused)?;
                let kid = header
                    .kid
                    .ok_or_else(|| Unauthorized("jwt: no `kid`".into()))?;
                let key = keys.key(&kid).await.ok_or_else(|| {
                    let kid: String = kid.chars().take(64).collect();
                    Unauthorized(format!(
                        "jwt: no key `{}` in the key set",
                        kid.escape_debug()
                    ))
                })?;
                // The key's one algorithm: a header naming another is
                // refused by the check of the header against it.
                let mut validation = self.validation.clone();
                validation.algorithms = vec![key.algorithm];
                jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation)
            }
        };
        Ok(data.map_err(refused)?.claims)
    }

    fn identity(&self, claims: Map<String, Value>) -> Result<Identity, Unauthorized> {
        let text = |name: &str| claims.get(name).and_then(Value::as_str);
        let list = |name: &str| {
            claims.get(name).and_then(Value::as_array).map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
        };
        let actor = text("sub").ok_or_else(|| Unauthorized("jwt: no `sub`".into()))?;
        let tenant = text(&self.tenant_claim)
            .ok_or_else(|| Unauthorized(format!("jwt: no `{}`", self.tenant_claim)))?;
        let scopes = match text("scope") {
            Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
            None => list("scp").unwrap_or_default(),
        };
        let identity = Identity::new(actor, tenant).with_scopes(scopes);
        let identity = match list("tools") {
            Some(tools) => identity.allow_tools(tools),
            None => identity,
        };
        Ok(identity.with_extension(Claims(claims)))
    }
}

impl<A: ChecksAudience + Send + Sync + 'static> Authenticator for JwtAuthenticator<A> {
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, Unauthorized>> {
        Box::pin(async move { self.identity(self.verified(token).await?) })
    }
}
