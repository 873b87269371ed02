//! Workspace trust: a workspace's own extensions and agents run code, so they
//! run only once the user has trusted that workspace. The store is
//! `$RADIUM_HOME/trust.json`: `{"trusted": ["/abs/path", ...]}`; trusting a
//! folder trusts everything under it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::support::atomic::write_atomic;

/// The trust store file name under `$RADIUM_HOME`.
pub const TRUST_FILE: &str = "trust.json";

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFile {
    #[serde(default)]
    trusted: Vec<PathBuf>,
}

/// The trust store of one `$RADIUM_HOME`.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
}

fn canonical(path: &Path) -> Result<PathBuf> {
    path.canonicalize().map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })
}

impl TrustStore {
    /// The store in `radium_home`.
    pub fn new(radium_home: &Path) -> Self {
        TrustStore {
            path: radium_home.join(TRUST_FILE),
        }
    }

    fn read(&self) -> Result<TrustFile> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| Error::Config {
                path: self.path.clone(),
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(TrustFile::default()),
            Err(source) => Err(Error::Io {
                path: self.path.clone(),
                source,
            }),
        }
    }

    fn write(&self, file: &TrustFile) -> Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                path: dir.to_owned(),
                source,
            })?;
        }
        let text = serde_json::to_string_pretty(file).unwrap_or_default();
        write_atomic(&self.path, &(text + "\n"))
    }

    /// The trusted folders.
    pub fn list(&self) -> Result<Vec<PathBuf>> {
        Ok(self.read()?.trusted)
    }

    /// Whether `workspace` (after resolving symlinks) is a trusted folder or inside one.
    /// An unreadable store trusts nothing.
    pub fn is_trusted(&self, workspace: &Path) -> bool {
        let Ok(real) = workspace.canonicalize() else {
            return false;
        };
        self.read()
            .is_ok_and(|f| f.trusted.iter().any(|t| real.starts_with(t)))
    }

    /// Trusts `workspace`; returns its resolved path.
    pub fn trust(&self, workspace: &Path) -> Result<PathBuf> {
        let real = canonical(workspace)?;
        if !real.is_dir() {
            return Err(Error::InvalidArgument(format!(
                "`trust`: `{}` is not a directory",
                workspace.display()
            )));
        }
        let mut file = self.read()?;
        if !file.trusted.contains(&real) {
            file.trusted.push(real.clone());
            self.write(&file)?;
        }
        Ok(real)
    }

    /// Withdraws trust from `workspace`; returns whether it was trusted.
    pub fn revoke(&self, workspace: &Path) -> Result<bool> {
        let real = canonical(workspace)?;
        let mut file = self.read()?;
        let before = file.trusted.len();
        file.trusted.retain(|t| t != &real);
        let removed = file.trusted.len() != before;
        if removed {
            self.write(&file)?;
        }
        Ok(removed)
    }
}
