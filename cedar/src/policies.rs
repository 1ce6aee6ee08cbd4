//! Loaded policies: decisions, reloads.

use core::any::TypeId;
use core::fmt::{self, Write as _};
use core::time::Duration;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::SystemTime;

use cedar_policy::{EntityId, EntityUid, Validator};
use cedar_policy_core::ast::{
    self, Context, Entity, EntityUIDEntry, Literal, PartialValue, Request, ValueKind,
};
use cedar_policy_core::entities::{Entities, NoEntitiesSchema, TCComputation};
use cedar_policy_core::evaluator::Evaluator;
use cedar_policy_core::extensions::Extensions;
use cedar_policy_core::pst::SmolStr;
use serde_json::Value;
use toolgate::{CallInfo, CallPolicy, Denied, NotFound, Resolved, ToolContext};

use crate::CedarEntity;
use crate::direct;
use crate::load::{self, LoadError, Loaded};
use crate::schema::{Schema, ToolEntry};
use crate::types::{self, Ty};

/// Cedar policies, validated against a [`Schema`], deciding gate 5 (may
/// this caller use this object with this tool?) and gate 6 (does the call
/// need a person's approval?).
///
/// Loaded from a file ([`from_file`](Self::from_file)) or from text
/// ([`from_text`](Self::from_text)). [`reload`](Self::reload) and
/// [`replace`](Self::replace) swap in a new set atomically while calls are
/// decided: an object is decided wholly by the old set or wholly by the
/// new one, and a set that fails validation is refused while the old one
/// stays. [`watch`](Self::watch) reloads a file when it changes.
pub struct Policies {
    schema: Schema,
    validator: Validator,
    source: Source,
    loaded: RwLock<Arc<Loaded>>,
}

enum Source {
    File(PathBuf),
    Text(String),
}

impl Source {
    fn name(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Text(name) => name.clone(),
        }
    }
}

impl Policies {
    /// Reads and validates the policies in `path`.
    ///
    /// # Errors
    ///
    /// The file cannot be read, a policy does not parse, one does not
    /// validate against `schema`, compares an enumeration with a string it
    /// never holds, or can never apply: every problem, with its policy and
    /// line.
    pub fn from_file(schema: Schema, path: impl Into<PathBuf>) -> Result<Self, LoadError> {
        let path = path.into();
        let text = read(&path)?;
        Self::new(schema, Source::File(path), &text)
    }

    /// Validates the policies in `text`; `name` stands for the file in
    /// errors.
    ///
    /// # Errors
    ///
    /// As [`from_file`](Self::from_file).
    pub fn from_text(schema: Schema, name: &str, text: &str) -> Result<Self, LoadError> {
        Self::new(schema, Source::Text(name.to_owned()), text)
    }

    fn new(schema: Schema, source: Source, text: &str) -> Result<Self, LoadError> {
        let validator = Validator::new(schema.cedar.clone());
        let loaded = load::load(&schema, &validator, &source.name(), text)?;
        Ok(Policies {
            schema,
            validator,
            source,
            loaded: RwLock::new(Arc::new(loaded)),
        })
    }

    /// The schema the policies are validated against.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Reads the file again and, if every policy validates, decides the
    /// next calls by it.
    ///
    /// # Errors
    ///
    /// As [`from_file`](Self::from_file); the policies in force stay.
    /// Policies loaded from text have no file to read: use
    /// [`replace`](Self::replace).
    pub fn reload(&self) -> Result<(), LoadError> {
        match &self.source {
            Source::File(path) => {
                let text = read(path)?;
                self.swap(&path.display().to_string(), &text)
            }
            Source::Text(name) => Err(LoadError::io(
                name,
                &std::io::Error::other("these policies came from text, not a file"),
            )),
        }
    }

    /// Decides the next calls by the policies in `text`, if every one
    /// validates.
    ///
    /// # Errors
    ///
    /// As [`from_text`](Self::from_text); the policies in force stay.
    pub fn replace(&self, name: &str, text: &str) -> Result<(), LoadError> {
        self.swap(name, text)
    }

    fn swap(&self, name: &str, text: &str) -> Result<(), LoadError> {
        let loaded = Arc::new(load::load(&self.schema, &self.validator, name, text)?);
        *self.loaded.write().unwrap_or_else(PoisonError::into_inner) = loaded;
        tracing::info!(target: "toolgate::cedar", source = name, "policies loaded");
        Ok(())
    }

