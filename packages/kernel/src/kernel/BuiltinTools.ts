import { Layer } from "effect"
import * as InboxTools from "../inbox/InboxTools.js"
import * as MemoryTools from "../memory/MemoryTools.js"
import * as TimeTool from "../tools/TimeTool.js"

/**
 * The built-in tools, each contributed by the feature it belongs to: `current_time` (source
 * `time`), `notify` (`inbox`), `update_working_memory` (`memory`, while working memory is on).
 * Built-ins keep their names as ids and never need approval: they only read or write the owner's
 * own data.
 */
export const layer = Layer.mergeAll(TimeTool.layer, InboxTools.layer, MemoryTools.layer)
