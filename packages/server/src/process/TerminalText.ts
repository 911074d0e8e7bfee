/**
 * A log line's text as a terminal may show it (the `pretty` format, `aide start` in a terminal):
 * without the control sequences a plugin's error message could carry to set the window title,
 * clear the screen or paint a line of its own. The same rule as the CLI's `printable`
 * (packages/cli/src/Printable.ts), newlines and tabs kept; the `json` format escapes them anyway.
 */

// Written as escapes (String.raw), so the file itself holds no control bytes.
const sequence = new RegExp(
  [
    // OSC, DCS, SOS, PM, APC (7- or 8-bit): up to the terminator, or the end when unterminated.
    String.raw`(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)`,
    // CSI: parameters, intermediates, a final byte.
    String.raw`(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?`,
    // Any other escape.
    String.raw`\x1b[ -/]*[0-~]?`,
  ].join("|"),
  "g",
)

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters removed
const control = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g

const bidi = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

export const terminalText = (text: string): string => text.replace(sequence, "").replace(control, "").replace(bidi, "")
