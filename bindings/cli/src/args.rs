//! The command line of `rad`: its commands and their arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::{clipboard, code, hooks};

pub(crate) const EXAMPLES: &str = "\
Examples:
  rad chat claude                          talk with an agent (ACP) in this workspace
  rad chat claude --prompt 'fix the bug'   one turn, streamed, then exit
  rad acp claude                           be the ACP agent of an editor (Zed, JetBrains, Emacs), claude behind
  rad view src/main.rs --start 10 --end 20 show lines with numbers
  rad str-replace src/main.rs --old a --new b
  rad undo                                 take back the last edit (any conversation)
  rad rewind <tag> --dry-run               the files a rewind to <tag> would change
  rad read-var src/app.py --var total      a name's definition and references
  rad modify-var src/app.py --from total --to grand_total
  rad rename-file src/util.ts src/lib/util.ts   move it, update its imports
  rad clipboard send src/main.rs --lines 10-20 --prompt 'explain this'
  rad clipboard receive --apply            apply an answer copied from a chat
  rad hooks list                           the hooks by type
  rad hooks test audit --context ctx.json  run one hook alone
  rad trust                                let this workspace's hooks and agents run
  rad completions bash > ~/.local/share/bash-completion/completions/rad";

#[derive(Parser)]
#[command(
    name = "rad",
    version,
    about = "The radium engine on the command line",
    after_help = EXAMPLES
)]
pub(crate) struct Cli {
    /// The workspace (default: the current directory): its .radium/ holds hooks.toml and agents.toml.
    #[arg(long, global = true)]
    pub(crate) workspace: Option<PathBuf>,
    /// Print compact JSON instead of indented JSON.
    #[arg(long, global = true)]
    pub(crate) compact: bool,
    /// The dog tag of the conversation state (edit commands): an older tag
    /// undoes the edits made after it.
    #[arg(long, global = true)]
    pub(crate) tag: Option<String>,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Run one agent step: the editor context comes as JSON on stdin, or from
    /// the RADIUM_EDITOR_* variables; prints the code blocks as JSON.
    Step {
        /// The agent id (from .radium/agents.toml or $RADIUM_HOME/agents.toml).
        agent: String,
        /// The instruction for the agent.
        #[arg(long, short, default_value = "")]
        prompt: String,
    },
    /// Talk with an ACP agent: interactive, or one turn with --prompt. In
    /// the chat, `/restore` lists the prompts and `/restore N` puts the
    /// files back to how they were before prompt N (after listing them);
    /// `/mode [M]`, `/model [M]` and `/effort [E]` list or switch the agent's
    /// mode, model and reasoning effort.
    Chat {
        /// The agent id (an ACP agent); none: the only ready one, or pick one
        /// from a numbered list (`rad agents list`). Not needed with `--list`.
        agent: Option<String>,
        /// List the project's past conversations (newest first) and exit;
        /// with AGENT, also the agent's own sessions of the project radium
        /// does not hold (marked; `--resume agent:ID` takes one up).
        #[arg(long, conflicts_with_all = ["resume", "continue_latest", "prompt", "yes"])]
        list: bool,
        /// Continue a past conversation (its id from `--list`; without one,
        /// pick it from a numbered list). Its earlier turns are printed once.
        #[arg(long, num_args = 0..=1, default_missing_value = "", value_name = "ID")]
        resume: Option<String>,
        /// Continue the project's latest conversation with the agent.
        #[arg(long = "continue", conflicts_with = "resume")]
        continue_latest: bool,
        /// One prompt: print the answer as it streams and exit when the turn ends.
        #[arg(long, short)]
        prompt: Option<String>,
        /// Print one JSON event a line.
        #[arg(long)]
        json: bool,
        /// Allow every permission request the agent makes.
        #[arg(long)]
        yes: bool,
        /// The agent's mode (one it offers, e.g. `plan`); `/mode` in the chat lists them.
        #[arg(long)]
        mode: Option<String>,
        /// The agent's model (one it offers); `/model` in the chat lists them.
        #[arg(long)]
        model: Option<String>,
        /// The agent's reasoning effort (one it offers, e.g. `high`); `/effort`
        /// in the chat lists them.
        #[arg(long)]
        effort: Option<String>,
        /// An image file (in the workspace) sent with the first prompt, to
        /// an agent that takes images; repeatable.
        #[arg(long = "image", value_name = "PATH")]
        images: Vec<std::path::PathBuf>,
    },
    /// Speak ACP on stdio as an agent to an editor (Zed, JetBrains IDEs,
    /// Emacs agent-shell, codecompanion, avante), with the agent behind
    /// radium: its writes recorded, its permission requests through
    /// radium's rules and hooks first, and /undo, /redo, /rewind N,
    /// /changes, /hooks answered by radium.
    Acp {
        /// The agent id (an agent with `protocol = "acp"`); not needed with `--list`.
        agent: Option<String>,
        /// Print each editor's setting to paste, for AGENT (default `claude`), and exit.
        #[arg(long)]
        list: bool,
    },
    /// Extract the code blocks of an agent's answer read on stdin.
    Extract,
    /// Validate an editor context (JSON on stdin, or RADIUM_EDITOR_*) and print it.
    Context,
    /// The agents: `list` (the catalogue and agents.toml, with status),
    /// `install ID`, `check [ID]` (start each and say which fail); none:
    /// the usable agents as JSON.
    Agents {
        /// `check [ID...]`; none: list them.
        #[command(subcommand)]
        command: Option<crate::agents::AgentsCommand>,
    },
    /// Send one raw request (JSON argument, or stdin) and print the response.
    Request {
        /// The request, e.g. '{"command":"ping"}'; read from stdin when absent.
        json: Option<String>,
    },
    /// Install, list or remove extensions (also `rad extension ...`).
    #[command(subcommand, alias = "extension")]
    Ext(ExtCommand),
    /// Trust a workspace (default: the current one) so its extensions and agents may run.
    Trust {
        /// The workspace folder.
        path: Option<PathBuf>,
        /// Withdraw trust instead.
        #[arg(long)]
        revoke: bool,
    },
    /// Print the version and ABI version.
    Version,
    /// Show a file with numbered lines, or list a folder (through the daemon).
    View {
        /// The file or folder, relative to the project (the current directory).
        path: String,
        /// First line to show.
        #[arg(long)]
        start: Option<u64>,
        /// Last line to show.
        #[arg(long)]
        end: Option<u64>,
    },
    /// Create a file (content from --content or stdin).
    Create {
        /// The new file.
        path: String,
        /// Its content (default: stdin).
        #[arg(long)]
        content: Option<String>,
        /// Replace an existing file.
        #[arg(long)]
        overwrite: bool,
    },
    /// Replace text that occurs exactly once in a file.
    StrReplace {
        /// The file.
        path: String,
        /// The text to find (must occur exactly once).
        #[arg(long)]
        old: String,
        /// Its replacement.
        #[arg(long)]
        new: String,
    },
    /// Insert text after a line (0 = top).
    Insert {
        /// The file.
        path: String,
        /// The line to insert after.
        #[arg(long)]
        line: u64,
        /// The text.
        #[arg(long)]
        text: String,
    },
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Put the files of a conversation back to a tag (a prompt's
    /// `tag_before`: the files as they were before that prompt); with
    /// --dry-run, list the files and operations it would change, changing
    /// nothing.
    Rewind {
        /// The tag to go back (or forward) to.
        to: String,
        /// Only say what would change.
        #[arg(long)]
        dry_run: bool,
    },
    /// List a file's conflicts, or resolve one (--id with --resolution ours|theirs|both|text).
    SolveConflict {
        /// The file with conflict markers.
        path: String,
        /// The conflict to resolve.
        #[arg(long)]
        id: Option<u64>,
        /// ours, theirs, both or text.
        #[arg(long)]
        resolution: Option<String>,
        /// The text for --resolution text.
        #[arg(long)]
        text: Option<String>,
    },
    /// Serve radium's edit tools to an agent over MCP on stdio (--tag
    /// continues a conversation); see docs/mcp.md.
    Mcp,
    /// Claude Code's PreToolUse hook for a radium session: passes the hook's
    /// input (stdin) to the session's engine at SOCKET and prints its answer;
    /// refuses the call (exit 2) when the engine cannot answer.
    #[command(hide = true)]
    HookRelay {
        /// The session's relay socket.
        socket: std::path::PathBuf,
    },
    /// Clipboard mode: send code to a chat, receive its answer.
    #[command(subcommand)]
    Clipboard(clipboard::ClipboardCommand),
    /// The workspace's hooks: list, info, enable, disable, validate, test.
    #[command(subcommand)]
    Hooks(hooks::HooksCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// A name's definition and every reference in the workspace (a
    /// language server, else the syntax tree).
    ReadVar {
        /// The file where the name is.
        file: String,
        /// The name.
        #[arg(long)]
        var: String,
        #[command(flatten)]
        at: code::At,
        #[command(flatten)]
        options: code::CodeOptions,
    },
    /// Rename a variable, function or type across the workspace, as one
    /// step `rad undo` takes back.
    ModifyVar {
        /// The file where the name is.
        file: String,
        /// Its name now.
        #[arg(long)]
        from: String,
        /// Its new name.
        #[arg(long)]
        to: String,
        #[command(flatten)]
        at: code::At,
        /// Print the edits and their diff, write nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        options: code::CodeOptions,
    },
    /// Move a file and update the imports that name it, as one step.
    RenameFile {
        /// The file.
        old: String,
        /// Its new path (must not exist).
        new: String,
        /// Print the edits and their diff, write nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        options: code::CodeOptions,
    },
    /// The language servers: `rad lsp list`.
    #[command(subcommand)]
    Lsp(code::LspCommand),
    /// Check that the daemon answers.
    Ping,
    /// Stop the daemon.
    Shutdown,
    /// Run the daemon in the foreground (normally started on first use).
    Daemon {
        /// Seconds without requests before it exits.
        #[arg(long, default_value_t = 900)]
        idle: u64,
    },
}

#[derive(Subcommand)]
pub(crate) enum ExtCommand {
    /// Install an extension from a local folder (copied after validation).
    Install {
        /// The extension's folder (holding radium-extension.json).
        path: PathBuf,
        /// Install for the workspace instead of the user.
        #[arg(long)]
        workspace_level: bool,
        /// Replace an installed extension of the same name.
        #[arg(long)]
        force: bool,
    },
    /// List extensions: name, version, level, hooks, status (active, blocked and why).
    List,
    /// Remove an installed extension.
    Remove {
        /// The extension's name.
        name: String,
    },
}
