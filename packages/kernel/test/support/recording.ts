import { type Context, Effect, Layer } from "effect"

export type Calls = Array<string>

/** Wraps every method (and Effect-valued field) of `service` to record its name in `calls`. */
export const recorded = <S extends object>(service: S, calls: Calls): S => {
  const wrapped: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(service)) {
    if (typeof value === "function") {
      wrapped[name] = (...args: Array<unknown>) => {
        calls.push(name)
        return value.apply(service, args)
      }
    } else if (Effect.isEffect(value)) {
      wrapped[name] = Effect.zipRight(
        Effect.sync(() => calls.push(name)),
        value,
      )
    } else {
      wrapped[name] = value
    }
  }
  return wrapped as S
}

/** `layer`'s service, recorded. */
export const spy = <I, S extends object, E, R>(tag: Context.Tag<I, S>, layer: Layer.Layer<I, E, R>, calls: Calls) =>
  Layer.effect(
    tag,
    Effect.map(tag, (service) => recorded(service, calls)),
  ).pipe(Layer.provide(layer))
