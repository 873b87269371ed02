//! The daemon's engines: one per project root, so that every request is
//! answered with that project's hooks, extensions and trust, as an engine
//! made in-process for the project would answer it.
//!
//! A request with a `cwd` goes to the engine of that root, made on first use
//! with the daemon's settings and `workspace` set to the root (an untrusted
//! root gets no workspace hooks or extensions, exactly as in-process). A
//! request without `cwd` goes to the daemon's own engine. A session command
//! goes to the engine that holds the session (ids are unique in the process).
//! An engine is made again when the root's trust, its `.radium/hooks.toml`
//! or an extension folder changed; one unused for the idle time, with no
//! session open and no request in flight, is dropped (its language servers
//! stopped).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::protocol::engine::Engine;

/// What an engine of a root was made from: a change makes a new engine.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    trusted: bool,
    files: Vec<Option<(SystemTime, u64)>>,
}

impl Stamp {
    fn of(base: &Engine, root: &Path) -> Self {
        let seen = |path: PathBuf| {
            std::fs::metadata(path)
                .ok()
                .and_then(|m| Some((m.modified().ok()?, m.len())))
        };
        let home = base.radium_home();
        Stamp {
            trusted: base.workspace_trusted(Some(root)),
            files: vec![
                seen(root.join(".radium/hooks.toml")),
                seen(root.join(".radium/extensions")),
                seen(home.join("extensions")),
            ],
        }
    }
}

struct Project {
    engine: Engine,
    stamp: Stamp,
    used: Instant,
}

/// The engines of a daemon: its own and one per project root.
pub(super) struct Projects {
    base: Engine,
    open: Mutex<HashMap<PathBuf, Project>>,
    /// Engines replaced by a newer one while they held a session or a
    /// request: kept until those end.
    retired: Mutex<Vec<Engine>>,
    idle: Duration,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each change is one insert or remove: a poisoned map is consistent.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether `engine` is doing something that must outlive its slot.
fn in_use(engine: &Engine) -> bool {
    !engine.sessions.is_empty() || !engine.inflight.is_empty()
}

impl Projects {
    /// The daemon's engines, `base` answering requests without `cwd`; a
    /// project's engine unused for `idle` is dropped.
    pub(super) fn new(base: Engine, idle: Duration) -> Self {
        Projects {
            base,
            open: Mutex::default(),
            retired: Mutex::default(),
            idle,
        }
    }

    /// The engine that answers `request`.
    pub(super) fn route(&self, request: &Value) -> Engine {
        let command = request.get("command").and_then(Value::as_str);
        let session = request.pointer("/args/session").and_then(Value::as_str);
        if let (Some(command), Some(id)) = (command, session) {
            if command.starts_with("session-") {
                if let Some(engine) = self.holding(id) {
                    return engine;
                }
            }
        }
        match request.get("cwd").and_then(Value::as_str) {
            Some(cwd) if !cwd.is_empty() => self.for_root(Path::new(cwd)),
            _ => self.base.clone(),
        }
    }

    /// Every engine of the daemon, its own first.
    pub(super) fn engines(&self) -> Vec<Engine> {
        let mut all = vec![self.base.clone()];
        all.extend(lock(&self.open).values().map(|p| p.engine.clone()));
        all.extend(lock(&self.retired).iter().cloned());
        all
    }

    /// The engine that holds session `id`.
    fn holding(&self, id: &str) -> Option<Engine> {
        self.engines()
            .into_iter()
            .find(|engine| engine.session(id).is_ok())
    }

    /// The engine of `root`, made (again) when needed.
    fn for_root(&self, root: &Path) -> Engine {
        let key = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        let stamp = Stamp::of(&self.base, &key);
        let mut open = lock(&self.open);
        if let Some(project) = open.get_mut(&key) {
            if project.stamp == stamp {
                project.used = Instant::now();
                return project.engine.clone();
            }
        }
        let config = crate::protocol::config::EngineConfig {
            workspace: Some(key.clone()),
            ..self.base.config().clone()
        };
        // Engine::new keeps a broken hooks.toml as the engine's error
        // instead of failing; anything else answers with the daemon's own.
        let Ok(engine) = Engine::new(config) else {
            return self.base.clone();
        };
        let project = Project {
            engine: engine.clone(),
            stamp,
            used: Instant::now(),
        };
        if let Some(old) = open.insert(key, project) {
            if in_use(&old.engine) {
                lock(&self.retired).push(old.engine);
            }
        }
        engine
    }

    /// Drops the engines unused for the idle time that hold no session and
    /// no request, and the retired ones that are done.
    pub(super) fn sweep(&self) {
        let dropped: Vec<Engine> = {
            let mut open = lock(&self.open);
            let idle: Vec<PathBuf> = open
                .iter()
                .filter(|(_, p)| p.used.elapsed() >= self.idle && !in_use(&p.engine))
                .map(|(root, _)| root.clone())
                .collect();
            idle.iter()
                .filter_map(|root| open.remove(root))
                .map(|p| p.engine)
                .collect()
        };
        let done: Vec<Engine> = {
            let mut retired = lock(&self.retired);
            let (busy, done) = std::mem::take(&mut *retired).into_iter().partition(in_use);
            *retired = busy;
            done
        };
        // Outside the locks: dropping an engine stops its language servers.
        drop((dropped, done));
    }
}
