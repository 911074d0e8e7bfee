/**
 * The client's types, all from `generated/openapi.ts` (the server's own OpenAPI document), so a
 * contract change shows up as a type error here, never as drift.
 */
import type { components, operations } from "./generated/openapi.js"

export type { components, operations, paths } from "./generated/openapi.js"

type Schemas = components["schemas"]
type JsonOf<R> = R extends { content: { "application/json": infer T } } ? T : never

/** The JSON body of an operation's success answer (200 or 201). */
export type ResponseOf<K extends keyof operations> = operations[K]["responses"] extends infer R
  ? R extends { 200: infer Ok }
    ? JsonOf<Ok>
    : R extends { 201: infer Created }
      ? JsonOf<Created>
      : never
  : never

/** The JSON request body of an operation. */
export type BodyOf<K extends keyof operations> = operations[K] extends {
  requestBody?: { content: { "application/json": infer T } }
}
  ? T
  : never

/** The query parameters of an operation. */
export type QueryOf<K extends keyof operations> = NonNullable<operations[K]["parameters"]["query"]>

export type TokenPair = Schemas["TokenPair"]
export type Session = Schemas["Session"]
export type ServiceStatus = Schemas["ServiceStatus"]
export type ChatPart = Schemas["ChatPart"]
export type ChatBody = Schemas["ChatBody"]
export type ApproveRequest = Schemas["ApproveRequest"]
export type ThreadList = Schemas["ThreadList"]
export type ThreadSummary = Schemas["ThreadSummary"]
export type ThreadDetail = Schemas["ThreadDetail"]
export type Thread = Schemas["Thread"]
export type ForkResult = Schemas["ForkResult"]
export type AppConfig = ResponseOf<"config.get">
export type ConfigPatch = Schemas["ConfigPatch"]
export type ScheduledTask = Schemas["ScheduledTask"]
export type ConsentDetails = Schemas["ConsentDetails"]
export type McpClientGrant = Schemas["McpClientGrant"]
export type ScheduledTaskInput = Schemas["ScheduledTaskInput"]
export type ScheduledTaskPatch = Schemas["ScheduledTaskPatch"]
export type ScheduleList = Schemas["ScheduleList"]
export type Heartbeat = Schemas["Heartbeat"]
export type HeartbeatPatch = Schemas["HeartbeatPatch"]
export type InboxMessage = Schemas["InboxMessage"]
export type InboxPatch = Schemas["InboxPatch"]
export type Plugin = Schemas["Plugin"]
export type PairingList = Schemas["PairingList"]
export type Pairing = Schemas["Pairing"]
export type McpServer = Schemas["McpServer"]
export type NewMcpServer = Schemas["NewMcpServer"]
export type Provider = Schemas["Provider"]
export type WorkingMemory = Schemas["WorkingMemory"]
export type Observations = Schemas["Observations"]
export type MemoryRecordView = Schemas["MemoryRecordView"]