    /// Reloads the file whenever its modification time changes, checking
    /// every `period` on a thread of its own, until the returned [`Watch`]
    /// is dropped. A reload that fails is logged (target
    /// `toolgate::cedar`) and the policies in force stay.
    pub fn watch(self: &Arc<Self>, period: Duration) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let policies: Weak<Self> = Arc::downgrade(self);
        let stopped = Arc::clone(&stop);
        let path = match &self.source {
            Source::File(path) => Some(path.clone()),
            Source::Text(_) => None,
        };
        let thread = std::thread::Builder::new()
            .name("toolgate-cedar-watch".to_owned())
            .spawn(move || {
                let Some(path) = path else { return };
                let mut seen = modified(&path);
                while !stopped.load(Ordering::Acquire) {
                    std::thread::park_timeout(period);
                    let Some(policies) = policies.upgrade() else {
                        return;
                    };
                    let now = modified(&path);
                    if now != seen {
                        seen = now;
                        if let Err(error) = policies.reload() {
                            tracing::warn!(target: "toolgate::cedar", "{error}");
                        }
                    }
                }
            })
            .ok();
        Watch { stop, thread }
    }

    /// The set deciding calls now.
    fn in_force(&self) -> Arc<Loaded> {
        Arc::clone(&self.loaded.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The set deciding this call: the one in force when the call's first
    /// decision was made, kept in the call's slot (`pinned`), so that a
    /// call naming several objects is decided wholly by one set even while
    /// a reload swaps in another.
    fn for_call(&self, pinned: &Pinned) -> Arc<Loaded> {
        // These policies, among any others the call asks.
        let me = core::ptr::from_ref(self) as usize;
        let mut sets = pinned.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, set)) = sets.iter().find(|(by, _)| *by == me) {
            return Arc::clone(set);
        }
        let set = self.in_force();
        sets.push((me, Arc::clone(&set)));
        set
    }

    /// Gate 5 for a call that names no object (a tool without resources,
    /// or a call that leaves its optional ones out), as Cedar decides it:
    /// the resource is the caller's tenant, `Tenant::"<tenant>"`. Set the
    /// policies on the toolbox with
    /// [`Toolbox::with_call_policy`](toolgate::Toolbox::with_call_policy)
    /// (they implement [`CallPolicy`]), so that Cedar decides every call
    /// of every tool: default deny, with or without resources.
    ///
    /// # Errors
    ///
    /// As [`authorize`](Self::authorize).
    pub fn authorize_call(&self, ctx: &ToolContext, call: &CallInfo<'_>) -> Result<(), Denied> {
        let tool = call.tool().name();
        let asked = |why: String| {
            Denied::because(format!("Cedar could not be asked about `{tool}`: {why}"))
        };
        let Some(entry) = self.schema.tools.get(tool) else {
            return Err(asked("the tool is not in the Cedar schema".to_owned()));
        };
        let uid = EntityUid::from_type_name_and_id(
            self.schema.tenant_type.clone(),
            EntityId::new(ctx.tenant()),
        );
        let tenant = entity(
            uid.into(),
            [(
                SmolStr::new_static("tenant"),
                ast::Value::from(ctx.tenant()),
            )],
        );
        let loaded = self.for_call(&call.per_call(Pinned::default));
        let (request, entities) = self
            .request_about(ctx, entry, &loaded, tenant, &|wire| call.argument(wire))
            .map_err(asked)?;
        self.decide(
            ctx,
            (tool, entry.index),
            Some(""),
            &loaded,
            request,
            &entities,
        )
    }

    /// Gates 5 and 6 for one resolved object, as Cedar decides them: call
    /// it from the resource's [`Authorize`](toolgate::Authorize) impl.
    ///
    /// `Ok(())` when a `permit` applies and no `forbid` does;
    /// [`Denied::unless_approved`] when, besides, an `@approval` rule
    /// matches (unless the call resumes an approval, which toolgate
    /// knows); [`Denied::because`] otherwise, naming the policies that
    /// decided. A tool or a resource type the schema does not have, an
    /// argument or attribute that does not fit it, and a policy that fails
    /// to evaluate all deny.
    ///
    /// # Errors
    ///
    /// The denial, with its reason for the audit log.
    pub fn authorize<R: CedarEntity + 'static>(
        &self,
        ctx: &ToolContext,
        resolved: &Resolved<R>,
    ) -> Result<(), Denied> {
        let tool = resolved.tool().name();
        let asked = |why: String| {
            Denied::because(format!("Cedar could not be asked about `{tool}`: {why}"))
        };
        let Some(entry) = self.schema.tools.get(tool) else {
            return Err(asked("the tool is not in the Cedar schema".to_owned()));
        };
        let loaded = self.for_call(&resolved.per_call(Pinned::default));
        let (request, entities) = self.request(ctx, entry, &loaded, resolved).map_err(asked)?;
        let field = resolved.field();
        self.decide(
            ctx,
            (tool, entry.index),
            Some(field),
            &loaded,
            request,
            &entities,
        )
    }

    /// Decides a stand-in for an object gate 4 did not find, and forgets
    /// the answer: call it from the resource's
    /// [`Authorize::not_found`](toolgate::Authorize::not_found), so that a
    /// refusal takes about as long whether the object exists or not.
    ///
    /// The stand-in is an entity of `R`'s type with the id the model sent,
    /// each attribute the least value of its type but a string `tenant`,
    /// which is the caller's (gate 4 looks in the caller's tenant); the
    /// principal and the context are the call's own, and every policy the
    /// object's decision would evaluate is evaluated. The call is refused as not
    /// found whatever this decides; the audit log (target
    /// `toolgate::audit`, level debug) records what the stand-in was
    /// decided (`stand_in_decided`: `permit`, `approval`, `deny`, or `not
    /// asked` when the request could not be made) with `outcome` `refused`,
    /// never as an allowed object.
    ///
    /// The crate's README shows both methods of a resource's
    /// `Authorize` impl calling these policies.
    pub fn decide_not_found<R: CedarEntity + 'static>(
        &self,
        ctx: &ToolContext,
        missing: &NotFound<'_>,
    ) {
        let tool = missing.tool().name();
        let (Some(entry), Some(resource)) = (
            self.schema.tools.get(tool),
            self.schema.resources.get(&TypeId::of::<R>()),
        ) else {
            return;
        };
        let loaded = self.for_call(&missing.per_call(Pinned::default));
        let id = match missing.argument(missing.field()) {
            Some(Value::String(id)) => id.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let uid = EntityUid::from_type_name_and_id(resource.type_name.clone(), EntityId::new(id));
        // Gate 4 looks in the caller's tenant: the stand-in is there, so
        // that a policy's tenant check passes as an object's would.
        let attrs = resource
            .stand_in
            .iter()
            .map(|(name, value)| match value.value_kind() {
                ValueKind::Lit(Literal::String(_)) if name == "tenant" => {
                    (name.clone(), ast::Value::from(ctx.tenant()))
                }
                _ => (name.clone(), value.clone()),
            });
        let object = entity(uid.into(), attrs);
        let arguments = |wire: &str| missing.argument(wire);
        let decided = match self.request_about(ctx, entry, &loaded, object, &arguments) {
            Ok((request, entities)) => {
                match self.decide(ctx, (tool, entry.index), None, &loaded, request, &entities) {
                    Ok(()) => "permit",
                    Err(denied) if denied.is_unless_approved() => "approval",
                    Err(_) => "deny",
                }
            }
            Err(_) => "not asked",
        };
        tracing::debug!(
            target: "toolgate::audit",
            request_id = text(ctx.request_id()),
            actor = text(ctx.actor()),
            tenant = text(ctx.tenant()),
            tool = text(tool),
            gate = "resolve",
            field = text(missing.field()),
            stand_in_decided = decided,
            outcome = "refused",
            "a stand-in decided for an object not found"
        );
    }

    /// Gates 5 and 6 for one request, by the set `loaded`: whatever its
    /// resource, a request is decided here. `field` is the argument that
    /// named the object (empty for a call that names none), or `None` for
    /// a stand-in, whose allowance is not logged.
    fn decide(
        &self,
        ctx: &ToolContext,
        (tool, action): (&str, usize),
        field: Option<&str>,
        loaded: &Loaded,
        request: Request,
        entities: &Entities,
    ) -> Result<(), Denied> {
        // One evaluator for both sets: the request is the same.
        let evaluator = Evaluator::new(request, entities, Extensions::all_available());
        let verdict = loaded.main.decide(action, &evaluator);
        if let Some((id, error)) = &verdict.failed {
            return Err(Denied::because(format!(
                "a Cedar policy failed to evaluate, which denies: {}",
                failure(id, error)
            )));
        }
        let decided = ids(&verdict.determining);
        if !verdict.allowed {
            return Err(Denied::because(if decided.is_empty() {
                "Cedar: no policy permits this".to_owned()
            } else {
                format!("Cedar: forbidden by {decided}")
            }));
        }
        if let Some(field) = field {
            audit_allowed(ctx, tool, field, &decided);
        }
        let Some(rules) = &loaded.approval else {
            return Ok(());
        };
        let verdict = rules.decide(action, &evaluator);
        if let Some((id, error)) = &verdict.failed {
            return Err(Denied::unless_approved(format!(
                "a Cedar approval rule failed to evaluate, which asks for approval: {}",
                failure(id, error)
            )));
        }
        if verdict.allowed {
            return Ok(());
        }
        let mut reason = String::from("Cedar asks for approval:");
        let mut ids: Vec<&str> = verdict.determining.iter().map(|id| id.as_ref()).collect();
        ids.sort_unstable();
        for id in ids {
            let id = cedar_policy::PolicyId::new(id);
            let why = loaded.reasons.get(&id).map_or("", String::as_str);
            let _ = write!(reason, " `{id}` ({why})");
        }
        Err(Denied::unless_approved(reason))
    }

    /// The request and the entities (principal, resource, actions) for one
    /// resolved object.
    fn request<R: CedarEntity + 'static>(
        &self,
        ctx: &ToolContext,
        tool: &ToolEntry,
        loaded: &Loaded,
        resolved: &Resolved<R>,
    ) -> Result<(Request, Entities), String> {
        let Some(resource) = self.schema.resources.get(&TypeId::of::<R>()) else {
            return Err(format!(
                "`{}` is not a Cedar entity in the schema",
                core::any::type_name::<R>()
            ));
        };
        let attrs = match direct::record(&resource.attrs, &**resolved) {
            Some(attrs) => attrs,
            // A shape the direct path leaves out, or a value that does
            // not fit: the JSON path decides, and words the error.
            None => {
                let fields = serde_json::to_value(&**resolved).map_err(|e| e.to_string())?;
                let Value::Object(fields) = fields else {
                    return Err("the resource did not serialize as an object".to_owned());
                };
                let mut path = String::from("resource");
                types::record_value(&resource.attrs, &|name| fields.get(name), &mut path)?
            }
        };
        let uid = EntityUid::from_type_name_and_id(
            resource.type_name.clone(),
            EntityId::new(resolved.entity_id()),
        );
        let object = entity(uid.into(), attrs);
        self.request_about(ctx, tool, loaded, object, &|wire| resolved.argument(wire))
    }

    /// The request about `object` in a call of `tool` with `arguments`:
    /// the principal from `ctx`, the context from the arguments. Whatever
    /// the resource (a resolved object, or the caller's tenant for a call
    /// that names none), it is asked about the same way.
    fn request_about<'v>(
        &self,
        ctx: &ToolContext,
        tool: &ToolEntry,
        loaded: &Loaded,
        object: Entity,
        arguments: &dyn Fn(&str) -> Option<&'v Value>,
    ) -> Result<(Request, Entities), String> {
        let schema = &self.schema;
        let mut path = String::from("principal");
        let mut principal = Vec::with_capacity(3 + schema.principal.len());
        principal.push((SmolStr::new_static("id"), ast::Value::from(ctx.actor())));
        principal.push((
            SmolStr::new_static("tenant"),
            ast::Value::from(ctx.tenant()),
        ));
        principal.push((
            SmolStr::new_static("scopes"),
            ast::Value::set(ctx.scopes().map(ast::Value::from), None),
        ));
        for attr in &schema.principal {
            if let (Some(ty @ Ty::Record(_)), Some(value)) = (&attr.ty, (attr.read)(ctx)) {
                let len = path.len();
                path.push('/');
                path.push_str(&attr.name);
                principal.push((SmolStr::new(&attr.name), ty.value(&value, &mut path)?));
                path.truncate(len);
            }
        }
        let principal_uid: ast::EntityUID = EntityUid::from_type_name_and_id(
            schema.principal_type.clone(),
            EntityId::new(ctx.actor()),
        )
        .into();
        // The values are made from the schema's own types, so Cedar need
        // not check them against it again (which would cost more than the
        // decision). A value that did not fit would fail the policy that
        // reads it, and a failing policy denies.
        let principal = entity(principal_uid.clone(), principal);
        let resource_uid = object.uid().clone();
        // The principal and the object have no parents, and the action's
        // ancestors are its group, as the schema's action entities hold
        // them already closed: the hierarchy is its own transitive closure,
        // which Cedar need not compute again for each request. The action
        // is there only when a condition the set leaves to the evaluator
        // names an action: the rest of the action's scope is decided when
        // the set loads.
        let action = loaded
            .names_action(tool.index)
            .then(|| Entity::clone(&tool.entity));
        let entities = Entities::from_entities(
            [principal, object].into_iter().chain(action),
            None::<&NoEntitiesSchema>,
            TCComputation::AssumeAlreadyComputed,
            Extensions::all_available(),
        )
        .map_err(|e| e.to_string())?;

        // The values gates 1–3 accepted, not their text parsed again.
        let mut path = String::from("context");
        let context = types::record_value(&tool.context, arguments, &mut path)?;
        let context = Context::Value(std::sync::Arc::new(context.into_iter().collect()));
        let request = Request::new_unchecked(
            known(principal_uid),
            known(tool.action.clone().into()),
            known(resource_uid),
            Some(context),
        );
        Ok((request, entities))
    }
}

