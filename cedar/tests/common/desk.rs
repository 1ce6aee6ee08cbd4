//! A document desk decided wholly by Cedar: a resource whose attributes
//! are enumerations, a tool that takes it, one that takes another resource
//! optionally, and one that takes none.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolgate::{
    Authorize, Authorized, Denied, Fault, Resolved, Resource, ToolContext, ToolError, ToolInfo,
    Toolbox, tool,
};
use toolgate_cedar::{CedarEntity, Policies, Schema};

/// How secret a document is. Its variants have doc comments, so its JSON
/// Schema is a `oneOf` of constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Classification {
    /// Anyone may read it.
    Public,
    /// Staff only.
    Internal,
    /// Named readers only.
    Secret,
}

/// Who a document is written for. No doc comments on the variants: its
/// JSON Schema is a plain `enum`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    Staff,
    Customers,
    Auditors,
}

/// A document's label: a record within the document.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Label {
    /// The label's own classification.
    pub level: Classification,
    /// Free text.
    pub note: String,
}

/// A document, as the desk stores it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Document {
    /// `doc_` and digits.
    pub id: String,
    /// The tenant that owns it.
    pub tenant: String,
    /// How secret it is.
    pub classification: Classification,
    /// Its label.
    pub label: Label,
    /// Who it is written for.
    pub audiences: Vec<Audience>,
}

impl CedarEntity for Document {
    fn entity_id(&self) -> String {
        self.id.clone()
    }
}

/// A folder: its `classification` is free text, not an enumeration.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Folder {
    /// `fld_` and digits.
    pub id: String,
    /// The tenant that owns it.
    pub tenant: String,
    /// Whatever its owner wrote.
    pub classification: String,
}

impl CedarEntity for Folder {
    fn entity_id(&self) -> String {
        self.id.clone()
    }
}

/// A document reference.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct DocumentRef(#[garde(pattern(r"^doc_[0-9]{1,6}$"))] pub String);

/// A folder reference.
#[derive(Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(transparent)]
pub struct FolderRef(#[garde(pattern(r"^fld_[0-9]{1,6}$"))] pub String);

/// The format of what is read.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Text,
    Pdf,
}

/// How soon a reader needs it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Urgency {
    Low,
    High,
}

/// A part of a document.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Summary,
    Body,
    Appendix,
}

/// Which documents a listing shows: a record argument.
#[derive(Clone, Debug, Deserialize, JsonSchema, garde::Validate)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    /// Only documents of this classification.
    #[garde(skip)]
    pub classification: Classification,
}

/// The desk: every document it is asked for exists, in the caller's
/// tenant, and is secret; every call that runs is recorded.
pub struct Desk {
    /// The policies that decide every object.
    pub policies: Arc<Policies>,
    /// The calls whose body ran: the side effect a refused call must
    /// never reach.
    pub ran: Mutex<Vec<&'static str>>,
}

impl Desk {
    fn ran(&self, tool: &'static str) {
        self.ran.lock().unwrap().push(tool);
    }
}

impl Resource<Desk> for Document {
    type Ref = DocumentRef;

    async fn resolve(
        ctx: &ToolContext,
        _: &Desk,
        r: &DocumentRef,
    ) -> Result<Option<Document>, Fault> {
        Ok(Some(Document {
            id: r.0.clone(),
            tenant: ctx.tenant().to_owned(),
            classification: Classification::Secret,
            label: Label {
                level: Classification::Internal,
                note: "draft".to_owned(),
            },
            audiences: vec![Audience::Staff],
        }))
    }
}

impl Resource<Desk> for Folder {
    type Ref = FolderRef;

    async fn resolve(ctx: &ToolContext, _: &Desk, r: &FolderRef) -> Result<Option<Folder>, Fault> {
        Ok(Some(Folder {
            id: r.0.clone(),
            tenant: ctx.tenant().to_owned(),
            classification: "whatever".to_owned(),
        }))
    }
}

impl<T: ToolInfo> Authorize<T, Desk> for Document {
    async fn authorize(ctx: &ToolContext, desk: &Desk, doc: &Resolved<Self>) -> Result<(), Denied> {
        desk.policies.authorize(ctx, doc)
    }
}

impl<T: ToolInfo> Authorize<T, Desk> for Folder {
    async fn authorize(ctx: &ToolContext, desk: &Desk, f: &Resolved<Self>) -> Result<(), Denied> {
        desk.policies.authorize(ctx, f)
    }
}

/// Read parts of a document.
#[tool(effect = read)]
pub fn read_document(
    desk: &Desk,
    document: Authorized<Document>,
    format: Format,
    #[garde(length(min = 1, max = 3))] sections: Vec<Section>,
    #[garde(dive)] filter: Filter,
    express: bool,
    /// How urgent: absent for "whenever".
    urgency: Option<Urgency>,
) -> Result<String, ToolError> {
    let _ = (format, sections, filter, express, urgency);
    desk.ran("read_document");
    Ok(document.id.clone())
}

/// Archive documents, of one folder or of the whole tenant.
#[tool(effect = write)]
pub fn archive_documents(
    desk: &Desk,
    folder: Option<Authorized<Folder>>,
    #[garde(range(min = 1, max = 30))] older_than_days: u32,
) -> Result<u32, ToolError> {
    let _ = folder;
    desk.ran("archive_documents");
    Ok(older_than_days)
}

/// List the tenant's documents.
#[tool(effect = read)]
pub fn list_documents(
    desk: &Desk,
    format: Format,
    #[garde(range(min = 1, max = 50))] limit: u32,
) -> Result<u32, ToolError> {
    let _ = format;
    desk.ran("list_documents");
    Ok(limit)
}

/// A principal attribute from the host: the caller's clearance.
#[derive(Serialize, JsonSchema)]
pub struct Clearance {
    /// The most secret classification the caller may read.
    pub level: Classification,
}

/// The desk's schema: its tools, both resource types, the clearance.
pub fn schema() -> Schema {
    Schema::builder()
        .tool(ReadDocument::definition())
        .tool(ArchiveDocuments::definition())
        .tool(ListDocuments::definition())
        .resource::<Document>()
        .resource::<Folder>()
        .principal_attribute::<Clearance>("clearance")
        .build()
        .expect("the desk's schema builds")
}

/// The desk's tools in a toolbox deciding by `policies`.
pub fn toolbox(policies: Arc<Policies>) -> Toolbox<Desk> {
    let mut toolbox = Toolbox::new(Desk {
        policies: Arc::clone(&policies),
        ran: Mutex::default(),
    })
    .with_call_policy(policies);
    toolbox.register(ReadDocument).unwrap();
    toolbox.register(ArchiveDocuments).unwrap();
    toolbox.register(ListDocuments).unwrap();
    toolbox
}
