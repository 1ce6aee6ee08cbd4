//! Bearer tokens as JSON Web Tokens, signed with HS256 or RS256.

use std::marker::PhantomData;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use toolgate::BoxFuture;

use crate::Identity;
use crate::http::{Authenticator, Unauthorized};

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

/// Checks a JSON Web Token's signature and algorithm, its audience, its
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
    key: DecodingKey,
    validation: Validation,
    tenant_claim: String,
    audience: PhantomData<A>,
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
    fn with(key: DecodingKey, algorithm: Algorithm) -> Self {
        let mut validation = Validation::new(algorithm);
        validation.set_required_spec_claims(&["exp", "sub", "aud"]);
        // A token is not valid before its `nbf` (RFC 7519 §4.1.5); the
        // crate checks it only when asked.
        validation.validate_nbf = true;
        // Checked against the audience `audience` names; a state without
        // one authenticates no one.
        validation.validate_aud = true;
        JwtAuthenticator {
            key,
            validation,
            tenant_claim: "tenant".to_owned(),
            audience: PhantomData,
        }
    }

    /// Tokens signed with HMAC-SHA256 and this shared secret; an empty
    /// secret is an error. Name the [`audience`](Self::audience) next.
    pub fn hs256(secret: &[u8]) -> Result<Self, jsonwebtoken::errors::Error> {
        Ok(Self::with(
            DecodingKey::from_secret(secret)?,
            Algorithm::HS256,
        ))
    }

    /// Tokens signed with RSA (RS256), checked with this PEM public key.
    /// Name the [`audience`](Self::audience) next.
    pub fn rs256_pem(public_key: &[u8]) -> Result<Self, jsonwebtoken::errors::Error> {
        Ok(Self::with(
            DecodingKey::from_rsa_pem(public_key)?,
            Algorithm::RS256,
        ))
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
            key: self.key,
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

    fn identity(&self, token: &str) -> Result<Identity, Unauthorized> {
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &self.key, &self.validation)
            .map_err(|e| Unauthorized(format!("jwt: {e}")))?;
        let claims = data.claims;
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
        Box::pin(core::future::ready(self.identity(token)))
    }
}
