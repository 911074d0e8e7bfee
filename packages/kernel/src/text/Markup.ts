/** `<`, `>` and `&` as entities: nothing inside a frame such as `<working_memory>` can close it or open another. */
export const escapeMarkup = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
