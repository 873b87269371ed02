//! The session file (`session.json`): one chain of operations per
//! conversation, the dog tags that point into the chains, and what to tell a
//! conversation whose operations someone else undid.
//!
//! Changesets are numbered project-wide (`seq`); a chain lists the numbers of
//! its own operations in order. A position in a chain counts every operation
//! it ever applied, so a tag keeps meaning the same state after the oldest
//! operations have been dropped from the history (`base` of them are gone).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The version of the session file this release writes.
pub const SESSION_VERSION: u32 = 2;

/// How many dog tags a project keeps (the oldest are forgotten first).
pub const MAX_TAGS: usize = 1000;

/// How many notices a chain keeps for its next call.
const MAX_NOTICES: usize = 100;

/// The chain of the history written before chains existed.
pub const LEGACY_CHAIN: &str = "0";

/// One conversation's operations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chain {
    /// How many of its first operations were dropped from the history.
    #[serde(default)]
    pub base: u64,
    /// The changeset numbers of its kept operations, oldest first: those at
    /// positions below `len` are applied, the rest are its redo tail.
    pub ops: Vec<u64>,
    /// How many of its operations are applied (a position, counting `base`).
    pub len: u64,
    /// The tag of its current state.
    #[serde(default)]
    pub current_tag: Option<String>,
    /// What others did to its operations since its last call.
    #[serde(default)]
    pub notices: Vec<String>,
}

impl Chain {
    /// The last applied operation, if it is still kept.
    pub fn last_applied(&self) -> Option<u64> {
        let index = self.len.checked_sub(self.base)?.checked_sub(1)?;
        self.ops.get(usize::try_from(index).ok()?).copied()
    }

    /// The next operation of the redo tail, if any.
    pub fn next_redo(&self) -> Option<u64> {
        let index = self.len.checked_sub(self.base)?;
        self.ops.get(usize::try_from(index).ok()?).copied()
    }

    /// The redo tail, dropped from the chain (a new operation replaces it).
    pub fn take_redo_tail(&mut self) -> Vec<u64> {
        let keep = usize::try_from(self.len.saturating_sub(self.base)).unwrap_or(usize::MAX);
        if keep >= self.ops.len() {
            return Vec::new();
        }
        self.ops.split_off(keep)
    }

    /// Remembers `notice` for the chain's next call.
    pub fn tell(&mut self, notice: String) {
        self.notices.push(notice);
        if self.notices.len() > MAX_NOTICES {
            self.notices.remove(0);
        }
    }
}

/// Where a dog tag points: a position in a chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagPoint {
    /// The chain (conversation) it belongs to.
    pub chain: String,
    /// How many of the chain's operations were applied when it was issued.
    pub at: u64,
}

#[derive(Deserialize)]
/// The first session format: one linear history.
struct First {
    applied: u64,
    top: u64,
    oldest: u64,
    tags: BTreeMap<String, u64>,
    current_tag: Option<String>,
    #[serde(default)]
    tag_order: Vec<String>,
}

/// The session: the chains, the tags, and an operation in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The file's format ([`SESSION_VERSION`]).
    pub version: u32,
    /// The number the next changeset gets (the first is 1).
    pub next_seq: u64,
    /// Each conversation's chain, by id.
    pub chains: BTreeMap<String, Chain>,
    /// Each tag and where it points.
    pub tags: BTreeMap<String, TagPoint>,
    /// The order tags were issued in (for forgetting the oldest).
    pub tag_order: Vec<String>,
    /// The chains whose operations a request without a tag undid, most
    /// recent last: what a `redo` without a tag redoes.
    #[serde(default)]
    pub undone: Vec<String>,
    /// The first changeset of each kept step, oldest first: the history
    /// keeps whole steps, counted as steps (a step of 1,000 files is one).
    #[serde(default)]
    pub steps: Vec<u64>,
}

impl Default for Session {
    fn default() -> Self {
        Session {
            version: SESSION_VERSION,
            next_seq: 1,
            chains: BTreeMap::new(),
            tags: BTreeMap::new(),
            tag_order: Vec::new(),
            undone: Vec::new(),
            steps: Vec::new(),
        }
    }
}

