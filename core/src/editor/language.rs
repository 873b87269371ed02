//! Language ids, as editors name them (VS Code's ids; Neovim filetypes map onto them).

use std::path::Path;

const BY_EXTENSION: &[(&str, &str)] = &[
    ("rs", "rust"),
    ("ts", "typescript"),
    ("mts", "typescript"),
    ("cts", "typescript"),
    ("tsx", "typescriptreact"),
    ("js", "javascript"),
    ("mjs", "javascript"),
    ("cjs", "javascript"),
    ("jsx", "javascriptreact"),
    ("py", "python"),
    ("pyi", "python"),
    ("lua", "lua"),
    ("c", "c"),
    ("h", "c"),
    ("cc", "cpp"),
    ("cpp", "cpp"),
    ("cxx", "cpp"),
    ("hpp", "cpp"),
    ("hh", "cpp"),
    ("hxx", "cpp"),
    ("go", "go"),
    ("sh", "shellscript"),
    ("bash", "shellscript"),
    ("zsh", "shellscript"),
    ("fish", "fish"),
    ("java", "java"),
    ("kt", "kotlin"),
    ("kts", "kotlin"),
    ("scala", "scala"),
    ("swift", "swift"),
    ("cs", "csharp"),
    ("fs", "fsharp"),
    ("rb", "ruby"),
    ("php", "php"),
    ("pl", "perl"),
    ("pm", "perl"),
    ("r", "r"),
    ("dart", "dart"),
    ("zig", "zig"),
    ("hs", "haskell"),
    ("ml", "ocaml"),
    ("ex", "elixir"),
    ("exs", "elixir"),
    ("erl", "erlang"),
    ("clj", "clojure"),
    ("vim", "vim"),
    ("sql", "sql"),
    ("json", "json"),
    ("jsonc", "jsonc"),
    ("yaml", "yaml"),
    ("yml", "yaml"),
    ("toml", "toml"),
    ("xml", "xml"),
    ("html", "html"),
    ("htm", "html"),
    ("css", "css"),
    ("scss", "scss"),
    ("less", "less"),
    ("md", "markdown"),
    ("markdown", "markdown"),
    ("tex", "latex"),
    ("ps1", "powershell"),
    ("bat", "bat"),
    ("cmd", "bat"),
    ("txt", "plaintext"),
];

const BY_FILE_NAME: &[(&str, &str)] = &[
    ("Makefile", "makefile"),
    ("GNUmakefile", "makefile"),
    ("makefile", "makefile"),
    ("Dockerfile", "dockerfile"),
    ("Containerfile", "dockerfile"),
    ("CMakeLists.txt", "cmake"),
    ("Cargo.lock", "toml"),
    ("Gemfile", "ruby"),
    ("Rakefile", "ruby"),
    (".bashrc", "shellscript"),
    (".bash_profile", "shellscript"),
    (".zshrc", "shellscript"),
    (".profile", "shellscript"),
    ("PKGBUILD", "shellscript"),
    (".gitignore", "ignore"),
    ("go.mod", "go.mod"),
];

const BY_INTERPRETER: &[(&str, &str)] = &[
    ("sh", "shellscript"),
    ("bash", "shellscript"),
    ("zsh", "shellscript"),
    ("dash", "shellscript"),
    ("ksh", "shellscript"),
    ("fish", "fish"),
    ("python", "python"),
    ("node", "javascript"),
    ("deno", "typescript"),
    ("ts-node", "typescript"),
    ("bun", "javascript"),
    ("lua", "lua"),
    ("luajit", "lua"),
    ("ruby", "ruby"),
    ("perl", "perl"),
    ("php", "php"),
    ("Rscript", "r"),
];

/// The language of an interpreter line (`#!/usr/bin/env python3`), if it names a known one.
pub fn language_from_shebang(first_line: &str) -> Option<&'static str> {
    let rest = first_line.strip_prefix("#!")?.trim();
    let mut words = rest.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        program = words.find(|w| !w.starts_with('-'))?;
    }
    // python3.11 → python, luajit-2.1 → luajit
    let base: &str = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let base = base.strip_suffix('-').unwrap_or(base);
    BY_INTERPRETER
        .iter()
        .find(|(name, _)| *name == base || *name == program)
        .map(|(_, id)| *id)
}

/// The language id of `path` from its file name, then its extension, then
/// the interpreter line `first_line` (a shebang); `plaintext` when unknown.
pub fn detect_language(path: &str, first_line: Option<&str>) -> &'static str {
    let path = Path::new(path);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if let Some((_, id)) = BY_FILE_NAME.iter().find(|(n, _)| *n == name) {
        return id;
    }
    if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
        let ext = ext.to_ascii_lowercase();
        if let Some((_, id)) = BY_EXTENSION.iter().find(|(e, _)| *e == ext) {
            return id;
        }
    }
    first_line
        .and_then(language_from_shebang)
        .unwrap_or("plaintext")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_extension_name_and_shebang() {
        assert_eq!(detect_language("/w/src/main.rs", None), "rust");
        assert_eq!(detect_language("/w/App.tsx", None), "typescriptreact");
        assert_eq!(detect_language("/w/a.TS", None), "typescript");
        assert_eq!(detect_language("/w/x.hpp", None), "cpp");
        assert_eq!(detect_language("/w/x.h", None), "c");
        assert_eq!(detect_language("/w/Makefile", None), "makefile");
        assert_eq!(detect_language("/w/Dockerfile", None), "dockerfile");
        assert_eq!(
            detect_language("/w/bin/tool", Some("#!/usr/bin/env python3")),
            "python"
        );
        assert_eq!(
            detect_language("/w/bin/tool", Some("#!/bin/bash -e")),
            "shellscript"
        );
        assert_eq!(
            detect_language("/w/bin/tool", Some("#!/usr/bin/env -S node --flag")),
            "javascript"
        );
        assert_eq!(
            detect_language("/w/bin/tool", Some("#!/usr/bin/luajit-2.1")),
            "lua"
        );
        assert_eq!(detect_language("/w/bin/tool", Some("echo hi")), "plaintext");
        assert_eq!(detect_language("/w/notes", None), "plaintext");
        // The extension wins over a shebang.
        assert_eq!(detect_language("/w/x.py", Some("#!/bin/sh")), "python");
    }
}
