-- The plugin's version: the native module it loads must be the same
-- (scripts/release.sh checks it equals the workspace version in Cargo.toml).
return "0.1.0"
