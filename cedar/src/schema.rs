//! The Cedar schema, generated from the tools and the resource types.

use core::any::TypeId;
use core::fmt;
use std::borrow::Cow;
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;

use cedar_policy::{EntityTypeName, EntityUid};
use serde_json::{Map, Value, json};
use toolgate::{Effect, ToolContext, ToolDef};

use crate::CedarEntity;
use crate::types::{self, Attr, Ty};

/// The principal's entity type: the actor of a [`ToolContext`].
pub const PRINCIPAL: &str = "Actor";

/// The resource of a call that names no object: the caller's tenant,
/// `Tenant::"<tenant>"`, with the attribute `tenant` (its id again, so that
/// `resource.tenant == principal.tenant` reads the same for every call).
/// It is a resource type of each tool that can be called without naming
/// an object: one that takes no resource, or only optional ones.
///
/// Cedar is asked about resolved objects only, for now: until toolgate
/// asks about calls that name none, a policy that could apply only to
/// them is refused at load, since it would never decide anything.
///
/// ```
/// # use toolgate_examples::refund::{IssueRefund, Order};
/// let schema = toolgate_cedar::Schema::builder()
///     .tool(IssueRefund::definition())
///     .resource::<Order>()
///     .build()
///     .unwrap();
/// assert!(schema.to_cedarschema().contains("entity Tenant = {\n  tenant: __cedar::String\n};"));
/// ```
pub const TENANT: &str = "Tenant";

/// The action groups, one per effect class: `action in Action::"write"`
/// covers every tool whose effect is `write`.
pub const GROUPS: [(&str, Effect); 3] = [
    ("read", Effect::Read),
    ("write", Effect::Write),
    ("irreversible", Effect::Irreversible),
];

/// What policies are checked against: a Cedar schema generated from the
/// tools and the resource types they take, so that a policy naming a tool,
/// an argument or an attribute that does not exist fails validation when
/// the policies are loaded.
///
/// - **Principal** `Actor`, its id the context's actor, with attributes
///   `id` (the actor again, as a string: Cedar cannot read an entity's
///   id), `tenant` (a string), `scopes` (a set of strings) and each
///   context extension added with [`SchemaBuilder::principal_attribute`].
/// - **Actions**: one per tool, named as the tool (`Action::"issue_refund"`),
///   each in the group of its effect class: `Action::"read"`,
///   `Action::"write"` or `Action::"irreversible"`.
/// - **Resources**: one entity type per [`CedarEntity`], its attributes
///   the entity's serialized fields; and [`TENANT`] for the tools that can
///   be called without naming an object.
/// - **Context**: the tool's arguments as a record, by their wire names;
///   an argument with a default always has its value.
///
/// Cedar has no maps, unions of different types or tuples: an argument or
/// an attribute of such a type is left out, and a policy that names it is
/// refused at load. A number that is not whole is a `decimal`.
///
/// ```
/// # use toolgate_examples::refund::{IssueRefund, Order};
/// let schema = toolgate_cedar::Schema::builder()
///     .tool(IssueRefund::definition())
///     .resource::<Order>()
///     .build()
///     .unwrap();
/// let text = schema.to_cedarschema();
/// assert!(text.contains("entity Order"));
/// assert!(text.contains(r#"action "issue_refund""#));
/// ```
pub struct Schema {
    pub(crate) cedar: cedar_policy::Schema,
    pub(crate) tools: HashMap<&'static str, ToolEntry>,
    pub(crate) resources: HashMap<TypeId, ResourceEntry>,
    pub(crate) principal: Vec<PrincipalAttr>,
    pub(crate) principal_type: EntityTypeName,
    /// [`TENANT`]: the resource of a call that names no object.
    pub(crate) tenant_type: EntityTypeName,
    /// Every entity type's attributes, by the type's name: what a policy
    /// reads of a principal or a resource.
    pub(crate) shapes: HashMap<String, Vec<Attr>>,
    json: Value,
}

