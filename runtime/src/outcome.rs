//! What one call ends in.

use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::Value;

use crate::{Code, Rejection};

/// The result of one call: done, rejected or failed.
///
/// Serialized for the model:
///
/// - `{"status":"done","result":…}`
/// - `{"status":"rejected","code":…,"path":…,"safe_message":…,"retryable":…}`
///   (see [`Rejection`])
/// - `{"status":"failed","code":"INTERNAL","safe_message":…,"retryable":false,"request_id":…}`
///
/// ```
/// use toolgate::Outcome;
///
/// let done = Outcome::Done(serde_json::json!({"booking": "b_1"}));
/// assert_eq!(serde_json::to_string(&done).unwrap(), r#"{"status":"done","result":{"booking":"b_1"}}"#);
/// assert!(done.rejection().is_none());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The body ran and returned this value.
    Done(Value),
    /// A gate or the body refused the call.
    Rejected(Rejection),
    /// The body failed; the detail is in the audit log under the request id.
    Failed(Failure),
}

impl Outcome {
    /// The rejection, if the call was refused.
    pub fn rejection(&self) -> Option<&Rejection> {
        match self {
            Outcome::Rejected(r) => Some(r),
            _ => None,
        }
    }

    /// The result, if the call completed.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Outcome::Done(v) => Some(v),
            _ => None,
        }
    }

    /// The outcome as the JSON the model reads.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl From<Rejection> for Outcome {
    fn from(rejection: Rejection) -> Self {
        Outcome::Rejected(rejection)
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Done(value) => {
                let mut s = serializer.serialize_struct("Outcome", 2)?;
                s.serialize_field("status", "done")?;
                s.serialize_field("result", value)?;
                s.end()
            }
            Outcome::Rejected(rejection) => rejection.serialize(serializer),
            Outcome::Failed(failure) => failure.serialize(serializer),
        }
    }
}

/// An internal failure, as the model sees it: no error text, only a reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    request_id: Box<str>,
}

impl Failure {
    pub(crate) fn new(request_id: &str) -> Self {
        Failure {
            request_id: request_id.into(),
        }
    }

    /// The request id the audit log filed the error under.
    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// The message the model reads.
    pub fn safe_message(&self) -> String {
        format!(
            "The tool failed on the server. Nothing in this call needs changing; reference {}.",
            self.request_id
        )
    }
}

impl Serialize for Failure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Failure", 5)?;
        s.serialize_field("status", "failed")?;
        s.serialize_field("code", &Code::Internal)?;
        s.serialize_field("safe_message", &self.safe_message())?;
        s.serialize_field("retryable", &false)?;
        s.serialize_field("request_id", &self.request_id)?;
        s.end()
    }
}
