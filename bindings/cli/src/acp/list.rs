//! `rad acp --list`: the setting each ACP editor needs to run an agent
//! behind radium, ready to paste (docs/acp-proxy.md has the same).

/// The settings for `agent` (its id in agents.toml), `rad` being `rad`'s
/// path.
pub fn settings(agent: &str, rad: &str) -> String {
    format!(
        r#"# Zed: settings.json
{{
  "agent_servers": {{
    "radium-{agent}": {{
      "type": "custom",
      "command": "{rad}",
      "args": ["acp", "{agent}"],
      "env": {{}}
    }}
  }}
}}

# JetBrains IDEs (AI Assistant, ACP agents): ~/.jetbrains/acp.json
{{
  "agent_servers": {{
    "radium-{agent}": {{
      "command": "{rad}",
      "args": ["acp", "{agent}"]
    }}
  }}
}}

;; Emacs agent-shell: init.el
(setq agent-shell-radium-{agent}-config
      (agent-shell-make-agent-config
       :mode-line-name "radium-{agent}"
       :buffer-name "radium-{agent}"
       :shell-prompt "radium-{agent}> "
       :shell-prompt-regexp "radium-{agent}> "
       :client-maker (lambda (buffer)
                       (agent-shell--make-acp-client
                        :command "{rad}"
                        :command-params '("acp" "{agent}")
                        :context-buffer buffer))))
(add-to-list 'agent-shell-agent-configs agent-shell-radium-{agent}-config)

-- codecompanion.nvim: setup()
require("codecompanion").setup({{
  adapters = {{
    acp = {{
      radium_{under} = function()
        return require("codecompanion.adapters").extend("claude_code", {{
          name = "radium_{under}",
          formatted_name = "radium ({agent})",
          commands = {{ default = {{ "{rad}", "acp", "{agent}" }} }},
        }})
      end,
    }},
  }},
  strategies = {{ chat = {{ adapter = "radium_{under}" }} }},
}})

-- avante.nvim: setup()
require("avante").setup({{
  provider = "radium_{under}",
  acp_providers = {{
    ["radium_{under}"] = {{
      command = "{rad}",
      args = {{ "acp", "{agent}" }},
      env = {{}},
    }},
  }},
}})
"#,
        under = agent.replace('-', "_"),
    )
}
