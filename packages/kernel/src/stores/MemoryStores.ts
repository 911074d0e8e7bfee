import type { Layer } from "effect"
import type { Ids } from "../ids/Ids.js"
import { catalog, type Stores } from "./Stores.js"

/**
 * Every store in this process's memory (`Stores.catalog`; threads take their ids from `Ids`).
 * Nothing touches the disk and everything is gone when the process ends: for tests, demos, and
 * hosts that keep nothing between runs. Semantic recall finds nothing (`RecallIndex.layerEmpty`:
 * no full-text or vector index in memory).
 */
export const layer: Layer.Layer<Stores, never, Ids> = catalog.memory