/// An entity with these attributes and no parents.
fn entity(uid: ast::EntityUID, attrs: impl IntoIterator<Item = (SmolStr, ast::Value)>) -> Entity {
    Entity::new_with_attr_partial_value(
        uid,
        attrs
            .into_iter()
            .map(|(name, value)| (name, PartialValue::Value(value))),
        HashSet::new(),
        HashSet::new(),
        [],
    )
}

fn known(uid: ast::EntityUID) -> EntityUIDEntry {
    EntityUIDEntry::known(uid, None)
}

/// The sets a call's decisions took, by the `Policies` that took each:
/// kept in the call's own slot ([`Resolved::per_call`]).
#[derive(Default)]
struct Pinned(Mutex<Vec<(usize, Arc<Loaded>)>>);

/// Cedar decides the calls that name no object: see
/// [`Policies::authorize_call`].
impl CallPolicy for Policies {
    fn authorize_call(&self, ctx: &ToolContext, call: &CallInfo<'_>) -> Result<(), Denied> {
        Policies::authorize_call(self, ctx, call)
    }
}

impl fmt::Debug for Policies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policies")
            .field("source", &self.source.name())
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

/// A policy's failure as Cedar's public API words it.
fn failure(id: &ast::PolicyID, error: &str) -> String {
    format!("error while evaluating policy `{id}`: {error}")
}

