/**
 * User strings (assertion messages, trace fields, simulation names) printed on a terminal with
 * their control characters escaped: an ANSI or OSC sequence in a message must not clear the
 * screen, move the cursor or set the window title. Colour sequences (SGR, `ESC [ ... m`) are
 * kept when the output is coloured, since the CLI's own colours are among them.
 */

// C0 controls but tab and newline, DEL, and the C1 controls (which terminals also act on).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is escaped.
const CONTROL = /[\x00-\x08\x0B-\x1F\x7F-\x9F]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: an SGR sequence starts with ESC.
const SGR_OR_CONTROL = /\x1B\[[0-9;]*m|[\x00-\x08\x0B-\x1F\x7F-\x9F]/g;

function escaped(char: string): string {
  return `\\x${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
}

/** `text` with every control character but tab and newline written as `\xNN`; `keepColours` keeps SGR sequences. */
export function escapeTerminal(text: string, keepColours = false): string {
  if (!keepColours) return text.replace(CONTROL, escaped);
  return text.replace(SGR_OR_CONTROL, (match) => (match.length > 1 ? match : escaped(match)));
}
