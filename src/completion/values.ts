/**
 * The values an option takes, for completion and help ("(choices: …)"), where the command checks them itself
 * (case-insensitively, with its own message) rather than through commander's `.choices()`: the completion scripts
 * offer them instead of file names. Takes them from the contract's lists, never restated.
 */
export function offering<T extends { argChoices?: string[] }>(option: T, values: readonly string[]): T {
  option.argChoices = [...values];
  return option;
}

const lists = new WeakMap<object, string[]>();

/**
 * For an option whose value is a comma-separated list of `values` (`--events a,b`): the completion scripts complete
 * the item after the last comma and keep what comes before it. Unlike {@link offering}, --help does not list them
 * (a list of 14 event types would drown the option's line); the command checks each item itself.
 */
export function offeringList<T extends object>(option: T, values: readonly string[]): T {
  lists.set(option, [...values]);
  return option;
}

/** The choices of an option whose value is a comma-separated list of them, if it is one. */
export function listChoicesOf(option: object): string[] | undefined {
  return lists.get(option);
}

const outputs = new WeakMap<object, readonly string[]>();

/**
 * The `-o/--output` formats a command (and, unless they say otherwise, its sub-commands) accepts: the root parses
 * -o for every command with the union of all formats, so the completion scripts offer each command only these.
 */
export function acceptsOutput<T extends object>(cmd: T, formats: readonly string[]): T {
  outputs.set(cmd, [...formats]);
  return cmd;
}

/** The -o formats of a command: its own declaration, else its nearest ancestor's. */
export function outputFormatsOf(cmd: { parent: unknown }): readonly string[] | undefined {
  for (let c: { parent: unknown } | null = cmd; c; c = c.parent as { parent: unknown } | null) {
    const f = outputs.get(c);
    if (f) return f;
  }
  return undefined;
}
