//! Dog tags and conversations: which chain a request belongs to, rewinds to
//! an older tag, the undo and redo of a request without a tag, and telling a
//! conversation what others did to its operations.
//!
//! A tag points at a position in one chain. A request with a tag continues
//! that chain; one without a tag (or with a tag radium does not know) starts
//! a chain of its own. A rewind undoes only its own chain's operations and
//! stops, with a warning naming the operation, where the file no longer shows
//! what that operation wrote (another conversation, or someone outside
//! radium, changed it since).

use super::history::Changeset;
use super::{random_tag_part, EditSession};
use crate::error::{Error, Result};

/// How many chains a request without a tag can redo, most recent last.
const MAX_UNDONE: usize = 1000;

impl EditSession {
    /// A fresh chain id (for a request that continues no conversation).
    pub(super) fn new_chain() -> String {
        random_tag_part()
    }

    /// Issues a new tag for `chain` at its current position.
    pub(super) fn new_tag(&mut self, chain: &str) -> String {
        let tag = format!("{}-{}", self.project.tag_prefix(), random_tag_part());
        self.history.session.issue_tag(&tag, chain);
        tag
    }

    /// The tag of `chain`'s current state: `given` (the request's tag) when
    /// it names that state, else the chain's own, else a new one. A read
    /// with the tag of the current state thus changes nothing.
    pub(super) fn current_tag(&mut self, chain: &str, given: Option<&str>) -> String {
        let s = &self.history.session;
        let at_head = |t: &str| {
            s.tags
                .get(t)
                .is_some_and(|p| p.chain == chain && p.at == s.chain_len(chain))
        };
        if let Some(t) = given.filter(|t| at_head(t)) {
            let t = t.to_owned();
            if let Some(c) = self.history.session.chains.get_mut(chain) {
                if c.current_tag.as_deref() != Some(t.as_str()) {
                    c.current_tag = Some(t.clone());
                }
            }
            return t;
        }
        let current = s.chains.get(chain).and_then(|c| c.current_tag.clone());
        match current {
            Some(t) if at_head(&t) => t,
            _ => self.new_tag(chain),
        }
    }

    /// Starts a conversation with no operations yet and answers its tag
    /// (saved at once, so another process can continue it).
    pub fn start_conversation(&mut self) -> Result<String> {
        let chain = Self::new_chain();
        let tag = self.new_tag(&chain);
        self.history.save()?;
        Ok(tag)
    }

    /// The conversation an agent session works in: `tag`'s (at its latest
    /// state) when radium knows the tag, else a new one (saved at once).
    /// Its tag is what the door records its own steps with (an accepted
    /// review), so they and the agent's writes are one chain.
    pub fn continue_conversation(&mut self, tag: Option<&str>) -> Result<String> {
        match tag.filter(|t| self.history.session.tags.contains_key(*t)) {
            Some(t) => Ok(self.latest_tag(t)),
            None => self.start_conversation(),
        }
    }

    /// The tag of the latest state of `tag`'s conversation: `tag` itself
    /// when nothing was done since, or when radium does not know it (the
    /// request then starts a conversation of its own, as any unknown tag).
    /// Clients that share one conversation (an agent session and the
    /// `rad mcp` it started) continue it this way instead of rewinding each
    /// other's operations.
    pub fn latest_tag(&self, tag: &str) -> String {
        let s = &self.history.session;
        s.tags
            .get(tag)
            .and_then(|point| s.chains.get(&point.chain))
            .and_then(|chain| chain.current_tag.clone())
            .filter(|t| s.tags.contains_key(t))
            .unwrap_or_else(|| tag.to_owned())
    }

    /// The tag a turn of an agent session starts from: the latest state of
    /// `tag`'s conversation (a new conversation when radium does not know
    /// the tag), saved at once. A door restores the files to before the
    /// prompt with it, and [`EditSession::end_turn`] joins what the turn did.
    pub fn turn_start(&mut self, tag: Option<&str>) -> Result<String> {
        let Some(latest) = tag
            .filter(|t| self.history.session.tags.contains_key(*t))
            .map(|t| self.latest_tag(t))
        else {
            return self.start_conversation();
        };
        let chain = self
            .conversation_of(&latest)
            .map(str::to_owned)
            .unwrap_or_default();
        let tag = self.current_tag(&chain, Some(&latest));
        self.history.save()?;
        Ok(tag)
    }

    /// The end of a turn begun at `tag_before` (see
    /// [`EditSession::turn_start`]): every operation its conversation
    /// applied since becomes one step. Answers how many changesets it holds.
    pub fn end_turn(&mut self, tag_before: &str) -> Result<usize> {
        let Some(point) = self.history.session.tags.get(tag_before).cloned() else {
            return Ok(0);
        };
        self.history.join_since(&point.chain, point.at)
    }

