// GENERATED from packages/plugin/src/split.ts by scripts/generate-sdk-split.mjs (types removed), so a
// compartment can import `splitMessage` without node_modules; sdk-copy.test.ts fails when they differ.
/**
 * `splitMessage`: a long answer cut into messages a platform accepts. Kept free of any
 * dependency, like the rest of `@aide/plugin`, so that a channel in any sandbox can use it.
 */
const fenceOpen = /^ {0,3}(`{3,}|~{3,})/;
const closes = (line, marker) => {
    const match = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
    return match !== null && match[1][0] === marker[0] && match[1].length >= marker.length;
};
/** Paragraphs (split on blank lines) and fenced code blocks, in order. */
const blocksOf = (text) => {
    const blocks = [];
    let prose = [];
    const endProse = () => {
        if (prose.some((line) => line.trim() !== ""))
            blocks.push({ text: prose.join("\n"), fence: null, marker: "" });
        prose = [];
    };
    const lines = text.split("\n");
    for (let index = 0; index < lines.length; index++) {
        const line = lines[index];
        const open = fenceOpen.exec(line);
        if (open !== null) {
            endProse();
            const marker = open[1];
            const code = [line];
            while (++index < lines.length) {
                code.push(lines[index]);
                if (closes(lines[index], marker))
                    break;
            }
            blocks.push({ text: code.join("\n"), fence: line, marker });
        }
        else if (line.trim() === "") {
            endProse();
        }
        else {
            prose.push(line);
        }
    }
    endProse();
    return blocks;
};
/** Where to cut `text` to keep at most `limit` units: after the last space, else at `limit`, never in a surrogate pair. */
const cutAt = (text, limit) => {
    const space = text.lastIndexOf(" ", limit);
    if (space > 0)
        return { head: text.slice(0, space), rest: text.slice(space + 1) };
    let at = limit;
    const code = text.charCodeAt(at - 1);
    if (at > 1 && code >= 0xd800 && code <= 0xdbff)
        at -= 1;
    return { head: text.slice(0, at), rest: text.slice(at) };
};
/** Packs `units` joined by `glue` into pieces of at most `limit`; a unit too long is cut by `cut`. */
const pack = (units, glue, limit, cut) => {
    const pieces = [];
    let current = null;
    for (const unit of units) {
        const joined = current === null ? unit : `${current}${glue}${unit}`;
        if (joined.length <= limit) {
            current = joined;
            continue;
        }
        if (current !== null)
            pieces.push(current);
        current = null;
        const parts = unit.length <= limit ? [unit] : cut(unit);
        pieces.push(...parts.slice(0, -1));
        current = parts.at(-1) ?? null;
    }
    if (current !== null)
        pieces.push(current);
    return pieces;
};
const words = (line, limit) => {
    const pieces = [];
    let rest = line;
    while (rest.length > limit) {
        const { head, rest: tail } = cutAt(rest, limit);
        pieces.push(head);
        rest = tail;
    }
    return [...pieces, rest];
};
const lines = (paragraph, limit) => pack(paragraph.split("\n"), "\n", limit, (line) => words(line, limit));
/** A code block too long for one message: its lines in pieces, each closed and reopened with its fence. */
const codePieces = (block, limit) => {
    const fence = block.fence;
    const all = block.text.split("\n").slice(1);
    const closed = all.length > 0 && closes(all.at(-1), block.marker);
    const body = closed ? all.slice(0, -1) : all;
    const closing = closed ? all.at(-1).trim() : block.marker;
    const room = limit - fence.length - closing.length - 2;
    // A limit too small for the fences themselves: plain lines, as prose.
    if (room < 1)
        return lines(block.text, limit);
    const hard = (line) => {
        const pieces = [];
        for (let at = 0; at < line.length; at += room)
            pieces.push(line.slice(at, at + room));
        return pieces;
    };
    return pack(body.length === 0 ? [""] : body, "\n", room, hard).map((piece) => `${fence}\n${piece}\n${closing}`);
};
/**
 * Splits `text` (Markdown) into messages of at most `limit` characters (UTF-16 code units, as
 * `String.length` counts and as Telegram does), for platforms that cap a message's length
 * (Telegram 4,096, Discord 2,000, Slack 40,000…). It cuts between paragraphs first, then
 * between lines, then between words, and a word longer than the limit is cut (never inside a
 * surrogate pair). A fenced code block is never cut unless it alone is longer than the limit:
 * then each piece is closed and reopened with the same fence, so every message renders on its
 * own. Paragraphs that fit together are joined by one blank line. Blank text gives no message.
 *
 * @example
 * for (const chunk of splitMessage(message.text, 4096)) await api.sendMessage(chat, chunk)
 */
export const splitMessage = (text, limit) => {
    if (!Number.isInteger(limit) || limit < 1)
        throw new RangeError("splitMessage: limit must be a positive integer");
    const blocks = blocksOf(text.replace(/\r\n/g, "\n"));
    return pack(blocks.map((block) => block.text), "\n\n", limit, (unit) => {
        const block = blocks.find((candidate) => candidate.text === unit);
        return block.fence === null ? lines(unit, limit) : codePieces(block, limit);
    });
};