pub(crate) struct ToolEntry {
    /// Where the tool's action is in [`Schema::actions`].
    pub(crate) index: usize,
    pub(crate) action: EntityUid,
    /// The action entity, with its group as parent: the one action a
    /// request of this tool needs in its entities, when a condition names
    /// an action. Made once, and copied into such a request's.
    pub(crate) entity: Arc<cedar_policy_core::ast::Entity>,
    pub(crate) context: Vec<Attr>,
}

pub(crate) struct ResourceEntry {
    pub(crate) type_name: EntityTypeName,
    pub(crate) attrs: Vec<Attr>,
    /// The attributes of a stand-in for an object that was not found, each
    /// the least value of its type (`Ty::stand_in`), made once; a string
    /// `tenant` is the caller's, set for each call.
    pub(crate) stand_in: Vec<(
        cedar_policy_core::pst::SmolStr,
        cedar_policy_core::ast::Value,
    )>,
}

/// A principal attribute read from a context extension.
pub(crate) struct PrincipalAttr {
    pub(crate) name: String,
    /// `None` when the type is no record Cedar can hold.
    pub(crate) ty: Option<Ty>,
    pub(crate) read: fn(&ToolContext) -> Option<Value>,
}

impl Schema {
    /// A builder with no tools and no resources.
    pub fn builder() -> SchemaBuilder {
        SchemaBuilder::default()
    }

    /// The schema in Cedar's own schema syntax: what a policy author reads.
    pub fn to_cedarschema(&self) -> String {
        cedar_policy::SchemaFragment::from_json_value(self.json.clone())
            .ok()
            .and_then(|fragment| fragment.to_cedarschema().ok())
            .unwrap_or_default()
    }

    /// The schema in Cedar's JSON schema format.
    pub fn to_json(&self) -> &Value {
        &self.json
    }

    /// Each tool's action entity, at its tool's [`ToolEntry::index`].
    pub(crate) fn actions(&self) -> Vec<&cedar_policy_core::ast::Entity> {
        let mut actions: Vec<_> = self.tools.values().collect();
        actions.sort_unstable_by_key(|entry| entry.index);
        actions.iter().map(|entry| &*entry.entity).collect()
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut tools: Vec<_> = self.tools.keys().collect();
        tools.sort();
        f.debug_struct("Schema")
            .field("tools", &tools)
            .finish_non_exhaustive()
    }
}

/// Collects the tools and the resource types for a [`Schema`].
#[derive(Default)]
pub struct SchemaBuilder {
    tools: Vec<ToolDef>,
    resources: Vec<(TypeId, &'static str, Cow<'static, str>, Value)>,
    principal: Vec<PrincipalAttr>,
}

impl SchemaBuilder {
    /// Adds a tool: its action, the resource types it takes, its
    /// arguments as the action's context.
    #[must_use]
    pub fn tool(mut self, def: &ToolDef) -> Self {
        self.tools.push(def.clone());
        self
    }

