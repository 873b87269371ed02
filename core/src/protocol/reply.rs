//! [`Reply`]: an answer before it is handed to a door. A hook chain's
//! outcome stays as it is until the door says which form it wants: a
//! [`Response`] value (the Rust, Lua and Node doors) or JSON text (the C door,
//! `handle_json_text`), written straight from the outcome with no JSON value
//! built and dropped in between.

use std::time::Duration;

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;

use super::envelope::Response;
use crate::hooks::outcome::{ChainOutcome, HookRun};

/// An answer: a response, or the outcome of a `hooks-execute` chain (a
/// success with no tag or warnings).
#[derive(Debug)]
pub(super) enum Reply {
    /// Any answer as a response.
    Response(Response),
    /// A chain's outcome: `{ok: true, data: <outcome>}`.
    Chain(ChainOutcome),
}

impl From<Response> for Reply {
    fn from(response: Response) -> Self {
        Reply::Response(response)
    }
}

impl Reply {
    /// The answer as a response value.
    pub(super) fn into_response(self) -> Response {
        match self {
            Reply::Response(response) => response,
            Reply::Chain(outcome) => Response::success(outcome.into_json()),
        }
    }

    /// The answer as JSON text: the same text as
    /// [`into_response`](Self::into_response) then [`Response::to_json_text`].
    pub(super) fn to_json_text(&self) -> String {
        match self {
            Reply::Response(response) => response.to_json_text(),
            Reply::Chain(outcome) => {
                // A success whose data is written from the outcome.
                let envelope = Response {
                    ok: true,
                    data: None,
                    error: None,
                    code: None,
                    tag: None,
                    warnings: Vec::new(),
                };
                envelope.to_json_text_with(Some(&SortedOutcome(outcome)))
            }
        }
    }

    /// The response, when the answer is not a chain's outcome (which is
    /// always a success with no tag).
    pub(super) fn response(&self) -> Option<&Response> {
        match self {
            Reply::Response(response) => Some(response),
            Reply::Chain(_) => None,
        }
    }
}

/// Nanoseconds as the JSON form gives them.
fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// A chain's outcome serialised as [`ChainOutcome::into_json`]'s value
/// would be: keys sorted, `stopped_by` null when no hook stopped it.
struct SortedOutcome<'a>(&'a ChainOutcome);

impl Serialize for SortedOutcome<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let outcome = self.0;
        let mut s = serializer.serialize_struct("ChainOutcome", 6)?;
        s.serialize_field("data", &outcome.data)?;
        s.serialize_field("duration_ns", &nanos(outcome.duration))?;
        s.serialize_field("hook_type", outcome.hook_type.as_str())?;
        s.serialize_field("hooks", &SortedRuns(&outcome.hooks))?;
        s.serialize_field("status", outcome.status.as_str())?;
        s.serialize_field(
            "stopped_by",
            &outcome.stopped_by.as_ref().map(|stop| SortedStop {
                hook: &stop.hook,
                reason: &stop.reason,
            }),
        )?;
        s.end()
    }
}

/// The hooks that ran, each as [`HookRun::into_json`]'s value would be.
struct SortedRuns<'a>(&'a [HookRun]);

impl Serialize for SortedRuns<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|run| SortedRun {
            duration_ns: nanos(run.duration),
            error: run.error.as_deref(),
            name: &run.name,
            status: run.status.as_str(),
        }))
    }
}

/// One hook's run, keys sorted.
#[derive(Serialize)]
struct SortedRun<'a> {
    duration_ns: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    name: &'a str,
    status: &'a str,
}

/// The hook that stopped a chain, keys sorted.
#[derive(Serialize)]
struct SortedStop<'a> {
    hook: &'a str,
    reason: &'a str,
}
