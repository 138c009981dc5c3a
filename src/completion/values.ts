
/**
 * The values an option takes, for completion and help ("(choices: …)"), where the command checks them itself
 * (case-insensitively, with its own message) rather than through commander's `.choices()`: the completion scripts
 * offer them instead of file names. Takes them from the contract's lists, never restated.
 */
export function offering<T extends { argChoices?: string[] }>(option: T, values: readonly string[]): T {
  option.argChoices = [...values];
  return option;
}
