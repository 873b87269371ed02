//! The servers an engine runs: one per workspace and language, started on
//! first use, kept warm, stopped when unused for the spec's idle time, when
//! they crash (started again on next use) and when the engine goes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::OnceCell;

use super::client::Client;
use crate::code::servers::ServerSpec;
use crate::support::lock::unpoisoned as lock;
use crate::support::log::{Level, Log};

type Key = (PathBuf, String);
type Slot = Arc<OnceCell<Arc<Client>>>;

/// The running servers of one engine.
#[derive(Default)]
pub struct Servers {
    slots: Mutex<HashMap<Key, Slot>>,
    runtime: Mutex<Option<tokio::runtime::Handle>>,
    /// Where starts, stops and crashes are written.
    log: Arc<Log>,
}

impl std::fmt::Debug for Servers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Servers")
            .field("running", &lock(&self.slots).len())
            .finish_non_exhaustive()
    }
}

impl Servers {
    /// No servers yet; what they do is written to `log`.
    pub fn with_log(log: Arc<Log>) -> Self {
        Servers {
            slots: Mutex::default(),
            runtime: Mutex::default(),
            log,
        }
    }

    /// The running server of `spec.language` for `root`, started (and
    /// initialized) when there is none or the last one stopped. Must run on
    /// the engine's runtime.
    pub async fn get(
        self: &Arc<Self>,
        root: &Path,
        spec: &ServerSpec,
    ) -> Result<Arc<Client>, String> {
        let key = (root.to_owned(), spec.language.clone());
        lock(&self.runtime).get_or_insert_with(tokio::runtime::Handle::current);
        let slot = {
            let mut slots = lock(&self.slots);
            let slot = slots.entry(key.clone()).or_default();
            // A server that stopped (crashed) or whose spec changed is
            // replaced.
            if slot.get().is_some_and(|c| {
                c.stopped().is_some()
                    || c.spec.command != spec.command
                    || c.spec.init_options != spec.init_options
            }) {
                if let Some(old) = slot.get() {
                    if let Some(why) = old.stopped() {
                        self.log.write(
                            Level::Warn,
                            "lsp",
                            format!(
                                "`{}` for {} had stopped ({why}): starting it again",
                                spec.name(),
                                root.display()
                            ),
                        );
                    }
                    old.kill();
                }
                *slot = Slot::default();
            }
            Arc::clone(slot)
        };
        let client = slot
            .get_or_try_init(|| async {
                let client = match Client::start(spec, root).await {
                    Ok(client) => client,
                    Err(e) => {
                        self.log.write(
                            Level::Warn,
                            "lsp",
                            format!(
                                "`{}` did not start for {}: {e}",
                                spec.name(),
                                root.display()
                            ),
                        );
                        return Err(e);
                    }
                };
                self.log.write(
                    Level::Info,
                    "lsp",
                    format!(
                        "`{}` started for {} in {} ms",
                        spec.name(),
                        root.display(),
                        client.start_ms()
                    ),
                );
                self.watch_idle(&key, &client);
                Ok::<_, String>(client)
            })
            .await?;
        // One that stopped since it started is replaced on the next use.
        match client.stopped() {
            None => Ok(Arc::clone(client)),
            Some(why) => Err(format!("`{}` stopped: {why}", spec.name())),
        }
    }

    /// The server of `language` for `root`, if one is running.
    pub fn running(&self, root: &Path, language: &str) -> Option<Arc<Client>> {
        let slots = lock(&self.slots);
        let client = slots.get(&(root.to_owned(), language.to_owned()))?.get()?;
        client.stopped().is_none().then(|| Arc::clone(client))
    }

    /// Stops `client` when it has been unused for its idle time.
    fn watch_idle(self: &Arc<Self>, key: &Key, client: &Arc<Client>) {
        let idle = Duration::from_secs(client.spec.idle_seconds.max(1));
        let (servers, weak, key) = (Arc::downgrade(self), Arc::downgrade(client), key.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep((idle / 4).max(Duration::from_millis(250))).await;
                let Some(client) = weak.upgrade() else { return };
                if client.stopped().is_some() {
                    return;
                }
                if client.idle() >= idle {
                    if let Some(servers) = servers.upgrade() {
                        servers.log.write(
                            Level::Info,
                            "lsp",
                            format!(
                                "`{}` for {} stopped: unused for {} s",
                                client.spec.name(),
                                key.0.display(),
                                idle.as_secs()
                            ),
                        );
                    }
                    forget(&servers, &key, &client);
                    client.shutdown().await;
                    return;
                }
            }
        });
    }

    /// Stops every server (`shutdown` and `exit`, then the process group).
    pub async fn stop_all(&self) {
        let clients: Vec<Arc<Client>> = lock(&self.slots)
            .drain()
            .filter_map(|(_, slot)| slot.get().cloned())
            .collect();
        for client in clients {
            client.shutdown().await;
        }
    }
}

/// Takes `client` out of `servers` (if it is still the one there).
fn forget(servers: &Weak<Servers>, key: &Key, client: &Arc<Client>) {
    if let Some(servers) = servers.upgrade() {
        let mut slots = lock(&servers.slots);
        if slots
            .get(key)
            .and_then(|s| s.get())
            .is_some_and(|c| Arc::ptr_eq(c, client))
        {
            slots.remove(key);
        }
    }
}

impl Drop for Servers {
    /// The engine is going: each server is asked to stop (`shutdown`,
    /// `exit`) on the runtime, all at once, for at most 2 s; off the
    /// runtime's threads the caller waits for that, on them it cannot, and
    /// a server still there is ended with its process group.
    fn drop(&mut self) {
        let clients: Vec<Arc<Client>> = lock(&self.slots)
            .drain()
            .filter_map(|(_, slot)| slot.get().cloned())
            .collect();
        if clients.is_empty() {
            return;
        }
        let Some(handle) = lock(&self.runtime).clone() else {
            for client in &clients {
                client.kill();
            }
            return;
        };
        let stops: Vec<_> = clients
            .iter()
            .map(|c| {
                let c = Arc::clone(c);
                handle.spawn(async move { c.shutdown().await })
            })
            .collect();
        if tokio::runtime::Handle::try_current().is_err() {
            handle.block_on(async {
                let all = async {
                    for stop in stops {
                        let _ = stop.await;
                    }
                };
                let _ = tokio::time::timeout(Duration::from_secs(2), all).await;
            });
        }
        for client in &clients {
            client.kill();
        }
    }
}
