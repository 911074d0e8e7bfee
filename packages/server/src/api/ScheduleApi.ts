import { ScheduleModel } from "@aide/kernel"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, NotFound } from "./ApiErrors.js"
import { Authentication } from "./Security.js"

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
      .setPayload(ScheduleModel.TaskInput)
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
      .setPayload(ScheduleModel.HeartbeatPatch)
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
      .setPayload(ScheduleModel.TaskPatch)
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