/// The determining policies, sorted: `` `a`, `b` ``.
fn ids(determining: &[&ast::PolicyID]) -> String {
    let mut ids: Vec<&str> = determining.iter().map(|id| id.as_ref()).collect();
    ids.sort_unstable();
    let mut out = String::new();
    for (i, id) in ids.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "`{id}`");
    }
    out
}

/// An allowed object, with the policies that allowed it: the audit log's
/// record of which rule let a call through.
fn audit_allowed(ctx: &ToolContext, tool: &str, field: &str, policies: &str) {
    tracing::info!(
        target: "toolgate::audit",
        request_id = text(ctx.request_id()),
        actor = text(ctx.actor()),
        tenant = text(ctx.tenant()),
        tool = text(tool),
        gate = "authorize",
        field = text(field),
        policies = text(policies),
        "authorized by policy"
    );
}

/// A field of an audit event: escaped as `Debug` escapes it (no newline
/// or control character can forge a line) and cut at 256 characters, as
/// toolgate's own events are.
fn text(raw: &str) -> String {
    const MAX: usize = 256;
    let mut out = String::new();
    let mut count = 0;
    for c in raw.chars() {
        let escaped = c.escape_debug();
        let len = if matches!(c, '"' | '\'') {
            1
        } else {
            escaped.len()
        };
        if count + len > MAX {
            out.push('…');
            break;
        }
        count += len;
        if len == 1 {
            out.push(c);
        } else {
            out.extend(escaped);
        }
    }
    out
}

fn read(path: &Path) -> Result<String, LoadError> {
    std::fs::read_to_string(path).map_err(|e| LoadError::io(&path.display().to_string(), &e))
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Reloads policies while it lives ([`Policies::watch`]); dropping it
/// stops the watching thread.
#[derive(Debug)]
pub struct Watch {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