    /// Adds tools, as a toolbox lists them
    /// ([`Toolbox::definitions`](toolgate::Toolbox::definitions)) or as
    /// marker types give them.
    #[must_use]
    pub fn tools<'d>(mut self, defs: impl IntoIterator<Item = &'d ToolDef>) -> Self {
        self.tools.extend(defs.into_iter().cloned());
        self
    }

    /// Adds a resource type: an entity type named by
    /// [`CedarEntity::entity_type`], with its serialized fields as
    /// attributes.
    #[must_use]
    pub fn resource<R: CedarEntity + 'static>(mut self) -> Self {
        let schema = schemars::SchemaGenerator::default()
            .into_root_schema_for::<R>()
            .to_value();
        self.resources.push((
            TypeId::of::<R>(),
            core::any::type_name::<R>(),
            R::entity_type(),
            schema,
        ));
        self
    }

    /// Adds a principal attribute `name` holding the context extension
    /// of type `E` ([`ToolContext::extension`]), as it serializes; absent
    /// when the host attached none, so a policy asks `principal has name`
    /// first.
    ///
    /// ```
    /// # use toolgate_examples::refund::{IssueRefund, Order};
    /// #[derive(serde::Serialize, schemars::JsonSchema)]
    /// struct Claims {
    ///     department: String,
    /// }
    ///
    /// let schema = toolgate_cedar::Schema::builder()
    ///     .tool(IssueRefund::definition())
    ///     .resource::<Order>()
    ///     .principal_attribute::<Claims>("claims")
    ///     .build()
    ///     .unwrap();
    /// assert!(schema.to_cedarschema().contains("claims?"));
    /// ```
    #[must_use]
    pub fn principal_attribute<E>(mut self, name: &str) -> Self
    where
        E: serde::Serialize + schemars::JsonSchema + Send + Sync + 'static,
    {
        let schema = schemars::SchemaGenerator::default()
            .into_root_schema_for::<E>()
            .to_value();
        let read: fn(&ToolContext) -> Option<Value> =
            |ctx| serde_json::to_value(ctx.extension::<E>()?).ok();
        // A type Cedar cannot hold is a build error.
        self.principal.push(PrincipalAttr {
            name: name.to_owned(),
            ty: types::record(&schema).map(Ty::Record),
            read,
        });
        self
    }

    /// The schema, checked by Cedar.
    ///
    /// # Errors
    ///
    /// A tool that takes a resource type not added with
    /// [`resource`](Self::resource); two tools or two resource types with
    /// one name; a name Cedar reserves or the schema's own ([`PRINCIPAL`],
    /// [`TENANT`]); a type whose serialized form is not a record.
    pub fn build(self) -> Result<Schema, SchemaError> {
        let mut entity_types = Map::new();
        let mut principal_attrs = vec![
            Attr {
                name: "id".into(),
                ty: Ty::String,
                required: true,
                default: None,
            },
            Attr {
                name: "tenant".into(),
                ty: Ty::String,
                required: true,
                default: None,
            },
            Attr {
                name: "scopes".into(),
                ty: Ty::Set(Box::new(Ty::String)),
                required: true,
                default: None,
            },
        ];
        for attr in &self.principal {
            let Some(ty) = &attr.ty else {
                return Err(SchemaError::new(format!(
                    "the principal attribute `{}` does not serialize as a record of named fields Cedar can hold",
                    attr.name
                )));
            };
            if principal_attrs.iter().any(|a| a.name == attr.name) {
                return Err(SchemaError::new(format!(
                    "the principal already has an attribute `{}`",
                    attr.name
                )));
            }
            principal_attrs.push(Attr {
                name: attr.name.as_str().into(),
                ty: ty.clone(),
                required: false,
                default: None,
            });
        }
        entity_types.insert(
            PRINCIPAL.to_owned(),
            json!({"shape": types::record_schema(&principal_attrs)}),
        );
        let tenant_attrs = vec![Attr {
            name: "tenant".into(),
            ty: Ty::String,
            required: true,
            default: None,
        }];
        entity_types.insert(
            TENANT.to_owned(),
            json!({"shape": types::record_schema(&tenant_attrs)}),
        );
        let mut shapes = HashMap::from([
            (PRINCIPAL.to_owned(), principal_attrs),
            (TENANT.to_owned(), tenant_attrs),
        ]);

        let mut resources = HashMap::new();
        for (id, rust, name, schema) in &self.resources {
            if !is_identifier(name) || [PRINCIPAL, TENANT, "Action"].contains(&name.as_ref()) {
                return Err(SchemaError::new(format!(
                    "`{rust}` cannot be the Cedar entity type `{name}`: name it with `CedarEntity::entity_type`"
                )));
            }
            let Some(attrs) = types::record(schema) else {
                return Err(SchemaError::new(format!(
                    "`{rust}` does not serialize as a record of named fields, which a Cedar entity's attributes are"
                )));
            };
            if entity_types.contains_key(name.as_ref()) && !resources.contains_key(id) {
                return Err(SchemaError::new(format!(
                    "two resource types are the Cedar entity type `{name}`"
                )));
            }
            entity_types.insert(
                name.to_string(),
                json!({"shape": types::record_schema(&attrs)}),
            );
            shapes.insert(name.to_string(), attrs.clone());
            let type_name = EntityTypeName::from_str(name)
                .map_err(|e| SchemaError::new(format!("`{name}`: {e}")))?;
            // Every type's least value fits it; were one not to, the
            // stand-in would go without attributes rather than the schema
            // be refused for it.
            let fields = types::stand_in(&attrs);
            let stand_in =
                types::record_value(&attrs, &|name| fields.get(name), &mut String::new())
                    .unwrap_or_default();
            resources.insert(
                *id,
                ResourceEntry {
                    type_name,
                    attrs,
                    stand_in,
                },
            );
        }

        let mut actions = Map::new();
        for (group, _) in GROUPS {
            actions.insert(group.to_owned(), json!({}));
        }
        let mut tools = HashMap::new();
        for def in &self.tools {
            let name = def.name();
            if GROUPS.iter().any(|(group, _)| *group == name) {
                return Err(SchemaError::new(format!(
                    "the tool `{name}` has the name of an action group; rename the tool"
                )));
            }
            if tools.contains_key(name) {
                continue;
            }
            let mut resource_types = Vec::new();
            for field in def.resources() {
                let Some(entry) = resources.get(&field.type_id()) else {
                    return Err(SchemaError::new(format!(
                        "the tool `{name}` takes `{}` (argument `{}`), which is no Cedar entity here: add `.resource::<{}>()`",
                        field.type_name(),
                        field.field(),
                        short(field.type_name()),
                    )));
                };
                let entity = entry.type_name.to_string();
                if !resource_types.contains(&entity) {
                    resource_types.push(entity);
                }
            }
            // A call that names no object is to be decided with the tenant
            // as its resource: without it in `appliesTo`, no policy naming
            // such a tool could ever apply to it.
            if !def
                .resources()
                .iter()
                .any(|field| required(def, field.field()))
            {
                resource_types.push(TENANT.to_owned());
            }
            let context = types::record(def.schema()).unwrap_or_default();
            let group = GROUPS
                .iter()
                .find(|(_, effect)| *effect == def.effect())
                .map_or("write", |(group, _)| group);
            actions.insert(
                name.to_owned(),
                json!({
                    "memberOf": [{"id": group}],
                    "appliesTo": {
                        "principalTypes": [PRINCIPAL],
                        "resourceTypes": resource_types,
                        "context": types::record_schema(&context),
                    }
                }),
            );
            let action = EntityUid::from_type_name_and_id(
                EntityTypeName::from_str("Action").map_err(|e| SchemaError::new(e.to_string()))?,
                cedar_policy::EntityId::new(name),
            );
            tools.insert(name, (action, context));
        }

        let json = json!({"": {"entityTypes": entity_types, "actions": actions}});
        let cedar = cedar_policy::Schema::from_json_value(json.clone())
            .map_err(|e| SchemaError::new(format!("Cedar refused the generated schema: {e}")))?;
        let entities = cedar
            .action_entities()
            .map_err(|e| SchemaError::new(format!("Cedar refused the actions: {e}")))?;
        let mut entries = HashMap::with_capacity(tools.len());
        for (index, (name, (action, context))) in tools.into_iter().enumerate() {
            let entity = entities
                .get(&action)
                .map(|entity| Arc::new(entity.as_ref().clone()))
                .ok_or_else(|| SchemaError::new(format!("Cedar lost the action `{name}`")))?;
            entries.insert(
                name,
                ToolEntry {
                    index,
                    action,
                    entity,
                    context,
                },
            );
        }
        let tools = entries;
        let principal_type =
            EntityTypeName::from_str(PRINCIPAL).map_err(|e| SchemaError::new(e.to_string()))?;
        let tenant_type =
            EntityTypeName::from_str(TENANT).map_err(|e| SchemaError::new(e.to_string()))?;
        Ok(Schema {
            cedar,
            tools,
            resources,
            principal: self.principal,
            principal_type,
            tenant_type,
            shapes,
            json,
        })
    }
}

/// Whether every call of `def` names `field`: the model must send it.
fn required(def: &ToolDef, field: &str) -> bool {
    def.schema()
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|names| names.iter().any(|name| name == field))
}

/// `a::b::Order` → `Order`, for a suggestion.
fn short(type_name: &str) -> &str {
    let base = type_name.split('<').next().unwrap_or(type_name);
    base.rsplit("::").next().unwrap_or(base)
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Why a [`Schema`] could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    message: String,
}

impl SchemaError {
    fn new(message: String) -> Self {
        SchemaError { message }
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaError {}