impl Session {
    /// Reads a session file of this or the first version (one linear
    /// history, which becomes the chain [`LEGACY_CHAIN`]).
    pub fn from_json(value: Value) -> serde_json::Result<Self> {
        if value.get("version").is_some() {
            return serde_json::from_value(value);
        }
        let first: First = serde_json::from_value(value)?;
        let oldest = first.oldest.max(1);
        let chain = Chain {
            base: oldest - 1,
            ops: (oldest..=first.top).collect(),
            len: first.applied,
            current_tag: first.current_tag,
            notices: Vec::new(),
        };
        let tags = first
            .tags
            .into_iter()
            .map(|(tag, at)| {
                let point = TagPoint {
                    chain: LEGACY_CHAIN.to_owned(),
                    at,
                };
                (tag, point)
            })
            .collect();
        Ok(Session {
            next_seq: first.top + 1,
            chains: BTreeMap::from([(LEGACY_CHAIN.to_owned(), chain)]),
            tags,
            tag_order: first.tag_order,
            ..Session::default()
        })
    }

    /// The chain `id`, made empty if it has no operations yet.
    pub fn chain_mut(&mut self, id: &str) -> &mut Chain {
        self.chains.entry(id.to_owned()).or_default()
    }

    /// How many operations of chain `id` are applied (0 for a chain with none).
    pub fn chain_len(&self, id: &str) -> u64 {
        self.chains.get(id).map_or(0, |c| c.len)
    }

    /// Issues `tag` for chain `id` at its current position.
    pub fn issue_tag(&mut self, tag: &str, id: &str) {
        let at = self.chain_len(id);
        self.tags.insert(
            tag.to_owned(),
            TagPoint {
                chain: id.to_owned(),
                at,
            },
        );
        self.tag_order.push(tag.to_owned());
        while self.tag_order.len() > MAX_TAGS {
            let old = self.tag_order.remove(0);
            self.tags.remove(&old);
        }
        if let Some(chain) = self.chains.get_mut(id) {
            chain.current_tag = Some(tag.to_owned());
        }
    }

    /// The chain whose last applied operation is the project's latest.
    pub fn latest_chain(&self) -> Option<(String, u64)> {
        self.chains
            .iter()
            .filter_map(|(id, c)| c.last_applied().map(|seq| (id.clone(), seq)))
            .max_by_key(|(_, seq)| *seq)
    }

    /// Drops the operations older than changeset `oldest` (deleted from the
    /// history), those `gone` names besides (changesets that joined a
    /// dropped step later), and the chains nothing points at any more.
    /// Answers the changesets of redo tails cut short, whose files are to
    /// be removed.
    pub fn prune(&mut self, oldest: u64, gone: &BTreeSet<u64>) -> Vec<u64> {
        let dropped = |s: u64| s < oldest || gone.contains(&s);
        let mut cut = Vec::new();
        for chain in self.chains.values_mut() {
            // Applied operations at the front go, counted in `base`.
            let front = chain
                .ops
                .iter()
                .take(usize::try_from(chain.len - chain.base).unwrap_or(usize::MAX))
                .take_while(|&&s| dropped(s))
                .count();
            chain.ops.drain(..front);
            chain.base += front as u64;
            // A redo tail is unusable from its first dropped operation on.
            let keep = usize::try_from(chain.len - chain.base).unwrap_or(usize::MAX);
            if let Some(at) = chain.ops.iter().skip(keep).position(|&s| dropped(s)) {
                cut.extend(chain.ops.split_off(keep + at));
            }
        }
        let removed: BTreeSet<u64> = cut.iter().copied().collect();
        self.steps
            .retain(|&head| head >= oldest && !removed.contains(&head));
        let pointed: BTreeSet<&str> = self.tags.values().map(|p| p.chain.as_str()).collect();
        let undone: BTreeSet<&str> = self.undone.iter().map(String::as_str).collect();
        self.chains.retain(|id, c| {
            !c.ops.is_empty()
                || !c.notices.is_empty()
                || pointed.contains(id.as_str())
                || undone.contains(id.as_str())
        });
        let chains = &self.chains;
        self.undone.retain(|id| chains.contains_key(id));
        cut
    }
}
