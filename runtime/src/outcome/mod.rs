//! What one call ends in.

pub(crate) mod code;
pub(crate) mod message;
pub(crate) mod rejection;

use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::Value;

use crate::{Approval, Code, Rejection};

/// What the model reads when a call waits for approval.
const APPROVAL_MESSAGE: &str = "This call needs a person's approval before it runs, and approval has been requested. It has not run; do not repeat it. The result will follow once it is approved.";

/// The result of one call: done, rejected or failed.
///
/// Serialized for the model:
///
/// - `{"status":"done","result":…}`
/// - `{"status":"rejected","code":…,"path":…,"safe_message":…,"retryable":…}`
///   (see [`Rejection`])
/// - `{"status":"failed","code":"INTERNAL","safe_message":…,"retryable":false,"request_id":…}`
/// - `{"status":"approval_required","approval_id":…,"safe_message":…,"waits_for":…,"retryable":false}`:
///   the call did not run; a person decides on it (see [`Approval`])
/// - a replay: the stored outcome of an earlier identical call, with
///   `"replayed":true`; the body did not run again
///
/// ```
/// use toolgate::Outcome;
///
/// let done = Outcome::Done(serde_json::json!({"booking": "b_1"}));
/// assert_eq!(serde_json::to_string(&done).unwrap(), r#"{"status":"done","result":{"booking":"b_1"}}"#);
/// assert!(done.rejection().is_none());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// The body ran and returned this value.
    Done(Value),
    /// A gate or the body refused the call.
    Rejected(Rejection),
    /// The body failed; the detail is in the audit log under the request id.
    Failed(Failure),
    /// Gate 6: the call needs a person's approval and did not run. The
    /// approval is the preview to show them.
    ApprovalRequired(Box<Approval>),
    /// Gate 6: an identical call finished before; this is the outcome the
    /// model read then, as JSON, and the body did not run again.
    Replayed(Value),
}

impl Outcome {
    /// The rejection, if the call was refused.
    #[inline]
    pub fn rejection(&self) -> Option<&Rejection> {
        match self {
            Outcome::Rejected(r) => Some(r),
            _ => None,
        }
    }

    /// The result, if the call completed (now, or in the call a replay
    /// repeats).
    #[inline]
    pub fn value(&self) -> Option<&Value> {
        match self {
            Outcome::Done(v) => Some(v),
            Outcome::Replayed(stored) if stored.get("status") == Some(&Value::from("done")) => {
                stored.get("result")
            }
            _ => None,
        }
    }

    /// The approval to ask a person for, if the call needs one.
    #[inline]
    pub fn approval(&self) -> Option<&Approval> {
        match self {
            Outcome::ApprovalRequired(approval) => Some(approval),
            _ => None,
        }
    }

    /// Whether this is the stored outcome of an earlier call.
    #[inline]
    pub fn is_replay(&self) -> bool {
        matches!(self, Outcome::Replayed(_))
    }

    /// The outcome as the JSON the model reads.
    pub fn to_json(&self) -> Value {
        match self {
            // The object `Serialize` makes, built without the serializer
            // between.
            Outcome::Done(value) => {
                let mut map = serde_json::Map::with_capacity(2);
                map.insert("status".to_owned(), Value::from("done"));
                map.insert("result".to_owned(), value.clone());
                Value::Object(map)
            }
            _ => serde_json::to_value(self).unwrap_or(Value::Null),
        }
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
            Outcome::ApprovalRequired(approval) => {
                let mut s = serializer.serialize_struct("Outcome", 5)?;
                s.serialize_field("status", "approval_required")?;
                s.serialize_field("approval_id", &approval.id)?;
                s.serialize_field("safe_message", APPROVAL_MESSAGE)?;
                // Where it waits: who may decide it, so that a model whose
                // user may not tells them whom to ask.
                s.serialize_field("waits_for", &approval.waits_for())?;
                s.serialize_field("retryable", &false)?;
                s.end()
            }
            // The stored outcome as it was read, `status` first, then
            // `"replayed":true`.
            Outcome::Replayed(stored) => {
                let Value::Object(fields) = stored else {
                    return stored.serialize(serializer);
                };
                let mut map = serializer.serialize_map(Some(fields.len() + 1))?;
                if let Some(status) = fields.get("status") {
                    map.serialize_entry("status", status)?;
                }
                for (key, value) in fields.iter().filter(|(k, _)| *k != "status") {
                    map.serialize_entry(key, value)?;
                }
                map.serialize_entry("replayed", &true)?;
                map.end()
            }
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

#[cfg(test)]
mod tests {
    use super::Outcome;
    use serde_json::json;

    #[test]
    fn a_completed_outcome_is_the_json_it_serializes_to() {
        for result in [
            json!(null),
            json!(7),
            json!(-2.5),
            json!("x"),
            json!([1, {"b": 2, "a": [true]}]),
            json!({"status": "shadow", "result": 1}),
        ] {
            let outcome = Outcome::Done(result);
            let serialized = serde_json::to_value(&outcome).unwrap_or_default();
            // Compared as values: the order of a `Value`'s members in text
            // depends on serde_json's `preserve_order`, which another crate
            // in the build may turn on.
            assert_eq!(outcome.to_json(), serialized);
            // What a store keeps is the text `Serialize` writes, byte for byte.
            let text = serde_json::to_string(&outcome).unwrap_or_default();
            assert_eq!(crate::store::Recorded::of(&outcome).as_json(), text);
        }
        for outcome in [
            Outcome::Rejected(crate::Rejection::not_permitted()),
            Outcome::Failed(super::Failure::new("req_1")),
        ] {
            let text = serde_json::to_string(&outcome).unwrap_or_default();
            assert_eq!(crate::store::Recorded::of(&outcome).as_json(), text);
        }
    }
}
