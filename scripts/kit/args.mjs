// How every `oc` command reads its command line: node's parseArgs with positionals, and a mistake as one line naming
// the command and where its usage is (STYLE: a CLI fails in one human line), exit code 2.
import { parseArgs } from "node:util";

/** `{ values, positionals }`, or `{ code }` once the mistake is said. */
export function parseCommand(argv, options, command, io) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true });
  } catch (err) {
    return { code: usageMistake(command, io)(err.message) };
  }
}

/** `mistake(message)` says the mistake in one line and gives the exit code, 2. */
export function usageMistake(command, io) {
  return (message) => {
    io.err(`${command}: ${message} (${command} --help for usage)`);
    return 2;
  };
}
