/** Install instructions for `notevox completion --help` (kept apart from the generators so registering the command stays cheap). */
export const completionCommandHelp = `
Install:
  bash  source <(notevox completion bash)                        # in ~/.bashrc; or once, for new shells:
        notevox completion bash > ~/.local/share/bash-completion/completions/notevox
  zsh   notevox completion zsh > "\${fpath[1]}/_notevox"          # any directory on $fpath; then restart zsh
        (or, after compinit in ~/.zshrc: source <(notevox completion zsh))
  fish  notevox completion fish > ~/.config/fish/completions/notevox.fish`;
