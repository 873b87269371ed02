//! Installing a catalogue agent: `npm install` of its pinned package into a
//! staging folder of radium's cache, checked, marked complete and renamed to
//! `<cache>/<name>@<version>` in one step, so a failed or interrupted
//! install leaves no half-written agent behind (only a staging folder the
//! next install replaces).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::catalogue::{CatalogueEntry, COMPLETE_MARKER};
use crate::error::{Error, Result};
use crate::support::process::{run_process, ProcessSpec};

/// The longest an install may take: 15 minutes.
pub const INSTALL_TIMEOUT: Duration = Duration::from_secs(900);

/// The most of npm's output kept (its end names the failure).
const MAX_NPM_OUTPUT: usize = 1 << 20;

/// What an install did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Installed {
    /// The agent's id.
    pub agent: String,
    /// The package and version installed.
    pub package: String,
    /// The folder it is in.
    pub path: PathBuf,
    /// False when it was installed already (nothing was fetched).
    pub fetched: bool,
}

fn failed(entry: &CatalogueEntry, message: impl std::fmt::Display) -> Error {
    Error::AgentFailed(format!("installing agent `{}` failed: {message}", entry.id))
}

/// What npm said about its failure: its error code and summary lines
/// (`npm error code ...`, `npm error network ...`), else its last `n` lines.
fn summary(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let named: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| {
            [
                "error code",
                "error errno",
                "error network",
                "error 404",
                "error notarget",
                "ERR!",
            ]
            .iter()
            .any(|k| l.contains(k))
        })
        .take(n)
        .collect();
    if named.is_empty() {
        lines[lines.len().saturating_sub(n)..].join("\n")
    } else {
        named.join("\n")
    }
}

/// Installs `entry`'s pinned package into `cache` with the `npm` program
/// (`None`: npm is not on `PATH`). Must run inside the engine's runtime.
pub async fn install(
    entry: &CatalogueEntry,
    cache: &Path,
    npm: Option<PathBuf>,
) -> Result<Installed> {
    let (Some(package), Some(version), Some(dir), Some(bin)) = (
        entry.package.as_deref(),
        entry.version.as_deref(),
        entry.cache_dir(cache),
        entry.bin.as_deref(),
    ) else {
        return Err(Error::InvalidArgument(format!(
            "agent `{}` is built into radium: there is nothing to install",
            entry.id
        )));
    };
    let spec = format!("{package}@{version}");
    let done = |fetched| Installed {
        agent: entry.id.clone(),
        package: spec.clone(),
        path: dir.clone(),
        fetched,
    };
    let program = dir.join("node_modules/.bin").join(bin);
    if dir.join(COMPLETE_MARKER).is_file() && program.is_file() {
        return Ok(done(false));
    }
    let Some(npm) = npm else {
        return Err(failed(
            entry,
            format!("npm is not on PATH: install Node.js 20 or later (it brings npm, https://nodejs.org), then `rad agents install {}` again", entry.id),
        ));
    };
    std::fs::create_dir_all(cache).map_err(|source| Error::Io {
        path: cache.to_owned(),
        source,
    })?;
    let staging = cache.join(format!(
        ".{}.partial-{}",
        dir.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&staging);
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(&staging).map_err(io(&staging))?;
    let cleanup = Staging(staging.clone());
    std::fs::write(
        staging.join("package.json"),
        "{\"name\":\"radium-agent\",\"private\":true}\n",
    )
    .map_err(io(&staging))?;
    let run = run_process(
        ProcessSpec {
            program: npm,
            args: [
                "install",
                "--no-audit",
                "--no-fund",
                "--no-save",
                "--loglevel=error",
                &spec,
            ]
            .map(str::to_owned)
            .to_vec(),
            cwd: Some(staging.clone()),
            env: Vec::new(),
            max_output: MAX_NPM_OUTPUT,
        },
        Vec::new(),
    );
    let output = tokio::time::timeout(INSTALL_TIMEOUT, run)
        .await
        .map_err(|_| {
            failed(
                entry,
                format!(
                    "npm install {spec} took more than {} minutes",
                    INSTALL_TIMEOUT.as_secs() / 60
                ),
            )
        })?
        .map_err(|e| failed(entry, e))?;
    if output.code != Some(0) {
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            output.stderr
        );
        let offline = [
            "ENOTFOUND",
            "EAI_AGAIN",
            "ETIMEDOUT",
            "ECONNREFUSED",
            "ENETUNREACH",
        ]
        .iter()
        .any(|code| text.contains(code));
        let why = if offline {
            "npm could not reach the registry (offline? a proxy?)"
        } else {
            "npm failed"
        };
        return Err(failed(
            entry,
            format!(
                "{why}: npm install {spec} exited with {}:\n{}",
                output.code.map_or("a signal".into(), |c| c.to_string()),
                summary(&text, 6)
            ),
        ));
    }
    if !staging.join("node_modules/.bin").join(bin).is_file() {
        return Err(failed(
            entry,
            format!("npm installed {spec} but it has no program `{bin}`"),
        ));
    }
    std::fs::write(staging.join(COMPLETE_MARKER), &spec).map_err(io(&staging))?;
    if dir.exists() {
        // An unfinished copy (no marker) from before: replaced.
        std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
    }
    std::fs::rename(&staging, &dir).map_err(io(&dir))?;
    cleanup.keep();
    Ok(done(true))
}

/// Removes the staging folder unless the install finished.
struct Staging(PathBuf);

impl Staging {
    fn keep(mut self) {
        self.0 = PathBuf::new();
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.0.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