    /// The operations of `tag`'s conversation applied after `tag`, oldest
    /// first, as `(seq, command, file)`, with the tag of the latest state:
    /// what another client of the conversation (the `rad mcp` of an agent
    /// session) did since.
    pub fn operations_since(&self, tag: &str) -> (String, Vec<(u64, String, String)>) {
        let latest = self.latest_tag(tag);
        let s = &self.history.session;
        let (Some(from), Some(to)) = (s.tags.get(tag), s.tags.get(&latest)) else {
            return (latest, Vec::new());
        };
        let Some(chain) = s.chains.get(&from.chain) else {
            return (latest, Vec::new());
        };
        let ops = (from.at..to.at.min(chain.len))
            .filter_map(|at| at.checked_sub(chain.base))
            .filter_map(|i| chain.ops.get(usize::try_from(i).ok()?))
            .filter_map(|seq| self.history.read_changeset(*seq).ok())
            .map(|cs| (cs.seq, cs.command, cs.file))
            .collect();
        (latest, ops)
    }

    /// Why radium does not know `tag`: forgotten (or never issued) here, or
    /// of another project.
    pub(super) fn unknown_tag(&self, tag: &str) -> String {
        if tag.split('-').next() == Some(self.project.tag_prefix()) {
            format!("unknown tag `{tag}` (too old or never issued)")
        } else {
            format!("tag `{tag}` belongs to another project (or is not a tag)")
        }
    }

    /// The conversation (chain id) `tag` belongs to, if radium knows the
    /// tag: two tags of one conversation answer the same id. A client that
    /// keeps its own conversation (`rad mcp`) checks a tag it is asked to
    /// rewind to with it.
    pub fn conversation_of(&self, tag: &str) -> Option<&str> {
        self.history
            .session
            .tags
            .get(tag)
            .map(|point| point.chain.as_str())
    }

    /// The chain `tag` belongs to, after rewinding it to `tag` if the tag is
    /// older than the chain's state; with the warnings to show. `None`: the
    /// tag is not known here (the request starts a chain of its own).
    pub(super) fn rewind(&mut self, tag: &str) -> (Option<String>, Vec<String>) {
        let mut warnings = Vec::new();
        let Some(point) = self.history.session.tags.get(tag).cloned() else {
            warnings.push(format!(
                "{}; nothing undone, and this request starts a conversation of its own",
                self.unknown_tag(tag)
            ));
            return (None, warnings);
        };
        let chain = point.chain;
        if let Some(c) = self.history.session.chains.get_mut(&chain) {
            warnings.append(&mut c.notices);
        }
        let len = self.history.session.chain_len(&chain);
        if point.at > len {
            warnings.push(format!(
                "tag `{tag}` is from the future (it follows operation {} of its conversation, which is at {len}); nothing redone",
                point.at
            ));
            return (Some(chain), warnings);
        }
        if point.at < len {
            warnings.push(format!(
                "conversation rewind detected. Undoing {} operation(s).",
                len - point.at
            ));
            while self.history.session.chain_len(&chain) > point.at {
                match self.history.undo_step(&chain) {
                    Ok(sets) => {
                        warnings
                            .extend(sets.iter().map(|cs| format!("  undone: {}", cs.describe())));
                        if self.history.session.chain_len(&chain) < point.at {
                            // The tag was inside that step: it is undone whole.
                            self.rewound_past = Some(sets);
                        }
                    }
                    Err(e) => {
                        let left = self.history.session.chain_len(&chain) - point.at;
                        warnings.push(format!(
                            "partial rewind: {e}; {left} operation(s) of this conversation stay applied"
                        ));
                        return (Some(chain), warnings);
                    }
                }
            }
            if let Some(c) = self.history.session.chains.get_mut(&chain) {
                c.current_tag = Some(tag.to_owned());
            }
        }
        (Some(chain), warnings)
    }

    /// `undo` without a tag: the project's latest operation, whichever
    /// conversation made it (that conversation is told on its next call).
    pub(super) fn undo_latest(&mut self) -> Result<Vec<Changeset>> {
        let Some((chain, _)) = self.history.session.latest_chain() else {
            return Err(Error::Edit("nothing to undo".into()));
        };
        let sets = self.history.undo_step(&chain)?;
        // The conversation's latest state moved back: a client that follows
        // it (a door recording a review) continues from there, not from a
        // tag that is now ahead of it.
        self.new_tag(&chain);
        let s = &mut self.history.session;
        s.undone.push(chain.clone());
        if s.undone.len() > MAX_UNDONE {
            s.undone.remove(0);
        }
        for cs in &sets {
            s.chain_mut(&chain).tell(format!(
                "another client undid an operation of this conversation: {}",
                cs.describe()
            ));
        }
        Ok(sets)
    }

    /// `redo` without a tag: the operation the latest `undo` without a tag
    /// took back, if its conversation has not moved on since.
    pub(super) fn redo_latest(&mut self) -> Result<Vec<Changeset>> {
        while let Some(chain) = self.history.session.undone.pop() {
            let redoable = self
                .history
                .session
                .chains
                .get(&chain)
                .is_some_and(|c| c.next_redo().is_some());
            if !redoable {
                continue;
            }
            let sets = self.history.redo_step(&chain).inspect_err(|_| {
                self.history.session.undone.push(chain.clone());
            })?;
            self.new_tag(&chain);
            for cs in &sets {
                self.history.session.chain_mut(&chain).tell(format!(
                    "another client redid an operation of this conversation: {}",
                    cs.describe()
                ));
            }
            return Ok(sets);
        }
        Err(Error::Edit("nothing to redo".into()))
    }
}
