/**
 * Text the CLI did not write itself — a plugin's manifest, its load errors, its tool names and
 * errors, relayed by the server or read from disk — as a terminal may show it: without the control
 * sequences that would let it set the window title, clear the screen or paint a fake "✓ all tests
 * passed" (docs/security.md). Sequences are removed whole, then any control character left;
 * colours the CLI adds itself go around the result, never through this. The server's log format
 * applies the same rule (`terminalText`); the CLI bundles no server code, so a test holds the
 * two equal instead.
 */

// Written as escapes (String.raw), so the file itself holds no control bytes.
const sequence = new RegExp(
  [
    // OSC, DCS, SOS, PM, APC (ESC ] P X ^ _, or their 8-bit forms): a string up to its terminator
    // (BEL, ESC \ or ST), or to the end of the text when unterminated, as a terminal would swallow it.
    String.raw`(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)`,
    // CSI (ESC [ or 0x9b): parameters, intermediates, a final byte.
    String.raw`(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?`,
    // Any other escape: intermediates and a final byte (ESC c resets the terminal, ESC ( B …).
    String.raw`\x1b[ -/]*[0-~]?`,
  ].join("|"),
  "g",
)

/** C0 (but tab and newline, handled apart), DEL and C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters removed
const control = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g

/** Bidirectional overrides and isolates, which reorder what follows them on the line. */
const bidi = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/**
 * `value` (any type: a manifest is read unchecked) as plain printable text. A single-line field
 * (an id, a name, a version) has its tabs and newlines turned into spaces, so it cannot start a
 * line of its own; `multiline` text (a description, an error) keeps them.
 */
export const printable = (value: unknown, options: { readonly multiline?: boolean } = {}): string => {
  const text = String(value ?? "")
    .replace(sequence, "")
    .replace(control, "")
    .replace(bidi, "")
  return options.multiline === true ? text : text.replace(/[\t\n]/g, " ")
}
