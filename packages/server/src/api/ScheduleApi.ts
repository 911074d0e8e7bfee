import { ScheduleModel } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, NotFound } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

/**
 * Task and heartbeat bodies are decoded loosely here: the kernel validates them (null clears,
 * cron/runAt exclusion, time zones, destinations) and words every problem for the owner.
 */
const body = (identifier: string, description: string) =>
  Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    identifier,
    description,
    message: () => "request body must be a JSON object",
  })

export const TaskBody = body(
  "ScheduledTaskInput",
  "name, prompt, exactly one of cron (5 or 6 fields) or runAt (ISO 8601 with offset, in the future); " +
    "optional enabled (default true), timezone (IANA), maxRuns (positive integer, cron tasks only), " +
    "destination (one of GET /api/schedule/destinations)",
)

export const TaskPatchBody = body(
  "ScheduledTaskPatch",
  "Partial task: null clears an optional field; setting cron clears runAt (and vice versa, runAt also clears maxRuns). " +
    "id, nextRun and isRunning are read-only and ignored.",
)

export const HeartbeatPatchBody = body(
  "HeartbeatPatch",
  "Partial heartbeat: enabled, cron, tasks (checklist items { id?, description, enabled? }; missing ids are generated), " +
    'destination, activeHours { start: "HH:mm", end: "HH:mm" } in the config timezone. null clears destination ' +
    "and activeHours; nextRun and isRunning are read-only and ignored.",
)

const TaskPath = Schema.Struct({ id: Schema.String })

/** SPEC "Schedule": scheduled tasks and the heartbeat (Bearer token). */
export class ScheduleApi extends HttpApiGroup.make("schedule")
  .add(
    HttpApiEndpoint.get("list", "/api/schedule")
      .addSuccess(ScheduleModel.ScheduleList)
      .annotate(OpenApi.Summary, "List scheduled tasks and the heartbeat"),
  )
  .add(
    HttpApiEndpoint.post("create", "/api/schedule")
      .annotate(OpenApi.Summary, "Create a scheduled task (cron or one-off)")
      .setPayload(TaskBody)
      .addSuccess(ScheduleModel.ScheduledTask, { status: 201 })
      .addError(BadRequest.Wire),
  )
  // Before /:id, so the static segment is documented first (the router prefers it anyway).
  .add(
    HttpApiEndpoint.get("heartbeat", "/api/schedule/heartbeat")
      .addSuccess(ScheduleModel.Heartbeat)
      .annotate(OpenApi.Summary, "Read the heartbeat"),
  )
  .add(
    HttpApiEndpoint.patch("updateHeartbeat", "/api/schedule/heartbeat")
      .annotate(OpenApi.Summary, "Change the heartbeat")
      .setPayload(HeartbeatPatchBody)
      .addSuccess(ScheduleModel.Heartbeat)
      .addError(BadRequest.Wire),
  )
  .add(
    HttpApiEndpoint.get("get", "/api/schedule/:id")
      .annotate(OpenApi.Summary, "Read a scheduled task")
      .setPath(TaskPath)
      .addSuccess(ScheduleModel.ScheduledTask)
      .addError(NotFound.Wire),
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/schedule/:id")
      .annotate(OpenApi.Summary, "Change a scheduled task")
      .setPath(TaskPath)
      .setPayload(TaskPatchBody)
      .addSuccess(ScheduleModel.ScheduledTask)
      .addError(BadRequest.Wire)
      .addError(NotFound.Wire),
  )
  .add(
    HttpApiEndpoint.del("delete", "/api/schedule/:id")
      .annotate(OpenApi.Summary, "Delete a scheduled task")
      .setPath(TaskPath)
      .addSuccess(Schema.Struct({ deleted: Schema.String }))
      .addError(NotFound.Wire),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Scheduled tasks and the heartbeat (Bearer token)") {}
